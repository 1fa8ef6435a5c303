#include "engine/backends/cpu/host_block_cache.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <list>
#include <mutex>
#include <string>

#include "engine/backends/cpu/host_buffer.h"
#include "engine/ir/error.h"

namespace tensord::cpu {

struct HostBlockCache::State {
  struct Block {
    void* data;
    size_t bytes;  // rounded
  };

  explicit State(size_t capacity) : capacity(capacity) {}
  ~State() {
    for (const Block& b : free) free_segment(b.data);
  }

  std::shared_ptr<profiler::SegmentObserver> current_observer() const {
    std::lock_guard lock(mu);
    return observer;
  }
  void segment_allocated(void* data, size_t rounded) const {
    std::shared_ptr<profiler::SegmentObserver> o;
    profiler::MemoryCategory c;
    {
      std::lock_guard lock(mu);
      o = observer;
      c = category;
    }
    if (o) o->segment_allocated(reinterpret_cast<uintptr_t>(data), rounded, 0, c);
  }
  // Reported before the memory goes, so that the address cannot be a new segment's already.
  void free_segment(void* data) const {
    if (auto o = current_observer()) o->segment_freed(reinterpret_cast<uintptr_t>(data));
    std::free(data);
  }

  // The most recently freed block of `rounded` bytes, or null: its lines are the likeliest to
  // be in cache still. Taking the oldest made a loop that frees and allocates the same size
  // cycle through every cached block: each kernel wrote to memory out of cache (a 1M-float
  // elementwise op 0.59 ms against 0.22 into one buffer).
  void* take(size_t rounded) {
    std::lock_guard lock(mu);
    for (auto it = free.rbegin(); it != free.rend(); ++it) {
      if (it->bytes != rounded) continue;
      void* p = it->data;
      stats.cached_bytes -= rounded;
      free.erase(std::next(it).base());
      ++stats.hits;
      return p;
    }
    ++stats.misses;
    return nullptr;
  }

  void give_back(void* data, size_t rounded) {
    std::list<Block> evicted;
    {
      std::lock_guard lock(mu);
      if (rounded > capacity) {
        evicted.push_back({data, rounded});
      } else {
        while (stats.cached_bytes + rounded > capacity) {
          stats.cached_bytes -= free.front().bytes;
          ++stats.evictions;
          evicted.splice(evicted.end(), free, free.begin());
        }
        free.push_back({data, rounded});
        stats.cached_bytes += rounded;
      }
    }
    for (const Block& b : evicted) free_segment(b.data);  // outside the lock
  }

  void release() {
    std::list<Block> all;
    {
      std::lock_guard lock(mu);
      all.swap(free);
      stats.cached_bytes = 0;
    }
    for (const Block& b : all) free_segment(b.data);
  }

  const size_t capacity;
  mutable std::mutex mu;
  std::list<Block> free;  // oldest first
  Stats stats;
  std::shared_ptr<profiler::SegmentObserver> observer;  // guarded by mu
  profiler::MemoryCategory category = profiler::MemoryCategory::Tensor;
};

class HostBlockCache::CachedBuffer final : public engine::Buffer {
 public:
  CachedBuffer(void* data, size_t bytes, size_t rounded, std::shared_ptr<State> state)
      : Buffer(data, bytes), rounded_(rounded), state_(std::move(state)) {}
  ~CachedBuffer() override { state_->give_back(data(), rounded_); }

 private:
  size_t rounded_;
  std::shared_ptr<State> state_;
};

HostBlockCache::HostBlockCache(size_t capacity_bytes)
    : state_(std::make_shared<State>(capacity_bytes)) {}

HostBlockCache::~HostBlockCache() = default;

std::shared_ptr<engine::Buffer> HostBlockCache::allocate(size_t bytes) {
  if (bytes < kMinBytes) return allocate_host(bytes);
  if (bytes > SIZE_MAX - kGranule) {
    throw Error(ErrorCode::OutOfMemory, "cannot allocate " + std::to_string(bytes) + " bytes");
  }
  const size_t rounded = (bytes + kGranule - 1) / kGranule * kGranule;
  void* p = state_->take(rounded);
  if (p == nullptr) {
    p = std::aligned_alloc(kGranule, rounded);
    if (p == nullptr) {  // what the cache holds may be what is missing
      state_->release();
      p = std::aligned_alloc(kGranule, rounded);
    }
    if (p == nullptr) {
      throw Error(ErrorCode::OutOfMemory,
                  "cannot allocate " + std::to_string(bytes) + " bytes on the CPU");
    }
    madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure is harmless
    state_->segment_allocated(p, rounded);
  }
#ifdef TENSORD_POISON_HOST_BLOCKS
  // The sanitizer build fills every block with NaN bits (-1 as integers), new or reused, so that
  // a kernel that leaves part of its output or scratch unwritten fails the conformance table.
  std::memset(p, 0xff, bytes);
#endif
  return std::make_shared<CachedBuffer>(p, bytes, rounded, state_);
}

void HostBlockCache::release() {
  state_->release();
}

void HostBlockCache::set_observer(std::shared_ptr<profiler::SegmentObserver> observer,
                                  profiler::MemoryCategory category) {
  std::lock_guard lock(state_->mu);
  state_->observer = std::move(observer);
  state_->category = category;
}

HostBlockCache::Stats HostBlockCache::stats() const {
  std::lock_guard lock(state_->mu);
  return state_->stats;
}

size_t default_host_cache_bytes(uint64_t physical_memory) {
  const size_t one_gib = size_t{1} << 30;
  if (physical_memory == 0) return one_gib;
  return static_cast<size_t>(std::min<uint64_t>(one_gib, physical_memory / 8));
}

}  // namespace tensord::cpu
