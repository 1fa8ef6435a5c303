// Data movement: concat, stack, pad, index_select, gather.
#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace {

Expected concat(std::span<const RefTensor> in, int64_t axis_attr) {
  const Shape& first = in[0].shape;
  const int64_t rank = static_cast<int64_t>(first.size());
  if (rank == 0) reject(ErrorCode::Shape, "concat of 0-d tensors");
  const int64_t axis = ref_axis(axis_attr, rank);
  DType out_t = in[0].dtype;
  Shape shape = first;
  shape[axis] = 0;
  for (const RefTensor& t : in) {
    if (t.shape.size() != first.size()) reject(ErrorCode::Shape, "ranks differ");
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && t.shape[d] != first[d]) reject(ErrorCode::Shape, "dims differ");
    }
    shape[axis] += t.shape[axis];
    out_t = ref_promote(out_t, t.dtype);
  }
  Expected e{RefTensor(out_t, shape)};
  for (int64_t k = 0; k < e.value.numel(); ++k) {
    std::vector<int64_t> idx = unravel(k, shape);
    size_t part = 0;
    while (idx[axis] >= in[part].shape[axis]) idx[axis] -= in[part++].shape[axis];
    e.value.put(k, in[part].at(ravel(idx, in[part].shape)));
  }
  return e;
}

Expected stack(std::span<const RefTensor> in, int64_t axis_attr) {
  const Shape& first = in[0].shape;
  for (const RefTensor& t : in) {
    if (t.shape != first) reject(ErrorCode::Shape, "stack of different shapes");
  }
  const int64_t axis = ref_axis(axis_attr, static_cast<int64_t>(first.size()) + 1);
  std::vector<RefTensor> parts;
  for (const RefTensor& t : in) {
    RefTensor p = t;
    p.shape.insert(p.shape.begin() + axis, 1);
    parts.push_back(std::move(p));
  }
  return concat(parts, axis);
}

Expected pad(const RefTensor& x, const ir::Attrs& attrs) {
  const std::vector<int64_t>& pads = attrs.get_ints(Attr::pads);
  const size_t rank = x.shape.size();
  if (pads.size() != 2 * rank) reject(ErrorCode::Shape, "pads needs 2 * rank entries");
  Shape shape(rank);
  for (size_t d = 0; d < rank; ++d) {
    shape[d] = pads[2 * d] + x.shape[d] + pads[2 * d + 1];
    if (shape[d] < 0) reject(ErrorCode::Shape, "negative padded size");
  }
  Num value = Num::of_int(0);
  if (const auto* v = attrs.find(Attr::value)) value = scalar_attr(*v);
  Expected e{RefTensor(x.dtype, shape)};
  for (int64_t k = 0; k < e.value.numel(); ++k) {
    std::vector<int64_t> idx = unravel(k, shape);
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      idx[d] -= pads[2 * d];
      inside = inside && idx[d] >= 0 && idx[d] < x.shape[d];
    }
    e.value.put(k, inside ? x.at(ravel(idx, x.shape)) : value);
  }
  return e;
}

void require_index_dtype(const RefTensor& index) {
  if (!ir::is_integral(index.dtype)) reject(ErrorCode::DType, "index must be an integer tensor");
}

int64_t wrap_index(int64_t i, int64_t n, int64_t axis) {
  if (i < -n || i >= n) {
    reject(ErrorCode::Shape,
           "index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(axis) +
               " with size " + std::to_string(n),
           /*at_run=*/true);
  }
  return i < 0 ? i + n : i;
}

Expected index_select(const RefTensor& x, const RefTensor& index, int64_t axis_attr) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) reject(ErrorCode::Shape, "index_select of a 0-d tensor");
  require_index_dtype(index);
  if (index.shape.size() != 1) reject(ErrorCode::Shape, "index must be 1-D");
  const int64_t axis = ref_axis(axis_attr, rank);
  Shape shape = x.shape;
  shape[axis] = index.shape[0];
  Expected e{RefTensor(x.dtype, shape)};
  for (int64_t k = 0; k < e.value.numel(); ++k) {
    std::vector<int64_t> idx = unravel(k, shape);
    idx[axis] = wrap_index(index.i[idx[axis]], x.shape[axis], axis);
    e.value.put(k, x.at(ravel(idx, x.shape)));
  }
  // Every index is checked, even when the output is empty because another dim is 0.
  for (int64_t i : index.i) wrap_index(i, x.shape[axis], axis);
  return e;
}

Expected gather(const RefTensor& x, const RefTensor& index, int64_t axis_attr) {
  require_index_dtype(index);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (index.shape.size() != x.shape.size()) reject(ErrorCode::Shape, "index rank differs");
  const int64_t axis = ref_axis(axis_attr, rank);
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis && index.shape[d] > x.shape[d]) reject(ErrorCode::Shape, "index too large");
  }
  Expected e{RefTensor(x.dtype, index.shape)};
  for (int64_t k = 0; k < e.value.numel(); ++k) {
    std::vector<int64_t> idx = unravel(k, index.shape);
    idx[axis] = wrap_index(index.i[k], x.shape[axis], axis);
    e.value.put(k, x.at(ravel(idx, x.shape)));
  }
  return e;
}

}  // namespace

Expected ref_movement(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  switch (op) {
    case Op::concat:
      return concat(in, attrs.get_int(Attr::axis));
    case Op::stack:
      return stack(in, attrs.get_int(Attr::axis));
    case Op::pad:
      return pad(in[0], attrs);
    case Op::index_select:
      return index_select(in[0], in[1], attrs.get_int(Attr::axis));
    default:
      return gather(in[0], in[1], attrs.get_int(Attr::axis));
  }
}

}  // namespace tensord::conformance
