// The backends behind --device: every usable GPU (one backend each) or the CPU.
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

// auto: the GPUs when one is usable, else the CPU, logging why. cuda: throws
// tensord::Error(Unsupported) with the CUDA error when no GPU is usable. The CPU generates
// fused kernels through `kernels` (null: no fusion).
std::vector<std::unique_ptr<engine::Backend>> open_devices(
    const Options& options, Logger& log, std::shared_ptr<cache::KernelCache> kernels = nullptr);

}  // namespace tensord::server
