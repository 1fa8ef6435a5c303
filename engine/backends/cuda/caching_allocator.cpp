#include "engine/backends/cuda/caching_allocator.h"

#include <cstdio>

#include "engine/ir/error.h"

namespace tensord::cuda {

// One block: a whole segment, or a piece of a split one (prev/next link the pieces in address
// order). A block is in one of three states: allocated, pending (freed, waiting on other
// streams' events) or free (in its pool).
struct CachingAllocator::Block {
  char* ptr = nullptr;
  size_t size = 0;
  size_t requested = 0;
  StreamId stream = 0;
  bool small = false;
  bool allocated = false;
  bool pending = false;
  Block* prev = nullptr;
  Block* next = nullptr;
  std::set<StreamId> uses;  // other streams that used it (record_stream)
  SessionAccount* account = nullptr;

  bool is_split() const { return prev != nullptr || next != nullptr; }
  bool is_free() const { return !allocated && !pending; }
};

size_t round_size(size_t bytes) {
  if (bytes < kMinBlockSize) return kMinBlockSize;
  return (bytes + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

size_t segment_size(size_t rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return (rounded + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

bool CachingAllocator::BlockLess::operator()(const Block* a, const Block* b) const {
  if (a->stream != b->stream) return a->stream < b->stream;
  if (a->size != b->size) return a->size < b->size;
  return a->ptr < b->ptr;
}

CachingAllocator::CachingAllocator(SegmentSource& source, StreamEvents* events,
                                   AllocatorOptions options)
    : source_(source), events_(events), options_(options) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard lock(mutex_);
  try {
    synchronize_events();
    release_cached_segments();
  } catch (...) {
    // A failing device at shutdown: the process is going anyway; the memory goes with it.
  }
}

void* CachingAllocator::allocate(size_t bytes, StreamId stream, SessionAccount* account) {
  std::lock_guard lock(mutex_);
  process_events();
  const size_t rounded = round_size(bytes);
  if (account != nullptr && account->limit != 0 && account->allocated + rounded > account->limit) {
    throw Error(ErrorCode::Quota,
                "allocating " + bytes_text(bytes) + " would take the session to " +
                    bytes_text(account->allocated + rounded) +
                    " of device memory, past its limit of " + bytes_text(account->limit));
  }
  Pool& pool = pool_for(rounded);
  Block* block = find_free_block(pool, rounded, stream);
  if (block == nullptr) block = allocate_segment(pool, rounded, stream);
  if (block == nullptr) {
    // The device refused: give back what the cache holds (after the streams finished with
    // it) and try once more.
    ++stats_.num_alloc_retries;
    synchronize_events();
    release_cached_segments();
    block = find_free_block(pool, rounded, stream);
    if (block == nullptr) block = allocate_segment(pool, rounded, stream);
  }
  if (block == nullptr) throw_out_of_memory(bytes, rounded, stream);

  if (should_split(block, rounded)) {
    auto* rest = new Block;
    rest->ptr = block->ptr + rounded;
    rest->size = block->size - rounded;
    rest->stream = stream;
    rest->small = block->small;
    rest->prev = block;
    rest->next = block->next;
    if (rest->next != nullptr) rest->next->prev = rest;
    block->next = rest;
    block->size = rounded;
    pool.insert(rest);
    stats_.inactive_split.increase(1);
    stats_.inactive_split_bytes.increase(static_cast<int64_t>(rest->size));
  }
  block->allocated = true;
  block->requested = bytes;
  block->account = account;
  if (account != nullptr) account->allocated += block->size;
  allocated_.emplace(block->ptr, block);

  const auto size = static_cast<int64_t>(block->size);
  stats_.allocation.increase(1);
  stats_.allocated_bytes.increase(size);
  stats_.active.increase(1);
  stats_.active_bytes.increase(size);
  stats_.requested_bytes.increase(static_cast<int64_t>(bytes));
  return block->ptr;
}

void CachingAllocator::free(void* ptr) {
  std::lock_guard lock(mutex_);
  auto it = allocated_.find(ptr);
  if (it == allocated_.end()) {
    throw Error(ErrorCode::Internal, "caching allocator: free of a pointer it did not allocate");
  }
  Block* block = it->second;
  allocated_.erase(it);
  block->allocated = false;
  const auto size = static_cast<int64_t>(block->size);
  stats_.allocation.decrease(1);
  stats_.allocated_bytes.decrease(size);
  stats_.requested_bytes.decrease(static_cast<int64_t>(block->requested));
  if (block->account != nullptr) block->account->allocated -= block->size;
  block->account = nullptr;

  if (!block->uses.empty()) {
    std::vector<StreamEvents::EventId> waits;
    for (StreamId s : block->uses) waits.push_back(events_->record(s));
    block->pending = true;
    pending_.emplace_back(block, std::move(waits));
    // Free requested, not completed: the memory recorder keeps the block allocated
    // ("active_pending_free") until process_events returns it.
    if (options_.observer) {
      options_.observer->block_free_deferred(reinterpret_cast<uintptr_t>(block->ptr),
                                             block->stream);
    }
  } else {
    return_to_pool(block);
  }
  process_events();
}

void CachingAllocator::record_stream(void* ptr, StreamId stream) {
  std::lock_guard lock(mutex_);
  auto it = allocated_.find(ptr);
  if (it == allocated_.end()) {
    throw Error(ErrorCode::Internal, "caching allocator: record_stream of an unknown pointer");
  }
  if (stream == it->second->stream) return;
  if (events_ == nullptr) {
    throw Error(ErrorCode::Internal, "caching allocator: record_stream without stream events");
  }
  it->second->uses.insert(stream);
}

void CachingAllocator::empty_cache() {
  std::lock_guard lock(mutex_);
  synchronize_events();
  release_cached_segments();
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void CachingAllocator::reset_peak_stats() {
  std::lock_guard lock(mutex_);
  for (Stat* s : {&stats_.allocated_bytes, &stats_.reserved_bytes, &stats_.active_bytes,
                  &stats_.inactive_split_bytes, &stats_.requested_bytes, &stats_.allocation,
                  &stats_.segment, &stats_.active, &stats_.inactive_split}) {
    s->reset_peak();
  }
}

size_t CachingAllocator::block_size(const void* ptr) const {
  std::lock_guard lock(mutex_);
  auto it = allocated_.find(const_cast<void*>(ptr));
  return it == allocated_.end() ? 0 : it->second->size;
}

size_t CachingAllocator::largest_free_block() const {
  std::lock_guard lock(mutex_);
  size_t largest = 0;
  for (const Pool* pool : {&small_, &large_}) {
    for (const Block* b : *pool) largest = std::max(largest, b->size);
  }
  return largest;
}

size_t CachingAllocator::cached_free_bytes() const {
  std::lock_guard lock(mutex_);
  size_t total = 0;
  for (const Pool* pool : {&small_, &large_}) {
    for (const Block* b : *pool) total += b->size;
  }
  return total;
}

CachingAllocator::Block* CachingAllocator::find_free_block(Pool& pool, size_t rounded,
                                                           StreamId stream) {
  Block key;
  key.stream = stream;
  key.size = rounded;
  auto it = pool.lower_bound(&key);
  if (it == pool.end() || (*it)->stream != stream) return nullptr;
  Block* block = *it;
  pool.erase(it);
  if (block->is_split()) {
    stats_.inactive_split.decrease(1);
    stats_.inactive_split_bytes.decrease(static_cast<int64_t>(block->size));
  }
  return block;
}

CachingAllocator::Block* CachingAllocator::allocate_segment(Pool& pool, size_t rounded,
                                                            StreamId stream) {
  const size_t size = segment_size(rounded);
  if (options_.max_reserved != 0 &&
      static_cast<uint64_t>(stats_.reserved_bytes.current) + size > options_.max_reserved) {
    return nullptr;
  }
  void* ptr = source_.allocate(size);
  if (ptr == nullptr) return nullptr;
  auto* block = new Block;
  block->ptr = static_cast<char*>(ptr);
  block->size = size;
  block->stream = stream;
  block->small = &pool == &small_;
  ++stats_.num_device_alloc;
  stats_.segment.increase(1);
  stats_.reserved_bytes.increase(static_cast<int64_t>(size));
  if (options_.observer) {
    options_.observer->segment_allocated(reinterpret_cast<uintptr_t>(ptr), size, stream,
                                         profiler::MemoryCategory::Tensor);
  }
  return block;
}

bool CachingAllocator::release_cached_segments() {
  std::vector<Block*> whole;
  for (Pool* pool : {&small_, &large_}) {
    for (Block* b : *pool) {
      if (!b->is_split()) whole.push_back(b);
    }
  }
  for (Block* b : whole) release_segment(b);
  return !whole.empty();
}

void CachingAllocator::set_observer(std::shared_ptr<profiler::SegmentObserver> observer) {
  std::lock_guard lock(mutex_);
  // The segments held now (a workspace allocated before the daemon's ledger existed) move from
  // the old observer to the new one, so that its reserved bytes equal the allocator's.
  std::vector<const Block*> firsts;
  auto add = [&](const Block* b) {
    if (b->prev == nullptr) firsts.push_back(b);
  };
  for (const Pool* pool : {&small_, &large_}) {
    for (const Block* b : *pool) add(b);
  }
  for (const auto& [ptr, b] : allocated_) add(b);
  for (const auto& [b, waits] : pending_) add(b);
  for (const Block* first : firsts) {
    const auto address = reinterpret_cast<uintptr_t>(first->ptr);
    size_t bytes = 0;
    for (const Block* b = first; b != nullptr; b = b->next) bytes += b->size;
    if (options_.observer) options_.observer->segment_freed(address);
    if (observer) {
      observer->segment_allocated(address, bytes, first->stream, profiler::MemoryCategory::Tensor);
    }
  }
  options_.observer = std::move(observer);
}

void CachingAllocator::release_segment(Block* block) {
  (block->small ? small_ : large_).erase(block);
  // Told before the release, so that the address cannot belong to a new segment already.
  if (options_.observer) options_.observer->segment_freed(reinterpret_cast<uintptr_t>(block->ptr));
  source_.release(block->ptr, block->size);
  ++stats_.num_device_free;
  stats_.segment.decrease(1);
  stats_.reserved_bytes.decrease(static_cast<int64_t>(block->size));
  delete block;
}

void CachingAllocator::return_to_pool(Block* block) {
  stats_.active.decrease(1);
  stats_.active_bytes.decrease(static_cast<int64_t>(block->size));
  Pool& pool = block->small ? small_ : large_;
  // Merge with free neighbours; they are split pieces, so they leave the inactive-split count.
  for (Block* neighbour : {block->prev, block->next}) {
    if (neighbour == nullptr || !neighbour->is_free()) continue;
    pool.erase(neighbour);
    stats_.inactive_split.decrease(1);
    stats_.inactive_split_bytes.decrease(static_cast<int64_t>(neighbour->size));
    if (neighbour == block->prev) {
      block->ptr = neighbour->ptr;
      block->prev = neighbour->prev;
      if (block->prev != nullptr) block->prev->next = block;
    } else {
      block->next = neighbour->next;
      if (block->next != nullptr) block->next->prev = block;
    }
    block->size += neighbour->size;
    delete neighbour;
  }
  block->uses.clear();
  if (block->is_split()) {
    stats_.inactive_split.increase(1);
    stats_.inactive_split_bytes.increase(static_cast<int64_t>(block->size));
  }
  pool.insert(block);
}

void CachingAllocator::process_events() {
  for (size_t i = 0; i < pending_.size();) {
    auto& [block, waits] = pending_[i];
    bool done = true;
    for (StreamEvents::EventId e : waits) done = done && events_->query(e);
    if (!done) {
      ++i;
      continue;
    }
    for (StreamEvents::EventId e : waits) events_->destroy(e);
    block->pending = false;
    // Told before the merge with free neighbours can move the block's start.
    if (options_.observer) {
      options_.observer->block_free_completed(reinterpret_cast<uintptr_t>(block->ptr));
    }
    return_to_pool(block);
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

void CachingAllocator::synchronize_events() {
  for (auto& [block, waits] : pending_) {
    for (StreamEvents::EventId e : waits) events_->synchronize(e);
  }
  process_events();
}

void CachingAllocator::throw_out_of_memory(size_t requested, size_t rounded, StreamId stream) {
  ++stats_.num_ooms;
  const auto allocated = static_cast<uint64_t>(stats_.allocated_bytes.current);
  const auto reserved = static_cast<uint64_t>(stats_.reserved_bytes.current);
  std::string message =
      "out of memory on " + source_.describe() + ": tried to allocate " + bytes_text(requested) +
      " (a segment of " + bytes_text(segment_size(rounded)) + "); " + bytes_text(allocated) +
      " allocated, " + bytes_text(reserved) + " reserved (" + bytes_text(reserved - allocated) +
      " cached), " + bytes_text(source_.free_bytes()) + " free of " +
      bytes_text(source_.total_bytes());
  if (options_.max_reserved != 0) {
    message += "; this allocator may reserve at most " + bytes_text(options_.max_reserved);
  }
  (void)stream;
  throw Error(ErrorCode::OutOfMemory, message);
}

bool CachingAllocator::should_split(const Block* block, size_t rounded) {
  const size_t rest = block->size - rounded;
  return block->small ? rest >= kMinBlockSize : rest > kSmallSize;
}

}  // namespace tensord::cuda
