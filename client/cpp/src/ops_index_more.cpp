// issue 4 (h/datadep): the remaining indexing ops, and the ones whose output shape depends on
// the data. where(cond) and boolean_index are recorded from other ops here.
#include <string>

#include "client/cpp/src/recorder.h"
#include "engine/ir/dynamic.h"
#include "tensord/ops.h"

namespace tensord {

using detail::record;
using ir::Attr;
using ir::Op;

namespace {

const ir::TensorType& type_of(const Tensor& x, Loc loc) {
  return detail::TensorAccess::node(x, loc)->type;
}

ir::Attrs right_attr(bool right) {
  ir::Attrs a;
  if (right) a.set(Attr::right, true);
  return a;
}

}  // namespace

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool right, Loc loc) {
  return record(Op::searchsorted, {&sorted_sequence, &values}, right_attr(right), loc);
}
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, const Tensor& sorter,
                    bool right, Loc loc) {
  return record(Op::searchsorted, {&sorted_sequence, &values, &sorter}, right_attr(right), loc);
}
Tensor bucketize(const Tensor& x, const Tensor& boundaries, bool right, Loc loc) {
  return record(Op::bucketize, {&x, &boundaries}, right_attr(right), loc);
}
Tensor scatter_reduce(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src,
                      ScatterReduce reduce, bool include_self, Loc loc) {
  ir::Attrs attrs{{Attr::axis, axis}, {Attr::reduction, static_cast<int64_t>(reduce)}};
  if (!include_self) attrs.set(Attr::include_self, false);
  return record(Op::scatter_reduce, {&x, &index, &src}, std::move(attrs), loc);
}
Tensor scatter(const Tensor& x, int64_t axis, const Tensor& index, Scalar value, Loc loc) {
  return record(Op::scatter_value, {&x, &index},
                {{Attr::axis, axis}, {Attr::value, detail::attr_value(value)}}, loc);
}
Tensor index_put(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values,
                 bool accumulate, Loc loc) {
  std::vector<Tensor> inputs{x, values};
  inputs.insert(inputs.end(), indices.begin(), indices.end());
  ir::Attrs attrs;
  if (accumulate) attrs.set(Attr::accumulate, true);
  return record(Op::index_put, std::span<const Tensor>(inputs), std::move(attrs), loc);
}
Tensor unfold(const Tensor& x, int64_t axis, int64_t size, int64_t step, Loc loc) {
  return record(Op::unfold, {&x}, {{Attr::axis, axis}, {Attr::length, size}, {Attr::step, step}},
                loc);
}

Tensor nonzero(const Tensor& x, Loc loc) {
  return record(Op::nonzero, {&x}, {}, loc);
}
Tensor flatnonzero(const Tensor& x, Loc loc) {
  return record(Op::flatnonzero, {&x}, {}, loc);
}
std::vector<Tensor> where(const Tensor& cond, Loc loc) {
  // Axis d of each hit is (flat // stride_d) % size_d: elementwise ops on the one
  // data-dependent tensor, so no column slices of a (n, rank) tensor are needed.
  const ir::Shape& shape = type_of(cond, loc).shape;
  if (ir::has_dynamic(shape)) {
    throw Error(ErrorCode::Unsupported,
                "where(cond) needs cond's shape; it depends on data not synced yet", std::nullopt,
                "where", detail::where(loc));
  }
  Tensor flat = flatnonzero(cond, loc);
  std::vector<Tensor> out;
  const std::vector<int64_t> strides = ir::contiguous_strides(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    Tensor i = flat;
    if (strides[d] != 1) i = floor_divide(i, strides[d], loc);
    if (d != 0) i = remainder(i, shape[d], loc);
    out.push_back(i);
  }
  return out;
}
Tensor masked_select(const Tensor& x, const Tensor& mask, Loc loc) {
  return record(Op::masked_select, {&x, &mask}, {}, loc);
}
UniqueAll unique_all(const Tensor& x, Loc loc) {
  std::vector<Tensor> out = detail::record_multi(Op::unique, {&x, 1}, {}, loc);
  return UniqueAll{std::move(out[0]), std::move(out[1]), std::move(out[2]), std::move(out[3])};
}
Tensor unique(const Tensor& x, Loc loc) {
  return unique_all(x, loc).values;
}
Tensor unique_counts(const Tensor& x, Loc loc) {
  return unique_all(x, loc).counts;
}
Tensor unique_inverse(const Tensor& x, Loc loc) {
  return unique_all(x, loc).inverse_indices;
}
Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, std::optional<int64_t> axis,
                         Loc loc) {
  ir::Attrs attrs;
  if (axis) attrs.set(Attr::axis, *axis);
  return record(Op::repeat_interleave_tensor, {&x, &repeats}, std::move(attrs), loc);
}

Tensor boolean_index(const Tensor& x, const Tensor& mask, Loc loc) {
  const ir::TensorType& xt = type_of(x, loc);
  const ir::TensorType& mt = type_of(mask, loc);
  auto fail = [&](ErrorCode code, const std::string& why) {
    throw Error(code, why, std::nullopt, "boolean_index", detail::where(loc));
  };
  if (mt.dtype != ir::DType::Bool) {
    fail(ErrorCode::DType, "a boolean index must be bool, got " + std::string(ir::name(mt.dtype)));
  }
  if (ir::has_dynamic(xt.shape) || ir::has_dynamic(mt.shape)) {
    fail(ErrorCode::Unsupported,
         "boolean indexing of a tensor whose shape depends on data not "
         "synced yet; sync it first");
  }
  if (mt.rank() > xt.rank() || !std::equal(mt.shape.begin(), mt.shape.end(), xt.shape.begin())) {
    fail(ErrorCode::Shape, "boolean index of shape " + ir::to_string(mt.shape) +
                               " does not match the leading dims of " + ir::to_string(xt.shape));
  }
  // x as (cells of the mask, rest...), rows picked by the mask's flat hits.
  ir::Shape rows{mt.numel()};
  rows.insert(rows.end(), xt.shape.begin() + mt.rank(), xt.shape.end());
  Tensor hits = flatnonzero(mask, loc);
  return index_select(reshape(x, rows, loc), 0, hits, loc);
}

}  // namespace tensord
