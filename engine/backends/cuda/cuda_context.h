// What the CUDA op families (cuda_ops.h) get to run one node: the device, the session's
// stream, the kernel cache, scratch memory and the per-backend state of the libraries.
// Everything is enqueued on `stream`; nothing synchronizes the host unless it must read a
// device value (data-dependent shapes).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>

#include "engine/backends/cuda/cuda_kernel_cache.h"
#include "engine/exec/matmul_precision.h"
#include "engine/exec/tensor_value.h"

namespace tensord::cuda {

// The long-lived state of a library family (a cuDNN handle, cuFFT plans, a cuSOLVER handle),
// created by the family on first use and destroyed with the backend. Each family keeps its own
// concrete type behind this base.
class FamilyState {
 public:
  virtual ~FamilyState() = default;
};

struct FamilyStates {
  std::unique_ptr<FamilyState> loop_ir, dnn, fft, solver, sort;
  std::unique_ptr<FamilyState> movement;  // creation, movement, index: their loaded kernels
};

struct CudaContext {
  int device = 0;
  int arch = 90;  // compute capability, 90 for sm_90
  int sm_count = 1;
  cudaStream_t stream = nullptr;
  CudaKernelCache& kernels;
  FamilyStates& states;
  engine::Float32MatmulPrecision precision = engine::Float32MatmulPrecision::Highest;
  // Device memory for the duration of one node (workspaces, temporaries). The caching
  // allocator orders its reuse on `stream`, so it may be dropped right after enqueueing.
  std::function<std::shared_ptr<engine::Buffer>(size_t bytes)> scratch;
  // Launch the emitter's kernels programmatically (launch_programmatic): on compute capability
  // 9.0 and later, unless CudaBackendOptions::programmatic_launch is off.
  bool programmatic_launch = false;
};

// A common launch shape: `n` independent items, 256 threads per block, at most enough blocks
// to fill the device several times over (kernels loop over the rest with a grid stride).
inline dim3 grid_for(const CudaContext& ctx, int64_t n, int threads = 256) {
  const int64_t blocks = (n + threads - 1) / threads;
  const int64_t cap = int64_t{ctx.sm_count} * 32;
  return dim3(static_cast<unsigned>(blocks < 1 ? 1 : blocks < cap ? blocks : cap));
}

}  // namespace tensord::cuda
