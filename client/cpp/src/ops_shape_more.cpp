// Issue 4's shape and indexing ops (docs/ops.md). split, chunk, broadcast_tensors and meshgrid
// have several outputs, which the IR has no ops for yet: they are recorded here as several
// single-output nodes (slices, expands, reshapes).
#include <algorithm>

#include "client/cpp/src/recorder.h"
#include "tensord/ops.h"

namespace tensord {

using detail::record;
using ir::Attr;
using ir::Op;

namespace {

const ir::TensorType& type_of(const Tensor& x, Loc loc) {
  return detail::TensorAccess::node(x, loc)->type;
}

}  // namespace

Tensor tril(const Tensor& x, int64_t k, Loc loc) {
  return record(Op::tril, {&x}, {{Attr::k, k}}, loc);
}
Tensor triu(const Tensor& x, int64_t k, Loc loc) {
  return record(Op::triu, {&x}, {{Attr::k, k}}, loc);
}
Tensor roll(const Tensor& x, const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims,
            Loc loc) {
  ir::Attrs attrs{{Attr::shifts, shifts}};
  if (!dims.empty()) attrs.set(Attr::dims, dims);
  return record(Op::roll, {&x}, std::move(attrs), loc);
}
Tensor tile(const Tensor& x, const std::vector<int64_t>& reps, Loc loc) {
  return record(Op::tile, {&x}, {{Attr::reps, reps}}, loc);
}
Tensor repeat(const Tensor& x, const std::vector<int64_t>& sizes, Loc loc) {
  if (sizes.size() < type_of(x, loc).shape.size()) {
    throw Error(ErrorCode::Shape, "repeat needs at least as many sizes as x has dims");
  }
  return tile(x, sizes, loc);
}
Tensor repeat_interleave(const Tensor& x, int64_t repeats, std::optional<int64_t> axis, Loc loc) {
  ir::Attrs attrs{{Attr::repeats, repeats}};
  if (axis) attrs.set(Attr::axis, *axis);
  return record(Op::repeat_interleave, {&x}, std::move(attrs), loc);
}
Tensor narrow(const Tensor& x, int64_t axis, int64_t start, int64_t length, Loc loc) {
  return record(Op::narrow, {&x},
                {{Attr::axis, axis}, {Attr::start, start}, {Attr::length, length}}, loc);
}
Tensor take(const Tensor& x, const Tensor& index, Loc loc) {
  return record(Op::take, {&x, &index}, {}, loc);
}
Tensor take_along_dim(const Tensor& x, const Tensor& index, std::optional<int64_t> axis, Loc loc) {
  ir::Attrs attrs;
  if (axis) attrs.set(Attr::axis, *axis);
  return record(Op::take_along_dim, {&x, &index}, std::move(attrs), loc);
}
Tensor masked_fill(const Tensor& x, const Tensor& mask, Scalar value, Loc loc) {
  return record(Op::masked_fill, {&x, &mask}, {{Attr::value, detail::attr_value(value)}}, loc);
}
Tensor one_hot(const Tensor& x, int64_t num_classes, Loc loc) {
  if (num_classes < 0) {
    // Inferred as max(x) + 1, as torch.nn.functional.one_hot does: a sync point, because the
    // output's shape depends on the data.
    const auto& node = detail::TensorAccess::node(x, loc);
    if (node->type.numel() == 0) {
      throw Error(ErrorCode::Shape, "cannot infer num_classes from an empty tensor", std::nullopt,
                  "one_hot", detail::where(loc));
    }
    const int64_t top = max(x, {}, false, loc).astype(ir::DType::Int64, loc).item<int64_t>(loc);
    if (top < 0) {
      throw Error(ErrorCode::Shape, "cannot infer num_classes: every class value is negative",
                  std::nullopt, "one_hot", detail::where(loc));
    }
    num_classes = top + 1;
  }
  return record(Op::one_hot, {&x}, {{Attr::n, num_classes}}, loc);
}
Tensor rot90(const Tensor& x, int64_t k, const std::vector<int64_t>& dims, Loc loc) {
  return record(Op::rot90, {&x}, {{Attr::k, k}, {Attr::dims, dims}}, loc);
}
Tensor diagonal(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2, Loc loc) {
  return record(Op::diagonal, {&x}, {{Attr::k, offset}, {Attr::dims, std::vector{dim1, dim2}}},
                loc);
}
Tensor diag_embed(const Tensor& x, int64_t offset, Loc loc) {
  return record(Op::diag_embed, {&x}, {{Attr::k, offset}}, loc);
}
Tensor diag(const Tensor& x, int64_t k, Loc loc) {
  return record(Op::diag, {&x}, {{Attr::k, k}}, loc);
}

Tensor scatter(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, Loc loc) {
  return record(Op::scatter, {&x, &index, &src}, {{Attr::axis, axis}}, loc);
}
Tensor scatter_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, Loc loc) {
  return record(Op::scatter_add, {&x, &index, &src}, {{Attr::axis, axis}}, loc);
}
Tensor index_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src,
                 double alpha, Loc loc) {
  ir::Attrs attrs{{Attr::axis, axis}};
  if (alpha != 1.0) attrs.set(Attr::alpha, alpha);
  return record(Op::index_add, {&x, &index, &src}, std::move(attrs), loc);
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis,
                          Loc loc) {
  const ir::Shape& shape = type_of(x, loc).shape;
  const int64_t a = ir::normalize_axis(axis, static_cast<int64_t>(shape.size()));
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) throw Error(ErrorCode::Shape, "split sizes must be >= 0");
    total += s;
  }
  if (total != shape[a]) {
    throw Error(ErrorCode::Shape, "split sizes add up to " + std::to_string(total) + ", axis " +
                                      std::to_string(a) + " has " + std::to_string(shape[a]));
  }
  std::vector<Tensor> parts;
  int64_t start = 0;
  for (int64_t s : sizes) {
    parts.push_back(slice(x, a, start, start + s, 1, loc));
    start += s;
  }
  return parts;
}
std::vector<Tensor> split(const Tensor& x, int64_t size, int64_t axis, Loc loc) {
  if (size <= 0) throw Error(ErrorCode::Shape, "split size must be > 0");
  const ir::Shape& shape = type_of(x, loc).shape;
  const int64_t n = shape[ir::normalize_axis(axis, static_cast<int64_t>(shape.size()))];
  std::vector<int64_t> sizes;
  for (int64_t start = 0; start < n; start += size) sizes.push_back(std::min(size, n - start));
  if (sizes.empty()) sizes.push_back(0);
  return split(x, sizes, axis, loc);
}
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t axis, Loc loc) {
  if (chunks <= 0) throw Error(ErrorCode::Shape, "chunk needs chunks > 0");
  const ir::Shape& shape = type_of(x, loc).shape;
  const int64_t n = shape[ir::normalize_axis(axis, static_cast<int64_t>(shape.size()))];
  return split(x, std::max<int64_t>(1, (n + chunks - 1) / chunks), axis, loc);
}
std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& xs, Loc loc) {
  ir::Shape shape;
  for (const Tensor& x : xs) shape = ir::broadcast_shapes(shape, type_of(x, loc).shape);
  std::vector<Tensor> out;
  for (const Tensor& x : xs) out.push_back(expand(x, shape, loc));
  return out;
}
std::vector<Tensor> meshgrid(const std::vector<Tensor>& xs, bool xy, Loc loc) {
  ir::Shape shape;
  for (const Tensor& x : xs) {
    if (type_of(x, loc).shape.size() != 1)
      throw Error(ErrorCode::Shape, "meshgrid takes 1-D tensors");
    shape.push_back(type_of(x, loc).shape[0]);
  }
  if (xy && shape.size() >= 2) std::swap(shape[0], shape[1]);
  std::vector<Tensor> out;
  for (size_t i = 0; i < xs.size(); ++i) {
    size_t axis = i;
    if (xy && xs.size() >= 2 && i < 2) axis = 1 - i;
    ir::Shape column(shape.size(), 1);
    column[axis] = shape[axis];
    out.push_back(expand(reshape(xs[i], column, loc), shape, loc));
  }
  return out;
}

}  // namespace tensord
