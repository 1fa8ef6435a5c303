// Reductions.
#include "client/cpp/src/recorder.h"
#include "tensord/ops.h"

namespace tensord {
namespace {

using ir::Attr;
using ir::Op;

ir::Attrs reduce_attrs(const Axes& axes, bool keepdim) {
  ir::Attrs attrs{{Attr::keepdim, keepdim}};
  if (!axes.is_all()) attrs.set(Attr::axes, axes.list());
  return attrs;
}

Tensor reduce(Op op, const Tensor& x, const Axes& axes, bool keepdim, Loc loc) {
  return detail::record(op, {&x}, reduce_attrs(axes, keepdim), loc);
}

Tensor arg_reduce(Op op, const Tensor& x, std::optional<int64_t> axis, bool keepdim, Loc loc) {
  ir::Attrs attrs{{Attr::keepdim, keepdim}};
  if (axis) attrs.set(Attr::axis, *axis);
  return detail::record(op, {&x}, std::move(attrs), loc);
}

}  // namespace

Tensor sum(const Tensor& x, const Axes& axes, bool keepdim, Loc loc) {
  return reduce(Op::sum, x, axes, keepdim, loc);
}
Tensor prod(const Tensor& x, const Axes& axes, bool keepdim, Loc loc) {
  return reduce(Op::prod, x, axes, keepdim, loc);
}
Tensor max(const Tensor& x, const Axes& axes, bool keepdim, Loc loc) {
  return reduce(Op::max, x, axes, keepdim, loc);
}
Tensor min(const Tensor& x, const Axes& axes, bool keepdim, Loc loc) {
  return reduce(Op::min, x, axes, keepdim, loc);
}
Tensor mean(const Tensor& x, const Axes& axes, bool keepdim, Loc loc) {
  return reduce(Op::mean, x, axes, keepdim, loc);
}
Tensor var(const Tensor& x, const Axes& axes, double correction, bool keepdim, Loc loc) {
  ir::Attrs attrs = reduce_attrs(axes, keepdim);
  attrs.set(Attr::correction, correction);
  return detail::record(Op::var, {&x}, std::move(attrs), loc);
}
Tensor argmax(const Tensor& x, std::optional<int64_t> axis, bool keepdim, Loc loc) {
  return arg_reduce(Op::argmax, x, axis, keepdim, loc);
}
Tensor argmin(const Tensor& x, std::optional<int64_t> axis, bool keepdim, Loc loc) {
  return arg_reduce(Op::argmin, x, axis, keepdim, loc);
}

Tensor all(const Tensor& x, const Axes& axes, bool keepdim, Loc loc) {
  return reduce(Op::all, x, axes, keepdim, loc);
}
Tensor any(const Tensor& x, const Axes& axes, bool keepdim, Loc loc) {
  return reduce(Op::any, x, axes, keepdim, loc);
}
Tensor count_nonzero(const Tensor& x, const Axes& axes, bool keepdim, Loc loc) {
  return reduce(Op::count_nonzero, x, axes, keepdim, loc);
}
Tensor amax(const Tensor& x, const Axes& axes, bool keepdim, Loc loc) {
  return reduce(Op::amax, x, axes, keepdim, loc);
}
Tensor amin(const Tensor& x, const Axes& axes, bool keepdim, Loc loc) {
  return reduce(Op::amin, x, axes, keepdim, loc);
}
Tensor nansum(const Tensor& x, const Axes& axes, bool keepdim, Loc loc) {
  return reduce(Op::nansum, x, axes, keepdim, loc);
}
Tensor nanmean(const Tensor& x, const Axes& axes, bool keepdim, Loc loc) {
  return reduce(Op::nanmean, x, axes, keepdim, loc);
}
Tensor std_dev(const Tensor& x, const Axes& axes, double correction, bool keepdim, Loc loc) {
  ir::Attrs attrs = reduce_attrs(axes, keepdim);
  attrs.set(Attr::correction, correction);
  return detail::record(Op::std, {&x}, std::move(attrs), loc);
}
Tensor logsumexp(const Tensor& x, const Axes& axes, bool keepdim, Loc loc) {
  return reduce(Op::logsumexp, x, axes, keepdim, loc);
}
Tensor norm(const Tensor& x, double ord, const Axes& axes, bool keepdim, Loc loc) {
  ir::Attrs attrs = reduce_attrs(axes, keepdim);
  attrs.set(Attr::ord, ord);
  return detail::record(Op::norm, {&x}, std::move(attrs), loc);
}
Tensor cumsum(const Tensor& x, int64_t axis, Loc loc) {
  return detail::record(Op::cumsum, {&x}, {{Attr::axis, axis}}, loc);
}
Tensor cumprod(const Tensor& x, int64_t axis, Loc loc) {
  return detail::record(Op::cumprod, {&x}, {{Attr::axis, axis}}, loc);
}
Tensor logcumsumexp(const Tensor& x, int64_t axis, Loc loc) {
  return detail::record(Op::logcumsumexp, {&x}, {{Attr::axis, axis}}, loc);
}

}  // namespace tensord
