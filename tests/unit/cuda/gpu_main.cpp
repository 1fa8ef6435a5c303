// Main of the gpu test binaries: without a usable CUDA device they print why and exit 77,
// which ctest reports as a skip (SKIP_RETURN_CODE), never as a pass.
#include <cstdio>

#include "engine/backends/cuda/device_discovery.h"
#include "tests/catch_session.h"

int main(int argc, char* argv[]) {
  tensord::cuda::CudaDiscovery found = tensord::cuda::discover_cuda_devices();
  if (found.devices.empty()) {
    std::printf("WARN: skipped, no usable CUDA device: %s\n", found.why_none.c_str());
    return 77;
  }
  for (const auto& d : found.devices) std::printf("%s\n", tensord::cuda::describe(d).c_str());
  return tensord::test::run_catch(argc, argv);
}
