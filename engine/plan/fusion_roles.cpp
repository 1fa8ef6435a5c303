// What a node can be inside a fused group (elementwise, reduction, or nothing), and in words why
// not: the boundary reasons explain shows, and the breaks the profiler reports.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/codegen/loop_ir.h"
#include "engine/plan/fusion_internal.h"

namespace tensord::engine::fusion_detail {

int Fuser::trailing_axes(const ir::Node& n) const {
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

ir::AxisMask Fuser::reduced_mask(const ir::Node& n) const {
  const auto rank = static_cast<int64_t>(type(n.inputs[0]).rank());
  return ir::reduction_axes(n.attrs, rank);
}

ir::AxisMask Fuser::column_axes(const ir::Node& n) const {
  if (n.op == Op::argmax || n.op == Op::argmin || trailing_axes(n) > 0) return 0;
  const auto rank = static_cast<int64_t>(type(n.inputs[0]).rank());
  const ir::AxisMask mask = reduced_mask(n);
  if (rank < 2 || mask == 0 || ir::has_axis(mask, rank - 1)) return 0;
  return mask;
}

Role Fuser::role(uint32_t n, std::string& why) const {
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
      if (const ir::AxisMask columns = column_axes(nd); columns != 0) {
        // Its result then has the domain's shape, and a column kernel tells what may read a
        // reduction's result in its one pass by shape (fusion_rules.cpp).
        int64_t extent = 1;
        for (size_t d = 0; d < s.size(); ++d) {
          if (ir::has_axis(columns, static_cast<int64_t>(d))) extent *= s[d];
        }
        if (extent == 1) {
          why = "reduction over leading axes of size 1";
          return Role::None;
        }
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

std::string Fuser::inexact_constant(const ir::Node& nd) const {
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

std::string Fuser::kind_name(OpKind k) {
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

std::string Fuser::dtypes(const std::vector<ir::DType>& ts) {
  std::string s;
  for (ir::DType t : ts) {
    if (!s.empty()) s += ',';
    s += ir::name(t);
  }
  return s;
}

void Fuser::find_breaks() {
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

}  // namespace tensord::engine::fusion_detail
