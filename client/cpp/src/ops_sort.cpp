// Sorting along an axis (issue 4, docs/ops.md): sort, argsort, quantile, nanquantile, median,
// nanmedian.
#include "client/cpp/src/recorder.h"
#include "tensord/ops.h"

namespace tensord {

using detail::record;
using ir::Attr;
using ir::Op;

namespace {

Tensor sorted(Op op, const Tensor& x, int64_t axis, bool descending, bool stable, Loc loc) {
  return record(op, {&x},
                {{Attr::axis, axis}, {Attr::descending, descending}, {Attr::stable, stable}}, loc);
}

Tensor quantile_of(Op op, const Tensor& x, const Tensor& q, std::optional<int64_t> axis,
                   bool keepdim, Interpolation interpolation, Loc loc) {
  ir::Attrs attrs{{Attr::keepdim, keepdim},
                  {Attr::interpolation, static_cast<int64_t>(interpolation)}};
  if (axis) attrs.set(Attr::axis, *axis);
  return record(op, {&x, &q}, std::move(attrs), loc);
}

// q as a 0-d tensor of x's dtype (float32 when x is not floating: inference then rejects x).
Tensor scalar_q(const Tensor& x, double q, Loc loc) {
  const auto& node = detail::TensorAccess::node(x, loc);
  const ir::DType t = ir::is_floating(node->type.dtype) ? node->type.dtype : ir::DType::Float32;
  return detail::record_creation(
      node->session, Op::full,
      {{Attr::shape, std::vector<int64_t>{}}, {Attr::value, q}, {Attr::dtype, t}}, loc);
}

}  // namespace

Tensor argsort(const Tensor& x, int64_t axis, bool descending, bool stable, Loc loc) {
  return sorted(Op::argsort, x, axis, descending, stable, loc);
}
Tensor quantile(const Tensor& x, const Tensor& q, std::optional<int64_t> axis, bool keepdim,
                Interpolation interpolation, Loc loc) {
  return quantile_of(Op::quantile, x, q, axis, keepdim, interpolation, loc);
}
Tensor quantile(const Tensor& x, double q, std::optional<int64_t> axis, bool keepdim,
                Interpolation interpolation, Loc loc) {
  return quantile_of(Op::quantile, x, scalar_q(x, q, loc), axis, keepdim, interpolation, loc);
}
Tensor nanquantile(const Tensor& x, const Tensor& q, std::optional<int64_t> axis, bool keepdim,
                   Interpolation interpolation, Loc loc) {
  return quantile_of(Op::nanquantile, x, q, axis, keepdim, interpolation, loc);
}
Tensor nanquantile(const Tensor& x, double q, std::optional<int64_t> axis, bool keepdim,
                   Interpolation interpolation, Loc loc) {
  return quantile_of(Op::nanquantile, x, scalar_q(x, q, loc), axis, keepdim, interpolation, loc);
}
Tensor median(const Tensor& x, Loc loc) {
  return record(Op::median, {&x}, {}, loc);
}
Tensor nanmedian(const Tensor& x, Loc loc) {
  return record(Op::nanmedian, {&x}, {}, loc);
}

// (values, indices) forms: one node with two outputs (docs/ops.md).
namespace {

ValuesIndices pair(Op op, const Tensor& x, ir::Attrs attrs, Loc loc) {
  std::vector<Tensor> out = detail::record_multi(op, {&x, 1}, std::move(attrs), loc);
  return ValuesIndices{std::move(out[0]), std::move(out[1])};
}

}  // namespace

ValuesIndices sort(const Tensor& x, int64_t axis, bool descending, bool stable, Loc loc) {
  return pair(Op::sort, x,
              {{Attr::axis, axis}, {Attr::descending, descending}, {Attr::stable, stable}}, loc);
}
ValuesIndices topk(const Tensor& x, int64_t k, int64_t axis, bool largest, bool sorted, Loc loc) {
  return pair(Op::topk, x,
              {{Attr::k, k}, {Attr::axis, axis}, {Attr::largest, largest}, {Attr::sorted, sorted}},
              loc);
}
ValuesIndices kthvalue(const Tensor& x, int64_t k, int64_t axis, bool keepdim, Loc loc) {
  return pair(Op::kthvalue, x, {{Attr::k, k}, {Attr::axis, axis}, {Attr::keepdim, keepdim}}, loc);
}
ValuesIndices median(const Tensor& x, int64_t axis, bool keepdim, Loc loc) {
  return pair(Op::median_axis, x, {{Attr::axis, axis}, {Attr::keepdim, keepdim}}, loc);
}
ValuesIndices nanmedian(const Tensor& x, int64_t axis, bool keepdim, Loc loc) {
  return pair(Op::nanmedian_axis, x, {{Attr::axis, axis}, {Attr::keepdim, keepdim}}, loc);
}
ValuesIndices mode(const Tensor& x, int64_t axis, bool keepdim, Loc loc) {
  return pair(Op::mode, x, {{Attr::axis, axis}, {Attr::keepdim, keepdim}}, loc);
}
ValuesIndices cummax(const Tensor& x, int64_t axis, Loc loc) {
  return pair(Op::cummax, x, {{Attr::axis, axis}}, loc);
}
ValuesIndices cummin(const Tensor& x, int64_t axis, Loc loc) {
  return pair(Op::cummin, x, {{Attr::axis, axis}}, loc);
}

}  // namespace tensord
