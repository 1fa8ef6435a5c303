// The `timeline` of /api/profile's answer (server/dashboard_profile.h): what the dashboard's page
// draws of a profile, in place of the whole Chrome trace (which runs to megabytes for a busy
// session): the longest spans and, when the profile recorded memory, the allocated bytes over
// time, both in microseconds since the profile started. docs/dashboard.md names every field.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "engine/profiler/compact.h"

namespace tensord::server {

// The page is ~1000 px wide: more spans or points than this cannot be told apart there.
inline constexpr size_t kTimelineMaxSpans = 2000;
inline constexpr size_t kTimelineMaxPoints = 2000;

// The session's live tensor bytes (its account's, as /api/status's `live_bytes`) when the profile
// started and when it stopped. The memory series starts from `before`, drawn as one category of
// its own, kHeldBefore: the blocks the memory ledger tracked then (allocated while an earlier
// profile recorded memory) are adopted by the profile, and that band drops as they are freed;
// the rest (allocated while no profile recorded memory) the profile cannot see go, and stays.
// `before_by`: where the largest of `before` were made (the account's holdings then, as
// holdings_json gives them).
struct HeldBytes {
  uint64_t before = 0;
  uint64_t at_end = 0;
  nlohmann::json before_by = nlohmann::json::array();
};
inline constexpr const char* kHeldBefore = "held_before_profile";

// A part of a profile's time, in ns since it started: what the page zooms into.
struct TimeWindow {
  int64_t from_ns = 0;
  int64_t to_ns = INT64_MAX;
};

// `elapsed_ns`: how long the profile ran (its clock when it stopped). `memory`: whether it
// recorded memory (adds the `memory` series, which starts from `held.before`). With a `window`,
// the spans that overlap it (its longest kTimelineMaxSpans) and the memory series within it: its
// first point is the window's start with the bytes held then, and its peak the window's; the
// times stay the profile's, and the categories are the whole profile's (the legend keeps them).
nlohmann::json profile_timeline(const profiler::Trace& trace, int64_t elapsed_ns, bool memory,
                                const HeldBytes& held = {}, const TimeWindow& window = {});

}  // namespace tensord::server
