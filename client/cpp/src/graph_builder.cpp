#include "client/cpp/src/graph_builder.h"

#include <unordered_set>

namespace tensord::detail {

PendingGraph collect_pending(std::span<const std::shared_ptr<TensorNode>> roots) {
  PendingGraph g;
  // References to each node from the pending ops of this graph; any beyond them (and beyond
  // the `roots` span's own) come from user handles or other pending ops.
  std::unordered_map<const TensorNode*, long> internal_refs;
  std::unordered_set<const TensorNode*> seen;
  std::vector<TensorNode*> leaf_nodes;

  // Iterative post-order DFS: recorded chains can be far deeper than the stack.
  struct Frame {
    TensorNode* node;
    size_t next_input;
  };
  std::vector<Frame> stack;
  for (const auto& root : roots) {
    if (!seen.insert(root.get()).second) continue;
    stack.push_back({root.get(), 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      TensorNode* node = f.node;
      if (node->state != TensorNode::State::Pending) {
        leaf_nodes.push_back(node);
        stack.pop_back();
      } else if (f.next_input < node->inputs.size()) {
        TensorNode* input = node->inputs[f.next_input++].get();
        ++internal_refs[input];
        if (seen.insert(input).second) stack.push_back({input, 0});  // invalidates f
      } else {
        g.ops.push_back(node);
        stack.pop_back();
      }
    }
  }

  auto held = [&](const TensorNode* node) {
    auto it = internal_refs.find(node);
    return node->references() > (it == internal_refs.end() ? 0 : it->second);
  };
  for (TensorNode* leaf : leaf_nodes) {
    g.wire_index.emplace(leaf, static_cast<uint32_t>(g.leaves.size()));
    g.leaves.push_back({leaf, leaf->state == TensorNode::State::Host && held(leaf)});
  }
  for (TensorNode* op : g.ops) {
    g.wire_index.emplace(op, static_cast<uint32_t>(g.wire_index.size()));
  }

  std::unordered_set<const TensorNode*> is_root;
  for (const auto& root : roots) is_root.insert(root.get());
  for (TensorNode* op : g.ops) {
    if (!is_root.contains(op) && held(op)) g.held_ops.push_back(op);
  }
  return g;
}

}  // namespace tensord::detail
