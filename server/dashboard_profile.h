// GET /api/profile?session=ID&seconds=S[&trace=1][&memory=1] for the dashboard
// (server/dashboard.h): traces one session for S seconds (default 2, at most 10) without its
// client's cooperation and answers with torch.profiler-like key averages
// (engine/profiler/summary.h): per op and stage, calls, self and total time, the user's line of
// the costliest call; and with the timeline the page draws (server/dashboard_timeline.h): the
// longest spans and, with memory=1 (the profile then records memory, as td.profile(memory=True)
// does), the allocated bytes over time. With trace=1 also the Chrome trace of those seconds
// (engine/profiler/chrome.h), for Perfetto. The trace is the session's own profiler
// (Session.profile's), started here; it is not started when the client is profiling, and if the
// client starts a profile meanwhile, the client's wins and the answer says so. The answer's `id`
// names the profile, which the dashboard keeps (server/kept_profiles.h) for
// GET /api/profile/timeline?id=N&from_us=A&to_us=B: the timeline of a part of it.
#pragma once

#include <kj/async.h>
#include <kj/timer.h>

#include <memory>
#include <string>
#include <string_view>

#include "server/daemon_state.h"
#include "server/dashboard_query.h"
#include "server/kept_profiles.h"

namespace tensord::server {

// `query`: the part of the URL after '?' (session=ID&seconds=S&trace=1&memory=1, in any order).
// The profile goes into `kept`, which must outlive the promise.
kj::Promise<DashboardAnswer> profile_session(std::shared_ptr<DaemonState> daemon, kj::Timer& timer,
                                             KeptProfiles& kept, std::string_view query);

}  // namespace tensord::server
