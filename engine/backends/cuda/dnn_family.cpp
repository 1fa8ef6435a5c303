// The CUDA kernels of the neural-network ops: conv1d/2d/3d and conv_transpose1d/2d/3d through cuDNN
// (dnn_conv.cpp), window pools through cuDNN where it gives PyTorch's result and a kernel
// otherwise, adaptive pools and interpolate as kernels (dnn_pool.cpp), ctc_loss as a
// kernel (dnn_ctc.cpp). Float32, float64, float16 and bfloat16; any other dtype is Unsupported.
// This file: dispatch, the family's cuDNN state, and the copies every op shares.
#include <array>
#include <string>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/dnn_internal.h"
#include "engine/backends/cuda/dnn_kernels.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace dnn {

void check(cudnnStatus_t status, const char* what) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  const int category = static_cast<int>(status) / 1000 * 1000;
  const ErrorCode code = category == CUDNN_STATUS_NOT_SUPPORTED ? ErrorCode::Unsupported
                         : status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
                                 status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED
                             ? ErrorCode::OutOfMemory
                             : ErrorCode::Internal;
  throw Error(code, std::string(what) + " failed: " + cudnnGetErrorString(status) + " (" +
                        std::to_string(static_cast<int>(status)) + ")");
}

DnnState::~DnnState() {
  if (handle_ == nullptr) return;
  // The handle belongs to the backend's device; the destroying thread may have another current.
  int current = -1;
  const bool switched = cudaGetDevice(&current) == cudaSuccess && current != device_ &&
                        cudaSetDevice(device_) == cudaSuccess;
  cudnnDestroy(handle_);
  if (switched) cudaSetDevice(current);
}

cudnnHandle_t DnnState::handle(cudaStream_t stream) {
  if (handle_ == nullptr) check(cudnnCreate(&handle_), "cudnnCreate");
  check(cudnnSetStream(handle_, stream), "cudnnSetStream");
  return handle_;
}

DnnState& state(CudaContext& ctx) {
  if (!ctx.states.dnn) ctx.states.dnn = std::make_unique<DnnState>(ctx.device);
  return static_cast<DnnState&>(*ctx.states.dnn);
}

cudnnDataType_t cudnn_dtype(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::Float32:
      return CUDNN_DATA_FLOAT;
    case ir::DType::Float64:
      return CUDNN_DATA_DOUBLE;
    case ir::DType::Float16:
      return CUDNN_DATA_HALF;
    case ir::DType::BFloat16:
      return CUDNN_DATA_BFLOAT16;
    default:
      throw Error(ErrorCode::Internal, "no cuDNN data type for " + std::string(ir::name(dtype)));
  }
}

bool TensorDesc::set(ir::DType dtype, std::span<const int64_t> dims,
                     std::span<const int64_t> strides) {
  std::array<int, 8> d{}, s{};
  for (size_t i = 0; i < dims.size(); ++i) {
    d[i] = static_cast<int>(dims[i]);
    s[i] = static_cast<int>(strides[i]);
  }
  return accept(cudnnSetTensorNdDescriptor(this->d, cudnn_dtype(dtype),
                                           static_cast<int>(dims.size()), d.data(), s.data()),
                "cudnnSetTensorNdDescriptor");
}

cudaKernel_t typed_kernel(CudaContext& ctx, ir::DType dtype, const char* name) {
  // One source per dtype, built once.
  static const std::array<std::string, 4> sources = {
      kernel_source(ir::DType::Float32), kernel_source(ir::DType::Float64),
      kernel_source(ir::DType::Float16), kernel_source(ir::DType::BFloat16)};
  const size_t i = dtype == ir::DType::Float32   ? 0
                   : dtype == ir::DType::Float64 ? 1
                   : dtype == ir::DType::Float16 ? 2
                                                 : 3;
  return ctx.kernels.kernel(sources[i], name);
}

cudaKernel_t copy_kernel_for(CudaContext& ctx, size_t element_bytes) {
  return ctx.kernels.kernel(copy_source(), copy_kernel(element_bytes));
}

View view_of(const TensorValue& v) {
  return View{v.type.shape, v.strides};
}

