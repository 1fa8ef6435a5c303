// A daemon of our own per test, and a session on it.
#pragma once

#include <tensord/client.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "tests/support/daemon/daemon_process.h"

namespace tensord::test {

// The TCP address a daemon started with `--listen tcp:127.0.0.1:0` printed.
inline std::string tcp_address(const DaemonProcess& daemon) {
  std::string out = daemon.output();
  auto at = out.find("listening on tcp:");
  REQUIRE(at != std::string::npos);
  at += std::strlen("listening on ");
  return out.substr(at, out.find('\n', at) - at);
}

// Unix sockets pass file descriptors (large transfers go through shared memory); TCP streams
// chunks.
enum class Transport { Unix, Tcp };

// The daemons of these tests compile a new graph's kernels before its first run unless a test
// says otherwise: many check what a fused run does (its trace, its steps, the kernel counts),
// and with the daemon's default (--background-compile on) a first run goes unfused.
inline DaemonOptions listening_on(DaemonOptions options, Transport transport) {
  bool background_given = false;
  for (const std::string& a : options.args) background_given |= a == "--background-compile";
  if (!background_given) {
    options.args.push_back("--background-compile");
    options.args.push_back("off");
  }
  if (transport == Transport::Tcp) {
    options.args.push_back("--listen");
    options.args.push_back("tcp:127.0.0.1:0");
  }
  return options;
}

struct ClientFixture {
  explicit ClientFixture(DaemonOptions options = {}, Transport transport = Transport::Unix)
      : daemon(listening_on(std::move(options), transport)),
        session(connect(transport == Transport::Tcp ? tcp_address(daemon) : daemon.address(),
                        {"", "client-test"})) {}

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
