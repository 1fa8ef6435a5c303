// The per-session profiler: switched on by Session.profile, fed by the event loop (receive,
// requests, transfers) and by the device worker (engine stages, steps, memory), drained by the
// stream that sends chunks to the client. Memory is bounded: past `capacity` pending records a
// record is dropped and counted, never queued; the count travels with every chunk.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/profiler/record.h"
#include "engine/profiler/record_codec.h"

namespace tensord::profiler {

struct ProfileOptions {
  bool trace = true;        // spans of every stage and step
  bool memory = false;      // every allocation and free, with its op and line
  size_t capacity = 16384;  // pending records at most (kept encoded: ~300 KiB); more are dropped
  // The client decodes FreeRequested records (protocol 1.4): each free is then recorded twice,
  // when it is requested and when it completes. Older clients get the completed Free only.
  bool free_requested = false;
};

// What one drain takes: strings new since the last drain (ids first_string, first_string+1, ...)
// and records in the order they were added.
struct Pending {
  uint32_t first_string = 1;
  std::vector<std::string> strings;
  std::vector<Record> records;
  uint64_t dropped = 0;  // records dropped since the profile started
};

// Records encoded by one thread outside the profiler's lock, then appended in one go
// (Profiler::append): the executor's step spans, so that a traced step takes no lock and the
// encoding does not hold one. The buffer is kept from batch to batch.
class RecordBatch {
 public:
  // The profile generation (Profiler::generation) the records' string ids belong to: a batch
  // of an earlier profile is ignored, as records added after a stop() are.
  uint64_t generation = 0;

  void add(const Record& r) {
    used_ = encode_record(bytes_, used_, r, base_);
    ++count_;
  }
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  void clear() {
    used_ = count_ = 0;
    base_ = DeltaBase{};
  }

 private:
  friend class Profiler;
  std::vector<uint8_t> bytes_;  // [0, used_): count_ records, the first with deltas from {0, 0}
  size_t used_ = 0;
  size_t count_ = 0;
  DeltaBase base_;  // the last record's
};

class Profiler {
 public:
  explicit Profiler(uint64_t session) : session_(session) {}
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  uint64_t session() const { return session_; }

  // The hot-path checks: one relaxed load each. False until start(), and again after stop().
  bool tracing() const { return (state_.load(std::memory_order_relaxed) & kTrace) != 0; }
  bool recording_memory() const { return (state_.load(std::memory_order_relaxed) & kMemory) != 0; }
  bool active() const { return state_.load(std::memory_order_relaxed) != 0; }
  bool wants_free_requested() const {
    return (state_.load(std::memory_order_relaxed) & kFreeRequested) != 0;
  }

  // Starts a new profile: clears what is pending, restarts the clock and the drop count.
  void start(const ProfileOptions& options);
  void stop();  // records added later are ignored; pending ones stay to be drained

  int64_t now() const { return steady_ns() - epoch_ns_.load(std::memory_order_relaxed); }
  static int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  // Incremented by every start(): memory blocks remember it, so a free only goes to the stream
  // of the profile that saw the allocation.
  uint64_t generation() const { return generation_.load(std::memory_order_relaxed); }
  uint64_t next_request() { return requests_.fetch_add(1, std::memory_order_relaxed) + 1; }

  // Thread-safe. Ids are stable for the profile; the string goes out with the next drain.
  uint32_t intern(std::string_view s);
  // Thread-safe. Ignored when inactive; dropped (and counted) when `capacity` are pending.
  void add(const Record& r);
  // add() with r.name and r.file set to the ids of `name` and `file`, under one lock (the
  // executor's per-step path).
  void add_named(Record r, std::string_view name, std::string_view file);
  // Thread-safe. Appends the batch's records after those already pending, in their order, under
  // one lock, and clears the batch. Ignored when inactive or when the batch belongs to an earlier
  // profile; past `capacity` pending, the records that do not fit are dropped and counted.
  void append(RecordBatch& batch);
  // A span of `stage` from `start` to now.
  void span(Stage stage, int64_t start, uint32_t thread, uint64_t request, uint64_t hash = 0,
            uint8_t flags = 0);

  // Moves up to `max_records` pending records (and every new string) into `out`; returns
  // whether anything was taken (strings count).
  bool drain(Pending& out, size_t max_records);
  // The same, for the daemon's stream: the records stay in the compact form they are kept in
  // (record_codec.h), `out.body[0, out.body_size)`, ready to follow a chunk header; no record is
  // decoded or re-encoded when all pending ones fit in `max_records`.
  struct Encoded {
    uint32_t first_string = 1;
    std::vector<std::string> strings;
    std::vector<uint8_t> body;  // capacity reused from drain to drain
    size_t body_size = 0;
    size_t records = 0;
    uint64_t dropped = 0;
  };
  bool drain_encoded(Encoded& out, size_t max_records);
  uint64_t dropped() const;
  uint64_t recorded() const;  // records accepted since start

 private:
  uint32_t intern_locked(std::string_view s);

  static constexpr uint32_t kTrace = 1;
  static constexpr uint32_t kMemory = 2;
  static constexpr uint32_t kFreeRequested = 4;
  static constexpr size_t kMaxStrings = 1 << 16;  // then names become "" (id 0)

  const uint64_t session_;
  std::atomic<uint32_t> state_{0};
  std::atomic<uint64_t> requests_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<int64_t> epoch_ns_{steady_ns()};

  void take_strings_locked(uint32_t& first, std::vector<std::string>& out);
  void reset_buffer_locked();
  void consumed_locked();  // after a drain: reset or compact the buffer

  mutable std::mutex mu_;
  size_t capacity_ = 0;
  // Pending records, encoded (record_codec.h): bytes [read_, used_) of buf_, `pending_` of them.
  // A record costs its ~15 bytes here, not a 168-byte Record: a profiled run's per-step cost was
  // mostly the cache misses of writing those (and of the stream reading them back).
  std::vector<uint8_t> buf_;
  size_t read_ = 0;
  size_t used_ = 0;
  size_t pending_ = 0;
  DeltaBase write_base_;  // the last record written
  DeltaBase read_base_;   // the last record drained
  uint64_t dropped_ = 0;
  uint64_t recorded_ = 0;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> ids_;
  std::vector<std::string> new_strings_;
  uint32_t next_string_ = 1;
  uint32_t first_new_string_ = 1;
};

}  // namespace tensord::profiler
