#include "server/devices.h"

#include <thread>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/ir/error.h"

namespace tensord::server {

std::vector<std::unique_ptr<engine::Backend>> open_devices(const Options& options) {
  if (options.device == "cuda") {
    throw Error(ErrorCode::Unsupported,
                "the CUDA backend is not built yet; run with --device cpu (or auto)");
  }
  int threads = options.threads > 0
                    ? options.threads
                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::unique_ptr<engine::Backend>> devices;
  devices.push_back(std::make_unique<cpu::CpuBackend>(threads));
  return devices;
}

}  // namespace tensord::server
