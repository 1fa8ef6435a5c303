#include "client/cpp/src/errors.h"

#include <string>

#include "client/cpp/src/recorder.h"
#include "protocol/wire_error.h"

namespace tensord::detail {

Error translate(const kj::Exception& e, const PendingGraph* graph, std::source_location fallback,
                std::optional<uint32_t> node_hint) {
  Error decoded = protocol::from_kj_exception(e);
  std::optional<uint32_t> node = decoded.node() ? decoded.node() : node_hint;
  std::string op = decoded.op();
  SourceLocation at = decoded.where();
  if (node && graph && *node < graph->num_nodes()) {
    const TensorNode& recorded = graph->recorded(*node);
    if (op.empty()) op = std::string(ir::name(recorded.op));
    if (at.empty()) at = where(recorded.loc);
  }
  if (at.empty()) at = where(fallback);
  return Error(decoded.code(), decoded.message(), node, std::move(op), std::move(at));
}

}  // namespace tensord::detail
