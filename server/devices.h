// The backends behind --device: every usable GPU (one backend each) or the CPU.
#pragma once

#include <memory>
#include <vector>

#include "engine/exec/backend.h"
#include "server/options.h"

namespace tensord::server {

// auto: the GPUs when one is usable, else the CPU, logging why. cuda: throws
// tensord::Error(Unsupported) with the CUDA error when no GPU is usable.
std::vector<std::unique_ptr<engine::Backend>> open_devices(const Options& options, Logger& log);

}  // namespace tensord::server
