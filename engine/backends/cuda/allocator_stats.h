// The caching allocator's statistics, with the meaning of PyTorch's
// torch.cuda.memory_stats() ("all" pool): each stat has current, peak, allocated (total
// ever added) and freed (total ever removed).
#pragma once

#include <algorithm>
#include <cstdint>

#include "engine/exec/memory_stats.h"

namespace tensord::cuda {

struct Stat {
  int64_t current = 0;
  int64_t peak = 0;
  int64_t allocated = 0;
  int64_t freed = 0;

  void increase(int64_t amount) {
    current += amount;
    allocated += amount;
    peak = std::max(peak, current);
  }
  void decrease(int64_t amount) {
    current -= amount;
    freed += amount;
  }
  void reset_peak() { peak = current; }
};

struct AllocatorStats {
  // Bytes. allocated: blocks handed out (rounded sizes); reserved: segments held from the
  // device; active: allocated plus blocks freed but still waiting on another stream's work;
  // inactive_split: free blocks inside segments that are split (fragmentation, not
  // returnable to the device); requested: what callers asked for before rounding.
  Stat allocated_bytes, reserved_bytes, active_bytes, inactive_split_bytes, requested_bytes;
  // Counts of the same things (allocation = blocks handed out, segment = device segments).
  Stat allocation, segment, active, inactive_split;
  int64_t num_alloc_retries = 0;  // device allocations retried after releasing the cache
  int64_t num_ooms = 0;           // requests that failed with out of memory
  int64_t num_device_alloc = 0;   // segments obtained from the device
  int64_t num_device_free = 0;    // segments given back
};

// The engine's backend-neutral form (Session.memoryStats): the same figures, field by field.
inline engine::MemoryStat to_memory_stat(const Stat& s) {
  return engine::MemoryStat{s.current, s.peak, s.allocated, s.freed};
}

inline engine::AllocatorMemoryStats to_allocator_memory_stats(const AllocatorStats& s) {
  engine::AllocatorMemoryStats out;
  out.allocated_bytes = to_memory_stat(s.allocated_bytes);
  out.reserved_bytes = to_memory_stat(s.reserved_bytes);
  out.active_bytes = to_memory_stat(s.active_bytes);
  out.inactive_split_bytes = to_memory_stat(s.inactive_split_bytes);
  out.requested_bytes = to_memory_stat(s.requested_bytes);
  out.allocation = to_memory_stat(s.allocation);
  out.segment = to_memory_stat(s.segment);
  out.active = to_memory_stat(s.active);
  out.inactive_split = to_memory_stat(s.inactive_split);
  out.num_alloc_retries = s.num_alloc_retries;
  out.num_ooms = s.num_ooms;
  out.num_device_alloc = s.num_device_alloc;
  out.num_device_free = s.num_device_free;
  return out;
}

}  // namespace tensord::cuda
