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
  std::vector<TensorNode*> projections;

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
        (node->is_projection() ? projections : g.ops).push_back(node);
        stack.pop_back();
      }
    }
  }

  auto held = [&](const TensorNode* node) {
    auto it = internal_refs.find(node);
    return node->references() > (it == internal_refs.end() ? 0 : it->second);
  };
  for (TensorNode* leaf : leaf_nodes) {
    g.wire_index.emplace(leaf, WireValue{static_cast<uint32_t>(g.leaves.size()), 0});
    g.leaves.push_back({leaf, leaf->state == TensorNode::State::Host && held(leaf)});
  }
  for (TensorNode* op : g.ops) {
    g.wire_index.emplace(op, WireValue{static_cast<uint32_t>(g.wire_index.size()), 0});
  }
  // A projection's op node is pending (it materializes with all its live outputs) and was
  // visited before it.
  for (TensorNode* p : projections) {
    g.wire_index.emplace(p, WireValue{g.wire_index.at(p->inputs[0].get()).node, p->output});
  }

  std::unordered_set<const TensorNode*> is_root;
  for (const auto& root : roots) is_root.insert(root.get());
  for (TensorNode* op : g.ops) {
    if (!is_root.contains(op) && held(op)) g.held_ops.push_back(op);
  }
  for (TensorNode* p : projections) {
    if (!is_root.contains(p) && held(p)) g.held_ops.push_back(p);
  }
  // Outputs of this graph's ops that nothing in it reads but a handle still holds.
  for (TensorNode* op : g.ops) {
    for (const std::weak_ptr<TensorNode>& weak : op->siblings) {
      std::shared_ptr<TensorNode> sibling = weak.lock();
      if (!sibling || sibling->state != TensorNode::State::Pending ||
          g.wire_index.contains(sibling.get())) {
        continue;
      }
      g.wire_index.emplace(sibling.get(), WireValue{g.wire_index.at(op).node, sibling->output});
      g.held_ops.push_back(sibling.get());
    }
  }
  return g;
}

}  // namespace tensord::detail
