// A tensor held by the daemon for a client. The capability is the reference: when the client
// drops its last reference, this object, its charge on the session's account and (once no
// running job uses it) its memory go.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
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

  const engine::TensorValue& value() const { return value_; }

  // Makes a capability for `value` that this daemon recognizes when it comes back in a graph.
  static ::Tensor::Client publish(std::shared_ptr<SessionCore> session, engine::TensorValue value,
                                  Origin made_at);

 protected:
  kj::Promise<void> info(InfoContext context) override;
  kj::Promise<void> read(ReadContext context) override;
  kj::Promise<void> readShared(ReadSharedContext context) override;

 private:
  std::shared_ptr<SessionCore> session_;
  engine::TensorValue value_;
  Origin made_at_;
  Charge charge_;
};
#pragma GCC diagnostic pop

}  // namespace tensord::server
