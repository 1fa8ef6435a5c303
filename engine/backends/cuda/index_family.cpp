// The CUDA kernels of: index_select, gather, scatter, scatter_add, scatter_reduce, index_put,
// searchsorted, with the CPU backend's semantics (engine/backends/cpu/kernels_movement.cpp,
// kernels_scatter.cpp, kernels_index_more.cpp).
//
// Indices are copied to dense int64 scratch, wrapped and checked on the device; an index out of
// range raises the CPU's Shape error after one small device-to-host read (so these ops wait for
// the stream). Like the CPU, the scatters work on dense float64 (floats) or wrapping int64
// (integers, bool) accumulators cast into the output once. Repeated targets: scatter and
// index_put keep the last position in row-major order (the largest position wins, then
// writes), as the CPU; scatter_add, index_put(accumulate) and scatter_reduce combine with
// atomics in an unspecified order, so float sums and products may differ from the CPU's in the
// last bits of float64 (integers are exact: wrapping sums and products commute).
#include <algorithm>
#include <cstring>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/index_scatter.h"
#include "engine/backends/cuda/movement_launch.h"
#include "engine/backends/cuda/movement_sources.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

using engine::TensorValue;
using ir::Attr;
using ir::DType;
using ir::Op;
using namespace movement;

void want(const ir::Node& node, Values in, size_t lo, size_t hi) {
  if (in.size() < lo || in.size() > hi) {
    throw Error(ErrorCode::Internal,
                std::string(ir::name(node.op)) + " got " + std::to_string(in.size()) + " inputs");
  }
}

// The index values as dense int64, wrapped and checked against an axis of `size`.
TensorValue checked_indices(CudaContext& ctx, const TensorValue& index, int64_t axis,
                            int64_t size) {
  if (!ir::is_integral(index.type.dtype)) {
    throw Error(ErrorCode::DType,
                "indices must be integers, not " + std::string(ir::name(index.type.dtype)));
  }
  TensorValue idx = dense(ctx, index, DType::Int64);
  const IndexCheck c{&idx, axis, size};
  check_indices(ctx, {&c, 1});
  return idx;
}

// out[pos] = x[pos with coordinate `axis` replaced by index[pos]]: x's strides with 0 along
// the axis, the index's strides over the output's shape.
void gather_into(CudaContext& ctx, const TensorValue& x, int axis, const TensorValue& idx,
                 const std::vector<int64_t>& index_strides, const TensorValue& out) {
  int64_t n = out.type.numel();
  if (n == 0) return;
  const StridedView xv = view_of(x);
  movement::DeviceDims dims;
  movement::DeviceStrides xs, is;
  dims.rank = static_cast<int64_t>(out.type.shape.size());
  for (int64_t d = 0; d < dims.rank; ++d) {
    dims.size[d] = out.type.shape[d];
    xs.s[d] = d == axis ? 0 : xv.strides[d];
    is.s[d] = index_strides[d];
  }
  int64_t jump = xv.strides[axis];
  char* o = static_cast<char*>(out.raw());
  const char* xp = xv.data;
  const int64_t* ip = static_cast<const int64_t*>(idx.raw());
  const std::string name =
      "td_gather" + std::to_string(ir::itemsize(out.type.dtype)) + (fits_i32(n) ? "_i32" : "_i64");
  void* args[] = {&o, &xp, &ip, &n, &dims, &xs, &is, &jump};
  launch(movement::kernel(ctx, gather_kernel_source(), name), grid_of(ctx, n), dim3(kThreads), args,
         0, ctx.stream, "td_gather");
}

void run_index_select(CudaContext& ctx, const ir::Node& node, const TensorValue& x,
                      const TensorValue& index, const TensorValue& out) {
  const auto rank = static_cast<int64_t>(x.type.shape.size());
  const int axis = static_cast<int>(ir::normalize_axis(node.attrs.get_int(Attr::axis), rank));
  if (index.type.shape.size() != 1) throw Error(ErrorCode::Shape, "index_select needs a 1-D index");
  const TensorValue idx = checked_indices(ctx, index, axis, x.type.shape[axis]);
  std::vector<int64_t> strides(static_cast<size_t>(rank), 0);
  strides[axis] = 1;
  gather_into(ctx, x, axis, idx, strides, out);
}

void run_gather(CudaContext& ctx, const ir::Node& node, const TensorValue& x,
                const TensorValue& index, const TensorValue& out) {
  const auto rank = static_cast<int64_t>(x.type.shape.size());
  const int axis = static_cast<int>(ir::normalize_axis(node.attrs.get_int(Attr::axis), rank));
  if (static_cast<int64_t>(index.type.shape.size()) != rank) {
    throw Error(ErrorCode::Shape, "gather index rank mismatch");
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis && index.type.shape[d] > x.type.shape[d]) {
      throw Error(ErrorCode::Shape, "gather index shape " + ir::to_string(index.type.shape) +
                                        " exceeds the input shape " + ir::to_string(x.type.shape));
    }
  }
  const TensorValue idx = checked_indices(ctx, index, axis, x.type.shape[axis]);
  gather_into(ctx, x, axis, idx, ir::contiguous_strides(index.type.shape), out);
}

DType acc_of(DType t) {
  return ir::is_floating(t) ? DType::Float64 : DType::Int64;
}

}  // namespace

bool run_index(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  switch (node.op) {
    case Op::index_select:
    case Op::gather:
    case Op::scatter:
    case Op::scatter_add:
    case Op::scatter_reduce:
    case Op::index_put:
    case Op::searchsorted:
      break;
    default:
      return false;
  }
  if (out.size() != 1) throw Error(ErrorCode::Internal, "index ops have one output");
  const TensorValue& o = out[0];
  // The accumulating ops compute in float64 or int64, which has no room for an imaginary part
  // (inference rejects complex operands of these ops; docs/ops.md "Complex numbers").
  if (node.op != Op::index_select && node.op != Op::gather) {
    for (const TensorValue& v : in) {
      if (ir::is_complex(v.type.dtype)) unsupported(node.op, v.type.dtype);
    }
  }
  switch (node.op) {
    case Op::index_select:
      want(node, in, 2, 2);
      run_index_select(ctx, node, in[0], in[1], o);
      break;
    case Op::gather:
      want(node, in, 2, 2);
      run_gather(ctx, node, in[0], in[1], o);
      break;
    case Op::scatter:
    case Op::scatter_add:
    case Op::scatter_reduce:
      want(node, in, 3, 3);
      index_ops::run_scatter(ctx, node, in, o, acc_of(o.type.dtype));
      break;
    case Op::index_put:
      want(node, in, 3, 2 + ir::kMaxRank);
      index_ops::run_index_put(ctx, node, in, o, acc_of(o.type.dtype));
      break;
    default:
      want(node, in, 2, 3);
      index_ops::run_searchsorted(ctx, node, in, o);
      break;
  }
  return true;
}

}  // namespace tensord::cuda
