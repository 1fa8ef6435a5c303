#include "server/kernel_caches.h"

namespace tensord::server {

std::vector<NamedKernelCacheStats> kernel_caches(const DaemonState& daemon) {
  std::vector<NamedKernelCacheStats> caches;
  if (daemon.kernels) caches.emplace_back("host", daemon.kernels->stats());
  const scheduler::Scheduler& scheduler = *daemon.scheduler;
  for (size_t i = 0; i < scheduler.device_count(); ++i) {
    if (auto k = scheduler.own_kernel_cache_stats(i)) {
      const engine::DeviceInfo& d = scheduler.device_info(i);
      caches.emplace_back(d.kind + ":" + std::to_string(d.index), *k);
    }
  }
  return caches;
}

}  // namespace tensord::server
