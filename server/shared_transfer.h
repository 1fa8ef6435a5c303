// Same-host transfers through a client's shared memory: Session.uploadShared and
// Tensor.readShared. One copy each way, done by the session's device worker.
#pragma once

#include <kj/async.h>

#include <memory>

#include "engine/exec/tensor_value.h"
#include "engine/ir/shape.h"
#include "server/session_core.h"
#include "tensord.capnp.h"

namespace tensord::server {

// A new tensor of `type` with the bytes at the start of `memory`.
kj::Promise<::Tensor::Client> upload_shared(std::shared_ptr<SessionCore> session,
                                            ir::TensorType type, ::SharedMemory::Client memory);

// Copies all of `value` (contiguous) into the start of `memory`.
kj::Promise<void> read_shared(std::shared_ptr<SessionCore> session, engine::TensorValue value,
                              ::SharedMemory::Client memory);

}  // namespace tensord::server
