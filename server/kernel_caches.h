// Every compiled-kernel cache of the daemon with its counters, named as Session.stats and the
// dashboard show them: "host" (the generated C++ kernels, shared by the devices) and each
// device's own ("cuda:0": its CUBINs).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/cache/kernel_cache.h"
#include "server/daemon_state.h"

namespace tensord::server {

using NamedKernelCacheStats = std::pair<std::string, cache::KernelCacheStats>;

std::vector<NamedKernelCacheStats> kernel_caches(const DaemonState& daemon);

}  // namespace tensord::server
