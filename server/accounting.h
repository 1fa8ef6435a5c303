// Live tensors and bytes, per session and for the whole daemon (SessionStats). Event-loop only:
// charges are taken and released where capabilities are created and destroyed.
#pragma once

#include <cstdint>
#include <memory>

namespace tensord::server {

struct Usage {
  uint64_t tensors = 0;
  uint64_t bytes = 0;
};

// One session's usage, which also counts into the daemon's. Shared by everything that charges
// it, so a tensor may outlive the Session capability that made it.
class Account {
 public:
  explicit Account(std::shared_ptr<Usage> daemon) : daemon_(std::move(daemon)) {}

  const Usage& usage() const { return usage_; }
  const Usage& daemon_usage() const { return *daemon_; }

 private:
  friend class Charge;
  std::shared_ptr<Usage> daemon_;
  Usage usage_;
};

// RAII: one live tensor of `bytes` on an account (and the daemon's) while this exists.
class Charge {
 public:
  Charge() = default;
  Charge(std::shared_ptr<Account> account, uint64_t bytes);
  ~Charge() { release(); }
  Charge(Charge&& other) noexcept : account_(std::move(other.account_)), bytes_(other.bytes_) {}
  Charge& operator=(Charge&& other) noexcept;

  uint64_t bytes() const { return bytes_; }
  const std::shared_ptr<Account>& account() const { return account_; }

 private:
  void release();

  std::shared_ptr<Account> account_;
  uint64_t bytes_ = 0;
};

}  // namespace tensord::server
