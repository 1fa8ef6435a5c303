// Compiling a plan's loop-IR kernels before it runs, several to an NVRTC program and several
// programs at once. NVRTC's fixed cost per program (front end start-up, the prelude, ptxas) is
// about half of a small kernel's compile (docs/cuda.md "Batched compiles"), and eager plans used
// to pay it per node, on first use. When a plan is built, the backend asks loop_ir_batch for
// the kernels its single-node steps will load (the same plan_node that run_loop_ir and
// tensord_conformance_precompile use), compiles those no cache level holds as a few combined
// units on up to hardware_concurrency threads, and stores each CUBIN under every member's own
// key (CudaKernelCache::compile_together): run_loop_ir then finds its unit as if compiled alone.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "engine/backends/cuda/cuda_kernel_cache.h"
#include "engine/codegen/loop_ir.h"
#include "engine/plan/plan.h"

namespace tensord::cuda {

// The loop-IR kernels the Kernel steps of `plan` load when it runs (run_loop_ir's, computed
// without a device from the plan's types and layouts), in step order; a kernel several steps
// share is there several times (compile_loop_kernels compiles it once).
// Fused steps are not in it (CudaBackend::compile compiles their unit).
std::vector<codegen::LoopKernel> plan_loop_kernels(const engine::Plan& plan, int sm_count);

struct BatchOptions {
  int threads = 0;        // programs compiled at once; 0: std::thread::hardware_concurrency
  size_t min_batch = 4;   // kernels per program at least (fewer only when there are fewer)
  size_t max_batch = 16;  // and at most: a long program's compile is serial
};

// How many kernels each program gets: `n` kernels over enough programs to keep `threads` busy,
// each of min_batch to max_batch kernels (the last ones may hold one fewer), in order.
// Empty for n == 0; throws Error(Internal) on options out of range (threads < 0, min_batch 0,
// min_batch > max_batch).
std::vector<size_t> batch_sizes(size_t n, const BatchOptions& options);

struct BatchReport {
  size_t kernels = 0;   // distinct kernels asked for
  size_t held = 0;      // of them held already (memory or disk): not compiled
  size_t compiled = 0;  // compiled now
  size_t programs = 0;  // NVRTC programs they took (and the `extra` units compiled)
  size_t failed = 0;    // kernels of programs NVRTC rejected (left to compile on first use)
  std::vector<std::string> errors;  // the first few rejections
};

// Compiles those of `kernels` that `cache` does not hold, batch_sizes() to a program, on
// options.threads threads; `extra` units (whole sources, a fused plan's) compile alone in the
// same pool. A program NVRTC rejects stores nothing and is reported, not thrown: its kernels
// compile one by one when they run, where an error names its node.
BatchReport compile_loop_kernels(CudaKernelCache& cache,
                                 std::span<const codegen::LoopKernel> kernels,
                                 const BatchOptions& options = {},
                                 std::span<const std::string> extra = {});

}  // namespace tensord::cuda
