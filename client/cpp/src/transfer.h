// Moving tensor bytes in chunks: uploads with Session.upload, downloads with Tensor.read.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "client/cpp/src/session_state.h"
#include "client/cpp/src/wire.h"
#include "engine/ir/shape.h"

namespace tensord::detail {

// Calls kept in flight at once: enough to keep the socket busy, few enough that the client
// never queues more than a few chunks of memory and the daemon can push back.
inline constexpr size_t kChunksInFlight = 4;

// An upload in progress. `tensor` is the promised capability of `finish`: usable at once as a
// graph input (promise pipelining), it resolves when the daemon has all the bytes.
struct Upload {
  wire::Tensor::Client tensor = nullptr;
  // Resolves when the last writes are acknowledged; fails with the first write's error.
  kj::Promise<void> writes = nullptr;
};

// Sends `bytes` as a tensor of `type`. Returns after every write has been sent, having waited
// only for all but the last kChunksInFlight; `finish` is sent but not waited for. Aligned chunks
// go out from `bytes` in place, so `bytes` must stay alive until `writes` settles.
Upload upload(SessionState& s, const ir::TensorType& type, std::span<const std::byte> bytes);

// Reads all `nbytes` of `tensor` with up to kChunksInFlight reads outstanding.
std::vector<std::byte> read_all(SessionState& s, wire::Tensor::Client tensor, size_t nbytes);
// The same into `out`, which holds `nbytes`.
void read_into(SessionState& s, wire::Tensor::Client tensor, std::byte* out, size_t nbytes);

// Tells the session's transfer observer (if any) about a transfer larger than one chunk.
void report_transfer(SessionState& s, bool upload, uint64_t done, uint64_t total);

}  // namespace tensord::detail
