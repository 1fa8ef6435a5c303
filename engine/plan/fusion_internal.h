// The fusion pass's grouping state (Fuser), shared by its files: fusion.cpp (the pass: visiting
// nodes, joining and merging groups, epilogues), fusion_roles.cpp (what a node can be in a
// group; the boundary reasons explain shows), fusion_rules.cpp (domains, one-pass column
// kernels, cycles) and fusion_views.cpp (views pushed down to loads). fusion.h states the rule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/ir/axes.h"
#include "engine/ir/graph.h"
#include "engine/plan/fusion.h"
#include "engine/plan/layout.h"

namespace tensord::engine::fusion_detail {

using ir::Op;
using ir::OpKind;

inline constexpr int32_t kNoGroup = -1;
// Bounds that keep planning linear in the graph's size and generated kernels small.
inline constexpr size_t kMaxGroupNodes = 512;
// Each input of a kernel costs code (its pointer, offsets, loads for full blocks and the tail):
// a running sum over 1000 scalar slices, one kernel of 1000 inputs, took GCC 70 s.
inline constexpr size_t kMaxGroupInputs = 32;
inline constexpr size_t kCycleCheckBudget = size_t{1} << 16;

// What a node can be inside a group.
enum class Role { None, Elementwise, Reduction };

class Fuser {
 public:
  Fuser(std::span<const ir::Node> nodes, const std::vector<bool>& needed,
        std::span<const ir::ValueRef> outputs)
      : nodes_(nodes),
        needed_(needed),
        outputs_(outputs),
        in_set_(nodes.size(), 0),
        seen_(nodes.size(), 0) {
    result_.group_of.assign(nodes.size(), kNoGroup);
    result_.boundary.resize(nodes.size());
    fusible_.assign(nodes.size(), false);
    consumers_.resize(nodes.size());
    is_output_.assign(nodes.size(), false);
    for (uint32_t n = 0; n < nodes.size(); ++n) {
      if (!needed_[n]) continue;
      for (const ir::ValueRef& in : node(n).inputs) consumers_[in.node].push_back(n);
    }
    for (const ir::ValueRef& r : outputs_) is_output_[r.node] = true;
    layouts_.resize(nodes.size());
  }

  FusionResult run() &&;

 private:
  const ir::Node& node(uint32_t n) const { return nodes_[n]; }
  const ir::Shape& shape(uint32_t n) const { return node(n).outputs[0].shape; }
  const ir::TensorType& type(ir::ValueRef r) const { return nodes_[r.node].outputs[r.output]; }

  // fusion.cpp: the grouping pass itself (visit every node, join or merge groups, epilogues,
  // compaction).

  void visit(uint32_t n);
  void merge(int32_t from, int32_t into);
  // Matmuls with their epilogue chains (epilogue.h) become groups of their own; the chain's
  // nodes leave the elementwise groups they formed, which must hold nothing else.
  void match_epilogues();
  // Keeps groups of two or more nodes, renumbered in order of their first member.
  void compact();

  // fusion_roles.cpp: what a node can be in a group, and the boundary reasons when it cannot.

  // The reduced trailing axes of a reduction, or -1 when they are not trailing (or none).
  int trailing_axes(const ir::Node& n) const;
  ir::AxisMask reduced_mask(const ir::Node& n) const;
  // The reduced axes of a sum/prod/max/min whose axes are not trailing but leave the innermost
  // axis: a column reduction. 0 otherwise (argmax/argmin are not done as columns).
  ir::AxisMask column_axes(const ir::Node& n) const;
  Role role(uint32_t n, std::string& why) const;
  // Kernels take their constants as doubles (LaunchShape::constants): an integer constant
  // that a double does not hold exactly would change value inside a kernel.
  std::string inexact_constant(const ir::Node& nd) const;
  static std::string kind_name(OpKind k);
  static std::string dtypes(const std::vector<ir::DType>& ts);
  // An unfusable elementwise op or reduction counts as a break when a producer or a consumer
  // of it could fuse.
  void find_breaks();

  // fusion_rules.cpp: whether a node fits a group's domain, and what a join must not break.

  // The group's outer shape: the domain with the reduced axes set to 1.
  static ir::Shape outer_shape(const FusionGroup& grp);
  // The kept shape of a column group, with the reduced axes as 1 (keepdim) or, when they are
  // all leading, without them: both broadcast the same way against the domain.
  static bool column_outer(const FusionGroup& grp, const ir::Shape& s);
  bool fits(const FusionGroup& grp, uint32_t n, Role r, int32_t gid) const;
  // Whether a column kernel over `domain` holding `members` is one pass: no member of the
  // domain's shape reads a member of another shape (a reduction's result, or what follows it).
  bool one_pass(const std::vector<uint32_t>& members, const ir::Shape& domain);
  // Whether some node outside `members` that a member reads depends on a member, counting a
  // node in another group as depending on whatever any member of that group reads (a group
  // runs as one kernel): merging them into one kernel would then be a cycle. The search is bounded;
  // past the bound the join is refused as if it were cyclic, so planning stays linear in the
  // graph's size.
  bool cyclic(const std::vector<uint32_t>& members, uint32_t first);
  // The distinct values members read from outside them, constants excepted: the kernel's
  // inputs.
  size_t external_inputs(std::vector<uint32_t> members) const;

  // fusion_views.cpp: views pushed down to a pointwise group's loads.

  static bool is_view(const ir::Node& nd) { return ir::op_info(nd.op).kind == OpKind::View; }
  // Ops cheap enough to recompute per element of a broadcast (an expand pushed down).
  static bool cheap(Op op);
  // The static layout of a value as the planner gives it: graph inputs and kernel outputs are
  // contiguous, views are view_layout of their input's (a reshape without strides: a copy).
  const Layout& layout_of(ir::ValueRef r);
  // A chain of views from a member of a pointwise group to the consumer being visited, that
  // can be pushed down to that group's loads: `views` in order, the group's id returned (-1
  // when not; `why` then says why, or is empty when the chain starts at a value no group
  // computes, which the consumer simply reads through strides).
  int32_t view_chain_of(ir::ValueRef in, std::vector<uint32_t>& views, std::string& why);

  std::span<const ir::Node> nodes_;
  const std::vector<bool>& needed_;
  std::span<const ir::ValueRef> outputs_;
  std::vector<FusionGroup> groups_;
  FusionResult result_;
  std::vector<bool> fusible_;        // per node: joined or started a group
  std::vector<uint32_t> unfusable_;  // elementwise ops and reductions the generator lacks
  std::vector<std::vector<uint32_t>> consumers_;  // per node: the needed nodes reading it
  std::vector<bool> is_output_;
  std::vector<std::optional<Layout>> layouts_;  // per view node, once asked (layout_of)
  Layout scratch_layout_;
  uint32_t n_visiting_ = 0;
  // Epoch stamps for cyclic(): no allocation per check.
  std::vector<uint32_t> in_set_;
  std::vector<uint32_t> seen_;
  std::vector<uint32_t> group_seen_;  // per group, for cyclic()'s walk through whole groups
  uint32_t epoch_ = 0;
};

}  // namespace tensord::engine::fusion_detail
