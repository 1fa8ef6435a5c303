#include "server/devices.h"

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/ir/error.h"

namespace tensord::server {

std::vector<std::unique_ptr<engine::Backend>> open_devices(const Options& options) {
  if (options.device == "cuda") {
    throw Error(ErrorCode::Unsupported,
                "the CUDA backend is not built yet; run with --device cpu (or auto)");
  }
  std::vector<std::unique_ptr<engine::Backend>> devices;
  // threads 0 (the default): every hardware thread.
  devices.push_back(std::make_unique<cpu::CpuBackend>(options.threads));
  return devices;
}

}  // namespace tensord::server
