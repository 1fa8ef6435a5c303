// Pooling (window and adaptive, max and average, 1 to 3 spatial axes) and interpolate. Every op
// reads its input through strides, as planes (N, C) of (D, H, W) (pool_args, interpolate_args):
// the kernels read any view without a copy.
//
// A 1-d or 2-d window pool without indices or divisor goes to cuDNN (cudnnPoolingForward,
// NaN-propagating max, average with or without the padding in the count) when cuDNN's result is
// PyTorch's: no dilation, ceil_mode adding no window, float32/float16/float64 (no bfloat16 pooling
// in the legacy API), an input packed NCHW or NHWC. Everything else, and what cuDNN declines, runs
// the kernel of dnn_kernels.cpp: the CPU's loop, sums in double, the CPU's indices.
#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/dnn_internal.h"
#include "engine/backends/cuda/dnn_kernels.h"
#include "engine/ir/error.h"

namespace tensord::cuda::dnn {
namespace {

bool pool_with_cudnn(CudaContext& ctx, const PoolProblem& p, const TensorValue& x, const View& xv,
                     const TensorValue& y) {
  const ir::DType dtype = x.type.dtype;
  Layout layout;
  if (has_layout(xv.shape, xv.strides, Layout::RowMajor)) {
    layout = Layout::RowMajor;
  } else if (has_layout(xv.shape, xv.strides, Layout::ChannelsLast)) {
    layout = Layout::ChannelsLast;
  } else {
    return false;
  }
  const cudnnHandle_t handle = state(ctx).handle(ctx.stream);
  PoolDesc pool;
  const cudnnPoolingMode_t mode = p.is_max ? CUDNN_POOLING_MAX
                                  : p.count_include_pad
                                      ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                      : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
  if (!accept(
          cudnnSetPooling2dDescriptor(pool.d, mode, CUDNN_PROPAGATE_NAN,
                                      static_cast<int>(p.kernel[0]), static_cast<int>(p.kernel[1]),
                                      static_cast<int>(p.pad[0]), static_cast<int>(p.pad[1]),
                                      static_cast<int>(p.stride[0]), static_cast<int>(p.stride[1])),
          "cudnnSetPooling2dDescriptor")) {
    return false;
  }
  const std::vector<int64_t> xd = {p.n, p.c, p.ih, p.iw}, yd = {p.n, p.c, p.oh, p.ow};
  TensorDesc xdesc, ydesc;
  if (!xdesc.set(dtype, xd, packed_strides(xd, layout)) ||
      !ydesc.set(dtype, yd, packed_strides(yd, Layout::RowMajor))) {
    return false;
  }
  const Scale one(1.0), zero(0.0);
  const cudnnStatus_t status = cudnnPoolingForward(handle, pool.d, one.of(dtype), xdesc.d, x.raw(),
                                                   zero.of(dtype), ydesc.d, y.raw());
  if (declined(status)) return false;
  check(status, "cudnnPoolingForward");
  return true;
}

// One thread per output element (the kernels loop over the rest): both kernels' launch.
void launch_per_output(CudaContext& ctx, ir::DType dtype, const char* name, const TensorValue& y,
                       void** args) {
  launch(typed_kernel(ctx, dtype, name), grid_for(ctx, y.type.numel()), dim3(256), args, 0,
         ctx.stream, name);
}

}  // namespace

void run_pool(CudaContext& ctx, const ir::Node& node, const TensorValue& x, Values outputs) {
  const TensorValue& out = outputs[0];
  const bool with_indices = outputs.size() > 1;
  const int nd = ir::spatial_rank(node.op);
  if (ir::is_window_pool(node.op) && nd <= 2 && !with_indices &&
      !node.attrs.has(ir::Attr::divisor) && x.type.dtype != ir::DType::BFloat16) {
    const PoolProblem p = pool_problem(node.op, node.attrs, x.type.shape, out.type.shape);
    if (cudnn_pools(p) && pool_with_cudnn(ctx, p, x, as_nchw(view_of(x), nd), out)) return;
  }
  PoolArgs a = pool_args(node.op, node.attrs, view_of(x), out.type.shape);
  const void* src = x.raw();
  void* dst = out.raw();
  void* indices = with_indices ? outputs[1].raw() : nullptr;
  void* args[] = {&src, &dst, &indices, &a};
  launch_per_output(ctx, x.type.dtype, kPool, out, args);
}

void run_interpolate(CudaContext& ctx, const ir::Node& node, const TensorValue& x,
                     const TensorValue& out) {
  const int64_t rank = out.type.rank();
  if (rank < 3 || rank > 5 || x.type.rank() != rank) {
    throw Error(ErrorCode::Internal, "interpolate of rank " + std::to_string(rank));
  }
  InterpolateArgs a =
      interpolate_args(view_of(x), out.type.shape, ir::interpolate_geometry(node.attrs));
  const void* src = x.raw();
  void* dst = out.raw();
  void* args[] = {&src, &dst, &a};
  launch_per_output(ctx, x.type.dtype, kInterpolate, out, args);
}

}  // namespace tensord::cuda::dnn
