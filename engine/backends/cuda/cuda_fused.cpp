// Fused groups on CUDA: the plan's groups written as CUDA C by the CUDA emitter, compiled by
// NVRTC as one unit per plan (one compile for all its new kernels; in prepare(), beside the
// batches of the plan's single-node kernels) and cached by
// CudaKernelCache; each group runs as one launch on the current session's stream, in
// max-autotune with the launch configuration measured per kernel and shape class
// (launch_tuning.h).
#include <vector>

#include "engine/backends/cuda/caching_allocator.h"
#include "engine/backends/cuda/cuda_backend.h"
#include "engine/backends/cuda/cuda_context.h"
#include "engine/backends/cuda/cuda_resources.h"
#include "engine/backends/cuda/loop_ir_batch.h"
#include "engine/backends/cuda/loop_ir_launch.h"
#include "engine/codegen/emit_cuda.h"

namespace tensord::cuda {
namespace {

class CudaKernels final : public engine::CompiledKernels {
 public:
  std::vector<LoopEntry> entry;    // per group of the plan
  std::vector<std::string> names;  // their entry points: max-autotune's keys
};

}  // namespace

void CudaBackend::prepare(const engine::Plan& plan) {
  DeviceGuard guard(device_);
  CudaContext ctx = context();
  const std::vector<codegen::LoopKernel> kernels = plan_loop_kernels(plan, ctx.sm_count);
  std::vector<std::string> fused;
  if (!plan.groups.empty()) fused.push_back(fused_unit(plan.groups).source);
  // Failures are left to the steps (and compile()), whose errors name the node or group.
  compile_loop_kernels(ctx.kernels, kernels, BatchOptions{}, fused);
}

std::shared_ptr<const engine::CompiledKernels> CudaBackend::compile(
    std::span<const engine::FusedGroup> groups) {
  DeviceGuard guard(device_);
  auto compiled = std::make_shared<CudaKernels>();
  if (groups.empty()) return compiled;
  const LoopUnit unit = fused_unit(groups);
  CudaContext ctx = context();
  compiled->entry = load_unit(ctx.kernels, unit);
  compiled->names = unit.names;
  return compiled;
}

bool CudaBackend::kernels_cached(std::span<const engine::FusedGroup> groups) const {
  return groups.empty() || state_kernels().has(fused_unit(groups).source);
}

void CudaBackend::run_fused(const engine::CompiledKernels& kernels, uint32_t group,
                            const engine::FusedGroup& fused,
                            std::span<const engine::TensorValue> inputs,
                            std::span<const engine::TensorValue> outputs) {
  DeviceGuard guard(device_);
  use(inputs);
  use(outputs);
  const auto& cuda_kernels = static_cast<const CudaKernels&>(kernels);
  const LoopEntry kernel = cuda_kernels.entry.at(group);
  std::vector<void*> ptrs;
  ptrs.reserve(inputs.size() + outputs.size());
  for (const engine::TensorValue& v : inputs) ptrs.push_back(v.raw());
  for (const engine::TensorValue& v : outputs) ptrs.push_back(v.raw());
  CudaContext ctx = context();
  // max-autotune times launch configurations, but not while a CUDA graph is recorded: a
  // recording cannot be timed (nor synchronized), so it takes a known choice or the default.
  if (fused.autotune) {
    const TuneLaunch tune{state_tuning(), cuda_kernels.names.at(group), !capture_};
    return launch_loop_kernel(ctx, kernel, fused, ptrs, "a fused group", &tune);
  }
  launch_loop_kernel(ctx, kernel, fused, ptrs, "a fused group");
}

}  // namespace tensord::cuda
