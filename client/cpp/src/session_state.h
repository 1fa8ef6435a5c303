// The state behind a Session: the event loop, the connection and the session capability.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "client/cpp/src/host_buffer_pool.h"
#include "client/cpp/src/wire.h"
#include "protocol/rpc_connection.h"
#include "tensord/session.h"

namespace tensord::detail {

// A resource type shared by the Session handles and every TensorNode of the session, so the
// connection outlives all capabilities. Destroyed on its thread, members in reverse order:
// the session capability, then the connection (its RPC system, then its socket), and last the
// event loop.
struct SessionState {
  SessionState(kj::AsyncIoContext io, std::string address);
  ~SessionState();
  SessionState(const SessionState&) = delete;
  SessionState& operator=(const SessionState&) = delete;

  kj::WaitScope& wait_scope() { return io.waitScope; }
  // Throws tensord::Error(Unsupported) when called from another thread than the one that
  // connected: KJ event loops are bound to their thread.
  void check_thread() const;
  // Runs the event loop until nothing is ready, so that queued messages (capability releases
  // in particular) go out before the next call.
  void flush();

  kj::AsyncIoContext io;
  std::string address;
  std::thread::id thread = std::this_thread::get_id();
  kj::Own<protocol::RpcConnection> rpc;
  wire::Session::Client session = nullptr;
  ServerInfo info;
  // The largest Data one message may carry: the smaller of the daemon's and the schema's limit.
  uint64_t chunk_bytes = 0;
  // Whether the connection passes file descriptors (a unix socket): large transfers then go
  // through shared memory.
  bool passes_fds = false;
  // Told about transfers larger than one chunk (Session::on_transfer).
  TransferObserver on_transfer;
  // Memory for large transfers, reused across same-sized ones.
  HostBufferPool host_buffers;
  // Replies of Function calls sent without waiting. Their promises never reject (a call's
  // error is kept for its results), so the handler has nothing to do. Cleared first on
  // destruction.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"  // never deleted through the base
  struct CallErrors final : kj::TaskSet::ErrorHandler {
    void taskFailed(kj::Exception&&) override {}
  } call_errors;
#pragma GCC diagnostic pop
  kj::Own<kj::TaskSet> calls_in_flight;
};

}  // namespace tensord::detail
