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

}  // namespace tensord
