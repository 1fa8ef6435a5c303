// Serves the daemon on its listening sockets: one Daemon capability per connection, each knowing
// who is at the other end as the operating system says: on a unix socket the peer process's
// user and pid (SO_PEERCRED), on TCP its address. Sessions opened on a connection carry it (the
// log, the dashboard's `peer`): unlike the client's own description in hello, it cannot be made
// up. Owns the connections: destroying it drops every one of them.
#pragma once

#include <kj/async-io.h>

#include <memory>
#include <string>

#include "server/daemon_state.h"
#include "server/listener.h"

namespace tensord::server {

class ConnectionServer final : private kj::TaskSet::ErrorHandler {
 public:
  explicit ConnectionServer(std::shared_ptr<DaemonState> state) : state_(std::move(state)) {}

  // Accepts connections from `listener` until accepting fails (the promise then rejects) or the
  // promise is dropped. Unix sockets pass file descriptors (one per message: shared memory).
  kj::Promise<void> listen(Listener& listener);

  // "uid 1000 (alice) pid 4242", "127.0.0.1:51234", or "" when the system does not say.
  static std::string describe(kj::PeerIdentity& peer);

 private:
  kj::Promise<void> accept_next(Listener& listener, bool passes_fds);
  void taskFailed(kj::Exception&& exception) override;

  std::shared_ptr<DaemonState> state_;
  kj::TaskSet connections_{*this};
};

}  // namespace tensord::server
