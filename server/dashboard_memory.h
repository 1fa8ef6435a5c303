// The dashboard's memory history (/api/status's `memory_history`): once a second, the live bytes
// of each open session and each device's memory figures, the last kSamples of them, so that a
// team sharing a device sees whose memory grew in the last minute, not only what is held now. A
// session that closed stays under its id and name until its last sample ages out: who held the
// memory matters most right after they let it go. Event-loop only, like the rest of the
// dashboard's state; sampling is a timer on that loop (sample_memory), no thread. /api/status
// sends the series of at most kSessionSeries sessions, the highest peaks of the window, and the
// rest summed as one: thousands of short sessions in a minute must not make each poll thousands
// of series long.
#pragma once

#include <kj/async.h>
#include <kj/timer.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/daemon_state.h"

namespace tensord::server {

class MemoryHistory {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr size_t kSamples = 60;
  // The sessions /api/status gives a series of their own (series()); the others are summed.
  static constexpr size_t kSessionSeries = 16;

  struct SessionBytes {
    uint64_t id = 0;
    std::string name;
    uint64_t live_bytes = 0;
  };
  // A device's figures at one moment, each only where the device has it (as /api/status's).
  struct DeviceMemory {
    std::optional<int64_t> allocated, reserved;  // a caching allocator's
    std::optional<uint64_t> host_cached;         // the CPU's block cache
  };
  struct Sample {
    Clock::time_point at;
    uint64_t number = 0;                                 // counts every sample ever added
    std::vector<std::pair<uint64_t, uint64_t>> session;  // (id, live bytes) of the open ones, by id
    std::vector<DeviceMemory> devices;                   // by device number
  };
  struct Seen {
    std::string name;
    uint64_t last = 0;  // the number of its newest sample
  };
  struct SessionSeries {
    uint64_t id = 0;
    std::string name;
    std::vector<uint64_t> live_bytes;  // aligned with samples(), as live_bytes(id)
  };
  struct Series {
    std::vector<SessionSeries> sessions;  // by id
    size_t other_count = 0;               // the sessions summed into `other`
    std::vector<uint64_t> other;          // their bytes at each sample; empty when none were
  };

  // Drops the oldest sample past kSamples, and the sessions only it still held.
  void add(Clock::time_point at, std::vector<SessionBytes> sessions,
           std::vector<DeviceMemory> devices);

  const std::deque<Sample>& samples() const { return samples_; }  // oldest first
  // Every session in some sample, open or closed since, by id.
  const std::map<uint64_t, Seen>& sessions() const { return sessions_; }
  // Session `id`'s live bytes at each sample, aligned with samples(): 0 where it was not open
  // (a closed session holds nothing; its tensors went with it).
  std::vector<uint64_t> live_bytes(uint64_t id) const;
  // The series of the `cap` sessions with the highest peak in the window (of equal peaks, the
  // lower ids: the set shown changes only when something grows or ages out), and the others'
  // bytes summed at each sample, so that the stacked total stays every session's.
  Series series(size_t cap = kSessionSeries) const;

 private:
  std::deque<Sample> samples_;
  std::map<uint64_t, Seen> sessions_;
  uint64_t added_ = 0;
};

// /api/status's `memory_history`: times on the uptime_s clock (since `started`), series aligned
// with them (docs/dashboard.md names every field). `daemon` gives the devices' kinds and indexes.
nlohmann::json memory_history_json(const MemoryHistory& history, const DaemonState& daemon);
// Its `sessions` (at most `cap`) and, when some were summed, `other_sessions` ({count,
// live_bytes}), set in `out`.
void memory_sessions_json(const MemoryHistory& history, nlohmann::json& out,
                          size_t cap = MemoryHistory::kSessionSeries);

// Samples `daemon` into `history` now and then once a second until the promise is dropped. Both
// must outlive the promise.
kj::Promise<void> sample_memory(const DaemonState& daemon, MemoryHistory& history,
                                kj::Timer& timer);

}  // namespace tensord::server
