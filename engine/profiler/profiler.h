// The per-session profiler: switched on by Session.profile, fed by the event loop (receive,
// requests, transfers) and by the device worker (engine stages, steps, memory), drained by the
// stream that sends chunks to the client. Memory is bounded: past `capacity` pending records a
// record is dropped and counted, never queued; the count travels with every chunk.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/profiler/record.h"
#include "engine/profiler/record_codec.h"

namespace tensord::profiler {

struct ProfileOptions {
  bool trace = true;    // spans of every stage and step
  bool memory = false;  // every allocation and free, with its op and line
  // Pending records at most (kept encoded, ~300 KiB; step spans and memory records raw until
  // drained, 56 and 80 bytes each: up to ~1.3 MiB); more are dropped.
  size_t capacity = 16384;
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
  // Thread-safe. The executor's step spans, in order after the records pending, as add() of
  // step_span_record(s) for each would add them (past `capacity` pending, the first ones that
  // fit go in, the rest are dropped and counted), under one lock, but kept raw: a fixed-size
  // StepSpanFields each, copied under the lock, encoded when drained (by the stream's thread in the
  // daemon), so that a traced step costs the worker no encoding. Ignored when inactive or when
  // `generation` is not the profile's (the string ids of the steps belong to an earlier profile).
  void append_steps(std::span<const StepSpanFields> steps, uint64_t generation);
  // Thread-safe. add() for the memory ledger's records of a session's blocks (Alloc,
  // FreeRequested, Free; no fields set but MemoryEventFields'), kept raw until drained as
  // append_steps keeps step spans (80 bytes each, consecutive ones behind one marker): the
  // allocating or freeing thread pays a copy under the lock, not an encoding.
  void add_memory(const Record& r);
  // A span of `stage` from `start` to now.
  void span(Stage stage, int64_t start, uint32_t thread, uint64_t request, uint64_t hash = 0,
            uint8_t flags = 0);

  // Moves up to `max_records` pending records (and every new string) into `out`; returns
  // whether anything was taken (strings count).
  bool drain(Pending& out, size_t max_records);
  // The same, for the daemon's stream: the records in the compact form (record_codec.h),
  // `out.body[0, out.body_size)`, ready to follow a chunk header. When all pending ones fit in
  // `max_records` and none are raw (append_steps, add_memory), the buffer is handed over as it
  // is; otherwise the raw records are encoded here, and encoded ones re-encoded where their deltas
  // need it (the same bytes add() of each record would have given).
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
  // The next pending record (pending_ > 0), moving the read position past it.
  Record next_locked();
  void took_raw_locked(uint32_t k);  // k of the raw records of the marker at read_
  // The next `n` pending records (n <= pending_) encoded at out[used] with deltas from `base`
  // (encode_record's contract), moving the read position past them; returns the new end.
  size_t take_encoded_locked(std::vector<uint8_t>& out, size_t used, size_t n, DeltaBase& base);
  void reset_buffer_locked();
  void consumed_locked();  // after a drain: reset or compact the buffer

  mutable std::mutex mu_;
  size_t capacity_ = 0;
  // Pending records, encoded (record_codec.h) or marking raw step spans (raw_ below): bytes
  // [read_, used_) of buf_, `pending_` records in all.
  // A record costs its ~15 bytes here, not a 168-byte Record: a profiled run's per-step cost was
  // mostly the cache misses of writing those (and of the stream reading them back).
  std::vector<uint8_t> buf_;
  size_t read_ = 0;
  size_t used_ = 0;
  size_t pending_ = 0;
  // Step spans of append_steps, not encoded yet: raw_[raw_read_, end), in order. Where they lie
  // among the encoded records is a marker in buf_: kRawMarker (no record kind), then how many
  // of them it stands for (4 bytes in the host's order: written and read here only; a drain that
  // takes part of them rewrites it). 56 bytes a step until drained, against ~15 encoded: with
  // the default capacity, at most ~0.9 MiB if every pending record is a step span.
  // The encoded records after them have deltas from the last of them, as if it were encoded.
  static constexpr uint8_t kRawMarker = 0xff;
  static constexpr size_t kMarkerBytes = 5;
  std::vector<StepSpanFields> raw_;
  size_t raw_read_ = 0;
  // The same for memory records (add_memory): raw_memory_[raw_memory_read_, end), behind
  // kRawMemoryMarker markers. A memory record added right after another one (nothing between
  // them in buf_) extends its marker: last_memory_marker_ is that marker's offset, if it ends buf_.
  static constexpr uint8_t kRawMemoryMarker = 0xfe;
  static constexpr size_t kNoMarker = SIZE_MAX;
  std::vector<MemoryEventFields> raw_memory_;
  size_t raw_memory_read_ = 0;
  size_t last_memory_marker_ = kNoMarker;
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
