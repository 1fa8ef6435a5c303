// The daemon as a whole: devices and scheduler, the listening sockets, and the RPC server on
// this thread's event loop. main() builds one and calls serve().
#pragma once

#include <kj/async-io.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/daemon_state.h"
#include "server/dashboard.h"
#include "server/listener.h"
#include "server/log.h"
#include "server/options.h"

namespace tensord::server {

class Daemon {
 public:
  // Opens the devices and binds every --listen address. Throws tensord::Error or
  // std::runtime_error with a message for the user.
  Daemon(const Options& options, Logger& log, kj::AsyncIoContext& io);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  const std::vector<Listener>& listeners() const { return listeners_; }
  // The dashboard's URL ("http://HOST:PORT/", or "unix:PATH" for a unix socket); empty without
  // --dashboard.
  std::string dashboard_url() const;
  const scheduler::Scheduler& scheduler() const { return *state_->scheduler; }
  const std::string& reproducer_dir() const { return state_->reproducer_dir; }

  // Serves until SIGINT or SIGTERM (captured by main before any thread started), then drops
  // every connection and stops the workers. Returns the signal number.
  int serve();

 private:
  kj::AsyncIoContext& io_;
  Logger& log_;
  std::shared_ptr<DaemonState> state_;
  std::vector<Listener> listeners_;
  std::optional<Listener> dashboard_listener_;
  kj::Own<Dashboard> dashboard_;
};

}  // namespace tensord::server
