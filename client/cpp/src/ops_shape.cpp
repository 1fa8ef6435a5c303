// Views and data movement.
#include "client/cpp/src/recorder.h"
#include "tensord/ops.h"

namespace tensord {

using detail::record;
using ir::Attr;
using ir::Op;

Tensor reshape(const Tensor& x, const ir::Shape& shape, Loc loc) {
  return record(Op::reshape, {&x}, {{Attr::shape, shape}}, loc);
}
Tensor permute(const Tensor& x, const std::vector<int64_t>& dims, Loc loc) {
  return record(Op::permute, {&x}, {{Attr::dims, dims}}, loc);
}
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1, Loc loc) {
  return record(Op::transpose, {&x}, {{Attr::dims, std::vector<int64_t>{dim0, dim1}}}, loc);
}
Tensor expand(const Tensor& x, const ir::Shape& shape, Loc loc) {
  return record(Op::expand, {&x}, {{Attr::shape, shape}}, loc);
}
Tensor squeeze(const Tensor& x, const Axes& axes, Loc loc) {
  ir::Attrs attrs;
  if (!axes.is_all()) attrs.set(Attr::axes, axes.list());
  return record(Op::squeeze, {&x}, std::move(attrs), loc);
}
Tensor unsqueeze(const Tensor& x, const Axes& axes, Loc loc) {
  if (axes.is_all()) {
    throw Error(ErrorCode::InvalidGraph, "unsqueeze needs the positions of the new axes",
                std::nullopt, "unsqueeze", detail::where(loc));
  }
  return record(Op::unsqueeze, {&x}, {{Attr::axes, axes.list()}}, loc);
}
Tensor slice(const Tensor& x, int64_t axis, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step, Loc loc) {
  ir::Attrs attrs{{Attr::axis, axis}, {Attr::step, step}};
  if (start) attrs.set(Attr::start, *start);
  if (stop) attrs.set(Attr::stop, *stop);
  return record(Op::slice, {&x}, std::move(attrs), loc);
}
Tensor flip(const Tensor& x, const Axes& axes, Loc loc) {
  ir::Attrs attrs;
  if (!axes.is_all()) attrs.set(Attr::axes, axes.list());
  return record(Op::flip, {&x}, std::move(attrs), loc);
}
Tensor contiguous(const Tensor& x, Loc loc) {
  return record(Op::contiguous, {&x}, {}, loc);
}
Tensor concat(const std::vector<Tensor>& xs, int64_t axis, Loc loc) {
  return record(Op::concat, std::span<const Tensor>(xs), {{Attr::axis, axis}}, loc);
}
Tensor stack(const std::vector<Tensor>& xs, int64_t axis, Loc loc) {
  return record(Op::stack, std::span<const Tensor>(xs), {{Attr::axis, axis}}, loc);
}
Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, Scalar value, Loc loc) {
  return record(Op::pad, {&x}, {{Attr::pads, pads}, {Attr::value, detail::attr_value(value)}}, loc);
}
Tensor index_select(const Tensor& x, int64_t axis, const Tensor& index, Loc loc) {
  return record(Op::index_select, {&x, &index}, {{Attr::axis, axis}}, loc);
}
Tensor gather(const Tensor& x, int64_t axis, const Tensor& index, Loc loc) {
  return record(Op::gather, {&x, &index}, {{Attr::axis, axis}}, loc);
}

}  // namespace tensord
