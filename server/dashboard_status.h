// The dashboard's one API document, GET /api/status: the daemon, its devices, the live sessions,
// the kernel caches, the recent runs and the last minute's memory, as JSON (docs/dashboard.md
// lists every field).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "server/accounting.h"
#include "server/daemon_state.h"
#include "server/dashboard_memory.h"

namespace tensord::server {

std::string dashboard_status_json(const DaemonState& daemon, const MemoryHistory& memory);

// A session's `holdings` (what holds its live bytes, largest first, at most 3), as the session
// rows and a profile's `held_before_by` give them.
nlohmann::json holdings_json(const Account& account);

}  // namespace tensord::server
