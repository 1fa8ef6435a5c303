// The web dashboard over HTTP, on the daemon's event loop (kj-http, from Cap'n Proto: no second
// event loop or thread): GET /api/status (server/dashboard_status.h, with the last minute's memory
// sampled here, server/dashboard_memory.h), GET /api/profile (a few seconds' trace of one session,
// server/dashboard_profile.h; /api/profile/timeline zooms into one of the last few), GET /metrics
// for Prometheus (server/metrics_text.h) and the built page (profiler_ui/, found in `page_dir`).
// Read-only: no request changes what the daemon computes (a profile only traces a session for its
// seconds). With a --token the API and the metrics ask for "Authorization: Bearer TOKEN"; the page
// holds no data and is served to anyone who reaches the address (bind it to 127.0.0.1 unless the
// network is trusted).
#pragma once

#include <kj/async-io.h>
#include <kj/compat/http.h>
#include <kj/timer.h>

#include <memory>
#include <string>

#include "server/daemon_state.h"

namespace tensord::server {

class Dashboard {
 public:
  // `page_dir` empty or without index.html: the API is served, and / says the page is not built.
  Dashboard(std::shared_ptr<DaemonState> daemon, kj::Timer& timer, std::string page_dir);
  ~Dashboard();
  Dashboard(const Dashboard&) = delete;
  Dashboard& operator=(const Dashboard&) = delete;

  // Serves connections from `receiver`, and samples the memory history once a second (the status'
  // memory_history, server/dashboard_memory.h), until the promise is dropped.
  kj::Promise<void> listen(kj::ConnectionReceiver& receiver);

  // Where the page is looked for when --dashboard-dir is not given: share/tensord/dashboard
  // beside the executable's folder (an installed daemon), else `build_tree_dir`.
  static std::string default_page_dir(const std::string& build_tree_dir);

 private:
  class Service;
  class Errors;
  kj::Own<kj::HttpHeaderTable> headers_;
  kj::Own<Service> service_;
  kj::Own<Errors> errors_;
  kj::Own<kj::HttpServer> server_;
};

}  // namespace tensord::server
