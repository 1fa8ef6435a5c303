#include "tools/replay/shrink.h"

#include <limits>
#include <utility>
#include <vector>

namespace tensord::replay {
namespace {

using engine::InputBytes;

constexpr uint32_t kGone = std::numeric_limits<uint32_t>::max();

// `r`'s graph with only what `outputs` need, renumbered; node `cut` (when given) becomes a
// graph input of its type. Graph inputs are renumbered in node order.
engine::Reproducer rebuild(const engine::Reproducer& r, std::vector<ir::ValueRef> outputs,
                           std::optional<uint32_t> cut) {
  const std::vector<ir::Node>& nodes = r.graph.nodes;
  std::vector<bool> live(nodes.size(), false);
  for (const ir::ValueRef& v : outputs) live[v.node] = true;
  for (size_t k = nodes.size(); k-- > 0;) {
    if (!live[k] || cut == k) continue;
    for (const ir::ValueRef& in : nodes[k].inputs) live[in.node] = true;
  }
  engine::Reproducer out;
  out.mode = r.mode;
  out.error = r.error;
  out.graph.files = r.graph.files;
  std::vector<uint32_t> renumbered(nodes.size(), kGone);
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (!live[k]) continue;
    const ir::Node& node = nodes[k];
    renumbered[k] = static_cast<uint32_t>(out.graph.nodes.size());
    if (node.op == ir::Op::input || cut == k) {
      const ir::TensorType& type = node.outputs.at(0);
      out.graph.add_input(static_cast<uint32_t>(out.inputs.size()), type, node.loc);
      out.inputs.push_back(type);
      // A kept input keeps its bytes; a cut node's value is regenerated.
      InputBytes& bytes = out.values.emplace_back();
      if (node.op == ir::Op::input) {
        const auto index = static_cast<size_t>(node.attrs.get_int(ir::Attr::index));
        if (index < r.values.size()) bytes = r.values[index];
      }
      continue;
    }
    ir::Node copy = node;
    for (ir::ValueRef& in : copy.inputs) in.node = renumbered[in.node];
    out.graph.nodes.push_back(std::move(copy));
  }
  for (ir::ValueRef& v : outputs) v.node = renumbered[v.node];
  out.outputs = std::move(outputs);
  return out;
}

// Fewer ops, or as many with fewer outputs.
bool smaller(const engine::Reproducer& a, const engine::Reproducer& b) {
  const size_t ops_a = op_count(a), ops_b = op_count(b);
  return ops_a < ops_b || (ops_a == ops_b && a.outputs.size() < b.outputs.size());
}

std::string describe(const engine::Reproducer& r) {
  return std::to_string(op_count(r)) + " ops, " + std::to_string(r.inputs.size()) + " inputs, " +
         std::to_string(r.outputs.size()) + (r.outputs.size() == 1 ? " output" : " outputs");
}

}  // namespace

std::optional<engine::Reproducer> end_at(const engine::Reproducer& r, uint32_t last) {
  if (last >= r.graph.nodes.size() || r.graph.nodes[last].outputs.empty()) return std::nullopt;
  return rebuild(r, {ir::ValueRef{last, 0}}, std::nullopt);
}

std::optional<engine::Reproducer> cut_at(const engine::Reproducer& r, uint32_t node) {
  if (node >= r.graph.nodes.size()) return std::nullopt;
  const ir::Node& n = r.graph.nodes[node];
  if (n.op == ir::Op::input || n.outputs.size() != 1) return std::nullopt;
  return rebuild(r, r.outputs, node);
}

size_t op_count(const engine::Reproducer& r) {
  size_t ops = 0;
  for (const ir::Node& node : r.graph.nodes) ops += node.op != ir::Op::input;
  return ops;
}

Shrunk shrink(const engine::Reproducer& failing,
              const std::function<bool(const engine::Reproducer&)>& still_fails,
              const ShrinkOptions& options) {
  Shrunk s{failing};
  auto fails = [&](const engine::Reproducer& candidate) {
    if (s.attempts >= options.max_attempts) return false;
    ++s.attempts;
    return still_fails(candidate);
  };
  auto keep = [&](engine::Reproducer candidate, const std::string& how) {
    s.smallest = std::move(candidate);
    ++s.kept;
    if (options.progress) options.progress(how + ": " + describe(s.smallest));
  };

  // The earliest end that still fails. Ends past it fail too if failures persist as the
  // graph grows, which holds for a node that fails whatever follows it. The search starts from
  // the last node, else from the first output (from the end) whose node fails alone.
  std::vector<uint32_t> ends{static_cast<uint32_t>(s.smallest.graph.nodes.size() - 1)};
  for (size_t k = s.smallest.outputs.size(); k-- > 0;) {
    if (s.smallest.outputs[k].node != ends[0]) ends.push_back(s.smallest.outputs[k].node);
  }
  std::optional<uint32_t> earliest;
  for (uint32_t end : ends) {
    std::optional<engine::Reproducer> candidate = end_at(s.smallest, end);
    if (candidate && fails(*candidate)) {
      earliest = end;
      break;
    }
  }
  if (earliest) {
    uint32_t lo = 0, hi = *earliest;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      std::optional<engine::Reproducer> candidate = end_at(s.smallest, mid);
      if (candidate && op_count(*candidate) > 0 && fails(*candidate)) {
        hi = mid;
        earliest = mid;
      } else {
        lo = mid + 1;
      }
    }
  }
  if (earliest) {
    engine::Reproducer ended = *end_at(s.smallest, *earliest);
    if (smaller(ended, s.smallest)) {
      const std::string op(ir::name(s.smallest.graph.nodes[*earliest].op));
      keep(std::move(ended), "ended at node " + std::to_string(*earliest) + " (" + op + ")");
    }
  }

  // Cuts, from the output back: a cut near the failing node drops the most at once. A kept cut
  // only drops nodes before it, so the nodes after it keep their places from the end.
  for (bool again = true; again && s.attempts < options.max_attempts;) {
    again = false;
    for (size_t k = s.smallest.graph.nodes.size(); k-- > 0 && s.attempts < options.max_attempts;) {
      std::optional<engine::Reproducer> candidate = cut_at(s.smallest, static_cast<uint32_t>(k));
      if (!candidate || !smaller(*candidate, s.smallest) || !fails(*candidate)) continue;
      const size_t from_end = s.smallest.graph.nodes.size() - k;
      const std::string op(ir::name(s.smallest.graph.nodes[k].op));
      keep(std::move(*candidate), "cut node " + std::to_string(k) + " (" + op + ") off its inputs");
      k = s.smallest.graph.nodes.size() - from_end;
      again = true;
    }
  }
  return s;
}

}  // namespace tensord::replay
