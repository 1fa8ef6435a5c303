#include "server/devices.h"

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/cache/kernel_cache.h"
#include "engine/ir/error.h"
#if TENSORD_WITH_CUDA
#include "engine/backends/cuda/cuda_backend.h"
#include "engine/backends/cuda/device_discovery.h"
#endif

namespace tensord::server {
namespace {

#if TENSORD_WITH_CUDA
// Every visible GPU, one backend (and so one scheduler worker) each; empty with `why_not` set
// when none is usable.
std::vector<std::unique_ptr<engine::Backend>> open_cuda(const std::string& cache_dir,
                                                        const Options& daemon, Logger& log,
                                                        std::string& why_not) {
  std::vector<std::unique_ptr<engine::Backend>> devices;
  cuda::CudaDiscovery found = cuda::discover_cuda_devices();
  if (found.devices.empty()) {
    why_not = found.why_none;
    return devices;
  }
  for (const cuda::CudaDeviceProperties& d : found.devices) {
    try {
      cuda::CudaBackendOptions options;
      options.kernel_cache_dir = cache_dir;
      options.programmatic_launch = daemon.cuda_programmatic_launch;
      devices.push_back(std::make_unique<cuda::CudaBackend>(d, options));
      log.info("opened " + cuda::describe(d));
    } catch (const Error& e) {
      log.warn("skipping " + cuda::describe(d) + ": " + e.message());
      why_not += e.message() + "; ";
    }
  }
  return devices;
}
#else
std::vector<std::unique_ptr<engine::Backend>> open_cuda(const std::string&, const Options&, Logger&,
                                                        std::string& why_not) {
  why_not = "this build has no CUDA backend (the CUDA toolkit was not found, or TENSORD_CUDA=OFF)";
  return {};
}
#endif

}  // namespace

std::shared_ptr<cache::KernelCache> open_kernel_cache(const Options& options) {
  cache::KernelCacheOptions k;
  k.dir = options.cache_dir.empty() ? cache::default_cache_dir() : options.cache_dir;
  if (k.dir == "none") k.dir.clear();
  if (!options.compiler.empty()) k.compiler.command = options.compiler;
  if (!options.compiler_flags.empty()) k.compiler.flags = options.compiler_flags;
  return std::make_shared<cache::KernelCache>(std::move(k));
}

std::vector<std::unique_ptr<engine::Backend>> open_devices(
    const Options& options, Logger& log, std::shared_ptr<cache::KernelCache> kernels) {
  std::vector<std::unique_ptr<engine::Backend>> devices;
  if (options.device == "cuda" || options.device == "auto") {
    std::string why_not;
    // The CUDA kernels share the CPU kernels' directory (a "cuda" folder in it). Without a
    // working C++ compiler the daemon passes no CPU kernel cache: CUDA kernels then stay in
    // memory (NVRTC needs no host compiler).
    const bool on_disk = kernels && !kernels->private_dir();
    devices = open_cuda(on_disk ? kernels->dir() : "", options, log, why_not);
    if (!devices.empty()) return devices;
    if (options.device == "cuda") {
      throw Error(ErrorCode::Unsupported, "--device cuda: no usable CUDA device: " + why_not);
    }
    log.info("--device auto: running on the CPU: no usable CUDA device: " + why_not);
  }
  // threads 0 (the default): every hardware thread.
  devices.push_back(std::make_unique<cpu::CpuBackend>(options.threads, std::move(kernels)));
  return devices;
}

}  // namespace tensord::server
