// scatter and scatter_add along an axis (docs/ops.md). Index positions are visited in row-major
// order, so with repeated targets the last scatter wins and scatter_add sums in that order.
// scatter_add accumulates in a float64 (floats) or int64 (integers, bool) copy of x, so sums
// round once, then casts it into the output; scatter only moves elements, so when x, src and
// the output share a dtype it writes the output directly, bits unchanged.
#include <string>
#include <type_traits>
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

// A strided view of elements of type T: element 0 and strides in elements.
template <typename T>
struct View {
  const T* data;
  std::vector<int64_t> strides;
};

template <typename T>
View<T> view_of(const Operand& v) {
  return {reinterpret_cast<const T*>(v.data), std::vector<int64_t>(v.strides, v.strides + v.rank)};
}

// out[pos with `axis` replaced by index[pos]] = combine(that, src[pos]) for every position of
// the index, row by row along its last axis. `out` is contiguous; `index` and `src` are any
// views covering the index's shape (stride 0 where index_add broadcasts its index).
template <typename T, typename S, typename Combine>
void scatter_rows(T* out, const ir::Shape& out_shape, const View<int64_t>& index,
                  const ir::Shape& index_shape, const View<S>& src, int64_t axis, Combine combine) {
  // A 0-d scatter is a 1-element one.
  const bool scalar = index_shape.empty();
  const ir::Shape os = scalar ? ir::Shape{1} : out_shape;
  const ir::Shape is = scalar ? ir::Shape{1} : index_shape;
  const std::vector<int64_t> qs = scalar ? std::vector<int64_t>{0} : index.strides;
  const std::vector<int64_t> ss = scalar ? std::vector<int64_t>{0} : src.strides;
  const auto rank = static_cast<int64_t>(is.size());
  const int64_t last = rank - 1;
  const std::vector<int64_t> out_strides = ir::contiguous_strides(os);
  const int64_t size = os[axis], axis_stride = out_strides[axis], len = is[last];
  if (len == 0) return;
  int64_t rows = 1;
  for (int64_t d = 0; d < last; ++d) rows *= is[d];
  // Along the last axis the output's stride is 1; the axis itself moves by the index instead.
  const int64_t out_step = axis == last ? 0 : 1, q_step = qs[last], s_step = ss[last];
  std::vector<int64_t> pos(static_cast<size_t>(rank), 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t o = 0, q = 0, s = 0;  // the row's starts; `o` leaves the axis out
    for (int64_t d = 0; d < last; ++d) {
      if (d != axis) o += pos[d] * out_strides[d];
      q += pos[d] * qs[d];
      s += pos[d] * ss[d];
    }
    const int64_t* row = index.data + q;
    const S* from = src.data + s;
    auto walk = [&](int64_t qj, int64_t sj) {  // unit steps as constants: a tighter loop
      for (int64_t j = 0; j < len; ++j) {
        int64_t i = row[j * qj];
        if (i < -size || i >= size) out_of_bounds(i, axis, size);
        if (i < 0) i += size;
        T& target = out[o + i * axis_stride + j * out_step];
        target = combine(target, from[j * sj]);
      }
    };
    if (q_step == 1 && s_step == 1) {
      walk(1, 1);
    } else {
      walk(q_step, s_step);
    }
    for (int64_t d = last - 1; d >= 0 && ++pos[d] == is[d]; --d) pos[d] = 0;
  }
}

// The index as int64 elements: itself when it is int64 (any strides), else a contiguous
// converted copy in `keep`.
View<int64_t> index_view(const KernelContext& ctx, const TensorValue& index, TensorValue& keep) {
  if (index.type.dtype == ir::DType::Int64) return view_of<int64_t>(operand_of(index));
  keep = allocate_value(ctx.scratch, ir::TensorType{ir::DType::Int64, index.type.shape});
  cast_into(ctx, operand_of(index), operand_of(keep));
  return view_of<int64_t>(operand_of(keep));
}

}  // namespace

bool is_scatter(Op op) {
  return op == Op::scatter || op == Op::scatter_add;
}

void run_scatter(const KernelContext& ctx, const ir::Node& node,
                 std::span<const TensorValue> inputs, const TensorValue& out) {
  if (inputs.size() != 3) throw Error(ErrorCode::Internal, "scatter takes 3 inputs");
  const int64_t axis = ir::normalize_axis(node.attrs.get_int(ir::Attr::axis), out.type.rank());
  TensorValue index_copy;
  const View<int64_t> index = index_view(ctx, inputs[1], index_copy);
  const ir::Shape& index_shape = inputs[1].type.shape;
  const ir::DType dtype = out.type.dtype;
  // Not bool: the copy through int64 makes its bytes 0 or 1.
  if (node.op == Op::scatter && dtype != ir::DType::Bool && inputs[0].type.dtype == dtype &&
      inputs[2].type.dtype == dtype && operand_of(out).is_contiguous()) {
    cast_into(ctx, operand_of(inputs[0]), operand_of(out));
    visit_itemsize(ir::itemsize(dtype), [&]<typename U>(TypeTag<U>) {
      scatter_rows(static_cast<U*>(out.raw()), out.type.shape, index, index_shape,
                   view_of<U>(operand_of(inputs[2])), axis, [](U, U v) { return v; });
    });
    return;
  }
  const bool add = node.op == Op::scatter_add;
  const ir::DType acc = ir::is_floating(dtype) ? ir::DType::Float64 : ir::DType::Int64;
  TensorValue result = allocate_value(ctx.scratch, ir::TensorType{acc, out.type.shape});
  cast_into(ctx, operand_of(inputs[0]), operand_of(result));
  // Integer sums wrap: added as uint64 (same bits as int64, no overflow UB).
  auto accumulate = [&]<typename S>(const View<S>& src) {
    if (acc == ir::DType::Float64) {
      scatter_rows(result.data<double>(), out.type.shape, index, index_shape, src, axis,
                   [add](double t, S v) { return add ? t + double(v) : double(v); });
    } else {
      scatter_rows(reinterpret_cast<uint64_t*>(result.data<int64_t>()), out.type.shape, index,
                   index_shape, src, axis, [add](uint64_t t, S v) {
                     const auto w = static_cast<uint64_t>(static_cast<int64_t>(v));
                     return add ? t + w : w;
                   });
    }
  };
  // A source of a standard arithmetic type (not bool, float16 or bfloat16) is read as it is,
  // converting as cast_into would; others go through a widened copy.
  const ir::DType src_dtype = inputs[2].type.dtype;
  const bool read_as_is = !ir::is_complex(src_dtype) &&
                          (acc == ir::DType::Float64) == ir::is_floating(src_dtype) &&
                          visit_dtype(src_dtype, [&]<typename S>(TypeTag<S>) {
                            if constexpr (std::is_arithmetic_v<S> && !std::is_same_v<S, bool>) {
                              accumulate(view_of<S>(operand_of(inputs[2])));
                              return true;
                            } else {
                              return false;
                            }
                          });
  if (!read_as_is) {
    TensorValue src = allocate_value(ctx.scratch, ir::TensorType{acc, inputs[2].type.shape});
    cast_into(ctx, operand_of(inputs[2]), operand_of(src));
    if (acc == ir::DType::Float64) {
      accumulate(view_of<double>(operand_of(src)));
    } else {
      accumulate(view_of<int64_t>(operand_of(src)));
    }
  }
  cast_into(ctx, operand_of(result), operand_of(out));
}

}  // namespace tensord::cpu
