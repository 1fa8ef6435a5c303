// Fused groups on the CPU: C++ from the loop IR, compiled and cached by engine/cache, run over
// OpenMP threads (the project's one thread pool) by splitting the kernel's outer loop; in mode
// max-autotune with the thread count measured per kernel and shape class (launch_tuning.h).
// Matmuls with their epilogues: oneDNN post-ops or the matmul then the chain's kernel, as
// measured per problem (epilogue_tuning.h).
#include <algorithm>

#include <oneapi/dnnl/dnnl_version.h>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/backends/cpu/epilogue_tuning.h"
#include "engine/backends/cpu/launch_tuning.h"
#include "engine/backends/cpu/matmul.h"
#include "engine/backends/cpu/parallel.h"
#include "engine/cache/kernel_cache.h"
#include "engine/codegen/emitter.h"

namespace tensord::cpu {
namespace {

class CpuKernels final : public engine::CompiledKernels {
 public:
  std::vector<codegen::CpuKernelFn> entry;  // per group of the plan
  std::vector<std::string> names;           // per group: the kernel's name (source hash)
};

std::vector<codegen::EmittedKernel> emit_all(std::span<const engine::FusedGroup> groups) {
  const codegen::CppEmitter emitter;
  std::vector<codegen::EmittedKernel> kernels;
  kernels.reserve(groups.size());
  for (const engine::FusedGroup& g : groups) kernels.push_back(emitter.emit(g.kernel));
  return kernels;
}

}  // namespace

std::shared_ptr<const engine::CompiledKernels> CpuBackend::compile(
    std::span<const engine::FusedGroup> groups) {
  const std::vector<codegen::EmittedKernel> kernels = emit_all(groups);
  const std::vector<void*> fns = kernels_->load(codegen::CppEmitter{}, kernels);
  auto compiled = std::make_shared<CpuKernels>();
  for (void* f : fns) compiled->entry.push_back(reinterpret_cast<codegen::CpuKernelFn>(f));
  for (const codegen::EmittedKernel& k : kernels) compiled->names.push_back(k.name);
  return compiled;
}

bool CpuBackend::kernels_cached(std::span<const engine::FusedGroup> groups) const {
  return kernels_ && kernels_->has(emit_all(groups));
}

void CpuBackend::run_fused(const engine::CompiledKernels& kernels, uint32_t group,
                           const engine::FusedGroup& fused,
                           std::span<const engine::TensorValue> inputs,
                           std::span<const engine::TensorValue> outputs) {
  const auto& cpu_kernels = static_cast<const CpuKernels&>(kernels);
  const auto fn = cpu_kernels.entry.at(group);
  std::vector<char*> ptrs;
  ptrs.reserve(inputs.size() + outputs.size());
  for (const engine::TensorValue& v : inputs) ptrs.push_back(static_cast<char*>(v.raw()));
  for (const engine::TensorValue& v : outputs) ptrs.push_back(static_cast<char*>(v.raw()));
  const codegen::LaunchShape& launch = fused.launch;
  const int64_t inner = launch.inner_rank == 0 ? 1 : launch.inner_count();
  const int64_t n =
      launch.inner_rank == 0 ? launch.outer_count() * launch.inner_count() : launch.outer_count();
  if (n == 0 || inner == 0) return;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / inner);
  const int64_t* sizes = launch.sizes.data();
  const int64_t* strides = launch.strides.data();
  char* const* p = ptrs.data();
  const double* constants = launch.constants.data();
  auto run = [&](int threads) {
    parallel_for(n, grain, threads,
                 [&](int64_t begin, int64_t end) { fn(sizes, strides, p, constants, begin, end); });
  };
  int threads = run_threads_;
  if (fused.autotune && threads > 1 && n >= grain) {  // else it runs on this thread anyway
    // Measuring runs the kernel several times: harmless, since a fused kernel reads only its
    // inputs and writes all of its outputs (they never alias).
    LaunchTuning& tuning = *launch_tuning();
    threads = tuning.threads_for(tuning.key(cpu_kernels.names.at(group), n, inner, info_.threads),
                                 info_.threads, run);
  }
  run(threads);
}

void CpuBackend::run_matmul_epilogue(const engine::CompiledKernels& kernels, uint32_t group,
                                     const engine::FusedGroup& fused,
                                     std::span<const engine::TensorValue> inputs,
                                     std::span<const engine::TensorValue> outputs,
                                     const std::function<void()>& unfused) {
  EpilogueTuning* tuning = epilogue_tuning();
  if (!tuning || !fused.epilogue || outputs.size() != 1 ||
      outputs[0].type.dtype != ir::DType::Float32) {
    return unfused();
  }
  const KernelContext ctx = context();
  const std::string problem = Matmul::epilogue_problem(ctx, inputs, outputs[0], *fused.epilogue);
  const auto run_fused = [&] {
    return matmul_->run_epilogue(ctx, inputs, outputs[0], *fused.epilogue);
  };
  tuning->run(tuning->key(problem), problem, run_fused, unfused);
}

EpilogueTuning* CpuBackend::epilogue_tuning() {
  if (!kernels_) return nullptr;
  std::call_once(epilogue_once_, [&] {
    const std::string identity =
        kernels_->identity() + " oneDNN " + std::to_string(DNNL_VERSION_MAJOR) + "." +
        std::to_string(DNNL_VERSION_MINOR) + "." + std::to_string(DNNL_VERSION_PATCH);
    epilogue_tuning_ = std::make_unique<EpilogueTuning>(kernels_->dir(), identity);
  });
  return epilogue_tuning_.get();
}

LaunchTuning* CpuBackend::launch_tuning() {
  if (!kernels_) return nullptr;
  std::call_once(tuning_once_, [&] {
    tuning_ = std::make_unique<LaunchTuning>(kernels_->dir(), kernels_->identity());
  });
  return tuning_.get();
}

}  // namespace tensord::cpu
