#include "server/devices.h"

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/cache/kernel_cache.h"
#include "engine/ir/error.h"

namespace tensord::server {

std::shared_ptr<cache::KernelCache> open_kernel_cache(const Options& options) {
  cache::KernelCacheOptions k;
  k.dir = options.cache_dir.empty() ? cache::default_cache_dir() : options.cache_dir;
  if (k.dir == "none") k.dir.clear();
  if (!options.compiler.empty()) k.compiler.command = options.compiler;
  if (!options.compiler_flags.empty()) k.compiler.flags = options.compiler_flags;
  return std::make_shared<cache::KernelCache>(std::move(k));
}

std::vector<std::unique_ptr<engine::Backend>> open_devices(
    const Options& options, std::shared_ptr<cache::KernelCache> kernels) {
  if (options.device == "cuda") {
    throw Error(ErrorCode::Unsupported,
                "the CUDA backend is not built yet; run with --device cpu (or auto)");
  }
  std::vector<std::unique_ptr<engine::Backend>> devices;
  // threads 0 (the default): every hardware thread.
  devices.push_back(std::make_unique<cpu::CpuBackend>(options.threads, std::move(kernels)));
  return devices;
}

}  // namespace tensord::server
