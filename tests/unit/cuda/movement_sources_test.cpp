// Every CUDA C source the creation, movement and index families can load compiles with NVRTC for
// Hopper (a CUBIN, the cache's options) and defines every entry point the families launch. The
// sources are parametrised by item size and runtime dtype codes, so one compile per source covers
// every dtype and shape.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "engine/backends/cuda/cuda_kernel_cache.h"
#include "engine/backends/cuda/int_matmul.h"
#include "engine/backends/cuda/movement_sources.h"
#include "engine/backends/cuda/nvrtc_compiler.h"

namespace tensord::cuda::test {
namespace {

void compiles_with_entries(const KernelSource& source) {
  INFO(source.name);
  NvrtcRequest request;
  request.source = *source.text;
  request.name = source.name;
  request.arch = 90;
  request.cubin = true;
  request.options = CudaKernelCacheOptions{}.options;
  NvrtcOutput out = nvrtc_compile(request);
  INFO(out.log);
  REQUIRE(out.image.compare(0, 4,
                            "\x7f"
                            "ELF") == 0);
  // The PTX names every entry point (extern "C": unmangled).
  request.cubin = false;
  NvrtcOutput ptx = nvrtc_compile(request);
  for (const std::string& entry : source.entries) {
    INFO(entry);
    CHECK(ptx.image.find(".entry " + entry + "(") != std::string::npos);
  }
}

TEST_CASE("the creation family's CUDA sources compile for sm_90") {
  for (const KernelSource& s : creation_kernel_sources()) compiles_with_entries(s);
}

TEST_CASE("the movement family's CUDA sources compile for sm_90") {
  for (const KernelSource& s : movement_kernel_sources()) compiles_with_entries(s);
}

TEST_CASE("the index family's CUDA sources compile for sm_90") {
  for (const KernelSource& s : index_kernel_sources()) compiles_with_entries(s);
}

TEST_CASE("the data-dependent family's CUDA source compiles for sm_90") {
  for (const KernelSource& s : dynamic_kernel_sources()) compiles_with_entries(s);
}

TEST_CASE("the integer matmul sources compile for sm_90, one per integer dtype") {
  const std::vector<KernelSource> sources = int_matmul_kernel_sources();
  REQUIRE(sources.size() == int_matmul_dtypes().size());
  std::set<const std::string*> texts;
  for (const KernelSource& s : sources) {
    compiles_with_entries(s);
    texts.insert(s.text);
  }
  CHECK(texts.size() == sources.size());
  CHECK_THROWS_WITH(int_matmul_source(ir::DType::Float32),
                    Catch::Contains("no integer matmul kernel for float32"));
  CHECK_THROWS_WITH(int_matmul_source(ir::DType::Bool),
                    Catch::Contains("no integer matmul kernel for bool"));
}

TEST_CASE("the three families share a few distinct source texts") {
  std::set<const std::string*> texts;
  for (const auto& list :
       {creation_kernel_sources(), movement_kernel_sources(), index_kernel_sources()}) {
    for (const KernelSource& s : list) texts.insert(s.text);
  }
  CHECK(texts.size() == 5);
}

}  // namespace
}  // namespace tensord::cuda::test
