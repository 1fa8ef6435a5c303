// HostBuffers released by their users, kept for the next buffer of the same size. A new memfd
// costs a page fault per page on first touch (bench/transfer's memcpy_fresh figure: 3-6x a
// memcpy into touched memory on the machines we measured); a client fetching or uploading
// same-shaped tensors in a loop gets touched memory instead. Exact sizes only (a HostBuffer's
// size is its tensor's byte count), buffers of at least kMinBytes, the oldest evicted beyond
// the capacity. Buffers may be released on any thread and may outlive the pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "tensord/host_buffer.h"

namespace tensord::detail {

class HostBufferPool {
 public:
  static constexpr size_t kMinBytes = size_t{1} << 20;

  struct Stats {
    uint64_t hits = 0;
    uint64_t misses = 0;
    uint64_t pooled_bytes = 0;
  };

  explicit HostBufferPool(size_t capacity_bytes);
  ~HostBufferPool();
  HostBufferPool(const HostBufferPool&) = delete;
  HostBufferPool& operator=(const HostBufferPool&) = delete;

  // A buffer of exactly `nbytes` (its previous contents are unspecified); it returns to the
  // pool when the last reference goes. Throws tensord::Error(OutOfMemory).
  std::shared_ptr<HostBuffer> acquire(size_t nbytes);
  Stats stats() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace tensord::detail
