// One record in the compact form (compact.h): a kind byte, a varint mask of the non-zero fields,
// then those fields as varints, start time and request as zigzag deltas from the record before.
// The profiler keeps its pending records in this form (about 15 bytes instead of a 168-byte
// Record each: the per-step cost of a profiled run is mostly memory traffic otherwise), and the
// stream sends them as they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/profiler/record.h"

namespace tensord::profiler {

// What the deltas of the next record are taken from: the previous record of the chunk ({0, 0}
// at a chunk's start).
struct DeltaBase {
  int64_t start_ns = 0;
  uint64_t request = 0;
  friend bool operator==(const DeltaBase&, const DeltaBase&) = default;
};

inline constexpr size_t kCodecFields = 28;
// The most one record takes: its kind, the mask (28 bits: 4 bytes), 28 varints of 10 bytes.
inline constexpr size_t kMaxEncodedRecord = 1 + 4 + kCodecFields * 10;

// Writes `r` at out[used] (growing `out` as needed, in large steps); returns the new end. The
// bytes past the end are spare room, not part of the encoding.
size_t encode_record(std::vector<uint8_t>& out, size_t used, const Record& r, DeltaBase& base);

// What varies from one of the executor's step spans to the next: the rest of the record is the
// same for every step (kind Span, stage Step, thread kWorkerThread, no hash, value or fields of
// the other kinds).
struct StepSpanFields {
  uint64_t request = 0;
  uint64_t id = 0;  // the step's index
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  uint64_t bytes = 0;
  uint32_t name = 0;
  uint32_t file = 0;
  uint32_t line = 0;
  uint8_t flags = 0;
};
// A session block's memory record (Alloc, FreeRequested, Free: what MemoryLedger records for a
// session's block) by the fields such a record uses; the others (thread, hash, duration, OOM,
// kernel) are zero. As the profile keeps it until drained (Profiler::add_memory).
struct MemoryEventFields {
  int64_t start_ns = 0;
  uint64_t request = 0;
  uint64_t id = 0;
  uint64_t bytes = 0;
  uint64_t value = 0;
  uint64_t session = 0;
  uint64_t address = 0;
  uint64_t stream = 0;
  uint32_t name = 0;
  uint32_t file = 0;
  uint32_t line = 0;
  RecordKind kind = RecordKind::Alloc;
  uint8_t stage = 0;  // MemoryCategory
  uint8_t flags = 0;
};
// Both ways: memory_event_record(memory_event_fields(r)) == r for a record of that shape.
MemoryEventFields memory_event_fields(const Record& r);
Record memory_event_record(const MemoryEventFields& e);
// encode_record(out, used, memory_event_record(e), base): the same bytes, looking at a memory
// record's 14 fields only (tests/unit/profiler/test_compact.cpp checks them).
size_t encode_memory_event(std::vector<uint8_t>& out, size_t used, const MemoryEventFields& e,
                           DeltaBase& base);

// The Record those fields make (what decoding encode_step_span's bytes gives).
Record step_span_record(const StepSpanFields& s);
// encode_record(out, used, step_span_record(s), base): the same bytes, written without looking at
// the 28 fields a record may have (the mask's constant bits and bytes are known here). Once per
// step span, when the profile is drained (Profiler::append_steps keeps them raw until then):
// ~170 instructions a span of the bench's chain where encode_record takes ~300 (callgrind).
// tests/unit/profiler/test_compact.cpp checks the bytes.
size_t encode_step_span(std::vector<uint8_t>& out, size_t used, const StepSpanFields& s,
                        DeltaBase& base);
// The same for each of `spans` in turn (room made once for all of them).
size_t encode_step_spans(std::vector<uint8_t>& out, size_t used,
                         std::span<const StepSpanFields> spans, DeltaBase& base);

// Reads one record that encode_record wrote (trusted input: no checks) at in[pos], advancing pos.
Record decode_trusted(const uint8_t* in, size_t& pos, DeltaBase& base);

// The fields of a record in wire order, as unsigned words (deltas applied from `base`).
void record_fields(const Record& r, const DeltaBase& base, uint64_t (&f)[kCodecFields]);
// The record of wire fields `f` (no range checks: the caller checks untrusted input).
Record record_of_fields(uint8_t kind, const uint64_t (&f)[kCodecFields], const DeltaBase& base);

}  // namespace tensord::profiler
