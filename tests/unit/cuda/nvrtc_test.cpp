// NVRTC compiles without a GPU: the run-time compilation path is checked here.
#include <catch2/catch.hpp>

#include "engine/backends/cuda/nvrtc_compiler.h"
#include "engine/ir/error.h"

namespace tensord::cuda::test {
namespace {

constexpr const char* kScale = R"(
extern "C" __global__ void scale(float* x, float a, unsigned long long n) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
)";

TEST_CASE("NVRTC compiles a kernel to PTX and CUBIN for Hopper") {
  NvrtcRequest request;
  request.source = kScale;
  request.name = "scale.cu";
  NvrtcOutput ptx = nvrtc_compile(request);
  CHECK(ptx.image.find(".target sm_90") != std::string::npos);
  CHECK(ptx.image.find(".entry scale(") != std::string::npos);
  request.cubin = true;
  NvrtcOutput cubin = nvrtc_compile(request);
  REQUIRE(cubin.image.size() > 4);
  CHECK(cubin.image.compare(0, 4,
                            "\x7f"
                            "ELF") == 0);
  CHECK(nvrtc_version() >= 12000);
}

TEST_CASE("a source that does not compile fails with NVRTC's log") {
  NvrtcRequest request;
  request.source = "extern \"C\" __global__ void broken() { undeclared_thing = 1; }";
  request.name = "broken.cu";
  try {
    nvrtc_compile(request);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Internal);
    CHECK(e.message().find("broken.cu") != std::string::npos);
    CHECK(e.message().find("undeclared_thing") != std::string::npos);
  }
}

}  // namespace
}  // namespace tensord::cuda::test
