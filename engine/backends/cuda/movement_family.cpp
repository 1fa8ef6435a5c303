// The CUDA kernels of: contiguous (strided copy, conj), concat, pad, unfold, with the CPU
// backend's semantics (engine/backends/cpu/kernels_movement.cpp, kernels_index_more.cpp). Each
// is one or more strided copies (movement::copy: memcpy, 2-D memcpy, tiled transpose or the
// strided kernel, converting where the dtypes differ) into views of the output.
#include <algorithm>

#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/movement_launch.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

using ir::Attr;
using ir::Op;
using namespace movement;

void want(const ir::Node& node, Values in, size_t n) {
  if (in.size() != n) {
    throw Error(ErrorCode::Internal,
                std::string(ir::name(node.op)) + " got " + std::to_string(in.size()) + " inputs");
  }
}

void run_concat(CudaContext& ctx, const ir::Node& node, Values in, const engine::TensorValue& out) {
  if (in.empty()) throw Error(ErrorCode::Internal, "concat of nothing");
  const auto rank = static_cast<int64_t>(out.type.shape.size());
  const int axis = static_cast<int>(ir::normalize_axis(node.attrs.get_int(Attr::axis), rank));
  const StridedView dst = view_of(out);
  int64_t start = 0;
  for (const engine::TensorValue& v : in) {
    if (static_cast<int64_t>(v.type.shape.size()) != rank) {
      throw Error(ErrorCode::Internal, "concat rank mismatch");
    }
    StridedView part = dst;
    std::vector<int64_t> shape = out.type.shape;
    narrow(part, shape, axis, start, v.type.shape[axis]);
    copy(ctx, v.type.shape, part, view_of(v), v.conj);
    start += v.type.shape[axis];
  }
}

void run_pad(CudaContext& ctx, const ir::Node& node, const engine::TensorValue& in,
             const engine::TensorValue& out) {
  const std::vector<int64_t>& pads = node.attrs.get_ints(Attr::pads);
  const auto rank = static_cast<int>(in.type.shape.size());
  if (static_cast<int>(pads.size()) != 2 * rank) {
    throw Error(ErrorCode::Shape, "pad needs 2 entries per axis");
  }
  const ir::AttrValue* value = node.attrs.find(Attr::value);
  fill(ctx, out.raw(), ir::itemsize(out.type.dtype), out.type.numel(), 1,
       scalar_pattern(out.type.dtype, value ? *value : ir::AttrValue{int64_t{0}}));
  // Input element i lands at i + before; negative pads crop.
  StridedView src = view_of(in), dst = view_of(out);
  std::vector<int64_t> src_shape = in.type.shape, dst_shape = out.type.shape;
  for (int d = 0; d < rank; ++d) {
    const int64_t before = pads[2 * d];
    const int64_t lo = std::max<int64_t>(0, -before);
    const int64_t hi = std::min(in.type.shape[d], out.type.shape[d] - before);
    if (hi <= lo) return;  // nothing of the input survives
    narrow(src, src_shape, d, lo, hi - lo);
    narrow(dst, dst_shape, d, lo + before, hi - lo);
  }
  copy(ctx, src_shape, dst, src);
}

// Windows of `length` every `step` along axis, as a new last axis: a strided view of x.
void run_unfold(CudaContext& ctx, const ir::Node& node, const engine::TensorValue& in,
                const engine::TensorValue& out) {
  const auto rank = static_cast<int64_t>(in.type.shape.size());
  const int64_t axis =
      ir::normalize_axis(node.attrs.get_int(Attr::axis), std::max<int64_t>(rank, 1));
  const int64_t step = node.attrs.get_int(Attr::step);
  StridedView src = view_of(in);
  std::vector<int64_t> strides(out.type.shape.size(), 0);  // a 0-d x repeats its element
  if (rank > 0) {
    for (int64_t d = 0; d < rank; ++d) strides[d] = src.strides[d];
    strides[axis] = src.strides[axis] * step;
    strides[rank] = src.strides[axis];
  }
  src.strides = std::move(strides);
  copy(ctx, out.type.shape, view_of(out), src);
}

}  // namespace

bool run_movement(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  switch (node.op) {
    case Op::contiguous:
    case Op::concat:
    case Op::pad:
    case Op::unfold:
      break;
    default:
      return false;
  }
  if (out.size() != 1) throw Error(ErrorCode::Internal, "movement ops have one output");
  const engine::TensorValue& o = out[0];
  switch (node.op) {
    case Op::contiguous:
      want(node, in, 1);
      copy(ctx, o.type.shape, view_of(o), view_of(in[0]), in[0].conj);
      break;
    case Op::concat:
      run_concat(ctx, node, in, o);
      break;
    case Op::pad:
      want(node, in, 1);
      run_pad(ctx, node, in[0], o);
      break;
    default:
      want(node, in, 1);
      run_unfold(ctx, node, in[0], o);
      break;
  }
  return true;
}

}  // namespace tensord::cuda
