// Tables and series computed from a trace on the client: torch.profiler-like key averages and
// the memory timeline.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/profiler/compact.h"

namespace tensord::profiler {

// One row per op (steps) or stage (other spans, in brackets: "[queue_wait]").
struct KeyAverage {
  std::string key;
  uint64_t calls = 0;
  int64_t self_ns = 0;  // total minus the spans nested in it on the same thread
  int64_t total_ns = 0;
  uint64_t alloc_bytes = 0;  // bytes allocated while running it (memory records of that op)
  std::string source;        // the user's line of the most expensive call ("" if unknown)
};

// Sorted by total time, largest first.
std::vector<KeyAverage> key_averages(const Trace& trace);

struct MemoryPoint {
  int64_t t_ns = 0;
  int64_t live_bytes[static_cast<size_t>(MemoryCategory::kCount)] = {};  // this session's
  int64_t total() const;
};

// The session's live bytes per category after every memory event, in time order.
std::vector<MemoryPoint> memory_timeline(const Trace& trace);

}  // namespace tensord::profiler
