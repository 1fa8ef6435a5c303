#include "engine/plan/fusion.h"

#include <algorithm>
#include <cmath>

#include "engine/codegen/loop_ir.h"
#include "engine/ir/axes.h"

namespace tensord::engine {
namespace {

using ir::Op;
using ir::OpKind;

constexpr int32_t kNoGroup = -1;
// Bounds that keep planning linear in the graph's size and generated kernels small.
constexpr size_t kMaxGroupNodes = 512;
constexpr size_t kCycleCheckBudget = size_t{1} << 16;

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
  }

  FusionResult run() && {
    for (uint32_t n = 0; n < nodes_.size(); ++n) {
      if (needed_[n]) visit(n);
    }
    match_epilogues();
    compact();
    find_breaks();
    return std::move(result_);
  }

 private:
  const ir::Node& node(uint32_t n) const { return nodes_[n]; }
  const ir::Shape& shape(uint32_t n) const { return node(n).outputs[0].shape; }

  // The reduced trailing axes of a reduction, or -1 when they are not trailing (or none).
  int trailing_axes(const ir::Node& n) const {
    const auto rank = static_cast<int64_t>(n.outputs.empty() ? 0 : type(n.inputs[0]).rank());
    // argmax and argmin name one `axis` (or none: every axis), the other reductions `axes`.
    const bool arg = n.op == Op::argmax || n.op == Op::argmin;
    const ir::AxisMask mask =
        arg && n.attrs.has(ir::Attr::axis)
            ? ir::axis_mask(std::vector<int64_t>{n.attrs.get_int(ir::Attr::axis)}, rank, "axis")
            : ir::reduction_axes(n.attrs, rank);
    int k = 0;
    for (int64_t d = rank - 1; d >= 0 && ir::has_axis(mask, d); --d) ++k;
    for (int64_t d = 0; d < rank - k; ++d) {
      if (ir::has_axis(mask, d)) return -1;
    }
    return k == 0 ? -1 : k;
  }

  Role role(uint32_t n, std::string& why) const {
    const ir::Node& nd = node(n);
    const ir::OpInfo& info = ir::op_info(nd.op);
    if (nd.outputs.size() != 1) return Role::None;
    std::vector<ir::DType> in;
    for (const ir::ValueRef& r : nd.inputs) in.push_back(type(r).dtype);
    const ir::DType out = nd.outputs[0].dtype;
    if (const std::string c = inexact_constant(nd); !c.empty()) {
      why = c;
      return Role::None;
    }
    switch (info.kind) {
      case OpKind::Unary:
      case OpKind::Binary:
      case OpKind::Ternary:
        if (codegen::expressible(nd.op, in, out)) return Role::Elementwise;
        why = std::string(info.name) + " on " + dtypes(in) +
              " is not expressible by the code generator";
        return Role::None;
      case OpKind::Reduction: {
        if (!codegen::expressible_reduction(nd.op, in[0], out)) {
          why = std::string(info.name) + " on " + dtypes(in) +
                " is not expressible by the code generator";
          return Role::None;
        }
        if (trailing_axes(nd) < 0) {
          why = "reduction over axes that are not the trailing ones";
          return Role::None;
        }
        const ir::Shape& s = type(nd.inputs[0]).shape;
        if (std::find(s.begin(), s.end(), 0) != s.end()) {
          why = "reduction of an empty tensor";
          return Role::None;
        }
        return Role::Reduction;
      }
      default:
        why = std::string(info.name) + " (" + kind_name(info.kind) + ") is a fusion boundary";
        return Role::None;
    }
  }

  // Kernels take their constants as doubles (LaunchShape::constants): an integer constant
  // that a double does not hold exactly would change value inside a kernel.
  std::string inexact_constant(const ir::Node& nd) const {
    for (const ir::ValueRef& r : nd.inputs) {
      const ir::Node& p = node(r.node);
      if (p.op != Op::full || p.outputs[0].dtype != ir::DType::Int64) continue;
      const ir::AttrValue* v = p.attrs.find(ir::Attr::value);
      constexpr int64_t kExact = int64_t{1} << 53;
      const int64_t* i = v ? std::get_if<int64_t>(v) : nullptr;
      const double* d = v ? std::get_if<double>(v) : nullptr;
      if ((i && (*i > kExact || *i < -kExact)) ||
          (d && std::fabs(*d) > static_cast<double>(kExact))) {
        return "an int64 constant beyond 2^53 (kernels take constants as doubles, which do not "
               "hold it exactly)";
      }
    }
    return "";
  }

  static std::string kind_name(OpKind k) {
    switch (k) {
      case OpKind::View:
        return "view";
      case OpKind::Movement:
        return "data movement";
      case OpKind::Matmul:
        return "matmul";
      case OpKind::Creation:
        return "creation";
      default:
        return "not fusible";
    }
  }

  static std::string dtypes(const std::vector<ir::DType>& ts) {
    std::string s;
    for (ir::DType t : ts) {
      if (!s.empty()) s += ',';
      s += ir::name(t);
    }
    return s;
  }

  // The group's outer shape: the domain with the reduced axes set to 1.
  static ir::Shape outer_shape(const FusionGroup& grp) {
    ir::Shape s = grp.domain;
    for (size_t d = s.size() - static_cast<size_t>(grp.inner); d < s.size(); ++d) s[d] = 1;
    return s;
  }

