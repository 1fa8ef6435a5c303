// Whether a node fits a group's iteration domain (row groups by shape, column groups by their
// kept shape), and what joining must not break: a column kernel stays one pass over its input,
// and the groups' dependency graph stays acyclic (a bounded search).
#include <algorithm>
#include <bit>
#include <vector>

#include "engine/plan/fusion_internal.h"

namespace tensord::engine::fusion_detail {

ir::Shape Fuser::outer_shape(const FusionGroup& grp) {
  ir::Shape s = grp.domain;
  for (size_t d = s.size() - static_cast<size_t>(grp.inner); d < s.size(); ++d) s[d] = 1;
  return s;
}

bool Fuser::column_outer(const FusionGroup& grp, const ir::Shape& s) {
  ir::Shape keep = grp.domain, dropped;
  size_t leading = 0;
  for (size_t d = 0; d < keep.size(); ++d) {
    if (ir::has_axis(grp.columns, static_cast<int64_t>(d))) {
      keep[d] = 1;
      if (leading == d) ++leading;
    } else {
      dropped.push_back(keep[d]);
    }
  }
  const bool all_leading = std::popcount(grp.columns) == static_cast<int>(leading);
  return s == keep || (all_leading && s == dropped);
}

bool Fuser::fits(const FusionGroup& grp, uint32_t n, Role r, int32_t gid) const {
  const ir::Node& nd = node(n);
  if (r == Role::Reduction) {
    if (type(nd.inputs[0]).shape != grp.domain) return false;
    const int k = trailing_axes(nd);
    if (k > 0) return grp.columns == 0 && (grp.inner == 0 || grp.inner == k);
    return grp.inner == 0 && (grp.columns == 0 || grp.columns == column_axes(nd));
  }
  if (shape(n) == grp.domain) {
    if (grp.columns == 0) {
      // A row value reads a member that is not of the domain's shape (a reduction's result or
      // what follows it) as the value of its row: only when that shape broadcasts like the
      // outer shape. A reduction without keepdim broadcasts along other axes: in x * x.sum(1)
      // of a square x, the sum's (N,) runs along the columns, not the rows.
      if (grp.inner == 0) return true;
      const ir::Shape outer = outer_shape(grp);
      for (const ir::ValueRef& in : nd.inputs) {
        if (result_.group_of[in.node] != gid || shape(in.node) == grp.domain) continue;
        ir::Shape padded(outer.size() - std::min(outer.size(), shape(in.node).size()), 1);
        padded.insert(padded.end(), shape(in.node).begin(), shape(in.node).end());
        if (padded != outer) return false;
      }
      return true;
    }
    // A column kernel makes one pass: a row value cannot read a reduction's result.
    for (const ir::ValueRef& in : nd.inputs) {
      if (result_.group_of[in.node] == gid && shape(in.node) != grp.domain) return false;
    }
    return true;
  }
  if (grp.columns != 0) return column_outer(grp, shape(n));
  return grp.inner > 0 && shape(n) == outer_shape(grp);
}

bool Fuser::one_pass(const std::vector<uint32_t>& members, const ir::Shape& domain) {
  ++epoch_;
  for (uint32_t m : members) in_set_[m] = epoch_;
  for (uint32_t m : members) {
    if (shape(m) != domain) continue;
    for (const ir::ValueRef& r : node(m).inputs) {
      if (in_set_[r.node] == epoch_ && shape(r.node) != domain) return false;
    }
  }
  return true;
}

size_t Fuser::external_inputs(std::vector<uint32_t> members) const {
  std::sort(members.begin(), members.end());
  std::vector<uint64_t> read;
  for (uint32_t m : members) {
    for (const ir::ValueRef& in : node(m).inputs) {
      if (node(in.node).op == Op::full ||
          std::binary_search(members.begin(), members.end(), in.node))
        continue;
      read.push_back(uint64_t{in.node} << 32 | in.output);
    }
  }
  std::sort(read.begin(), read.end());
  return static_cast<size_t>(std::unique(read.begin(), read.end()) - read.begin());
}

bool Fuser::cyclic(const std::vector<uint32_t>& members, uint32_t first) {
  ++epoch_;
  for (uint32_t m : members) in_set_[m] = epoch_;
  if (group_seen_.size() < groups_.size()) group_seen_.resize(groups_.size(), 0);
  std::vector<uint32_t> stack;
  // A node outside `members` in another group runs with all of that group: what any member of
  // it reads is needed before it too (min(x) and min(x) * max(x, x) in one group, max(x, x)
  // and max(x, x) - min(x) in another, each join acyclic node by node, are a cycle as
  // kernels). In topological order only nodes after `first` can depend on a member: earlier
  // ones are walked no further, but their group's later members are.
  const auto reach = [&](uint32_t x) {
    if (seen_[x] == epoch_) return;
    seen_[x] = epoch_;
    if (x >= first) {
      stack.push_back(x);
      return;
    }
    const int32_t g = result_.group_of[x];
    if (g == kNoGroup || group_seen_[g] == epoch_) return;
    group_seen_[g] = epoch_;
    for (uint32_t y : groups_[g].members) {
      if (y >= first && seen_[y] != epoch_) {
        seen_[y] = epoch_;
        stack.push_back(y);
      }
    }
  };
  for (uint32_t m : members) {
    for (const ir::ValueRef& r : node(m).inputs) {
      if (in_set_[r.node] != epoch_) reach(r.node);
    }
  }
  size_t visited = 0;
  while (!stack.empty()) {
    if (++visited > kCycleCheckBudget) return true;
    const uint32_t x = stack.back();
    stack.pop_back();
    if (in_set_[x] == epoch_) return true;
    if (const int32_t g = result_.group_of[x]; g != kNoGroup && group_seen_[g] != epoch_) {
      group_seen_[g] = epoch_;
      for (uint32_t y : groups_[g].members) {
        if (in_set_[y] == epoch_) return true;
        if (y >= first && seen_[y] != epoch_) {
          seen_[y] = epoch_;
          stack.push_back(y);
        }
      }
    }
    for (const ir::ValueRef& r : node(x).inputs) {
      if (in_set_[r.node] == epoch_) return true;
      reach(r.node);
    }
  }
  return false;
}

}  // namespace tensord::engine::fusion_detail
