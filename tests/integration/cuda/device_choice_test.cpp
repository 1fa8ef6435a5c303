#include <catch2/catch.hpp>

#include <stdexcept>

#if TENSORD_WITH_CUDA
#include "engine/backends/cuda/device_discovery.h"
#endif
#include "tensord/client.h"
#include "tests/integration/server/raw_client.h"
#include "tests/support/daemon/daemon_process.h"

namespace tensord::test {
namespace {

std::vector<std::string> hello_device_kinds(const std::string& address) {
  RawClient client(address);
  client.hello("probe");
  std::vector<std::string> kinds;
  for (auto d : client.last_server_info().getDevices()) kinds.push_back(d.getKind());
  return kinds;
}

#if TENSORD_WITH_CUDA
// What this process sees is what the daemon it starts sees (same machine, same environment).
const cuda::CudaDiscovery& here() {
  static const cuda::CudaDiscovery found = cuda::discover_cuda_devices();
  return found;
}

TEST_CASE("--device auto runs on every GPU, or on the CPU saying why not") {
  DaemonProcess daemon(DaemonOptions::with_args({"--device", "auto"}));
  std::vector<std::string> kinds = hello_device_kinds(daemon.address());
  INFO(daemon.output());
  if (here().devices.empty()) {
    WARN("no CUDA device here: checking the CPU fallback only (" << here().why_none << ")");
    REQUIRE(kinds == std::vector<std::string>{"cpu"});
    REQUIRE(daemon.output().find("--device auto: running on the CPU: no usable CUDA device: " +
                                 here().why_none) != std::string::npos);
  } else {
    REQUIRE(kinds == std::vector<std::string>(here().devices.size(), "cuda"));
    REQUIRE(daemon.output().find("device cuda:0") != std::string::npos);
  }
}

TEST_CASE("--device cuda exits 1 with the CUDA error when no GPU is usable") {
  if (!here().devices.empty()) {
    DaemonProcess daemon(DaemonOptions::with_args({"--device", "cuda"}));
    REQUIRE(hello_device_kinds(daemon.address()).at(0) == "cuda");
    return;
  }
  try {
    DaemonProcess daemon(DaemonOptions::with_args({"--device", "cuda"}));
    FAIL("the daemon started without a GPU");
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    INFO(what);
    REQUIRE(what.find("exited with code 1") != std::string::npos);
    REQUIRE(what.find("--device cuda: no usable CUDA device: " + here().why_none) !=
            std::string::npos);
  }
}

TEST_CASE("SessionStats reports the GPU's own kernel cache beside the host's") {
  if (here().devices.empty()) {
    WARN("skipped: no CUDA device here (" << here().why_none << ")");
    return;
  }
  DaemonProcess daemon(DaemonOptions::with_args({"--device", "cuda"}));
  auto s = tensord::connect(daemon.address());
  auto x = s.from_vector<float>({1, 2, 3}, {3});
  REQUIRE((-x).to_vector<float>() == std::vector<float>{-1, -2, -3});
  tensord::SessionStats st = s.stats();
  REQUIRE(st.kernel_caches.size() == 2);
  CHECK(st.kernel_caches[0].target == "host");
  CHECK(st.kernel_caches[1].target == "cuda:0");
  const auto& gpu = st.kernel_caches[1];
  CHECK(gpu.misses + gpu.disk_hits + gpu.memory_hits >= 1);
}

#else
TEST_CASE("without the CUDA backend, --device cuda exits 1 and auto runs on the CPU") {
  try {
    DaemonProcess daemon(DaemonOptions::with_args({"--device", "cuda"}));
    FAIL("the daemon started without a CUDA backend");
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    INFO(what);
    REQUIRE(what.find("exited with code 1") != std::string::npos);
    REQUIRE(what.find("this build has no CUDA backend") != std::string::npos);
  }
  DaemonProcess daemon(DaemonOptions::with_args({"--device", "auto"}));
  REQUIRE(hello_device_kinds(daemon.address()) == std::vector<std::string>{"cpu"});
}
#endif

}  // namespace
}  // namespace tensord::test
