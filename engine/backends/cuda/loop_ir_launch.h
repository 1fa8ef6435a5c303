// Compiling and launching loop-IR kernels on CUDA: shared by single nodes (loop_ir_family.cpp)
// and fused groups (CudaBackend::compile / run_fused).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/dtype.h"
#include "engine/ir/op.h"

#include "engine/backends/cuda/cuda_context.h"
#include "engine/backends/cuda/launch_tuning.h"
#include "engine/plan/plan.h"

namespace tensord::cuda {

// A CUDA C unit of loop-IR kernels, as CudaKernelCache compiles it, and its entry points.
// The text is the cache key: tensord-precompile emits units with these same functions.
struct LoopUnit {
  std::string source;
  std::vector<std::string> names;
  // Per entry of `names`: its row-register entry point (codegen::CudaEmitter::
  // emit_row_registers), or "" when it has none. The unit defines these too.
  std::vector<std::string> row_registers;
};
// The unit of one kernel (the single-node family; names has one entry).
LoopUnit loop_unit(const codegen::LoopKernel& kernel);
// The unit of a plan's fused groups, one name per group (groups with the same kernel share a
// name); the kernels in name order, so that the text does not depend on the plan's order.
LoopUnit fused_unit(std::span<const engine::FusedGroup> groups);

// A loaded loop kernel's entry points: the loop kernel, and its row-register one or null.
struct LoopEntry {
  cudaKernel_t loop = nullptr;
  cudaKernel_t row_registers = nullptr;
};

// The entry points of `unit`'s kernels, one per entry of unit.names, compiled by `kernels` on
// first use.
std::vector<LoopEntry> load_unit(CudaKernelCache& kernels, const LoopUnit& unit);

// The loaded kernel of `kernel`, compiled on first use. Remembers the answer per kernel, so
// that running the same node again costs a lookup, not an emit.
LoopEntry loop_kernel(CudaContext& ctx, const codegen::LoopKernel& kernel);

// max-autotune for one launch: the backend's decisions and the kernel's name (its key).
// `measure` false (a CUDA graph capture): a known decision or the default, nothing timed.
struct TuneLaunch {
  CudaLaunchTuning& tuning;
  std::string_view kernel;
  bool measure = true;
};

// Enqueues one launch over `fused.launch`; `ptrs` are the operands' device addresses, inputs
// then outputs. `what` names the op or group in errors. With `tune` (max-autotune), the grid and
// block are launch_tuning.h's choice for the kernel and shape class, timed now with CUDA events on
// ctx.stream when the class is new (the kernel then runs several times: it reads only its inputs
// and writes all of its outputs, which never alias). A launch of the row-register entry point
// (codegen's choice, CudaLaunchConfig::row_registers) is not tuned: its block is the row's.
void launch_loop_kernel(CudaContext& ctx, LoopEntry kernel, const engine::FusedGroup& fused,
                        std::span<void* const> ptrs, std::string_view what,
                        const TuneLaunch* tune = nullptr);

// A reduction kernel runs a block per row: a few long rows (a full sum) would leave the device
// idle. split_rows says when to cut each row into `chunks` pieces reduced by their own blocks
// (then the partial results reduced): rows fewer than the multiprocessors, at least 2^20
// elements each, walked with one stride `step` (the reduced dimensions of the `inner`
// trailing ones of `shape` merge), and an op whose partial results lose nothing (max, min;
// sums of float32, float64 and of integers into int64). chunks divides row_length; 1 when
// not worth it.
struct RowSplit {
  int64_t chunks = 1;
  int64_t row_length = 0;
  int64_t step = 0;
};
RowSplit split_rows(std::span<const int64_t> shape, std::span<const int64_t> strides, int inner,
                    ir::Op op, ir::DType input, ir::DType result, int sm_count);

}  // namespace tensord::cuda
