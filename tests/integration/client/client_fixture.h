// A daemon of our own per test, and a session on it.
#pragma once

#include <tensord/client.h>

#include <chrono>
#include <string>
#include <thread>

#include "tests/support/daemon/daemon_process.h"

namespace tensord::test {

struct ClientFixture {
  explicit ClientFixture(DaemonOptions options = {})
      : daemon(std::move(options)), session(connect(daemon.address(), {"", "client-test"})) {}

  // The daemon frees dropped tensors when their release message arrives; stats() sends queued
  // releases first, and the daemon may account for them a moment later.
  uint64_t live_tensors_eventually(uint64_t expected) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    uint64_t live = session.stats().live_tensors;
    while (live != expected && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      live = session.stats().live_tensors;
    }
    return live;
  }

  DaemonProcess daemon;
  Session session;
};

}  // namespace tensord::test
