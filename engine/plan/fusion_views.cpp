// Views (permute, expand, slice, reshape) between a pointwise group and a consumer, pushed down
// to the group's loads (fusion.h says when), and the view chains the code generator reads them
// through (view_successors, view_chain).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "engine/plan/fusion_internal.h"
#include "engine/plan/view_layout.h"

namespace tensord::engine::fusion_detail {

bool Fuser::cheap(Op op) {
  switch (op) {
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::neg:
    case Op::abs:
    case Op::relu:
    case Op::maximum:
    case Op::minimum:
    case Op::where:
    case Op::cast:
    case Op::eq:
    case Op::ne:
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge:
    case Op::logical_not:
    case Op::logical_and:
    case Op::logical_or:
    case Op::bitwise_and:
    case Op::bitwise_or:
    case Op::bitwise_xor:
    case Op::bitwise_not:
    case Op::sign:
    case Op::square:
    case Op::floor:
    case Op::ceil:
    case Op::trunc:
    case Op::round:
      return true;
    default:
      return false;
  }
}

const Layout& Fuser::layout_of(ir::ValueRef r) {
  if (!is_view(node(r.node)) || r.output != 0) {
    scratch_layout_ = contiguous_layout(type(r).shape);
    return scratch_layout_;
  }
  std::optional<Layout>& l = layouts_[r.node];
  if (!l) {
    const ir::ValueRef in = node(r.node).inputs[0];
    Layout base = layout_of(in);
    l = view_layout(node(r.node), type(in), base);
    if (!l) l = contiguous_layout(type(r).shape);
  }
  return *l;
}

int32_t Fuser::view_chain_of(ir::ValueRef in, std::vector<uint32_t>& views, std::string& why) {
  uint32_t x = in.node;
  while (is_view(node(x))) {
    views.insert(views.begin(), x);
    x = node(x).inputs[0].node;
  }
  const int32_t gid = result_.group_of[x];
  if (gid == kNoGroup) return kNoGroup;
  for (uint32_t v : views) {
    if (consumers_[v].size() != 1 || is_output_[v]) {
      why = std::string(ir::name(node(v).op)) +
            " is read by several nodes or is an output (fusing it would compute it twice)";
      return kNoGroup;
    }
  }
  const FusionGroup& grp = groups_[gid];
  const std::string view(ir::name(node(views.front()).op));
  if (grp.inner > 0 || grp.columns != 0 || grp.epilogue) {
    why = view + " of a reduction's result (views are pushed into pointwise groups only)";
    return kNoGroup;
  }
  bool expand = false;
  for (uint32_t v : views) expand = expand || node(v).op == Op::expand;
  for (uint32_t m : grp.members) {
    // x's one reader is the chain; every other member is read inside the group only.
    bool inside = !is_output_[m];
    if (m == x) {
      inside = inside && consumers_[m].size() == 1;
    } else {
      for (uint32_t c : consumers_[m]) inside = inside && result_.group_of[c] == gid;
    }
    if (!inside) {
      why = view +
            " of a fused value that is also read elsewhere or is an output (fusing it "
            "would compute it twice)";
      return kNoGroup;
    }
    if (expand && !cheap(node(m).op)) {
      why = "expand of a fused " + std::string(ir::name(node(m).op)) +
            " (it would be recomputed per broadcast element)";
      return kNoGroup;
    }
  }
  // Every input of the group must have strides through the views (a reshape may need a copy).
  FusionGroup probe = grp;
  probe.members.insert(probe.members.end(), views.begin(), views.end());
  probe.members.push_back(n_visiting_);
  std::sort(probe.members.begin(), probe.members.end());
  const std::vector<uint32_t> succ = view_successors(nodes_, probe);
  for (uint32_t m : grp.members) {
    const std::vector<const ir::Node*> chain = view_chain(nodes_, succ, succ[m]);
    for (const ir::ValueRef& r : node(m).inputs) {
      if (result_.group_of[r.node] == gid || node(r.node).op == Op::full) continue;
      if (!pushed_layout(chain, type(r), layout_of(r), shape(m))) {
        why = view +
              " through a reshape that has no strides for the fused group's input "
              "(it would need a copy)";
        return kNoGroup;
      }
    }
  }
  return gid;
}

}  // namespace tensord::engine::fusion_detail

namespace tensord::engine {

std::vector<uint32_t> view_successors(std::span<const ir::Node> nodes, const FusionGroup& group) {
  std::vector<uint32_t> succ(nodes.size(), kNoView);
  std::vector<uint32_t> reader(nodes.size(), kNoView);
  std::vector<bool> in_group(nodes.size(), false);
  for (uint32_t m : group.members) in_group[m] = true;
  for (uint32_t c : group.members) {
    for (const ir::ValueRef& r : nodes[c].inputs) {
      if (in_group[r.node]) reader[r.node] = c;
    }
  }
  // Members are in topological order: a reader's entry is known before its producers'.
  for (size_t i = group.members.size(); i-- > 0;) {
    const uint32_t m = group.members[i];
    const uint32_t c = reader[m];
    if (c == kNoView) continue;
    succ[m] = ir::op_info(nodes[c].op).kind == ir::OpKind::View ? c : succ[c];
  }
  return succ;
}

std::vector<const ir::Node*> view_chain(std::span<const ir::Node> nodes,
                                        std::span<const uint32_t> successors, uint32_t first) {
  std::vector<const ir::Node*> chain;
  for (uint32_t v = first; v != kNoView; v = successors[v]) chain.push_back(&nodes[v]);
  return chain;
}

}  // namespace tensord::engine
