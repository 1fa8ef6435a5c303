// The memory recorder: the device's live blocks that sessions recording memory allocated, with
// size, category, session, request, op and the user's line. A block is tracked by a BlockTicket
// stored in its buffer, so the free is recorded wherever and whenever the buffer goes (event
// loop or worker). One ledger per device, shared by its sessions (the OOM report ranks them).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/profiler/profiler.h"
#include "engine/profiler/record.h"

namespace tensord::profiler {

class MemoryLedger;

// Who allocates: the session's profiler (it gets the Alloc and Free records), the request, the
// op and the user's line. `op` must outlive the call only; it is copied when tracked.
struct AllocSite {
  std::shared_ptr<Profiler> profiler;  // kept by the block for its Free record
  uint64_t request = 0;
  std::string_view op;
  std::string_view file;
  uint32_t line = 0;
  MemoryCategory category = MemoryCategory::Tensor;
};

// RAII: one tracked block. Move-only; destroying it (or reset()) records the free.
class BlockTicket {
 public:
  BlockTicket() = default;
  BlockTicket(std::shared_ptr<MemoryLedger> ledger, uint64_t id)
      : ledger_(std::move(ledger)), id_(id) {}
  BlockTicket(BlockTicket&& o) noexcept : ledger_(std::move(o.ledger_)), id_(o.id_) {}
  BlockTicket& operator=(BlockTicket&& o) noexcept;
  ~BlockTicket() { reset(); }

  void reset();
  bool tracked() const { return ledger_ != nullptr; }
  uint64_t id() const { return id_; }

 private:
  std::shared_ptr<MemoryLedger> ledger_;
  uint64_t id_ = 0;
};

struct LiveBlock {
  uint64_t id = 0;
  uint64_t bytes = 0;
  MemoryCategory category = MemoryCategory::Tensor;
  uint64_t session = 0;
  uint64_t request = 0;
  std::string op;
  std::string file;
  uint32_t line = 0;
};

struct Holder {
  std::string who;  // "session 3" or "model.py:12 (matmul)"
  uint64_t bytes = 0;
  uint64_t blocks = 0;
};

// What an out-of-memory error carries. free_bytes/largest_free are 0 where the device does not
// say (the CPU: the host's allocator does not report its fragmentation).
struct OomReport {
  uint64_t requested = 0;
  std::string requested_by;  // "model.py:12 (matmul)"
  uint64_t live_bytes = 0;
  uint64_t live_blocks = 0;
  uint64_t free_bytes = 0;
  uint64_t largest_free = 0;
  std::vector<Holder> by_session;  // largest first, at most 5
  std::vector<Holder> by_line;     // largest first, at most 5
  std::string text() const;        // a few lines for the error message
};

struct LedgerTotals {
  uint64_t allocs = 0;
  uint64_t frees = 0;
  uint64_t allocated_bytes = 0;  // sum over every tracked alloc
  uint64_t freed_bytes = 0;
  uint64_t live_bytes = 0;
  uint64_t live_blocks = 0;
  uint64_t peak_bytes = 0;
};

class MemoryLedger : public std::enable_shared_from_this<MemoryLedger> {
 public:
  // Records the Alloc (with the device's live bytes after it) and returns the block's ticket.
  BlockTicket track(uint64_t bytes, const AllocSite& site);
  // Live blocks of one session, or of all (session 0), oldest first.
  std::vector<LiveBlock> snapshot(uint64_t session = 0) const;
  LedgerTotals totals() const;
  // The report for an allocation of `requested` bytes that failed at `site`; also records an
  // Oom record in the site's profile. A device allocator that knows its free memory and its
  // largest free block (a CUDA caching allocator) passes them; they feed the fragmentation rule.
  OomReport out_of_memory(uint64_t requested, const AllocSite& site, uint64_t free_bytes = 0,
                          uint64_t largest_free = 0) const;

 private:
  friend class BlockTicket;
  struct Entry {
    LiveBlock block;
    std::shared_ptr<Profiler> profiler;
    uint64_t generation = 0;
    uint32_t name = 0;
    uint32_t file = 0;
  };
  void release(uint64_t id);

  mutable std::mutex mu_;
  std::unordered_map<uint64_t, Entry> live_;
  uint64_t next_id_ = 1;
  LedgerTotals totals_;
};

}  // namespace tensord::profiler
