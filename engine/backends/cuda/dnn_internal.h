// Shared by the files of the neural-network family (dnn_*.cpp): the family's cuDNN state, cuDNN
// status checks and descriptors, and the copy kernels every op uses for strided inputs.
#pragma once

#include <cudnn.h>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/dnn_geometry.h"

namespace tensord::cuda::dnn {

using cuda::check;  // the CUDA runtime overloads, next to the cuDNN one below
using engine::TensorValue;

// Throws tensord::Error naming `what` and cuDNN's status: Unsupported for NOT_SUPPORTED,
// OutOfMemory for allocation failures, Internal otherwise.
void check(cudnnStatus_t status, const char* what);

// A status by which cuDNN declines a configuration (another algorithm, or a kernel, may still
// run it), as opposed to a failure.
inline bool declined(cudnnStatus_t status) {
  const int category = static_cast<int>(status) / 1000 * 1000;
  return category == CUDNN_STATUS_NOT_SUPPORTED || category == CUDNN_STATUS_BAD_PARAM;
}

// True on success, false when cuDNN declines; throws (check) on any other failure.
inline bool accept(cudnnStatus_t status, const char* what) {
  if (status == CUDNN_STATUS_SUCCESS) return true;
  if (declined(status)) return false;
  check(status, what);
  return false;
}

// What the family keeps per backend: the cuDNN handle (created on first use, on the backend's
// device) and the algorithm chosen for each convolution problem.
struct ConvChoice {
  int algo = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

class DnnState final : public FamilyState {
 public:
  explicit DnnState(int device) : device_(device) {}
  ~DnnState() override;
  // The handle, bound to `stream`.
  cudnnHandle_t handle(cudaStream_t stream);

  std::mutex mutex;  // guards choices
  std::unordered_map<std::string, ConvChoice> choices;

 private:
  int device_;
  cudnnHandle_t handle_ = nullptr;
};

DnnState& state(CudaContext& ctx);

cudnnDataType_t cudnn_dtype(ir::DType dtype);

// RAII owners of the legacy descriptors.
struct TensorDesc {
  cudnnTensorDescriptor_t d = nullptr;
  TensorDesc() { check(cudnnCreateTensorDescriptor(&d), "cudnnCreateTensorDescriptor"); }
  ~TensorDesc() { cudnnDestroyTensorDescriptor(d); }
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  // dims and strides as int (the caller checked they fit: cudnn_describes / cudnn_pools);
  // false when cuDNN declines the descriptor.
  bool set(ir::DType dtype, std::span<const int64_t> dims, std::span<const int64_t> strides);
};

struct FilterDesc {
  cudnnFilterDescriptor_t d = nullptr;
  FilterDesc() { check(cudnnCreateFilterDescriptor(&d), "cudnnCreateFilterDescriptor"); }
  ~FilterDesc() { cudnnDestroyFilterDescriptor(d); }
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
};

struct ConvDesc {
  cudnnConvolutionDescriptor_t d = nullptr;
  ConvDesc() { check(cudnnCreateConvolutionDescriptor(&d), "cudnnCreateConvolutionDescriptor"); }
  ~ConvDesc() { cudnnDestroyConvolutionDescriptor(d); }
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
};

struct PoolDesc {
  cudnnPoolingDescriptor_t d = nullptr;
  PoolDesc() { check(cudnnCreatePoolingDescriptor(&d), "cudnnCreatePoolingDescriptor"); }
  ~PoolDesc() { cudnnDestroyPoolingDescriptor(d); }
  PoolDesc(const PoolDesc&) = delete;
  PoolDesc& operator=(const PoolDesc&) = delete;
};

// alpha/beta as cuDNN reads them: double for double data, float otherwise.
struct Scale {
  float f;
  double d;
  explicit Scale(double v) : f(static_cast<float>(v)), d(v) {}
  const void* of(ir::DType dtype) const {
    return dtype == ir::DType::Float64 ? static_cast<const void*>(&d) : &f;
  }
};

// The family's kernels, loaded through the kernel cache.
cudaKernel_t typed_kernel(CudaContext& ctx, ir::DType dtype, const char* name);
cudaKernel_t copy_kernel_for(CudaContext& ctx, size_t element_bytes);

// `v` copied into a fresh scratch buffer packed in `layout` (RowMajor or ChannelsLast).
TensorValue to_layout(CudaContext& ctx, const TensorValue& v, Layout layout);

// y (contiguous (N, C, inner...)) filled with bias[c] (bias: any strided 1-d view).
void fill_bias(CudaContext& ctx, const TensorValue& bias, const TensorValue& y);

View view_of(const TensorValue& v);

[[noreturn]] void unsupported(const ir::Node& node, ir::DType dtype, const std::string& why = "");

// The ops, one file each: dnn_conv.cpp, dnn_pool.cpp, dnn_ctc.cpp.
void run_conv(CudaContext& ctx, const ir::Node& node, Values in, const TensorValue& out);
// Window and adaptive pools; outputs[1], when present, receives a max pool's indices.
void run_pool(CudaContext& ctx, const ir::Node& node, const TensorValue& x, Values outputs);
void run_interpolate(CudaContext& ctx, const ir::Node& node, const TensorValue& x,
                     const TensorValue& out);
void run_ctc(CudaContext& ctx, const ir::Node& node, Values in, const TensorValue& out);

}  // namespace tensord::cuda::dnn
