// Same-host transfers through a HostBuffer the daemon maps (Session.uploadShared,
// Tensor.readShared): the buffer's memfd rides with a SharedMemory capability over the unix
// socket, so the bytes are copied once, by the daemon.
#pragma once

#include <memory>

#include "client/cpp/src/session_state.h"
#include "client/cpp/src/tensor_node.h"
#include "client/cpp/src/transfer.h"
#include "client/cpp/src/wire.h"
#include "engine/ir/shape.h"
#include "tensord/host_buffer.h"

namespace tensord::detail {

// Sends the upload call without waiting; `writes` is the call itself.
Upload upload_shared(SessionState& s, const ir::TensorType& type,
                     std::shared_ptr<const HostBuffer> buffer);

// Host data of a recorded input too large to travel inline: through shared memory on a unix
// socket, in chunks otherwise.
Upload upload_leaf(SessionState& s, const TensorNode& leaf);

// Waits until the daemon has copied all of `tensor` into `buffer` (at least its size).
void read_shared(SessionState& s, wire::Tensor::Client tensor, std::shared_ptr<HostBuffer> buffer);

}  // namespace tensord::detail