TensorValue to_layout(CudaContext& ctx, const TensorValue& v, Layout layout) {
  const size_t bytes = ir::itemsize(v.type.dtype);
  const size_t rank = v.type.shape.size();
  if (rank > static_cast<size_t>(kCopyRank)) {
    throw Error(ErrorCode::Internal, "dnn copy of rank " + std::to_string(rank));
  }
  TensorValue r;
  r.buffer = ctx.scratch(std::max<size_t>(v.nbytes(), 1));
  r.type = v.type;
  r.strides = packed_strides(v.type.shape, layout);
  CopyArgs a;
  a.n = v.type.numel();
  a.rank = static_cast<int64_t>(rank);
  for (size_t d = 0; d < rank; ++d) {
    a.size[d] = v.type.shape[d];
    a.src[d] = v.strides[d];
    a.dst[d] = r.strides[d];
  }
  if (a.n == 0) return r;
  const void* src = v.raw();
  void* dst = r.raw();
  void* args[] = {&src, &dst, &a};
  launch(copy_kernel_for(ctx, bytes), grid_for(ctx, a.n), dim3(256), args, 0, ctx.stream,
         "dnn strided copy");
  return r;
}

void fill_bias(CudaContext& ctx, const TensorValue& bias, const TensorValue& y) {
  BiasArgs a;
  a.n = y.type.numel();
  if (a.n == 0) return;
  a.c = y.type.shape[1];
  a.inner = a.n / (y.type.shape[0] * a.c);
  a.bias_stride = bias.strides.empty() ? 1 : bias.strides[0];
  const void* b = bias.raw();
  void* dst = y.raw();
  void* args[] = {&b, &dst, &a};
  launch(ctx.kernels.kernel(copy_source(), fill_bias_kernel(ir::itemsize(y.type.dtype))),
         grid_for(ctx, a.n), dim3(256), args, 0, ctx.stream, "dnn bias fill");
}

void unsupported(const ir::Node& node, ir::DType dtype, const std::string& why) {
  throw Error(ErrorCode::Unsupported,
              "the CUDA backend does not run " + std::string(ir::name(node.op)) + " on " +
                  std::string(ir::name(dtype)) + (why.empty() ? "" : ": " + why));
}

namespace {

bool is_dnn(ir::Op op) {
  switch (op) {
    case ir::Op::conv1d:
    case ir::Op::conv2d:
    case ir::Op::conv3d:
    case ir::Op::conv_transpose1d:
    case ir::Op::conv_transpose2d:
    case ir::Op::conv_transpose3d:
    case ir::Op::interpolate:
    case ir::Op::ctc_loss:
      return true;
    default:
      return ir::is_window_pool(op) || ir::is_adaptive_pool(op);
  }
}

bool is_float(ir::DType t) {
  return t == ir::DType::Float32 || t == ir::DType::Float64 || t == ir::DType::Float16 ||
         t == ir::DType::BFloat16;
}

}  // namespace
}  // namespace dnn

bool run_dnn(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  using ir::Op;
  if (!dnn::is_dnn(node.op)) return false;
  const bool is_pool = ir::is_window_pool(node.op) || ir::is_adaptive_pool(node.op);
  if (in.empty() || out.empty() || out.size() > (is_pool ? 2u : 1u)) {
    throw Error(ErrorCode::Internal, std::string(ir::name(node.op)) + " got " +
                                         std::to_string(in.size()) + " inputs and " +
                                         std::to_string(out.size()) + " outputs");
  }
  const ir::DType dtype = in[0].type.dtype;
  if (!dnn::is_float(dtype) || out[0].type.dtype != dtype) dnn::unsupported(node, dtype);
  for (size_t i = 1; i < in.size() && node.op != Op::ctc_loss; ++i) {
    if (in[i].type.dtype != dtype) dnn::unsupported(node, in[i].type.dtype, "mixed dtypes");
  }
  if (out[0].type.numel() == 0) return true;
  if (is_pool) {
    dnn::run_pool(ctx, node, in[0], out);
    return true;
  }
  switch (node.op) {
    case Op::conv1d:
    case Op::conv2d:
    case Op::conv3d:
    case Op::conv_transpose1d:
    case Op::conv_transpose2d:
    case Op::conv_transpose3d:
      if (in.size() < 2) throw Error(ErrorCode::Internal, "a convolution needs a weight");
      dnn::run_conv(ctx, node, in, out[0]);
      break;
    case Op::interpolate:
      dnn::run_interpolate(ctx, node, in[0], out[0]);
      break;
    default:
      if (in.size() != 4) throw Error(ErrorCode::Internal, "ctc_loss takes 4 inputs");
      dnn::run_ctc(ctx, node, in, out[0]);
      break;
  }
  return true;
}

}  // namespace tensord::cuda
