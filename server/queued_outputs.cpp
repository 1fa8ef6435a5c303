#include "server/queued_outputs.h"

#include "engine/ir/error.h"

namespace tensord::server {

engine::TensorValue QueuedInput::take() const {
  if (!outputs->ended) {
    throw Error(ErrorCode::Cancelled,
                what + " is a result of a call that was cancelled before it ran");
  }
  // The call's failure fails every call that uses its results, with the same error: the
  // first one the user has to fix.
  if (outputs->error) std::rethrow_exception(outputs->error);
  if (index >= outputs->values.size() || outputs->values[index].type != type) {
    throw Error(ErrorCode::Internal, what + " is a result of a call that did not make the " +
                                         ir::to_string(type) + " it promised");
  }
  return outputs->values[index];
}

}  // namespace tensord::server
