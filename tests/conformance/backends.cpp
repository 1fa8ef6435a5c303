// The backends the conformance table runs on. A new backend joins the table by adding one
// entry here; an entry that cannot open its device reports why, and its cases count as skipped.
#include "engine/backends/cpu/cpu_backend.h"
#include "engine/cache/kernel_cache.h"
#include "tests/conformance/runner.h"

namespace tensord::conformance {

std::vector<BackendUnderTest> backends_under_test() {
  return {
      // Two worker threads, so that tensors past the threading threshold split their work.
      {"cpu",
       [](std::string&) -> std::unique_ptr<engine::Backend> {
         return std::make_unique<cpu::CpuBackend>(2);
       }},
      // The same with fusion on: composite ops become generated kernels, compiled once per
      // test run into a private temporary directory.
      {"cpu-fused",
       [](std::string&) -> std::unique_ptr<engine::Backend> {
         return std::make_unique<cpu::CpuBackend>(
             2, std::make_shared<cache::KernelCache>(cache::KernelCacheOptions{}));
       }},
      // The CUDA backend comes in its own issue: when its target exists, link it in
      // tests/conformance/CMakeLists.txt and return it here when a device is present.
      {"cuda",
       [](std::string& why_not) -> std::unique_ptr<engine::Backend> {
         why_not = "no CUDA backend in this build";
         return nullptr;
       }},
  };
}

}  // namespace tensord::conformance
