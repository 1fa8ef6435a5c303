// Tables and series computed from a trace on the client: torch.profiler-like key averages and
// the memory timeline.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/profiler/compact.h"
#include "engine/profiler/memory_ledger.h"

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
  // This session's live blocks, and the device-owned ones (workspaces, graph pools), by category.
  int64_t live_bytes[static_cast<size_t>(MemoryCategory::kCount)] = {};
  int64_t reserved_bytes = 0;  // the device's segments (every session's), as far as seen
  int64_t reserved_by_category[static_cast<size_t>(MemoryCategory::kCount)] = {};
  // Of live_bytes, the session's blocks held when the profile began (adopted: Alloc flagged
  // kExisting, not device-owned) and not freed yet.
  int64_t held_before_bytes[static_cast<size_t>(MemoryCategory::kCount)] = {};
  bool adoption = false;  // this point is the Alloc of such a block, at the profile's start
  int64_t total() const;  // allocated: the sum of live_bytes
  int64_t held_before_total() const;
};

// The session's live bytes per category and the device's reserved bytes after every memory
// event (alloc, free completed, segment alloc and free), in time order. A requested free
// changes nothing until it completes (torch's books). Blocks held when the profile began (Alloc
// flagged kExisting) are live from its start, and drop out when freed during it.
std::vector<MemoryPoint> memory_timeline(const Trace& trace);

// A session's bytes as a plot stacks them (the dashboard's profile timeline, the client's
// memory_timeline): the bytes it held when the profile began as one band, then each category's
// blocks allocated since. `held_before` is the session's live bytes at the profile's start (its
// account's, Session.profile's heldBefore): the profile adopted those of its blocks the ledger
// tracked (freed during it, the band drops) and cannot see the others go (that part stays).
struct MemoryStack {
  int64_t held_before = 0;
  int64_t by_category[static_cast<size_t>(MemoryCategory::kCount)] = {};
  int64_t total() const;  // held_before and the categories
  friend bool operator==(const MemoryStack&, const MemoryStack&) = default;
};
class MemoryStacker {
 public:
  // `timeline`: memory_timeline(trace).
  MemoryStacker(const std::vector<MemoryPoint>& timeline, uint64_t held_before);
  // At the profile's start: held_before alone.
  MemoryStack start() const;
  MemoryStack at(const MemoryPoint& p) const;

 private:
  int64_t untracked_ = 0;              // the part of held_before the profile did not adopt
  int64_t adopted_ = 0;                // the adopted blocks' bytes, once all are in
  int64_t adopted_at_ns_ = INT64_MIN;  // when they came in: the profile's start
};

// One row per memory category: what the trace saw of it. Allocated: live blocks (this
// session's and the device-owned ones), changed by completed frees; reserved: segments.
struct CategorySummary {
  MemoryCategory category = MemoryCategory::Tensor;
  int64_t allocated = 0;  // at the end of the trace
  int64_t peak_allocated = 0;
  int64_t reserved = 0;
  int64_t peak_reserved = 0;
  uint64_t allocs = 0;         // allocations during the trace (not the blocks held at its start)
  uint64_t pending_frees = 0;  // frees whose completion came after their request
};

// Every category, in MemoryCategory order (a category the trace never saw is all zeros).
std::vector<CategorySummary> memory_summary(const Trace& trace);

// The segments and blocks of a snapshot chunk (Profile::memory_snapshot): its SegmentAlloc
// records are the segments, its Alloc records the blocks, nested by address.
MemorySnapshot memory_snapshot_of(const Trace& snapshot);

}  // namespace tensord::profiler
