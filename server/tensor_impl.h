// A tensor held by the daemon for a client. The capability is the reference: when the client
// drops its last reference, this object, its charge on the session's account and (once no
// running job uses it) its memory go.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "engine/exec/tensor_value.h"
#include "server/accounting.h"
#include "server/session_core.h"
#include "tensord.capnp.h"

namespace tensord::server {

// Cap'n Proto's Server bases have no virtual destructor: kj::heap disposes of the exact type.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class TensorImpl final : public ::Tensor::Server {
 public:
  // The user's line of the node that made a tensor: known for outputs of runs that recorded
  // memory, so that a later chunked read's staging names it ("" and 0 otherwise).
  using SourceLine = std::pair<std::string, uint32_t>;

  // `value` must be contiguous (engine outputs and uploads are).
  TensorImpl(std::shared_ptr<SessionCore> session, engine::TensorValue value,
             SourceLine made_at = {});

  const engine::TensorValue& value() const { return value_; }

  // Makes a capability for `value` that this daemon recognizes when it comes back in a graph.
  static ::Tensor::Client publish(std::shared_ptr<SessionCore> session, engine::TensorValue value,
                                  SourceLine made_at = {});

 protected:
  kj::Promise<void> info(InfoContext context) override;
  kj::Promise<void> read(ReadContext context) override;
  kj::Promise<void> readShared(ReadSharedContext context) override;

 private:
  std::shared_ptr<SessionCore> session_;
  engine::TensorValue value_;
  SourceLine made_at_;
  Charge charge_;
};
#pragma GCC diagnostic pop

}  // namespace tensord::server
