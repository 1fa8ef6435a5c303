// The memory recorder: the device's live blocks that sessions recording memory allocated, with
// size, category, session, request, op and the user's line. A block is tracked by a BlockTicket
// stored in its buffer, so the free is recorded wherever and whenever the buffer goes (event
// loop or worker). One ledger per device, shared by its sessions (the OOM report ranks them).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/profiler/profiler.h"
#include "engine/profiler/record.h"
#include "engine/profiler/segment_observer.h"

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
  uint64_t address = 0;  // the block's address, to place it in its segment (0: unknown)
  uint64_t stream = 0;   // the allocator's stream (0: the host, or unknown)
  // A block no session owns (a library workspace, a CUDA graph's pool): `profiler` is null and
  // its records go to every profile recording memory, like segments (flag kDeviceOwned).
  bool device_owned = false;
  // `op` and `file` as ids of `profiler`'s string table, when the caller interned them already
  // in the profiler's current generation (the executor does, once per run); 0: track() interns.
  uint32_t op_id = 0;
  uint32_t file_id = 0;
};

// RAII: one tracked block. Move-only; destroying it (or reset()) records the free.
class BlockTicket {
 public:
  BlockTicket() = default;
  // `slot`: where the ledger keeps the block (its id is checked there).
  BlockTicket(std::shared_ptr<MemoryLedger> ledger, uint64_t id, uint32_t slot)
      : ledger_(std::move(ledger)), id_(id), slot_(slot) {}
  BlockTicket(BlockTicket&& o) noexcept
      : ledger_(std::move(o.ledger_)), id_(o.id_), slot_(o.slot_) {}
  BlockTicket& operator=(BlockTicket&& o) noexcept;
  ~BlockTicket() { reset(); }

  void reset();
  bool tracked() const { return ledger_ != nullptr; }
  uint64_t id() const { return id_; }

 private:
  std::shared_ptr<MemoryLedger> ledger_;
  uint64_t id_ = 0;
  uint32_t slot_ = 0;
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
  uint64_t address = 0;
  uint64_t stream = 0;
  bool device_owned = false;
  // Its owner let it go, but the allocator still waits for other streams' work on it (torch's
  // "active_pending_free"); it counts as allocated until the free completes.
  bool pending_free = false;
};

// The snapshot state of a block, as torch.cuda.memory._snapshot() names it.
inline std::string_view block_state(const LiveBlock& b) {
  return b.pending_free ? "active_pending_free" : "active_allocated";
}

// A segment an allocator holds (SegmentObserver).
struct LiveSegment {
  uint64_t address = 0;
  uint64_t bytes = 0;
  uint64_t stream = 0;
  MemoryCategory category = MemoryCategory::Tensor;
};

// A segment with the recorded live blocks inside it, lowest address first. The rest of the
// segment is free (cached by the allocator) or held by sessions that do not record memory.
struct SegmentState {
  LiveSegment segment;
  std::vector<LiveBlock> blocks;
  uint64_t recorded_bytes = 0;  // sum of `blocks`
};

// What torch.cuda.memory._snapshot() gives: segments with their blocks, and the recorded blocks
// in no segment (small host blocks from malloc, memory no caching allocator owns).
struct MemorySnapshot {
  std::vector<SegmentState> segments;  // by address
  std::vector<LiveBlock> outside;      // oldest first
};

// Places blocks in the segments that contain their addresses (the daemon's snapshot, and the
// client's from the records of a snapshot chunk).
MemorySnapshot nest_blocks(std::vector<LiveSegment> segments, std::vector<LiveBlock> blocks);

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
  uint64_t pending_free_bytes = 0;  // freed, still waiting on other streams (part of live)
  uint64_t reserved_bytes = 0;      // the segments the ledger knows of (0: none reported)
  uint64_t free_bytes = 0;          // free memory the allocator caches (or the device's)
  uint64_t largest_free = 0;        // the largest free block in it
  std::vector<Holder> by_session;   // largest first, at most 5; "device" for device-owned
  std::vector<Holder> by_line;      // largest first, at most 5
  std::vector<Holder> by_category;  // every category holding bytes, largest first
  // The share of free memory outside the largest free block: 0 (one block) to 1; 0 when the
  // allocator does not report its free blocks.
  double fragmentation() const;
  std::string text() const;  // a few lines for the error message
};

struct LedgerTotals {
  uint64_t allocs = 0;
  uint64_t frees = 0;
  uint64_t allocated_bytes = 0;  // sum over every tracked alloc
  uint64_t freed_bytes = 0;
  uint64_t live_bytes = 0;
  uint64_t live_blocks = 0;
  uint64_t peak_bytes = 0;
  // Segments (SegmentObserver): reserved_bytes is their sum.
  uint64_t segment_allocs = 0;
  uint64_t segment_frees = 0;
  uint64_t segments = 0;
  uint64_t reserved_bytes = 0;
  uint64_t peak_reserved_bytes = 0;
  // Frees requested whose completion waits on other streams (they are still in live_bytes).
  uint64_t free_requests = 0;
  uint64_t pending_free_blocks = 0;
  uint64_t pending_free_bytes = 0;
  // By MemoryCategory: live blocks' bytes and segments' bytes. Every byte is in one category:
  // memory the caching allocator does not hand to tensors (library workspaces, graph pools) is
  // tracked as device-owned blocks of its own category, host staging as staging segments.
  uint64_t live_by_category[static_cast<size_t>(MemoryCategory::kCount)] = {};
  uint64_t reserved_by_category[static_cast<size_t>(MemoryCategory::kCount)] = {};
  // What the device's used memory should exceed its context baseline by: the segments of every
  // category but staging (host memory: pinned buffers, the daemon's staging cache).
  uint64_t device_reserved_bytes() const {
    return reserved_bytes - reserved_by_category[static_cast<size_t>(MemoryCategory::Staging)];
  }
};

