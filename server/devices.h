// The backends behind --device. Only the CPU backend exists in this build.
#pragma once

#include <memory>
#include <vector>

#include "engine/exec/backend.h"
#include "server/options.h"

namespace tensord::server {

// Throws tensord::Error(Unsupported) for a device this build cannot drive.
std::vector<std::unique_ptr<engine::Backend>> open_devices(const Options& options);

}  // namespace tensord::server
