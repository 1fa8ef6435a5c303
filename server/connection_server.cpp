#include "server/connection_server.h"

#include <pwd.h>

#include "protocol/rpc_connection.h"
#include "server/daemon_impl.h"

namespace tensord::server {
namespace {

std::string user_name(unsigned uid) {
  passwd entry{};
  passwd* found = nullptr;
  char buffer[1024];
  if (getpwuid_r(uid, &entry, buffer, sizeof buffer, &found) == 0 && found != nullptr) {
    return found->pw_name;
  }
  return {};
}

// Serves one connection with a Daemon capability of its own until the peer hangs up.
kj::Promise<void> serve(std::shared_ptr<DaemonState> state, kj::Own<kj::AsyncIoStream> stream,
                        bool passes_fds, std::string peer) {
  auto connection = kj::heap<protocol::RpcConnection>(kj::mv(stream), passes_fds,
                                                      kj::heap<DaemonImpl>(state, std::move(peer)));
  kj::Promise<void> done = connection->on_disconnect();
  return done.attach(kj::mv(connection));
}

}  // namespace

std::string ConnectionServer::describe(kj::PeerIdentity& peer) {
  if (auto* local = dynamic_cast<kj::LocalPeerIdentity*>(&peer)) {
    const kj::LocalPeerIdentity::Credentials credentials = local->getCredentials();
    std::string out;
    KJ_IF_MAYBE (uid, credentials.uid) {
      out = "uid " + std::to_string(*uid);
      if (std::string name = user_name(*uid); !name.empty()) out += " (" + name + ")";
    }
    KJ_IF_MAYBE (pid, credentials.pid) {
      out += (out.empty() ? "pid " : " pid ") + std::to_string(*pid);
    }
    return out;
  }
  if (auto* network = dynamic_cast<kj::NetworkPeerIdentity*>(&peer)) {
    return network->getAddress().toString().cStr();
  }
  return {};
}

kj::Promise<void> ConnectionServer::listen(Listener& listener) {
  return accept_next(listener, listener.address().starts_with("unix:"));
}

kj::Promise<void> ConnectionServer::accept_next(Listener& listener, bool passes_fds) {
  return listener.receiver().acceptAuthenticated().then(
      [this, &listener, passes_fds](kj::AuthenticatedStream accepted) {
        connections_.add(
            serve(state_, kj::mv(accepted.stream), passes_fds, describe(*accepted.peerIdentity)));
        return accept_next(listener, passes_fds);
      });
}

void ConnectionServer::taskFailed(kj::Exception&& exception) {
  // A connection that ends in an error (reset, a malformed message) ends alone.
  state_->log.debug(std::string("a connection ended: ") + exception.getDescription().cStr());
}

}  // namespace tensord::server
