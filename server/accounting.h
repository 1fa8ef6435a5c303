// Live tensors and bytes, per session and for the whole daemon (SessionStats), and the session's
// memory limit (--session-memory-limit). Event-loop only: charges are taken and released where
// capabilities are created and destroyed.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tensord::server {

struct Usage {
  uint64_t tensors = 0;
  uint64_t bytes = 0;
};

// The bytes a session holds from one origin: where its tensors were made ("fit.py:12 (matmul)",
// "upload"), so that a quota or out-of-memory error can say what to free.
struct Holding {
  std::string origin;
  uint64_t bytes = 0;
  uint64_t tensors = 0;
};

// One session's usage, which also counts into the daemon's. Shared by everything that charges
// it, so a tensor may outlive the Session capability that made it. Bytes are counted once per
// buffer: a run's output that is its input (`td.sync(x)`) or a view of it holds no new memory.
class Account {
 public:
  // `limit`: the bytes of live tensors the session may hold (0: no limit).
  explicit Account(std::shared_ptr<Usage> daemon, uint64_t limit = 0)
      : daemon_(std::move(daemon)), limit_(limit) {}

  const Usage& usage() const { return usage_; }
  const Usage& daemon_usage() const { return *daemon_; }
  uint64_t limit() const { return limit_; }
  // Of (buffer, bytes) pairs about to be charged, the bytes of buffers not held yet (each
  // counted once).
  uint64_t new_bytes(std::span<const std::pair<const void*, uint64_t>> buffers) const;
  // Throws tensord::Error(Quota) when `bytes` more would take the session past its limit,
  // naming `what` ("this upload", "the run's 2 outputs"), what it holds, where it was made and
  // the limit.
  void check_room(uint64_t bytes, std::string_view what) const;
  // The origins holding the most bytes, largest first, at most `n`.
  std::vector<Holding> largest_holdings(size_t n) const;
  // "fit.py:12 (matmul) 8.00 MiB (8388608 bytes) in 1 tensor, upload ..." of the largest three;
  // empty when the session holds nothing.
  std::string holdings_text() const;

 private:
  friend class Charge;
  struct Held {
    uint64_t charges = 0;
    uint64_t bytes = 0;  // the largest any of its charges named (a view names less)
    std::string origin;  // the first charge's that named one
  };
  void add(const void* buffer, uint64_t bytes, std::string origin);
  void remove(const void* buffer);

  std::shared_ptr<Usage> daemon_;
  uint64_t limit_ = 0;
  Usage usage_;
  std::unordered_map<const void*, Held> held_;
};

// RAII: one live tensor of `bytes` in `buffer` on an account (and the daemon's) while this
// exists; the buffer's bytes count while any charge on it does. `origin` says where the tensor
// was made, for errors that name what holds the session's memory.
class Charge {
 public:
  Charge() = default;
  Charge(std::shared_ptr<Account> account, const void* buffer, uint64_t bytes,
         std::string origin = {});
  ~Charge() { release(); }
  Charge(Charge&& other) noexcept
      : account_(std::move(other.account_)), buffer_(other.buffer_), bytes_(other.bytes_) {}
  Charge& operator=(Charge&& other) noexcept;

  uint64_t bytes() const { return bytes_; }
  const std::shared_ptr<Account>& account() const { return account_; }

 private:
  void release();

  std::shared_ptr<Account> account_;
  const void* buffer_ = nullptr;
  uint64_t bytes_ = 0;
};

}  // namespace tensord::server
