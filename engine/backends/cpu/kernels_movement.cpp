// Data movement: contiguous, concat, pad, index_select, gather.
#include <algorithm>
#include <complex>
#include <cstring>
#include <string>

#include "engine/backends/cpu/elementwise.h"
#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/scalar_cast.h"

namespace tensord::cpu {
namespace {

using ir::Attr;
using ir::Op;

// `v` restricted to [start, start + size) along `axis`.
Operand narrow_view(Operand v, int axis, int64_t start, int64_t size) {
  v.data += start * v.strides[axis] * v.itemsize;
  v.shape[axis] = size;
  return v;
}

void concat(const KernelContext& ctx, const ir::Node& node, std::span<const TensorValue> inputs,
            const TensorValue& out) {
  Operand dst = operand_of(out);
  int axis = static_cast<int>(ir::normalize_axis(node.attrs.get_int(Attr::axis), dst.rank));
  int64_t start = 0;
  for (const TensorValue& in : inputs) {
    Operand src = operand_of(in);
    if (src.rank != dst.rank) throw Error(ErrorCode::Internal, "concat rank mismatch");
    cast_into(ctx, src, narrow_view(dst, axis, start, src.shape[axis]));
    start += src.shape[axis];
  }
}

void fill_value(const KernelContext& ctx, const TensorValue& out, const ir::AttrValue& value) {
  auto fill = [&]<typename T>(T v) {
    T* p = out.data<T>();
    parallel_for(out.type.numel(), kParallelGrain, ctx.threads,
                 [&](int64_t begin, int64_t end) { std::fill(p + begin, p + end, v); });
  };
  switch (out.type.dtype) {  // the value is real: a complex fill has imaginary part 0
    case ir::DType::Complex64:
      return fill(std::complex<float>(cast_attr<float>(value), 0.0f));
    case ir::DType::Complex128:
      return fill(std::complex<double>(cast_attr<double>(value), 0.0));
    default:
      return visit_dtype(out.type.dtype,
                         [&]<typename T>(TypeTag<T>) { fill(cast_attr<T>(value)); });
  }
}

void pad(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
         const TensorValue& out) {
  const std::vector<int64_t>& pads = node.attrs.get_ints(Attr::pads);
  Operand src = operand_of(in), dst = operand_of(out);
  if (static_cast<int>(pads.size()) != 2 * src.rank) {
    throw Error(ErrorCode::Shape, "pad needs 2 entries per axis");
  }
  const ir::AttrValue* value = node.attrs.find(Attr::value);
  fill_value(ctx, out, value ? *value : ir::AttrValue{int64_t{0}});
  // Input element i lands at i + before; negative pads crop.
  for (int d = 0; d < src.rank; ++d) {
    int64_t before = pads[2 * d];
    int64_t lo = std::max<int64_t>(0, -before);
    int64_t hi = std::min(src.shape[d], dst.shape[d] - before);
    if (hi <= lo) return;  // nothing of the input survives
    src = narrow_view(src, d, lo, hi - lo);
    dst = narrow_view(dst, d, lo + before, hi - lo);
  }
  copy_into(ctx, src, dst);
}

// The index values as a contiguous int64 tensor with negatives wrapped once: the index itself
// when it already is one without negatives, else a copy; throws tensord::Error(Shape) for any
// value outside [-size, size).
TensorValue checked_indices(const KernelContext& ctx, const TensorValue& index, int64_t axis,
                            int64_t size) {
  if (!ir::is_integral(index.type.dtype)) {
    throw Error(ErrorCode::DType,
                "indices must be integers, not " + std::string(ir::name(index.type.dtype)));
  }
  auto out_of_bounds = [&](int64_t i) {
    throw Error(ErrorCode::Shape, "index " + std::to_string(i) + " is out of bounds for axis " +
                                      std::to_string(axis) + " with size " + std::to_string(size));
  };
  // Contiguous int64 indices in range and not negative are used as they are: no copy (a fresh
  // 8 MiB copy of a million indices cost more than the checks).
  if (index.type.dtype == ir::DType::Int64 && operand_of(index).is_contiguous()) {
    const int64_t* q = index.data<int64_t>();
    bool negative = false;
    for (int64_t i = 0, n = index.type.numel(); i < n; ++i) {
      if (q[i] < -size || q[i] >= size) out_of_bounds(q[i]);
      negative |= q[i] < 0;
    }
    if (!negative) return index;
  }
  TensorValue idx = allocate_value(ctx.scratch, ir::TensorType{ir::DType::Int64, index.type.shape});
  cast_into(ctx, operand_of(index), operand_of(idx));
  int64_t* p = idx.data<int64_t>();
  for (int64_t i = 0, n = idx.type.numel(); i < n; ++i) {
    if (p[i] < -size || p[i] >= size) out_of_bounds(p[i]);
    if (p[i] < 0) p[i] += size;
  }
  return idx;
}

// out[pos] = x[pos with coordinate `axis` replaced by index[pos]], where `x` has the output's
// shape and stride 0 along `axis`, and `index` broadcasts to the output's shape.
void gather_into(const KernelContext& ctx, const Operand& x, int64_t axis_stride,
                 const Operand& index, const Operand& out) {
  Operand ops[3] = {out, x, index};
  int64_t jump = axis_stride * x.itemsize;
  visit_itemsize(static_cast<size_t>(out.itemsize), [&]<typename U>(TypeTag<U>) {
    launch(ctx.threads, ops, [jump](char* const* p, const int64_t* s, int64_t n) {
      if (s[2] == 0) {  // one index for the whole row: a row copy
        const char* src = p[1] + *reinterpret_cast<const int64_t*>(p[2]) * jump;
        if (s[0] == sizeof(U) && s[1] == sizeof(U)) {
          std::memcpy(p[0], src, static_cast<size_t>(n) * sizeof(U));
        } else {
          for (int64_t k = 0; k < n; ++k) at<U>(p[0], s[0], k) = at<U>(src, s[1], k);
        }
        return;
      }
      for (int64_t k = 0; k < n; ++k) {
        at<U>(p[0], s[0], k) =
            *reinterpret_cast<const U*>(p[1] + k * s[1] + at<int64_t>(p[2], s[2], k) * jump);
      }
    });
  });
}

void index_select(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
                  const TensorValue& index, const TensorValue& out) {
  Operand x = operand_of(in), dst = operand_of(out);
  int axis = static_cast<int>(ir::normalize_axis(node.attrs.get_int(Attr::axis), x.rank));
  if (index.type.rank() != 1) throw Error(ErrorCode::Shape, "index_select needs a 1-D index");
  TensorValue idx = checked_indices(ctx, index, axis, x.shape[axis]);
  // The index as a tensor of the output's rank: its values along `axis`, broadcast elsewhere.
  Operand idx_view = operand_of(idx);
  idx_view.rank = dst.rank;
  for (int d = 0; d < dst.rank; ++d) {
    idx_view.shape[d] = d == axis ? dst.shape[d] : 1;
    idx_view.strides[d] = d == axis ? 1 : 0;
  }
  int64_t axis_stride = x.strides[axis];
  x.shape[axis] = dst.shape[axis];
  x.strides[axis] = 0;
  gather_into(ctx, x, axis_stride, idx_view, dst);
}

void gather(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
            const TensorValue& index, const TensorValue& out) {
  Operand x = operand_of(in), dst = operand_of(out);
  int axis = static_cast<int>(ir::normalize_axis(node.attrs.get_int(Attr::axis), x.rank));
  if (index.type.rank() != x.rank) throw Error(ErrorCode::Shape, "gather index rank mismatch");
  for (int d = 0; d < x.rank; ++d) {
    if (d != axis && index.type.shape[d] > x.shape[d]) {
      throw Error(ErrorCode::Shape, "gather index shape " + ir::to_string(index.type.shape) +
                                        " exceeds the input shape " + ir::to_string(x.dims()));
    }
  }
  TensorValue idx = checked_indices(ctx, index, axis, x.shape[axis]);
  int64_t axis_stride = x.strides[axis];
  for (int d = 0; d < x.rank; ++d) x.shape[d] = dst.shape[d];
  x.strides[axis] = 0;
  gather_into(ctx, x, axis_stride, operand_of(idx), dst);
}

}  // namespace

void run_movement(const KernelContext& ctx, const ir::Node& node,
                  std::span<const TensorValue> inputs, const TensorValue& out) {
  auto want = [&](size_t n) {
    if (inputs.size() != n) {
      throw Error(ErrorCode::Internal, std::string(ir::name(node.op)) + " got " +
                                           std::to_string(inputs.size()) + " inputs");
    }
  };
  if (is_scatter(node.op)) return run_scatter(ctx, node, inputs, out);
  if (is_sort(node.op)) return run_sort(ctx, node, inputs, out);  // issue 4: sorting
  if (is_linalg(node.op)) return run_linalg(ctx, node, inputs, out);
  if (is_distance(node.op)) return run_distance(ctx, node, inputs, out);
  if (is_index_more(node.op)) return run_index_more(ctx, node, inputs, out);  // h/datadep
  if (is_nn(node.op)) return run_nn(ctx, node, inputs, out);  // issue 4: kernels_nn.cpp
  if (is_scan(node.op)) {
    want(1);
    return run_scan(ctx, node, inputs[0], out);
  }
  switch (node.op) {
    case Op::contiguous:
      want(1);
      return cast_into(ctx, operand_of(inputs[0]), operand_of(out));
    case Op::concat:
      if (inputs.empty()) throw Error(ErrorCode::Internal, "concat of nothing");
      return concat(ctx, node, inputs, out);
    case Op::pad:
      want(1);
      return pad(ctx, node, inputs[0], out);
    case Op::index_select:
      want(2);
      return index_select(ctx, node, inputs[0], inputs[1], out);
    case Op::gather:
      want(2);
      return gather(ctx, node, inputs[0], inputs[1], out);
    default:
      throw_unsupported(node.op, out.type.dtype);
  }
}

}  // namespace tensord::cpu
