// CSE by hash-consing, then DCE, in two linear passes. Nodes are deterministic functions of
// their op, inputs and attributes (rand/randn carry their seed), so equal keys compute equal
// values and may share one node.
#include <unordered_map>

#include "engine/ir/attr_words.h"
#include "engine/ir/hash.h"
#include "engine/ir/passes.h"

namespace tensord::ir {
namespace {

uint64_t node_key(const Node& node, std::span<const ValueRef> inputs) {
  WordHasher h;
  h.add(static_cast<uint64_t>(node.op));
  h.add(inputs.size());
  for (ValueRef v : inputs) h.add(uint64_t{v.node} << 32 | v.output);
  for (const auto& [attr, value] : node.attrs.items()) {
    h.add(static_cast<uint64_t>(attr));
    attr_value_words(value, [&h](uint64_t word) { h.add(word); });
  }
  return h.finish();
}

}  // namespace

Rewritten simplify(const Graph& g, std::span<const ValueRef> outputs) {
  const size_t n = g.nodes.size();
  // CSE: rep[i] is the earliest node equal to node i; `inputs[i]` are node i's inputs with
  // every reference already moved to its representative.
  std::vector<uint32_t> rep(n);
  std::vector<std::vector<ValueRef>> inputs(n);
  std::unordered_multimap<uint64_t, uint32_t> seen;
  seen.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    inputs[i] = node.inputs;
    for (ValueRef& v : inputs[i]) v.node = rep[v.node];
    rep[i] = i;
    if (node.op == Op::input) continue;  // the caller numbers inputs; never merge them
    const uint64_t key = node_key(node, inputs[i]);
    auto [first, last] = seen.equal_range(key);
    for (auto it = first; it != last; ++it) {
      const Node& other = g.nodes[it->second];
      if (other.op == node.op && inputs[it->second] == inputs[i] &&
          same_attrs(other.attrs, node.attrs)) {
        rep[i] = it->second;
        break;
      }
    }
    if (rep[i] == i) seen.emplace(key, i);
  }

  // DCE: walk back from the outputs; representatives only refer to representatives.
  std::vector<char> live(n, 0);
  for (ValueRef v : outputs) live[rep[v.node]] = 1;
  for (uint32_t i = static_cast<uint32_t>(n); i-- > 0;) {
    if (g.nodes[i].op == Op::input) live[i] = 1;
    if (!live[i]) continue;
    for (ValueRef v : inputs[i]) live[v.node] = 1;
  }

  Rewritten out;
  out.graph.files = g.files;
  std::vector<uint32_t> renumbered(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    if (!live[i]) continue;
    renumbered[i] = static_cast<uint32_t>(out.graph.nodes.size());
    const Node& node = g.nodes[i];
    Node copy{node.op, std::move(inputs[i]), node.attrs, node.outputs, node.loc};
    for (ValueRef& v : copy.inputs) v.node = renumbered[v.node];
    out.graph.nodes.push_back(std::move(copy));
    out.origin.push_back(i);
  }
  out.outputs.reserve(outputs.size());
  for (ValueRef v : outputs) out.outputs.push_back(ValueRef{renumbered[rep[v.node]], v.output});
  return out;
}

}  // namespace tensord::ir
