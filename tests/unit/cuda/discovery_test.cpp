// Device discovery through cudart: on a machine without a GPU it must say why; with one, it
// describes each device.
#include <catch2/catch.hpp>

#include "engine/backends/cuda/device_discovery.h"

namespace tensord::cuda::test {
namespace {

TEST_CASE("discovery finds devices or says why none, with the CUDA error") {
  CudaDiscovery found = discover_cuda_devices();
  CHECK(found.runtime_version >= 12000);
  if (found.devices.empty()) {
    WARN("no CUDA device here: " << found.why_none);
    CHECK(!found.why_none.empty());
    // The reason carries a cudaError name or says no device was found.
    CHECK((found.why_none.find("cudaError") != std::string::npos ||
           found.why_none.find("no device") != std::string::npos));
  } else {
    CHECK(found.why_none.empty());
    for (const auto& d : found.devices) {
      CHECK(!d.name.empty());
      CHECK(d.total_memory > 0);
      CHECK(d.sm_count > 0);
      CHECK(d.compute_major >= 5);
      CHECK(describe(d).find(d.name) != std::string::npos);
    }
  }
}

TEST_CASE("CUDA versions print as major.minor") {
  CHECK(cuda_version_text(13000) == "13.0");
  CHECK(cuda_version_text(12040) == "12.4");
}

}  // namespace
}  // namespace tensord::cuda::test
