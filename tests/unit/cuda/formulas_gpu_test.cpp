// The CUDA formula table on a GPU against the CPU backend's eager kernels: every supported
// (op, dtypes) combination over the cross product of special and random values of its input
// dtypes. Integer and bool results must agree exactly, float results within the conformance
// table's Transcendental tolerance (NaN with NaN, infinities exactly).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <random>
#include <sstream>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/cuda_kernel_cache.h"
#include "engine/codegen/cuda_half_prelude.h"
#include "tests/unit/cuda/formula_cases.h"

namespace tensord::codegen::test {
namespace {

using ir::DType;
using ir::Op;

TEST_CASE("the CUDA formulas agree with the CPU kernels on the GPU") {
  const Table t = table();
  REQUIRE(t.failures.empty());
  std::vector<Case> cases;
  for (const Combo& k : t.supported) cases.push_back(make_case(k));
  {  // the CPU side, in parallel over cases
    std::vector<std::future<void>> runs;
    const size_t workers = 16;
    for (size_t w = 0; w < workers; ++w) {
      runs.push_back(std::async(std::launch::async, [&, w] {
        for (size_t i = w; i < cases.size(); i += workers) run_cpu(cases[i]);
      }));
    }
    for (auto& r : runs) r.get();
  }
  const std::vector<std::string> texts = loop_kernels(t.supported, true);
  constexpr size_t kBatches = 16;
  std::vector<std::string> sources(
      kBatches, std::string(cuda_half_prelude()) + std::string(cuda_math_prelude()));
  std::vector<std::vector<std::string>> names(kBatches);
  for (size_t i = 0; i < texts.size(); ++i) {
    sources[i % kBatches] += texts[i];
    names[i % kBatches].push_back(kernel_name(texts[i]));
  }
  // Device buffers: per case its inputs and output, and the pointer tables.
  std::vector<void*> out_ptrs(cases.size()), in_ptrs(3 * cases.size(), nullptr);
  std::vector<void*> owned;
  for (size_t i = 0; i < cases.size(); ++i) {
    Case& c = cases[i];
    c.gpu_out.assign(c.n * compute_size(c.combo.out), 0);
    cuda::check(cudaMalloc(&out_ptrs[i], c.gpu_out.size()), "cudaMalloc");
    owned.push_back(out_ptrs[i]);
    for (size_t j = 0; j < c.dev_in.size(); ++j) {
      cuda::check(cudaMalloc(&in_ptrs[3 * i + j], c.dev_in[j].size()), "cudaMalloc");
      owned.push_back(in_ptrs[3 * i + j]);
      cuda::check(cudaMemcpy(in_ptrs[3 * i + j], c.dev_in[j].data(), c.dev_in[j].size(),
                             cudaMemcpyHostToDevice),
                  "cudaMemcpy");
    }
  }
  void *o_dev = nullptr, *a_dev = nullptr;
  cuda::check(cudaMalloc(&o_dev, out_ptrs.size() * sizeof(void*)), "cudaMalloc");
  cuda::check(cudaMalloc(&a_dev, in_ptrs.size() * sizeof(void*)), "cudaMalloc");
  cuda::check(
      cudaMemcpy(o_dev, out_ptrs.data(), out_ptrs.size() * sizeof(void*), cudaMemcpyHostToDevice),
      "cudaMemcpy");
  cuda::check(
      cudaMemcpy(a_dev, in_ptrs.data(), in_ptrs.size() * sizeof(void*), cudaMemcpyHostToDevice),
      "cudaMemcpy");
  // Compile the batches concurrently (the cache would compile one at a time), then load.
  std::vector<std::future<cuda::NvrtcOutput>> compiled;
  for (size_t b = 0; b < kBatches; ++b) {
    compiled.push_back(std::async(std::launch::async, [&, b] {
      return compile(sources[b], "formulas" + std::to_string(b) + ".cu");
    }));
  }
  std::vector<cudaLibrary_t> libraries;
  for (size_t b = 0; b < kBatches; ++b) {
    const cuda::NvrtcOutput image = compiled[b].get();
    cudaLibrary_t library;
    cuda::check(
        cudaLibraryLoadData(&library, image.image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
        "cudaLibraryLoadData");
    libraries.push_back(library);
    for (const std::string& name : names[b]) {
      cudaKernel_t kernel;
      cuda::check(cudaLibraryGetKernel(&kernel, library, name.c_str()), "cudaLibraryGetKernel");
      long long n = kElements;
      void* args[] = {&o_dev, &a_dev, &n};
      cuda::launch(kernel, dim3(16), dim3(256), args, 0, nullptr, name.c_str());
    }
  }
  cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  for (size_t i = 0; i < cases.size(); ++i) {
    cuda::check(cudaMemcpy(cases[i].gpu_out.data(), out_ptrs[i], cases[i].gpu_out.size(),
                           cudaMemcpyDeviceToHost),
                "cudaMemcpy");
  }
  for (void* p : owned) cuda::check(cudaFree(p), "cudaFree");
  for (cudaLibrary_t l : libraries) cuda::check(cudaLibraryUnload(l), "cudaLibraryUnload");
  cuda::check(cudaFree(o_dev), "cudaFree");
  cuda::check(cudaFree(a_dev), "cudaFree");
  std::string report;
  size_t failed = 0;
  for (const Case& c : cases) {
    const std::string r = compare(c);
    if (r.empty()) continue;
    ++failed;
    report += r;
  }
  if (const char* path = std::getenv("TENSORD_FORMULAS_REPORT")) std::ofstream(path) << report;
  UNSCOPED_INFO(report.substr(0, 20000));
  CHECK(failed == 0);
  WARN(cases.size() << " combinations, " << failed << " disagree");
}

}  // namespace
}  // namespace tensord::codegen::test
