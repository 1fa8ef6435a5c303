// The dashboard's one API document, GET /api/status: the daemon, its devices, the live sessions,
// the kernel caches, the recent runs and the last minute's memory, as JSON (docs/dashboard.md
// lists every field).
#pragma once

#include <string>

#include "server/daemon_state.h"
#include "server/dashboard_memory.h"

namespace tensord::server {

std::string dashboard_status_json(const DaemonState& daemon, const MemoryHistory& memory);

}  // namespace tensord::server
