// The bootstrap capability: checks the client's version and token and opens sessions.
#pragma once

#include <memory>
#include <string>

#include "server/daemon_state.h"
#include "tensord.capnp.h"

namespace tensord::server {

// Cap'n Proto's Server bases have no virtual destructor: kj::heap disposes of the exact type.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class DaemonImpl final : public ::Daemon::Server {
 public:
  // `peer`: who is at the other end of this connection, as the system says
  // (ConnectionServer::describe; empty when it does not).
  DaemonImpl(std::shared_ptr<DaemonState> state, std::string peer)
      : state_(std::move(state)), peer_(std::move(peer)) {}

 protected:
  kj::Promise<void> hello(HelloContext context) override;

 private:
  std::shared_ptr<DaemonState> state_;
  std::string peer_;
};
#pragma GCC diagnostic pop

}  // namespace tensord::server
