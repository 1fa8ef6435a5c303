#include "server/accounting.h"

namespace tensord::server {

Charge::Charge(std::shared_ptr<Account> account, uint64_t bytes)
    : account_(std::move(account)), bytes_(bytes) {
  account_->usage_.tensors += 1;
  account_->usage_.bytes += bytes;
  account_->daemon_->tensors += 1;
  account_->daemon_->bytes += bytes;
}

Charge& Charge::operator=(Charge&& other) noexcept {
  if (this != &other) {
    release();
    account_ = std::move(other.account_);
    bytes_ = other.bytes_;
  }
  return *this;
}

void Charge::release() {
  if (!account_) return;
  account_->usage_.tensors -= 1;
  account_->usage_.bytes -= bytes_;
  account_->daemon_->tensors -= 1;
  account_->daemon_->bytes -= bytes_;
  account_.reset();
}

}  // namespace tensord::server