class MemoryLedger final : public std::enable_shared_from_this<MemoryLedger>,
                           public SegmentObserver {
 public:
  // Records the Alloc (with the device's live bytes after it) and returns the block's ticket.
  BlockTicket track(uint64_t bytes, const AllocSite& site);
  // Live blocks of one session, or of all (session 0), oldest first; `with_device` adds the
  // device-owned blocks to one session's.
  std::vector<LiveBlock> snapshot(uint64_t session = 0, bool with_device = false) const;
  LedgerTotals totals() const;
  // The segments now, with the live blocks of `session` (0: all) inside them.
  MemorySnapshot segment_snapshot(uint64_t session = 0) const;
  std::vector<LiveSegment> segments() const;

  // Segment records go to every subscribed profiler that records memory: segments belong to the
  // device, not to one session. Subscribing (again, after each Profiler::start) also records a
  // SegmentAlloc (flag kExisting) for each segment held now, so that the profile's reserved
  // bytes start from the device's, and an Alloc (flag kExisting) for each device-owned block.
  // With a `session` (its id; 0: none), the session's live blocks are adopted by the profile:
  // each gets an Alloc flagged kExisting at the profile's now (by id), and its FreeRequested and
  // Free go to this profile from then on. Consumers count them as held when the profile began,
  // not as allocated during it. Subscribers are held weakly.
  void subscribe(const std::shared_ptr<Profiler>& profiler, uint64_t session = 0);
  void segment_allocated(uint64_t address, uint64_t bytes, uint64_t stream,
                         MemoryCategory category) noexcept override;
  void segment_freed(uint64_t address) noexcept override;
  void block_free_deferred(uint64_t address, uint64_t stream) noexcept override;
  void block_free_completed(uint64_t address) noexcept override;
  // The report for an allocation of `requested` bytes that failed at `site`; also records an
  // Oom record in the site's profile. A device allocator that knows its free memory and its
  // largest free block (a CUDA caching allocator) passes them; they feed the fragmentation rule
  // and the report's fragmentation figure.
  OomReport out_of_memory(uint64_t requested, const AllocSite& site, uint64_t free_bytes = 0,
                          uint64_t largest_free = 0) const;

 private:
  friend class BlockTicket;
  // A live block, kept in a slot of `slots_` (no allocation per block once the slots and the
  // strings exist: the per-op path of a profiled run). Its op and file are ids of `strings_`.
  struct Entry {
    uint64_t id = 0;  // 0: a free slot
    uint64_t bytes = 0;
    uint64_t session = 0;
    uint64_t request = 0;
    uint64_t address = 0;
    uint64_t stream = 0;
    uint64_t generation = 0;  // of `profiler` when the block was allocated
    std::shared_ptr<Profiler> profiler;
    uint32_t op = 0;  // strings_ ids
    uint32_t file = 0;
    uint32_t line = 0;
    uint32_t name = 0;  // `profiler`'s string ids of op and file
    uint32_t file_name = 0;
    MemoryCategory category = MemoryCategory::Tensor;
    bool device_owned = false;
    bool pending_free = false;
  };
  // The op and file names of live blocks, counted by the blocks that use them: a name goes when
  // its last block does, so a long-running daemon keeps only the names of what is live.
  struct Name {
    std::string text;
    uint32_t refs = 0;
  };
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  uint32_t name_locked(std::string_view s);  // takes a reference; 0 for ""
  void unname_locked(uint32_t id);
  LiveBlock block_of(const Entry& e) const;         // under the lock
  Entry* entry_locked(uint32_t slot, uint64_t id);  // null: no such live block

  void release(uint64_t id, uint32_t slot);
  // The books and the Free ("free completed") record of an entry leaving the live set; `at` is
  // the time of the free in the block's profile (-1: read the clock).
  void complete_locked(Entry& e, int64_t at);
  // Sends a block's record to its profile, or to every recipient for a device-owned block.
  // `at`: the time in the block's profile, -1 to read the clock (and set `at` to it).
  void send_block_locked(const Entry& e, Record r, int64_t& at);
  std::vector<std::shared_ptr<Profiler>> recipients_locked();

  mutable std::mutex mu_;
  std::vector<Entry> slots_;
  std::vector<uint32_t> free_slots_;
  size_t live_count_ = 0;
  std::vector<Name> strings_{Name{}};  // [0] = ""
  std::vector<uint32_t> free_strings_;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> string_ids_;
  // Addresses the allocator freed with work of other streams pending (block_free_deferred), to
  // their streams; and the pending blocks' slots by address.
  std::unordered_map<uint64_t, uint64_t> deferred_;
  std::unordered_map<uint64_t, uint32_t> pending_by_address_;
  uint64_t next_id_ = 1;
  LedgerTotals totals_;
  std::map<uint64_t, LiveSegment> segments_;  // by address
  std::vector<std::weak_ptr<Profiler>> subscribers_;
};

}  // namespace tensord::profiler
