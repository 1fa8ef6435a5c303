// The fusion pass (fusion.h states its rule): nodes are visited in topological order and join
// the group of a producer they fit, start their own, or merge two producers' groups; matmul
// epilogue chains are then matched, and groups of one node dropped. What a node can be, the
// fit and legality checks, and view push-down are in fusion_roles.cpp, fusion_rules.cpp and
// fusion_views.cpp (fusion_internal.h lists them).
#include "engine/plan/fusion.h"

#include <algorithm>
#include <utility>

#include "engine/plan/fusion_internal.h"

namespace tensord::engine::fusion_detail {

FusionResult Fuser::run() && {
  for (uint32_t n = 0; n < nodes_.size(); ++n) {
    if (needed_[n]) visit(n);
  }
  match_epilogues();
  compact();
  find_breaks();
  return std::move(result_);
}

void Fuser::visit(uint32_t n) {
  if (node(n).op == Op::full || node(n).op == Op::input) return;
  std::string why;
  const Role r = role(n, why);
  if (r == Role::None) {
    result_.boundary[n] = why;
    const OpKind kind = ir::op_info(node(n).op).kind;
    if (kind == OpKind::Unary || kind == OpKind::Binary || kind == OpKind::Ternary ||
        kind == OpKind::Reduction) {
      unfusable_.push_back(n);
    }
    return;
  }
  fusible_[n] = true;
  n_visiting_ = n;
  // Candidate groups: those of n's producers that n fits, in input order, each once; a
  // producer behind a chain of views with the views' shape as the domain (view_chain_of).
  struct Candidate {
    int32_t gid;
    std::vector<uint32_t> views;
    ir::Shape domain;
  };
  std::vector<Candidate> candidates;
  for (const ir::ValueRef& in : node(n).inputs) {
    std::vector<uint32_t> views;
    int32_t gid = result_.group_of[in.node];
    if (is_view(node(in.node))) {
      std::string vwhy;
      gid = view_chain_of(in, views, vwhy);
      if (gid == kNoGroup) {
        if (!views.empty() && !vwhy.empty()) result_.boundary[views.front()] = vwhy;
        continue;
      }
    }
    if (gid == kNoGroup || std::any_of(candidates.begin(), candidates.end(),
                                       [&](const Candidate& c) { return c.gid == gid; }))
      continue;
    FusionGroup probe = groups_[gid];
    if (!views.empty()) probe.domain = shape(views.back());
    if (fits(probe, n, r, gid)) {
      candidates.push_back({gid, std::move(views), probe.domain});
    } else if (why.empty() && probe.columns != 0 && shape(n) == probe.domain) {
      why = "a column kernel makes one pass: it cannot read its own reduction's result";
    } else if (why.empty() && shape(n) == probe.domain) {
      why =
          "it reads a reduction's result that broadcasts along other axes than the reduced "
          "ones (a reduction without keepdim)";
    } else if (why.empty()) {
      why = "shape " + ir::to_string(shape(n)) + " does not fit the iteration domain " +
            ir::to_string(probe.domain) + " of its producer's group";
    }
  }
  // Join the first candidate, then merge the others of the same domain when acyclic.
  int32_t joined = kNoGroup;
  for (const Candidate& c : candidates) {
    const int32_t gid = c.gid;
    FusionGroup& grp = groups_[gid];
    if (joined != kNoGroup) {
      const FusionGroup& into = groups_[joined];
      if (c.domain != into.domain || grp.inner != into.inner || grp.columns != into.columns)
        continue;
    }
    std::vector<uint32_t> members = grp.members;
    members.insert(members.end(), c.views.begin(), c.views.end());
    if (joined != kNoGroup) {
      members.insert(members.end(), groups_[joined].members.begin(), groups_[joined].members.end());
    }
    members.push_back(n);
    if (members.size() > kMaxGroupNodes) {
      if (why.empty()) why = "its producer's group reached the size limit of a kernel";
      continue;
    }
    if (external_inputs(members) > kMaxGroupInputs) {
      if (why.empty()) why = "its producer's group reached the input limit of a kernel";
      continue;
    }
    if (joined != kNoGroup && grp.columns != 0 && !one_pass(members, c.domain)) {
      // Two column groups, one computing from the other's reduction (logsumexp: x - max(x)
      // feeding a sum): joined, they would need two passes over the columns.
      if (why.empty())
        why = "a column kernel makes one pass: it cannot read its own reduction's result";
      continue;
    }
    const uint32_t first = *std::min_element(members.begin(), members.end());
    if (cyclic(members, first)) {
      if (why.empty()) why = "joining its producer's group would make the plan cyclic";
      continue;
    }
    if (!c.views.empty()) {  // the views join: the group now computes in their shape
      grp.domain = c.domain;
      for (uint32_t v : c.views) {
        grp.members.push_back(v);
        result_.group_of[v] = gid;
        result_.boundary[v].clear();
      }
      std::sort(grp.members.begin(), grp.members.end());
    }
    if (joined == kNoGroup) {
      joined = gid;
    } else {
      merge(gid, joined);
    }
  }
  if (joined == kNoGroup) {
    joined = static_cast<int32_t>(groups_.size());
    FusionGroup grp;
    if (r == Role::Reduction) {
      grp.domain = type(node(n).inputs[0]).shape;
    } else {
      grp.domain = shape(n);
    }
    groups_.push_back(std::move(grp));
    result_.boundary[n] = why;
  }
  FusionGroup& grp = groups_[joined];
  if (r == Role::Reduction) {
    grp.inner = std::max(0, trailing_axes(node(n)));
    grp.columns = column_axes(node(n));
  }
  grp.members.push_back(n);
  result_.group_of[n] = joined;
}

void Fuser::merge(int32_t from, int32_t into) {
  for (uint32_t m : groups_[from].members) result_.group_of[m] = into;
  std::vector<uint32_t>& dst = groups_[into].members;
  dst.insert(dst.end(), groups_[from].members.begin(), groups_[from].members.end());
  std::sort(dst.begin(), dst.end());
  groups_[from].members.clear();
}

void Fuser::match_epilogues() {
  std::vector<std::vector<uint32_t>> consumers(nodes_.size());
  for (uint32_t n = 0; n < nodes_.size(); ++n) {
    if (!needed_[n]) continue;
    for (const ir::ValueRef& in : node(n).inputs) consumers[in.node].push_back(n);
  }
  std::vector<bool> is_output(nodes_.size(), false);
  for (const ir::ValueRef& r : outputs_) is_output[r.node] = true;
  for (uint32_t m = 0; m < nodes_.size(); ++m) {
    if (!needed_[m] || node(m).op != Op::matmul) continue;
    EpilogueMatch em = match_epilogue(nodes_, consumers, is_output, m);
    if (em.chain.empty()) {
      if (!em.why.empty()) result_.boundary[m] = "matmul epilogue not fused: " + em.why;
      continue;
    }
    const auto in_chain = [&](uint32_t n) {
      return std::binary_search(em.chain.begin(), em.chain.end(), n);
    };
    bool alone = true;
    for (uint32_t c : em.chain) {
      const int32_t g = result_.group_of[c];
      if (g == kNoGroup) continue;
      for (uint32_t x : groups_[g].members) alone = alone && in_chain(x);
    }
    if (!alone) {
      result_.boundary[m] =
          "matmul epilogue not fused: its ops share a generated kernel with other ops";
      continue;
    }
    const auto gid = static_cast<int32_t>(groups_.size());
    FusionGroup grp;
    grp.members.push_back(m);
    for (uint32_t c : em.chain) {
      const int32_t g = result_.group_of[c];
      if (g != kNoGroup) groups_[g].members.clear();
      result_.group_of[c] = gid;
      result_.boundary[c].clear();
      grp.members.push_back(c);
    }
    result_.group_of[m] = gid;
    result_.boundary[m].clear();
    grp.domain = shape(em.chain.back());
    grp.epilogue = std::move(em.epilogue);
    groups_.push_back(std::move(grp));
  }
}

void Fuser::compact() {
  std::vector<int32_t> renumber(groups_.size(), kNoGroup);
  for (size_t i = 0; i < groups_.size(); ++i) {
    if (groups_[i].members.size() < 2) continue;
    renumber[i] = static_cast<int32_t>(result_.groups.size());
    result_.groups.push_back(std::move(groups_[i]));
  }
  for (int32_t& gid : result_.group_of) {
    if (gid != kNoGroup) gid = renumber[gid];
  }
}

}  // namespace tensord::engine::fusion_detail

namespace tensord::engine {

FusionResult fuse(std::span<const ir::Node> nodes, const std::vector<bool>& needed,
                  std::span<const ir::ValueRef> outputs) {
  return fusion_detail::Fuser(nodes, needed, outputs).run();
}

}  // namespace tensord::engine
