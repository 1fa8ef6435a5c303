// The CUDA backend's caching allocator: device memory is taken in segments from a
// SegmentSource and handed out as blocks, which are split, cached when freed and merged with
// free neighbours, so that steady-state execution never calls cudaMalloc/cudaFree (which
// synchronise the device). The rules are PyTorch's CUDACachingAllocator's:
//   - sizes round up to 512 bytes;
//   - requests <= 1 MiB come from the small pool (2 MiB segments), larger ones from the large
//     pool (20 MiB segments below 10 MiB, else the size rounded up to 2 MiB);
//   - a free block is reused only by the stream it was allocated on (stream order makes that
//     safe without synchronisation); a block also used by other streams (record_stream) goes
//     back to the pool once events recorded on them have completed;
//   - a block is split when the rest is worth keeping (>= 512 B in the small pool, > 1 MiB in
//     the large pool);
//   - when the device refuses a segment, cached unsplit segments are released and the device
//     allocation is retried once before the request fails with out of memory.
// The bookkeeping knows nothing of CUDA: tests run it over host memory without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/backends/cuda/allocator_stats.h"
#include "engine/backends/cuda/segment_source.h"
#include "engine/profiler/segment_observer.h"

namespace tensord::cuda {

inline constexpr size_t kMinBlockSize = 512;
inline constexpr size_t kSmallSize = size_t{1} << 20;     // largest small-pool request
inline constexpr size_t kSmallBuffer = size_t{2} << 20;   // small-pool segment
inline constexpr size_t kLargeBuffer = size_t{20} << 20;  // large-pool segment below kMinLargeAlloc
inline constexpr size_t kMinLargeAlloc = size_t{10} << 20;
inline constexpr size_t kRoundLarge = size_t{2} << 20;

size_t round_size(size_t bytes);      // to a multiple of 512 (at least 512)
size_t segment_size(size_t rounded);  // the segment a miss of this size asks the device for

// What one session may hold on this device: the scheduler's per-session limit hook. The
// allocator charges each block's rounded size to the account of the session that allocated it
// and refunds it on free; a request past `limit` fails with tensord::Error(Quota).
struct SessionAccount {
  uint64_t limit = 0;  // bytes; 0: no limit
  uint64_t allocated = 0;
};

struct AllocatorOptions {
  // Reserved memory this allocator may hold (0: no limit but the device's): PyTorch's
  // set_per_process_memory_fraction. Exceeding it is handled like a device allocation failure.
  uint64_t max_reserved = 0;
  // The memory recorder (the device's MemoryLedger): told of every segment taken from and given
  // back to the source, and of every free that waits on other streams (free requested) and its
  // completion (free completed), under the allocator's lock. Null: nobody is told.
  std::shared_ptr<profiler::SegmentObserver> observer;
};

class CachingAllocator {
 public:
  // `events` may be null when only one stream is ever used (record_stream then throws).
  CachingAllocator(SegmentSource& source, StreamEvents* events, AllocatorOptions options = {});
  ~CachingAllocator();  // returns every cached segment; blocks still allocated are leaked
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A block of at least `bytes` for use on `stream`, 512-byte aligned. Throws
  // tensord::Error(OutOfMemory) naming the request, allocated, reserved and free bytes (the
  // allocator stays usable), or tensord::Error(Quota) past the session's limit.
  void* allocate(size_t bytes, StreamId stream, SessionAccount* account = nullptr);
  // Returns a block (from allocate) to the cache. Throws Error(Internal) for an unknown pointer.
  void free(void* ptr);
  // Marks a block as used by `stream` too: its free waits for that stream's queued work.
  void record_stream(void* ptr, StreamId stream);

  // Returns every cached segment that is wholly free to the device (torch.cuda.empty_cache()).
  void empty_cache();

  AllocatorStats stats() const;
  void reset_peak_stats();
  // Replaces AllocatorOptions::observer: the segments held now are reported freed to the old
  // observer and allocated to the new one.
  void set_observer(std::shared_ptr<profiler::SegmentObserver> observer);

  // Size of the block behind `ptr` (its rounded size); 0 for an unknown pointer.
  size_t block_size(const void* ptr) const;
  // The largest free cached block and the total cached free bytes (fragmentation evidence).
  size_t largest_free_block() const;
  size_t cached_free_bytes() const;

  struct Block;

 private:
  struct BlockLess {
    bool operator()(const Block* a, const Block* b) const;
  };
  using Pool = std::set<Block*, BlockLess>;

  Pool& pool_for(size_t rounded) { return rounded <= kSmallSize ? small_ : large_; }
  Block* find_free_block(Pool& pool, size_t rounded, StreamId stream);
  Block* allocate_segment(Pool& pool, size_t rounded, StreamId stream);
  bool release_cached_segments();
  void release_segment(Block* block);
  void return_to_pool(Block* block);
  void process_events();
  void synchronize_events();
  [[noreturn]] void throw_out_of_memory(size_t requested, size_t rounded, StreamId stream);
  static bool should_split(const Block* block, size_t rounded);

  SegmentSource& source_;
  StreamEvents* events_;
  AllocatorOptions options_;
  mutable std::mutex mutex_;
  Pool small_, large_;
  std::unordered_map<void*, Block*> allocated_;
  // Freed blocks waiting for events on other streams.
  std::vector<std::pair<Block*, std::vector<StreamEvents::EventId>>> pending_;
  AllocatorStats stats_;
};

}  // namespace tensord::cuda