  bool fits(const FusionGroup& grp, uint32_t n, Role r) const {
    if (r == Role::Reduction) {
      const int k = trailing_axes(node(n));
      return type(node(n).inputs[0]).shape == grp.domain && (grp.inner == 0 || grp.inner == k);
    }
    return shape(n) == grp.domain || (grp.inner > 0 && shape(n) == outer_shape(grp));
  }

  // Whether some node outside `members` that a member reads depends on a member: merging
  // them into one kernel would then be a cycle. The search is bounded; past the bound the join
  // is refused as if it were cyclic, so planning stays linear in the graph's size.
  bool cyclic(const std::vector<uint32_t>& members, uint32_t first) {
    ++epoch_;
    for (uint32_t m : members) in_set_[m] = epoch_;
    std::vector<uint32_t> stack;
    for (uint32_t m : members) {
      for (const ir::ValueRef& r : node(m).inputs) {
        if (in_set_[r.node] != epoch_ && r.node >= first && seen_[r.node] != epoch_) {
          seen_[r.node] = epoch_;
          stack.push_back(r.node);
        }
      }
    }
    size_t visited = 0;
    while (!stack.empty()) {
      if (++visited > kCycleCheckBudget) return true;
      const uint32_t x = stack.back();
      stack.pop_back();
      for (const ir::ValueRef& r : node(x).inputs) {
        if (r.node < first || seen_[r.node] == epoch_) continue;
        if (in_set_[r.node] == epoch_) return true;
        seen_[r.node] = epoch_;
        stack.push_back(r.node);
      }
    }
    return false;
  }

  void visit(uint32_t n) {
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
    // Candidate groups: those of n's producers that n fits, in input order, each once.
    std::vector<int32_t> candidates;
    for (const ir::ValueRef& in : node(n).inputs) {
      const int32_t gid = result_.group_of[in.node];
      if (gid == kNoGroup ||
          std::find(candidates.begin(), candidates.end(), gid) != candidates.end())
        continue;
      if (fits(groups_[gid], n, r)) {
        candidates.push_back(gid);
      } else if (why.empty()) {
        why = "shape " + ir::to_string(shape(n)) + " does not fit the iteration domain " +
              ir::to_string(groups_[gid].domain) + " of its producer's group";
      }
    }
    // Join the first candidate, then merge the others of the same domain when acyclic.
    int32_t joined = kNoGroup;
    for (int32_t gid : candidates) {
      FusionGroup& grp = groups_[gid];
      if (joined != kNoGroup) {
        const FusionGroup& into = groups_[joined];
        if (grp.domain != into.domain || grp.inner != into.inner) continue;
      }
      std::vector<uint32_t> members = grp.members;
      if (joined != kNoGroup) {
        members.insert(members.end(), groups_[joined].members.begin(),
                       groups_[joined].members.end());
      }
      members.push_back(n);
      if (members.size() > kMaxGroupNodes) {
        if (why.empty()) why = "its producer's group reached the size limit of a kernel";
        continue;
      }
      const uint32_t first = *std::min_element(members.begin(), members.end());
      if (cyclic(members, first)) {
        if (why.empty()) why = "joining its producer's group would make the plan cyclic";
        continue;
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
    if (r == Role::Reduction) grp.inner = trailing_axes(node(n));
    grp.members.push_back(n);
    result_.group_of[n] = joined;
  }

  void merge(int32_t from, int32_t into) {
    for (uint32_t m : groups_[from].members) result_.group_of[m] = into;
    std::vector<uint32_t>& dst = groups_[into].members;
    dst.insert(dst.end(), groups_[from].members.begin(), groups_[from].members.end());
    std::sort(dst.begin(), dst.end());
    groups_[from].members.clear();
  }

  // Matmuls with their epilogue chains (epilogue.h) become groups of their own; the chain's
  // nodes leave the elementwise groups they formed, which must hold nothing else.
  void match_epilogues() {
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

  // Keeps groups of two or more nodes, renumbered in order of their first member.
  void compact() {
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

  // An unfusable elementwise op or reduction counts as a break when a producer or a consumer
  // of it could fuse.
  void find_breaks() {
    std::vector<bool> feeds_fusible(nodes_.size(), false);
    for (uint32_t m = 0; m < nodes_.size(); ++m) {
      if (!fusible_[m]) continue;
      for (const ir::ValueRef& in : node(m).inputs) feeds_fusible[in.node] = true;
    }
    for (uint32_t n : unfusable_) {
      bool near = feeds_fusible[n];
      for (const ir::ValueRef& in : node(n).inputs) near = near || fusible_[in.node];
      if (near) result_.breaks.push_back(n);
    }
  }

  std::span<const ir::Node> nodes_;
  const ir::TensorType& type(ir::ValueRef r) const { return nodes_[r.node].outputs[r.output]; }
  const std::vector<bool>& needed_;
  std::span<const ir::ValueRef> outputs_;
  std::vector<FusionGroup> groups_;
  FusionResult result_;
  std::vector<bool> fusible_;        // per node: joined or started a group
  std::vector<uint32_t> unfusable_;  // elementwise ops and reductions the generator lacks
  // Epoch stamps for cyclic(): no allocation per check.
  std::vector<uint32_t> in_set_;
  std::vector<uint32_t> seen_;
  uint32_t epoch_ = 0;
};

}  // namespace

FusionResult fuse(std::span<const ir::Node> nodes, const std::vector<bool>& needed,
                  std::span<const ir::ValueRef> outputs) {
  return Fuser(nodes, needed, outputs).run();
}

}  // namespace tensord::engine
