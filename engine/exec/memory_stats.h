// What a device can say about its memory (Session.memoryStats). Engine-level and free of any
// backend's headers, so that the server and the scheduler report it without knowing CUDA.
// Each part is present only where the device really has it: a device without a caching
// allocator reports no allocator statistics rather than zeros.
#pragma once

#include <cstdint>
#include <optional>

namespace tensord::engine {

// One statistic in PyTorch's torch.cuda.memory_stats() sense: its value now, its highest value
// (since the last peak reset), and the totals ever added and removed.
struct MemoryStat {
  int64_t current = 0;
  int64_t peak = 0;
  int64_t allocated = 0;
  int64_t freed = 0;
};

// A caching device allocator's statistics, PyTorch's "all" pool. Bytes: allocated (blocks
// handed out, rounded sizes), reserved (segments held from the device), active (allocated plus
// freed blocks still waiting on other streams), inactive_split (free blocks inside split
// segments), requested (sizes callers asked for, before rounding). Counts: allocation (blocks),
// segment, active, inactive_split.
struct AllocatorMemoryStats {
  MemoryStat allocated_bytes, reserved_bytes, active_bytes, inactive_split_bytes, requested_bytes;
  MemoryStat allocation, segment, active, inactive_split;
  int64_t num_alloc_retries = 0;  // device allocations retried after releasing the cache
  int64_t num_ooms = 0;           // requests that failed with out of memory
  int64_t num_device_alloc = 0;   // segments obtained from the device (cudaMalloc calls)
  int64_t num_device_free = 0;    // segments given back (cudaFree calls)
};

// A host backend's cache of large freed blocks (engine/backends/cpu/host_block_cache.h).
struct HostCacheMemoryStats {
  uint64_t cached_bytes = 0;  // bytes of freed blocks kept for reuse now
  uint64_t hits = 0;          // allocations served from the cache
  uint64_t misses = 0;        // cacheable allocations that needed new memory
  uint64_t evictions = 0;     // blocks freed to keep the cache within its capacity
};

struct DeviceMemoryStats {
  std::optional<AllocatorMemoryStats> allocator;   // CUDA: the caching allocator
  std::optional<HostCacheMemoryStats> host_cache;  // CPU: the host block cache
};

}  // namespace tensord::engine
