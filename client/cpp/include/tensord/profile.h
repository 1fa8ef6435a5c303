// Profiling a session: a trace of every stage of every request and step, tagged with the user's
// source lines, and optionally every allocation, streamed from the daemon while work runs.
//
//   auto prof = s.profile({.memory = true});
//   ... work ...
//   prof.stop();                                    // or let `prof` go out of scope
//   prof.export_chrome_trace("trace.json");         // opens in Perfetto / chrome://tracing
//   for (auto& row : prof.key_averages()) ...
//   for (auto& r : prof.recommendations()) ...
//
// docs/profiler.md describes the records, the formats and the rules of the recommendations.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/profiler/advice.h"
#include "engine/profiler/compact.h"
#include "engine/profiler/summary.h"
#include "tensord/holding.h"

namespace tensord {

namespace detail {
struct SessionState;
struct ProfileState;
}  // namespace detail

struct ProfileOptions {
  bool trace = true;                // spans of every request stage and step
  bool memory = false;              // every allocation and free, with op and source line
  uint32_t buffer_records = 16384;  // what the daemon holds for a slow client before dropping
  // Ask for FreeRequested records too (protocol 1.4; a 1.3 daemon ignores it): frees are then
  // recorded when requested and when completed (CUDA blocks used by other streams).
  bool free_requested = true;
};

// RAII: the profile runs from Session::profile until stop() or destruction (which stops it and
// flushes what the daemon still holds). Move-only; used on the session's thread. Chunks arrive
// whenever the session's event loop runs (at every sync point, and in trace()).
class Profile {
 public:
  Profile(Profile&&) noexcept;
  Profile& operator=(Profile&&) noexcept;
  ~Profile();

  // Stops recording and waits until every pending record has arrived. Idempotent.
  void stop();
  bool running() const;

  // What has arrived so far (all of it after stop()).
  const profiler::Trace& trace();
  // Records the daemon dropped because this client read too slowly (counted, never silent).
  uint64_t dropped();

  std::string chrome_trace_json();
  void export_chrome_trace(const std::string& path);
  // The compact form as received, for long sessions: each chunk behind its length (4 bytes,
  // little-endian).
  void export_compact(const std::string& path);
  std::vector<profiler::KeyAverage> key_averages();
  std::vector<profiler::MemoryPoint> memory_timeline();
  // What the session held when the profile began (protocol 1.8; 0 and empty from an older
  // daemon): its live bytes, and the largest of them by origin (as SessionStats::holdings).
  // The profile records only what is allocated during it: profiler::MemoryStacker(
  // memory_timeline(), held_before()) gives the timeline as a plot stacks it, from these bytes.
  uint64_t held_before() const;
  const std::vector<Holding>& held_before_by() const;
  // Per memory category: allocated and reserved now and at peak (docs/profiler.md).
  std::vector<profiler::CategorySummary> memory_summary();
  std::vector<profiler::Recommendation> recommendations();
  // The device's segments now (one SegmentAlloc record each) and this session's live blocks
  // (those allocated while memory was recorded, one Alloc record each, with their addresses).
  // Needs a running profile.
  profiler::Trace memory_snapshot();
  // The same, nested: each segment with the blocks inside it (torch.cuda.memory._snapshot).
  profiler::MemorySnapshot memory_segments();

 private:
  friend class Session;
  explicit Profile(std::shared_ptr<detail::ProfileState> state);
  std::shared_ptr<detail::ProfileState> state_;
};

// Reads a file written by export_compact.
profiler::Trace read_compact_trace(const std::string& path);

}  // namespace tensord
