// One Cap'n Proto RPC connection, either end: the socket, the buffered message stream over it
// (buffered_message_stream.h), the two-party network and the RPC system, owned together and
// destroyed in the reverse order (the RPC system first, the socket last). The daemon serves a
// bootstrap capability on each; a client asks for the daemon's.
#pragma once

#include <capnp/rpc-twoparty.h>
#include <kj/async-io.h>

#include "protocol/buffered_message_stream.h"

namespace tensord::protocol {

class RpcConnection {
 public:
  // The daemon's end: `bootstrap` is what the peer's bootstrap() returns. With `passes_fds` the
  // stream must be a unix socket (kj::AsyncCapabilityStream): one descriptor a message either way.
  RpcConnection(kj::Own<kj::AsyncIoStream> stream, bool passes_fds,
                capnp::Capability::Client bootstrap);
  // A client's end.
  RpcConnection(kj::Own<kj::AsyncIoStream> stream, bool passes_fds);
  RpcConnection(const RpcConnection&) = delete;
  RpcConnection& operator=(const RpcConnection&) = delete;

  // The peer's bootstrap capability (a client asks for the daemon's).
  capnp::Capability::Client bootstrap();
  // Resolves when the peer hangs up (or the connection fails).
  kj::Promise<void> on_disconnect() { return network_.onDisconnect(); }

 private:
  static constexpr unsigned kMaxFdsPerMessage = 1;

  kj::Own<kj::AsyncIoStream> stream_;
  BufferedMessageStream messages_;
  capnp::TwoPartyVatNetwork network_;
  capnp::RpcSystem<capnp::rpc::twoparty::VatId> rpc_;
};

}  // namespace tensord::protocol
