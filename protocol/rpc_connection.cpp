#include "protocol/rpc_connection.h"

#include <capnp/message.h>

namespace tensord::protocol {
namespace {

BufferedMessageStream messages_over(kj::AsyncIoStream& stream, bool passes_fds) {
  if (passes_fds) return BufferedMessageStream(kj::downcast<kj::AsyncCapabilityStream>(stream));
  return BufferedMessageStream(stream);
}

}  // namespace

RpcConnection::RpcConnection(kj::Own<kj::AsyncIoStream> stream, bool passes_fds,
                             capnp::Capability::Client bootstrap)
    : stream_(kj::mv(stream)),
      messages_(messages_over(*stream_, passes_fds)),
      network_(messages_, passes_fds ? kMaxFdsPerMessage : 0, capnp::rpc::twoparty::Side::SERVER),
      rpc_(capnp::makeRpcServer(network_, kj::mv(bootstrap))) {}

RpcConnection::RpcConnection(kj::Own<kj::AsyncIoStream> stream, bool passes_fds)
    : stream_(kj::mv(stream)),
      messages_(messages_over(*stream_, passes_fds)),
      network_(messages_, passes_fds ? kMaxFdsPerMessage : 0, capnp::rpc::twoparty::Side::CLIENT),
      rpc_(capnp::makeRpcClient(network_)) {}

capnp::Capability::Client RpcConnection::bootstrap() {
  capnp::word scratch[4] = {};
  capnp::MallocMessageBuilder message(scratch);
  auto vat = message.getRoot<capnp::rpc::twoparty::VatId>();
  vat.setSide(network_.getSide() == capnp::rpc::twoparty::Side::CLIENT
                  ? capnp::rpc::twoparty::Side::SERVER
                  : capnp::rpc::twoparty::Side::CLIENT);
  return rpc_.bootstrap(vat);
}

}  // namespace tensord::protocol
