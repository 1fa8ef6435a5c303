// The dashboard's memory history (/api/status's `memory_history`): once a second, the live bytes
// of each open session and each device's memory figures, the last kSamples of them, so that a
// team sharing a device sees whose memory grew in the last minute, not only what is held now. A
// session that closed stays under its id and name until its last sample ages out: who held the
// memory matters most right after they let it go. Event-loop only, like the rest of the
// dashboard's state; sampling is a timer on that loop (sample_memory), no thread.
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

  // Drops the oldest sample past kSamples, and the sessions only it still held.
  void add(Clock::time_point at, std::vector<SessionBytes> sessions,
           std::vector<DeviceMemory> devices);

  const std::deque<Sample>& samples() const { return samples_; }  // oldest first
  // Every session in some sample, open or closed since, by id.
  const std::map<uint64_t, Seen>& sessions() const { return sessions_; }
  // Session `id`'s live bytes at each sample, aligned with samples(): 0 where it was not open
  // (a closed session holds nothing; its tensors went with it).
  std::vector<uint64_t> live_bytes(uint64_t id) const;

 private:
  std::deque<Sample> samples_;
  std::map<uint64_t, Seen> sessions_;
  uint64_t added_ = 0;
};

// /api/status's `memory_history`: times on the uptime_s clock (since `started`), series aligned
// with them (docs/dashboard.md names every field). `daemon` gives the devices' kinds and indexes.
nlohmann::json memory_history_json(const MemoryHistory& history, const DaemonState& daemon);

// Samples `daemon` into `history` now and then once a second until the promise is dropped. Both
// must outlive the promise.
kj::Promise<void> sample_memory(const DaemonState& daemon, MemoryHistory& history,
                                kj::Timer& timer);

}  // namespace tensord::server
