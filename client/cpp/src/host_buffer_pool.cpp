#include "client/cpp/src/host_buffer_pool.h"

#include <list>
#include <mutex>

namespace tensord::detail {

struct HostBufferPool::State {
  explicit State(size_t capacity) : capacity(capacity) {}

  std::unique_ptr<HostBuffer> take(size_t nbytes) {
    std::lock_guard lock(mu);
    for (auto it = free.begin(); it != free.end(); ++it) {
      if ((*it)->size() != nbytes) continue;
      std::unique_ptr<HostBuffer> b = std::move(*it);
      free.erase(it);
      stats.pooled_bytes -= nbytes;
      ++stats.hits;
      return b;
    }
    ++stats.misses;
    return nullptr;
  }

  void give_back(HostBuffer* raw) {
    std::unique_ptr<HostBuffer> buffer(raw);
    std::list<std::unique_ptr<HostBuffer>> evicted;  // unmapped outside the lock
    std::lock_guard lock(mu);
    if (buffer->size() > capacity) return;
    while (stats.pooled_bytes + buffer->size() > capacity) {
      stats.pooled_bytes -= free.front()->size();
      evicted.splice(evicted.end(), free, free.begin());
    }
    stats.pooled_bytes += buffer->size();
    free.push_back(std::move(buffer));
  }

  const size_t capacity;
  mutable std::mutex mu;
  std::list<std::unique_ptr<HostBuffer>> free;  // oldest first
  Stats stats;
};

HostBufferPool::HostBufferPool(size_t capacity_bytes)
    : state_(std::make_shared<State>(capacity_bytes)) {}

HostBufferPool::~HostBufferPool() = default;

std::shared_ptr<HostBuffer> HostBufferPool::acquire(size_t nbytes) {
  if (nbytes < kMinBytes) return std::make_shared<HostBuffer>(nbytes);
  std::unique_ptr<HostBuffer> buffer = state_->take(nbytes);
  if (!buffer) buffer = std::make_unique<HostBuffer>(nbytes);
  return std::shared_ptr<HostBuffer>(buffer.release(),
                                     [weak = std::weak_ptr<State>(state_)](HostBuffer* b) {
                                       if (std::shared_ptr<State> state = weak.lock()) {
                                         state->give_back(b);
                                       } else {
                                         delete b;
                                       }
                                     });
}

HostBufferPool::Stats HostBufferPool::stats() const {
  std::lock_guard lock(state_->mu);
  return state_->stats;
}

}  // namespace tensord::detail
