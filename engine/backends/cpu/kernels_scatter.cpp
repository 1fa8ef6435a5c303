// scatter and scatter_add along an axis (docs/ops.md). The result starts as a float64 (floats)
// or int64 (integers, bool) copy of x, so every dtype is written exactly and sums round once;
// index positions are visited in row-major order, so with repeated targets the last scatter
// wins and scatter_add sums in that order. Then the copy is cast into the output.
#include <string>
#include <vector>

#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels.h"

namespace tensord::cpu {
namespace {

using ir::Op;

template <typename A>
void scatter_into(Op op, A* out, const ir::Shape& out_shape, const int64_t* index,
                  const ir::Shape& index_shape, const A* src, const ir::Shape& src_shape,
                  int64_t axis) {
  const auto rank = static_cast<int64_t>(index_shape.size());
  const std::vector<int64_t> out_strides = ir::contiguous_strides(out_shape);
  const std::vector<int64_t> src_strides = ir::contiguous_strides(src_shape);
  std::vector<int64_t> pos(static_cast<size_t>(rank), 0);
  int64_t n = 1;
  for (int64_t d : index_shape) n *= d;
  const int64_t size = out_shape[axis];
  for (int64_t k = 0; k < n; ++k) {
    int64_t i = index[k];
    if (i < -size || i >= size) {
      throw Error(ErrorCode::Shape, "index " + std::to_string(i) + " is out of bounds for axis " +
                                        std::to_string(axis) + " with size " +
                                        std::to_string(size));
    }
    if (i < 0) i += size;
    int64_t o = 0, s = 0;
    for (int64_t d = 0; d < rank; ++d) {
      o += (d == axis ? i : pos[d]) * out_strides[d];
      s += pos[d] * src_strides[d];
    }
    out[o] = op == Op::scatter_add ? out[o] + src[s] : src[s];
    for (int64_t d = rank - 1; d >= 0 && ++pos[d] == index_shape[d]; --d) pos[d] = 0;
  }
}

}  // namespace

bool is_scatter(Op op) {
  return op == Op::scatter || op == Op::scatter_add;
}

void run_scatter(const KernelContext& ctx, const ir::Node& node,
                 std::span<const TensorValue> inputs, const TensorValue& out) {
  if (inputs.size() != 3) throw Error(ErrorCode::Internal, "scatter takes 3 inputs");
  const ir::DType acc = ir::is_floating(out.type.dtype) ? ir::DType::Float64 : ir::DType::Int64;
  const int64_t axis = ir::normalize_axis(node.attrs.get_int(ir::Attr::axis), out.type.rank());
  TensorValue result = allocate_value(ctx.scratch, ir::TensorType{acc, out.type.shape});
  cast_into(ctx, operand_of(inputs[0]), operand_of(result));
  TensorValue index =
      allocate_value(ctx.scratch, ir::TensorType{ir::DType::Int64, inputs[1].type.shape});
  cast_into(ctx, operand_of(inputs[1]), operand_of(index));
  TensorValue src = allocate_value(ctx.scratch, ir::TensorType{acc, inputs[2].type.shape});
  cast_into(ctx, operand_of(inputs[2]), operand_of(src));
  if (acc == ir::DType::Float64) {
    scatter_into(node.op, result.data<double>(), out.type.shape, index.data<int64_t>(),
                 index.type.shape, src.data<double>(), src.type.shape, axis);
  } else {
    // Integer sums wrap: added as uint64 (same bits as int64, no overflow UB).
    scatter_into(node.op, reinterpret_cast<uint64_t*>(result.data<int64_t>()), out.type.shape,
                 index.data<int64_t>(), index.type.shape,
                 reinterpret_cast<const uint64_t*>(src.data<int64_t>()), src.type.shape, axis);
  }
  cast_into(ctx, operand_of(result), operand_of(out));
}

}  // namespace tensord::cpu
