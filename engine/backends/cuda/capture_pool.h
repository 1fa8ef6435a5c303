// The memory of one CUDA graph capture. A graph replays the addresses it recorded, so every
// buffer allocated while capturing belongs to the capture for as long as the graph lives:
// none goes back to the caching allocator, where another session could be handed it while a
// replay still writes there. Inside the capture a released buffer is reused for a later
// request of the same size (as it would have been by the allocator, in the same stream
// order), so a captured plan holds about what one eager run of it peaks at.
// For the memory recorder, a buffer the pool holds idle is the graph pool's (category
// graph_pool, device-owned); one handed out is its user's (a session's tensor, a workspace).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "engine/exec/tensor_value.h"

namespace tensord::cuda {

class CapturePool : public std::enable_shared_from_this<CapturePool> {
 public:
  // Tracks a buffer going idle in the pool (the memory ledger's graph_pool block); empty: not
  // recorded.
  using TrackIdle = std::function<profiler::BlockTicket(const engine::Buffer&)>;
  explicit CapturePool(TrackIdle track_idle = {}) : track_idle_(std::move(track_idle)) {}

  // A buffer of `bytes`: a released one of that size, else a new one from `fresh`. Dropping
  // the returned pointer releases it to this pool, never to the allocator.
  std::shared_ptr<engine::Buffer> allocate(
      size_t bytes, const std::function<std::shared_ptr<engine::Buffer>()>& fresh) {
    std::shared_ptr<engine::Buffer> block;
    std::vector<std::shared_ptr<engine::Buffer>>& idle = idle_[bytes];
    if (!idle.empty()) {
      block = std::move(idle.back());
      idle.pop_back();
      block->ticket.reset();  // no longer the pool's: its user tracks it
    } else {
      block = fresh();
      owned_.push_back(block);
    }
    engine::Buffer* raw = block.get();
    std::weak_ptr<CapturePool> pool = weak_from_this();
    return std::shared_ptr<engine::Buffer>(
        raw, [pool, block = std::move(block), bytes](engine::Buffer*) mutable {
          if (auto p = pool.lock()) {
            // Replaces its user's record (a session's Free) by the pool's.
            if (p->track_idle_) block->ticket = p->track_idle_(*block);
            p->idle_[bytes].push_back(std::move(block));
          }
        });
  }

  size_t bytes() const {
    size_t total = 0;
    for (const auto& b : owned_) total += b->bytes();
    return total;
  }

 private:
  TrackIdle track_idle_;
  std::unordered_map<size_t, std::vector<std::shared_ptr<engine::Buffer>>> idle_;
  std::vector<std::shared_ptr<engine::Buffer>> owned_;
};

}  // namespace tensord::cuda
