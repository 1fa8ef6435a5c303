// The dashboard's last few profiles (/api/profile), kept so that the page can zoom into one:
// GET /api/profile/timeline?id=N&from_us=A&to_us=B answers the timeline of that part of it, its
// longest spans there and its memory series there (server/dashboard_timeline.h), where the first
// answer could only draw the whole profile's longest 2000 spans. Kept in the compact form the
// records were collected in (engine/profiler/compact.h: ~20 bytes a record, so a full profile of
// 2^18 records is ~5 MiB) and decoded again for each window. Lives on the event loop: the
// dashboard's requests are served there, one at a time.
#pragma once

#include <cstdint>
#include <deque>
#include <string_view>
#include <vector>

#include "engine/profiler/compact.h"
#include "server/dashboard_query.h"
#include "server/dashboard_timeline.h"

namespace tensord::server {

struct KeptProfile {
  uint64_t id = 0;  // given by KeptProfiles::keep
  uint64_t session = 0;
  bool memory = false;     // whether it recorded memory
  int64_t elapsed_ns = 0;  // how long it ran
  HeldBytes held;
  std::vector<std::vector<uint8_t>> chunks;  // the records, as collected

  profiler::Trace decode() const;
};

class KeptProfiles {
 public:
  // How many are kept: the page shows one profile at a time, and a few people may share it.
  static constexpr size_t kMaxProfiles = 4;

  // Keeps `profile` (the oldest goes past kMaxProfiles) and returns its id: 1, 2, ...
  uint64_t keep(KeptProfile profile);
  // Null when it is not (or no longer) kept.
  const KeptProfile* find(uint64_t id) const;

 private:
  uint64_t next_id_ = 1;
  std::deque<KeptProfile> kept_;  // oldest first
};

// /api/profile/timeline: `query` is id=N[&from_us=A][&to_us=B] (default: the whole profile; a
// bound past its end is its end). 400 for a bad query, 404 for a profile no longer kept.
DashboardAnswer profile_window(const KeptProfiles& kept, std::string_view query);

}  // namespace tensord::server
