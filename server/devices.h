// The backends behind --device. Only the CPU backend exists in this build.
#pragma once

#include <memory>
#include <vector>

#include "engine/exec/backend.h"
#include "server/options.h"

namespace tensord::cache {
class KernelCache;
}

namespace tensord::server {

// The compiled-kernel cache every device shares (--cache-dir, --compiler, --compiler-flags).
std::shared_ptr<cache::KernelCache> open_kernel_cache(const Options& options);

// Throws tensord::Error(Unsupported) for a device this build cannot drive. Devices generate
// fused kernels through `kernels` (null: no fusion).
std::vector<std::unique_ptr<engine::Backend>> open_devices(
    const Options& options, std::shared_ptr<cache::KernelCache> kernels = nullptr);

}  // namespace tensord::server
