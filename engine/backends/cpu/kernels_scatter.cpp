// scatter and scatter_add along an axis (docs/ops.md). Index positions are visited in row-major
// order, so with repeated targets the last scatter wins and scatter_add sums in that order.
// scatter_add accumulates in a float64 (floats) or int64 (integers, bool) copy of x, so sums
// round once, then casts it into the output; scatter only moves elements, so when x, src and
// the output share a dtype it writes the output directly, bits unchanged.
#include <string>
#include <vector>

#include "engine/backends/cpu/dispatch.h"
#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels.h"

namespace tensord::cpu {
namespace {

using ir::Op;

[[noreturn]] void out_of_bounds(int64_t i, int64_t axis, int64_t size) {
  throw Error(ErrorCode::Shape, "index " + std::to_string(i) + " is out of bounds for axis " +
                                    std::to_string(axis) + " with size " + std::to_string(size));
}

// out[pos with `axis` replaced by index[pos]] = combine(that, src[pos]) for every position of
// the index, row by row along its last axis. `out` is contiguous; `index` and `src` are
// contiguous, `src` of any shape covering the index's.
template <typename T, typename Combine>
void scatter_rows(T* out, const ir::Shape& out_shape, const int64_t* index,
                  const ir::Shape& index_shape, const T* src, const ir::Shape& src_shape,
                  int64_t axis, Combine combine) {
  // A 0-d scatter is a 1-element one.
  const ir::Shape os = out_shape.empty() ? ir::Shape{1} : out_shape;
  const ir::Shape is = index_shape.empty() ? ir::Shape{1} : index_shape;
  const ir::Shape ss = src_shape.empty() ? ir::Shape{1} : src_shape;
  const auto rank = static_cast<int64_t>(is.size());
  const int64_t last = rank - 1;
  const std::vector<int64_t> out_strides = ir::contiguous_strides(os);
  const std::vector<int64_t> src_strides = ir::contiguous_strides(ss);
  const int64_t size = os[axis], axis_stride = out_strides[axis], len = is[last];
  if (len == 0) return;
  int64_t rows = 1;
  for (int64_t d = 0; d < last; ++d) rows *= is[d];
  std::vector<int64_t> pos(static_cast<size_t>(rank), 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t o = 0, s = 0;  // the row's start, the axis left out of `o`
    for (int64_t d = 0; d < last; ++d) {
      if (d != axis) o += pos[d] * out_strides[d];
      s += pos[d] * src_strides[d];
    }
    const int64_t* row = index + r * len;
    // Along the last axis the output's and the source's strides are 1.
    const int64_t step = axis == last ? 0 : 1;
    for (int64_t j = 0; j < len; ++j) {
      int64_t i = row[j];
      if (i < -size || i >= size) out_of_bounds(i, axis, size);
      if (i < 0) i += size;
      T& target = out[o + i * axis_stride + j * step];
      target = combine(target, src[s + j]);
    }
    for (int64_t d = last - 1; d >= 0 && ++pos[d] == is[d]; --d) pos[d] = 0;
  }
}

// The index as contiguous int64: itself when it is one, else a converted copy in `keep`.
const int64_t* contiguous_index(const KernelContext& ctx, const TensorValue& index,
                                TensorValue& keep) {
  if (index.type.dtype == ir::DType::Int64 && operand_of(index).is_contiguous()) {
    return index.data<int64_t>();
  }
  keep = allocate_value(ctx.scratch, ir::TensorType{ir::DType::Int64, index.type.shape});
  cast_into(ctx, operand_of(index), operand_of(keep));
  return keep.data<int64_t>();
}

// A contiguous value of `src` in its own dtype: itself when it is one, else a copy in `keep`.
const TensorValue& contiguous(const KernelContext& ctx, const TensorValue& src, TensorValue& keep) {
  if (operand_of(src).is_contiguous()) return src;
  keep = allocate_value(ctx.scratch, src.type);
  cast_into(ctx, operand_of(src), operand_of(keep));
  return keep;
}

}  // namespace

bool is_scatter(Op op) {
  return op == Op::scatter || op == Op::scatter_add;
}

void run_scatter(const KernelContext& ctx, const ir::Node& node,
                 std::span<const TensorValue> inputs, const TensorValue& out) {
  if (inputs.size() != 3) throw Error(ErrorCode::Internal, "scatter takes 3 inputs");
  const int64_t axis = ir::normalize_axis(node.attrs.get_int(ir::Attr::axis), out.type.rank());
  TensorValue index_copy, src_copy;
  const int64_t* index = contiguous_index(ctx, inputs[1], index_copy);
  const ir::DType dtype = out.type.dtype;
  // Not bool: the copy through int64 makes its bytes 0 or 1.
  if (node.op == Op::scatter && dtype != ir::DType::Bool && inputs[0].type.dtype == dtype &&
      inputs[2].type.dtype == dtype && operand_of(out).is_contiguous()) {
    cast_into(ctx, operand_of(inputs[0]), operand_of(out));
    const TensorValue& src = contiguous(ctx, inputs[2], src_copy);
    visit_itemsize(ir::itemsize(dtype), [&]<typename U>(TypeTag<U>) {
      scatter_rows(static_cast<U*>(out.raw()), out.type.shape, index, inputs[1].type.shape,
                   static_cast<const U*>(src.raw()), src.type.shape, axis,
                   [](U, U v) { return v; });
    });
    return;
  }
  const ir::DType acc = ir::is_floating(dtype) ? ir::DType::Float64 : ir::DType::Int64;
  TensorValue result = allocate_value(ctx.scratch, ir::TensorType{acc, out.type.shape});
  cast_into(ctx, operand_of(inputs[0]), operand_of(result));
  TensorValue src = allocate_value(ctx.scratch, ir::TensorType{acc, inputs[2].type.shape});
  cast_into(ctx, operand_of(inputs[2]), operand_of(src));
  const bool add = node.op == Op::scatter_add;
  if (acc == ir::DType::Float64) {
    scatter_rows(result.data<double>(), out.type.shape, index, inputs[1].type.shape,
                 src.data<double>(), src.type.shape, axis,
                 [add](double t, double v) { return add ? t + v : v; });
  } else {
    // Integer sums wrap: added as uint64 (same bits as int64, no overflow UB).
    scatter_rows(reinterpret_cast<uint64_t*>(result.data<int64_t>()), out.type.shape, index,
                 inputs[1].type.shape, reinterpret_cast<const uint64_t*>(src.data<int64_t>()),
                 src.type.shape, axis, [add](uint64_t t, uint64_t v) { return add ? t + v : v; });
  }
  cast_into(ctx, operand_of(result), operand_of(out));
}

}  // namespace tensord::cpu
