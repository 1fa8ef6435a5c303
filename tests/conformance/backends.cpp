// The backends the conformance table runs on. A new backend joins the table by adding one
// entry here; an entry that cannot open its device reports why, and its cases count as skipped.
#include <cstdlib>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/cache/kernel_cache.h"
#if TENSORD_WITH_CUDA
#include "engine/backends/cuda/cuda_backend.h"
#endif
#include "tests/conformance/runner.h"
#include "tests/support/backend/compile_ahead.h"

namespace tensord::conformance {

namespace {

// TENSORD_CONFORMANCE_CACHE_DIR keeps the compiled CUDA kernels between runs (and between the
// cuda and cuda-fused entries); without it they live in memory for the run.
std::unique_ptr<engine::Backend> open_cuda(bool fuse, std::string& why_not) {
#if TENSORD_WITH_CUDA
  cuda::CudaDiscovery found = cuda::discover_cuda_devices();
  if (found.devices.empty()) {
    why_not = "no usable CUDA device: " + found.why_none;
    return nullptr;
  }
  cuda::CudaBackendOptions options;
  options.fuse = fuse;
  if (const char* dir = std::getenv("TENSORD_CONFORMANCE_CACHE_DIR")) {
    options.kernel_cache_dir = dir;
  }
  return std::make_unique<cuda::CudaBackend>(found.devices.front(), options);
#else
  (void)fuse;
  why_not = "no CUDA backend in this build (no CUDA toolkit, or TENSORD_CUDA=OFF)";
  return nullptr;
#endif
}

// The cases' fused groups, compiled in batches before the cases run (compile_ahead.h).
std::string compile_fused_groups_ahead(engine::Backend& backend, std::string_view,
                                       const RunCases& run_cases) {
  return test::describe(test::compile_fused_ahead(backend, run_cases));
}

}  // namespace

std::vector<BackendUnderTest> backends_under_test() {
  return {
      // Two worker threads, so that tensors past the threading threshold split their work.
      {"cpu",
       [](std::string&) -> std::unique_ptr<engine::Backend> {
         return std::make_unique<cpu::CpuBackend>(2);
       }},
      // The same with fusion on: composite ops become generated kernels, compiled once per
      // test run into a private temporary directory, in batches ahead of the cases.
      {"cpu-fused",
       [](std::string&) -> std::unique_ptr<engine::Backend> {
         return std::make_unique<cpu::CpuBackend>(
             2, std::make_shared<cache::KernelCache>(cache::KernelCacheOptions{}));
       },
       compile_fused_groups_ahead},
      // The first CUDA device, one kernel per node. Ops it has no kernels for fail their cases
      // with Unsupported, and the table lists them by op: the gap shows on a GPU, never hides.
      {"cuda", [](std::string& why_not) { return open_cuda(false, why_not); }},
      // The same with fusion on: composite ops become generated CUDA kernels.
      {"cuda-fused", [](std::string& why_not) { return open_cuda(true, why_not); }},
  };
}

}  // namespace tensord::conformance
