#include "engine/plan/fusion.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>

#include "engine/codegen/loop_ir.h"
#include "engine/ir/axes.h"
#include "engine/plan/layout.h"
#include "engine/plan/view_layout.h"

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
    consumers_.resize(nodes.size());
    is_output_.assign(nodes.size(), false);
    for (uint32_t n = 0; n < nodes.size(); ++n) {
      if (!needed_[n]) continue;
      for (const ir::ValueRef& in : node(n).inputs) consumers_[in.node].push_back(n);
    }
    for (const ir::ValueRef& r : outputs_) is_output_[r.node] = true;
    layouts_.resize(nodes.size());
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

  ir::AxisMask reduced_mask(const ir::Node& n) const {
    const auto rank = static_cast<int64_t>(type(n.inputs[0]).rank());
    return ir::reduction_axes(n.attrs, rank);
  }

  // The reduced axes of a sum/prod/max/min whose axes are not trailing but leave the innermost
  // axis: a column reduction. 0 otherwise (argmax/argmin are not done as columns).
  ir::AxisMask column_axes(const ir::Node& n) const {
    if (n.op == Op::argmax || n.op == Op::argmin || trailing_axes(n) > 0) return 0;
    const auto rank = static_cast<int64_t>(type(n.inputs[0]).rank());
    const ir::AxisMask mask = reduced_mask(n);
    if (rank < 2 || mask == 0 || ir::has_axis(mask, rank - 1)) return 0;
    return mask;
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
        if (trailing_axes(nd) < 0 && column_axes(nd) == 0) {
          const bool arg = nd.op == Op::argmax || nd.op == Op::argmin;
          why = arg ? "argmax/argmin over axes that are not the trailing ones"
                    : "reduction over axes that neither are the trailing ones nor leave the "
                      "innermost axis";
          return Role::None;
        }
        const ir::Shape& s = type(nd.inputs[0]).shape;
        if (std::find(s.begin(), s.end(), 0) != s.end()) {
          why = "reduction of an empty tensor";
          return Role::None;
        }
        return Role::Reduction;
      }
      case OpKind::View:
        // Not a boundary by itself: a view of a stored value is a strided load of the group
        // reading it; a view of a fused value is pushed down (view_chain_of() says when not).
        return Role::None;
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

  // The kept shape of a column group, with the reduced axes as 1 (keepdim) or, when they are
  // all leading, without them: both broadcast the same way against the domain.
  static bool column_outer(const FusionGroup& grp, const ir::Shape& s) {
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

  bool fits(const FusionGroup& grp, uint32_t n, Role r, int32_t gid) const {
    const ir::Node& nd = node(n);
    if (r == Role::Reduction) {
      if (type(nd.inputs[0]).shape != grp.domain) return false;
      const int k = trailing_axes(nd);
      if (k > 0) return grp.columns == 0 && (grp.inner == 0 || grp.inner == k);
      return grp.inner == 0 && (grp.columns == 0 || grp.columns == column_axes(nd));
    }
    if (shape(n) == grp.domain) {
      if (grp.columns == 0) return true;
      // A column kernel makes one pass: a row value cannot read a reduction's result.
      for (const ir::ValueRef& in : nd.inputs) {
        if (result_.group_of[in.node] == gid && shape(in.node) != grp.domain) return false;
      }
      return true;
    }
    if (grp.columns != 0) return column_outer(grp, shape(n));
    return grp.inner > 0 && shape(n) == outer_shape(grp);
  }

  static bool is_view(const ir::Node& nd) { return ir::op_info(nd.op).kind == OpKind::View; }

  // Ops cheap enough to recompute per element of a broadcast (an expand pushed down).
  static bool cheap(Op op) {
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

  // The static layout of a value as the planner gives it: graph inputs and kernel outputs are
  // contiguous, views are view_layout of their input's (a reshape without strides: a copy).
  const Layout& layout_of(ir::ValueRef r) {
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

  // A chain of views from a member of a pointwise group to the consumer being visited, that
  // can be pushed down to that group's loads: `views` in order, the group's id returned (-1
  // when not; `why` then says why, or is empty when the chain starts at a value no group
  // computes, which the consumer simply reads through strides).
  int32_t view_chain_of(ir::ValueRef in, std::vector<uint32_t>& views, std::string& why) {
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

  // Whether some node outside `members` that a member reads depends on a member: merging
  // them into one kernel would then be a cycle. The search is bounded; past the bound the join
  // is refused as if it were cyclic, so planning stays linear in the graph's size.
  // Whether a column kernel over `domain` holding `members` is one pass: no member of the
  // domain's shape reads a member of another shape (a reduction's result, or what follows it).
  bool one_pass(const std::vector<uint32_t>& members, const ir::Shape& domain) {
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
        members.insert(members.end(), groups_[joined].members.begin(),
                       groups_[joined].members.end());
      }
      members.push_back(n);
      if (members.size() > kMaxGroupNodes) {
        if (why.empty()) why = "its producer's group reached the size limit of a kernel";
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
  std::vector<std::vector<uint32_t>> consumers_;  // per node: the needed nodes reading it
  std::vector<bool> is_output_;
  std::vector<std::optional<Layout>> layouts_;  // per view node, once asked (layout_of)
  Layout scratch_layout_;
  uint32_t n_visiting_ = 0;
  // Epoch stamps for cyclic(): no allocation per check.
  std::vector<uint32_t> in_set_;
  std::vector<uint32_t> seen_;
  uint32_t epoch_ = 0;
};

}  // namespace

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
    succ[m] = ir::op_info(nodes[c].op).kind == OpKind::View ? c : succ[c];
  }
  return succ;
}

std::vector<const ir::Node*> view_chain(std::span<const ir::Node> nodes,
                                        std::span<const uint32_t> successors, uint32_t first) {
  std::vector<const ir::Node*> chain;
  for (uint32_t v = first; v != kNoView; v = successors[v]) chain.push_back(&nodes[v]);
  return chain;
}

FusionResult fuse(std::span<const ir::Node> nodes, const std::vector<bool>& needed,
                  std::span<const ir::ValueRef> outputs) {
  return Fuser(nodes, needed, outputs).run();
}

}  // namespace tensord::engine
