// Fused groups on CUDA: the plan's groups written as CUDA C by the CUDA emitter, compiled by
// NVRTC as one unit per plan (one compile for all its new kernels) and cached by
// CudaKernelCache; each group runs as one launch on the current session's stream, in
// max-autotune with the launch configuration measured per kernel and shape class
// (launch_tuning.h).
#include <algorithm>
#include <vector>

#include "engine/backends/cuda/caching_allocator.h"
#include "engine/backends/cuda/cuda_backend.h"
#include "engine/backends/cuda/cuda_context.h"
#include "engine/backends/cuda/cuda_resources.h"
#include "engine/backends/cuda/loop_ir_launch.h"
#include "engine/codegen/emit_cuda.h"

namespace tensord::cuda {
namespace {

class CudaKernels final : public engine::CompiledKernels {
 public:
  std::vector<cudaKernel_t> entry;  // per group of the plan
  std::vector<std::string> names;   // their entry points: max-autotune's keys
};

struct Unit {
  std::string source;
  std::vector<std::string> names;  // per group (groups with the same kernel share a name)
};

Unit emit_unit(std::span<const engine::FusedGroup> groups) {
  const codegen::CudaEmitter emitter;
  std::vector<codegen::EmittedKernel> kernels;
  Unit unit;
  for (const engine::FusedGroup& g : groups) {
    codegen::EmittedKernel k = emitter.emit(g.kernel);
    unit.names.push_back(k.name);
    bool seen = false;
    for (const codegen::EmittedKernel& e : kernels) seen = seen || e.name == k.name;
    if (!seen) kernels.push_back(std::move(k));
  }
  // Name order, so that the unit's text (and cache key) does not depend on the plan's order.
  std::sort(kernels.begin(), kernels.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  unit.source = emitter.unit(kernels);
  return unit;
}

}  // namespace

std::shared_ptr<const engine::CompiledKernels> CudaBackend::compile(
    std::span<const engine::FusedGroup> groups) {
  DeviceGuard guard(device_);
  auto compiled = std::make_shared<CudaKernels>();
  if (groups.empty()) return compiled;
  const Unit unit = emit_unit(groups);
  CudaContext ctx = context();
  compiled->entry = ctx.kernels.load(unit.source, unit.names);
  compiled->names = unit.names;
  return compiled;
}

bool CudaBackend::kernels_cached(std::span<const engine::FusedGroup> groups) const {
  return groups.empty() || state_kernels().has(emit_unit(groups).source);
}

void CudaBackend::run_fused(const engine::CompiledKernels& kernels, uint32_t group,
                            const engine::FusedGroup& fused,
                            std::span<const engine::TensorValue> inputs,
                            std::span<const engine::TensorValue> outputs) {
  DeviceGuard guard(device_);
  use(inputs);
  use(outputs);
  const auto& cuda_kernels = static_cast<const CudaKernels&>(kernels);
  const cudaKernel_t kernel = cuda_kernels.entry.at(group);
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
