// Every CUDA C source of the reduce, scan and sort families compiles with NVRTC for sm_90 (as
// the kernel cache compiles them: CUBIN, its options), for every dtype each can be asked for,
// and holds the entry points its family loads. No GPU needed; what the kernels compute is
// checked by the conformance table on a GPU.
#include <catch2/catch.hpp>

#include <string>

#include "engine/backends/cuda/cuda_kernel_cache.h"
#include "engine/backends/cuda/nvrtc_compiler.h"
#include "engine/backends/cuda/sort_sources.h"

namespace tensord::cuda::test {
namespace {

void compiles_with_entries(const std::string& source, const std::vector<std::string>& names,
                           const std::string& what) {
  INFO(what);
  NvrtcRequest request;
  request.source = source;
  request.name = what + ".cu";
  request.arch = 90;
  request.options = CudaKernelCacheOptions{}.options;
  request.cubin = true;
  NvrtcOutput cubin = nvrtc_compile(request);
  REQUIRE(cubin.image.size() > 4);
  // The ELF symbol table names each extern "C" entry point.
  for (const std::string& name : names) {
    INFO(name);
    CHECK(cubin.image.find(name + std::string(1, '\0')) != std::string::npos);
  }
  CHECK(cubin.image.compare(0, 4,
                            "\x7f"
                            "ELF") == 0);
}

TEST_CASE("reduce sources (prod, argmax, argmin) compile for every dtype") {
  for (ir::DType t : sort_family_dtypes()) {
    compiles_with_entries(reduce_source(t), reduce_kernel_names(t),
                          "reduce_" + std::string(ir::name(t)));
  }
}

TEST_CASE("scan sources compile for every real dtype") {
  for (ir::DType t : sort_family_dtypes()) {
    if (ir::is_complex(t)) continue;
    compiles_with_entries(scan_source(t), scan_kernel_names(t), "scan_" + std::string(ir::name(t)));
  }
}

TEST_CASE("the sorting network and the per-dtype sort sources compile") {
  compiles_with_entries(sort_network_source(), sort_network_kernel_names(), "sort_network");
  for (ir::DType t : sort_family_dtypes()) {
    if (ir::is_complex(t)) continue;
    compiles_with_entries(sort_source(t), sort_kernel_names(t), "sort_" + std::string(ir::name(t)));
  }
}

TEST_CASE("one source text per (family, dtype)") {
  CHECK(&reduce_source(ir::DType::Float32) == &reduce_source(ir::DType::Float32));
  CHECK(reduce_source(ir::DType::Float32) != reduce_source(ir::DType::Float64));
  CHECK(scan_source(ir::DType::Int8) != scan_source(ir::DType::UInt8));
  CHECK(sort_source(ir::DType::Float16) != sort_source(ir::DType::BFloat16));
}

}  // namespace
}  // namespace tensord::cuda::test
