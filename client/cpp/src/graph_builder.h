// The pending subgraph behind a sync point, as the wire graph will number it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "client/cpp/src/tensor_node.h"

namespace tensord::detail {

// A value of the wire graph: output `output` of wire node `node`.
struct WireValue {
  uint32_t node;
  uint32_t output;
};

// Graph inputs come first (input i is wire node i), then the pending ops in topological order.
// Projections (outputs k > 0 of an op with several) are values of their op's node, not nodes.
// Raw pointers stay valid until the first node is materialized (that drops history).
struct PendingGraph {
  struct Leaf {
    TensorNode* node;  // host data or a daemon tensor
    // Host data that something besides this graph refers to (a user handle, or a pending op
    // outside it): worth keeping on the daemon after the run, so it is not sent twice.
    bool held;
  };
  std::vector<Leaf> leaves;
  std::vector<TensorNode*> ops;
  std::unordered_map<const TensorNode*, WireValue> wire_index;
  // Pending ops besides the requested roots that something outside the graph still refers to,
  // and the live outputs of every op with several outputs in the graph: extra outputs of the
  // run, so they are never computed twice.
  std::vector<TensorNode*> held_ops;

  size_t num_nodes() const { return leaves.size() + ops.size(); }
  // The node the user recorded for wire node `index`.
  const TensorNode& recorded(uint32_t index) const {
    return index < leaves.size() ? *leaves[index].node : *ops[index - leaves.size()];
  }
};

// Collects everything `roots` need that the daemon does not hold yet. Roots may be pending or
// host data, not materialized. `roots` themselves count as references from outside.
PendingGraph collect_pending(std::span<const std::shared_ptr<TensorNode>> roots);

}  // namespace tensord::detail
