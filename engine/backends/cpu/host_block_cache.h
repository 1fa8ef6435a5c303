// Large host blocks that freed tensors leave behind, kept for the next allocation of the same
// size. A fresh mapping costs a page fault per page on first touch, which on the machines we
// measured made a memcpy into new memory 3-6x slower than into touched memory (bench/transfer's
// memcpy_fresh figure); a plan that runs in a loop, or a client uploading batches, allocates
// the same sizes again and again. PyTorch's CUDA caching allocator is the model, much reduced:
// blocks of at least kMinBytes, rounded to 2 MiB, reused only at the same rounded size (the
// most recently freed first), the oldest evicted beyond a byte capacity, all released and the
// allocation retried when the system allocator fails. Smaller blocks come from malloc, which
// caches them itself.
//
// Each block from the system is a segment for the memory recorder (set_observer): it is
// reported when it is allocated and when it goes back to the system (evicted, released, or too
// large to cache), not when it moves between a tensor and the cache.
//
// A reused block holds a previous tensor's bytes (as torch.empty's memory does): every kernel
// writes all of its outputs, and the conformance table checks that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/exec/tensor_value.h"
#include "engine/profiler/segment_observer.h"

namespace tensord::cpu {

class HostBlockCache {
 public:
  static constexpr size_t kMinBytes = size_t{1} << 20;
  static constexpr size_t kGranule = size_t{2} << 20;  // a transparent huge page

  struct Stats {
    uint64_t hits = 0;          // allocations served from the cache
    uint64_t misses = 0;        // cacheable allocations that needed new memory
    uint64_t evictions = 0;     // blocks freed to keep the cache within its capacity
    uint64_t cached_bytes = 0;  // bytes of blocks waiting for reuse now
  };

  explicit HostBlockCache(size_t capacity_bytes);
  ~HostBlockCache();
  HostBlockCache(const HostBlockCache&) = delete;
  HostBlockCache& operator=(const HostBlockCache&) = delete;

  // 64-byte aligned (2 MiB from kMinBytes on); throws tensord::Error(OutOfMemory). Buffers may
  // outlive the cache: they free their memory then.
  std::shared_ptr<engine::Buffer> allocate(size_t bytes);
  // Frees every cached block.
  void release();
  // Reports segments from now on to `observer` (null: to nobody) as `category` memory. Segments
  // held already are not reported (set it before the first allocation).
  void set_observer(std::shared_ptr<profiler::SegmentObserver> observer,
                    profiler::MemoryCategory category = profiler::MemoryCategory::Tensor);
  Stats stats() const;

 private:
  struct State;
  class CachedBuffer;
  std::shared_ptr<State> state_;
};

// The capacity a backend uses unless told otherwise: 1 GiB, or an eighth of `physical_memory`
// when that is less (0: unknown, 1 GiB).
size_t default_host_cache_bytes(uint64_t physical_memory);

}  // namespace tensord::cpu
