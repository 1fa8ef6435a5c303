// A tensor held by the daemon for a client. The capability is the reference: when the client
// drops its last reference, this object, its charge on the session's account and (once no
// running job uses it) its memory go. A result of a Function call exists before its value (the
// call's pipelined results): it knows its type, and reads of it wait for the call.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/exec/tensor_value.h"
#include "server/accounting.h"
#include "server/queued_outputs.h"
#include "server/session_core.h"
#include "tensord.capnp.h"

namespace tensord::server {

// Cap'n Proto's Server bases have no virtual destructor: kj::heap disposes of the exact type.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class TensorImpl final : public ::Tensor::Server {
 public:
  // What made a tensor: the op and user's line of its node for outputs of runs, or "upload".
  // Quota errors name it, and the staging of the tensor's chunked reads.
  struct Origin {
    std::string file;  // empty: not made at a line of the user's program
    uint32_t line = 0;
    std::string_view what;  // the op's name, or "upload": static strings

    static Origin upload() { return {{}, 0, "upload"}; }
    std::string text() const;  // "fit.py:12 (matmul)", "upload"
  };

  // `value` must be contiguous (engine outputs and uploads are).
  TensorImpl(std::shared_ptr<SessionCore> session, engine::TensorValue value, Origin made_at);
  // Output `index` of a call of `session` whose job is not queued yet: its value comes with
  // fill(), unless fail() comes first.
  TensorImpl(std::shared_ptr<SessionCore> session, ir::TensorType type,
             std::shared_ptr<const QueuedOutputs> outputs, size_t index);

  // Queuing -> Queued (its call is on the session's queue) -> Ready, or Failed from either.
  enum class State { Queuing, Queued, Ready, Failed };
  State state() const { return state_; }
  const ir::TensorType& type() const { return type_; }
  const std::shared_ptr<SessionCore>& session() const { return session_; }
  const engine::TensorValue& value() const { return value_; }  // Ready only
  const kj::Exception& failure() const;                        // Failed only
  // Queued only: what a later job of the session takes the value from.
  QueuedInput queued_input(std::string what) const;
  // Resolves at the next change of state.
  kj::Promise<void> changed();

  // Moved on by the call that makes it (PendingResults).
  void mark_queued();
  void fill(engine::TensorValue value, Origin made_at);
  void fail(const kj::Exception& why);

  // Makes a capability for `value` that this daemon recognizes when it comes back in a graph.
  static ::Tensor::Client publish(std::shared_ptr<SessionCore> session, engine::TensorValue value,
                                  Origin made_at);

 protected:
  kj::Promise<void> info(InfoContext context) override;
  kj::Promise<void> read(ReadContext context) override;
  kj::Promise<void> readShared(ReadSharedContext context) override;

 private:
  // Null when Ready; a promise to wait on before trying again when not; throws when Failed.
  kj::Maybe<kj::Promise<void>> not_ready();
  void set_state(State state);

  std::shared_ptr<SessionCore> session_;
  State state_ = State::Ready;
  ir::TensorType type_;
  engine::TensorValue value_;
  Origin made_at_;
  Charge charge_;
  // While not Ready: where the value comes from, and who waits for the state to change.
  std::shared_ptr<const QueuedOutputs> queued_;
  size_t index_ = 0;
  std::optional<kj::Exception> failure_;
  std::vector<kj::Own<kj::PromiseFulfiller<void>>> waiters_;
};
#pragma GCC diagnostic pop

}  // namespace tensord::server
