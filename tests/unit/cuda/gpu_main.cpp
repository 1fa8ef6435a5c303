// Main of the gpu test binaries: without a usable CUDA device they print why and exit 77,
// which ctest reports as a skip (SKIP_RETURN_CODE), never as a pass.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "engine/backends/cuda/device_discovery.h"

int main(int argc, char* argv[]) {
  tensord::cuda::CudaDiscovery found = tensord::cuda::discover_cuda_devices();
  if (found.devices.empty()) {
    std::printf("WARN: skipped, no usable CUDA device: %s\n", found.why_none.c_str());
    return 77;
  }
  for (const auto& d : found.devices) std::printf("%s\n", tensord::cuda::describe(d).c_str());
  return Catch::Session().run(argc, argv);
}
