// The daemon a benchmark talks to: the one at --address, or else one of its own (the real
// binary, $TENSORD_BIN), stopped when the BenchDaemon goes.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "tests/support/daemon/daemon_process.h"

namespace tensord::bench {

class BenchDaemon {
 public:
  explicit BenchDaemon(std::string address, test::DaemonOptions options = {})
      : address_(std::move(address)) {
    if (address_.empty()) {
      own_ = std::make_unique<test::DaemonProcess>(std::move(options));
      address_ = own_->address();
    }
  }

  const std::string& address() const { return address_; }

 private:
  std::string address_;
  std::unique_ptr<test::DaemonProcess> own_;
};

}  // namespace tensord::bench
