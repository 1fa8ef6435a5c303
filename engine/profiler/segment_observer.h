// What an allocator that holds memory in segments (the CPU backend's host block cache, the CUDA
// caching allocator) tells the memory recorder: each segment it takes from the system or the
// device and each one it gives back. Header-only, so that an allocator depends on this interface
// and not on the profiler library; the device's MemoryLedger implements it.
#pragma once

#include <cstdint>

#include "engine/profiler/record.h"

namespace tensord::profiler {

class SegmentObserver {
 public:
  virtual ~SegmentObserver() = default;
  // Called after the segment was obtained and before it is released, possibly under the
  // allocator's lock and from any thread: implementations must not call back into the allocator
  // and must not throw. `stream` is the allocator's stream (0 for host memory).
  virtual void segment_allocated(uint64_t address, uint64_t bytes, uint64_t stream,
                                 MemoryCategory category) noexcept = 0;
  virtual void segment_freed(uint64_t address) noexcept = 0;
  // A stream-ordered allocator (the CUDA caching allocator) freed the block at `address`, but
  // other streams still use it (record_stream): it stays allocated until its events complete,
  // when block_free_completed follows. Either may come before or after the block's owner drops
  // its BlockTicket (the buffer's destructor frees the block first), so the ledger handles both
  // orders. Same rules as above (any thread, under the allocator's lock, no throw).
  virtual void block_free_deferred(uint64_t address, uint64_t stream) noexcept {
    (void)address;
    (void)stream;
  }
  virtual void block_free_completed(uint64_t address) noexcept { (void)address; }
};

}  // namespace tensord::profiler
