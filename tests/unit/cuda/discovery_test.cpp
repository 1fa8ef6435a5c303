// Device discovery through cudart: on a machine without a GPU it must say why; with one, it
// describes each device.
#include <catch2/catch.hpp>

#include <tuple>

#include "engine/backends/cuda/cuda_backend.h"
#include "engine/backends/cuda/device_discovery.h"
#include "engine/ir/error.h"

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

TEST_CASE("the CUDA backend refuses staging and stream settings it cannot work with") {
  // Checked before any device is opened: the same error with or without a GPU.
  CudaDeviceProperties device;
  for (auto [bytes, buffers, streams] : {std::tuple<size_t, size_t, size_t>{0, 2, 32},
                                         std::tuple<size_t, size_t, size_t>{4096, 1, 32},
                                         std::tuple<size_t, size_t, size_t>{4096, 2, 0}}) {
    CudaBackendOptions options;
    options.staging_bytes = bytes;
    options.staging_buffers = buffers;
    options.max_session_streams = streams;
    try {
      CudaBackend backend(device, options);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Internal);
      CHECK(e.message().find("staging_buffers >= 2") != std::string::npos);
    }
  }
}

TEST_CASE("CUDA versions print as major.minor") {
  CHECK(cuda_version_text(13000) == "13.0");
  CHECK(cuda_version_text(12040) == "12.4");
}

}  // namespace
}  // namespace tensord::cuda::test
