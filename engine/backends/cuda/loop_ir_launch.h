// Compiling and launching loop-IR kernels on CUDA: shared by single nodes (loop_ir_family.cpp)
// and fused groups (CudaBackend::compile / run_fused).
#pragma once

#include <span>
#include <string_view>

#include "engine/backends/cuda/cuda_context.h"
#include "engine/plan/plan.h"

namespace tensord::cuda {

// The loaded kernel of `kernel`, compiled on first use. Remembers the answer per kernel, so
// that running the same node again costs a lookup, not an emit.
cudaKernel_t loop_kernel(CudaContext& ctx, const codegen::LoopKernel& kernel);

// Enqueues one launch over `fused.launch`; `ptrs` are the operands' device addresses, inputs
// then outputs. `what` names the op or group in errors.
void launch_loop_kernel(CudaContext& ctx, cudaKernel_t kernel, const engine::FusedGroup& fused,
                        std::span<void* const> ptrs, std::string_view what);

}  // namespace tensord::cuda
