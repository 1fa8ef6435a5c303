// GET /metrics: the daemon's figures in Prometheus' text exposition format (version 0.0.4), for
// a team's monitoring to scrape: sessions, runs and their time, live tensors, kernel caches and
// each device's memory. The same sources as the dashboard's /api/status (docs/dashboard.md).
#pragma once

#include <string>
#include <string_view>

#include "server/daemon_state.h"

namespace tensord::server {

std::string metrics_text(const DaemonState& daemon);

// A label value with backslash, double quote and newline escaped, as the format asks.
std::string metric_label(std::string_view value);

}  // namespace tensord::server
