// A Function call's outputs on their way from its job on the session's worker to the jobs
// queued behind it that take them as arguments. A dependent call (y = f(y)) is queued as soon
// as it arrives instead of after the previous call's reply: the worker runs the chain back to
// back, with no turn of the event loop between two calls (docs/design-notes.md).
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "engine/exec/tensor_value.h"

namespace tensord::server {

// Written once by the call's job on the worker, when it ends; read by the jobs of the same
// session queued after it (the queue runs them later, in order) and by the event loop after
// the job's promise resolved. Nobody writes it after that.
struct QueuedOutputs {
  bool ended = false;  // false: the call's job never ran (it was cancelled)
  std::vector<engine::TensorValue> values;
  std::exception_ptr error;  // why the call failed, when it did
};

// A graph input that is output `index` of an earlier call of the session, still queued when
// this request was resolved.
struct QueuedInput {
  std::shared_ptr<const QueuedOutputs> outputs;
  size_t index = 0;
  ir::TensorType type;  // what the call promised; checked against what it made
  std::string what;     // "argument 0", "graph input 2": errors name it

  // The value, on the worker once the call ran; the call's own error when it failed.
  engine::TensorValue take() const;
};

}  // namespace tensord::server
