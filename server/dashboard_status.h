// The dashboard's one API document, GET /api/status: the daemon, its devices, the live sessions,
// the kernel caches and the recent runs, as JSON (docs/dashboard.md lists every field).
#pragma once

#include <string>

#include "server/daemon_state.h"

namespace tensord::server {

std::string dashboard_status_json(const DaemonState& daemon);

}  // namespace tensord::server
