#include "server/accounting.h"

#include <algorithm>
#include <map>
#include <string>

#include "engine/ir/error.h"

namespace tensord::server {

void Account::check_room(uint64_t bytes, std::string_view what) const {
  if (limit_ == 0 || (bytes <= limit_ && usage_.bytes <= limit_ - bytes)) return;
  throw Error(ErrorCode::Quota,
              std::string(what) + " needs " + bytes_text(bytes) + " and the session's " +
                  std::to_string(usage_.tensors) + " live tensors hold " +
                  bytes_text(usage_.bytes) + " of its " + bytes_text(limit_) +
                  " (the daemon's --session-memory-limit); free tensors it no longer needs" +
                  (usage_.bytes == 0 ? "" : "; the largest holders: " + holdings_text()));
}

std::vector<Holding> Account::largest_holdings(size_t n) const {
  std::map<std::string_view, Holding> by_origin;
  for (const auto& [buffer, held] : held_) {
    Holding& h = by_origin[held.origin];
    h.bytes += held.bytes;
    h.tensors += held.charges;
  }
  std::vector<Holding> out;
  out.reserve(by_origin.size());
  for (auto& [origin, h] : by_origin) {
    h.origin = origin.empty() ? "unknown" : std::string(origin);
    out.push_back(std::move(h));
  }
  std::sort(out.begin(), out.end(), [](const Holding& a, const Holding& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.origin < b.origin;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

std::string Account::holdings_text() const {
  std::string s;
  for (const Holding& h : largest_holdings(3)) {
    if (!s.empty()) s += ", ";
    s += h.origin + " " + bytes_text(h.bytes) + " in " + std::to_string(h.tensors) +
         (h.tensors == 1 ? " tensor" : " tensors");
  }
  return s;
}

uint64_t Account::new_bytes(std::span<const std::pair<const void*, uint64_t>> buffers) const {
  std::unordered_map<const void*, uint64_t> fresh;
  for (const auto& [buffer, bytes] : buffers) {
    if (held_.contains(buffer)) continue;
    uint64_t& b = fresh[buffer];
    b = std::max(b, bytes);
  }
  uint64_t total = 0;
  for (const auto& [buffer, bytes] : fresh) total += bytes;
  return total;
}

void Account::add(const void* buffer, uint64_t bytes, std::string origin) {
  usage_.tensors += 1;
  daemon_->tensors += 1;
  Held& h = held_[buffer];
  h.charges += 1;
  if (h.origin.empty()) h.origin = std::move(origin);
  if (bytes > h.bytes) {
    usage_.bytes += bytes - h.bytes;
    daemon_->bytes += bytes - h.bytes;
    h.bytes = bytes;
  }
}

void Account::remove(const void* buffer) {
  usage_.tensors -= 1;
  daemon_->tensors -= 1;
  auto it = held_.find(buffer);
  if (--it->second.charges == 0) {
    usage_.bytes -= it->second.bytes;
    daemon_->bytes -= it->second.bytes;
    held_.erase(it);
  }
}

Charge::Charge(std::shared_ptr<Account> account, const void* buffer, uint64_t bytes,
               std::string origin)
    : account_(std::move(account)), buffer_(buffer), bytes_(bytes) {
  account_->add(buffer_, bytes_, std::move(origin));
}

Charge& Charge::operator=(Charge&& other) noexcept {
  if (this != &other) {
    release();
    account_ = std::move(other.account_);
    buffer_ = other.buffer_;
    bytes_ = other.bytes_;
  }
  return *this;
}

void Charge::release() {
  if (!account_) return;
  account_->remove(buffer_);
  account_.reset();
}

}  // namespace tensord::server
