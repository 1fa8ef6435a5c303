#include "engine/profiler/record_codec.h"

#include <algorithm>
#include <bit>

namespace tensord::profiler {
namespace {

uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t unzigzag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

uint8_t* put(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

uint64_t get(const uint8_t* in, size_t& pos) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t b = in[pos++];
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
  }
}

}  // namespace

void record_fields(const Record& r, const DeltaBase& base, uint64_t (&f)[kCodecFields]) {
  f[0] = r.stage;
  f[1] = r.flags;
  f[2] = r.thread;
  f[3] = r.name;
  f[4] = r.file;
  f[5] = r.line;
  f[6] = zigzag(static_cast<int64_t>(r.request - base.request));
  f[7] = r.id;
  f[8] = r.hash;
  f[9] = zigzag(r.start_ns - base.start_ns);
  f[10] = zigzag(r.dur_ns);
  f[11] = r.bytes;
  f[12] = r.value;
  f[13] = r.free_bytes;
  f[14] = r.largest_free;
  f[15] = r.session;
  for (int i = 0; i < 3; ++i) f[16 + i] = r.grid[i];
  for (int i = 0; i < 3; ++i) f[19 + i] = r.block[i];
  f[22] = r.registers;
  f[23] = r.static_smem;
  f[24] = r.dynamic_smem;
  f[25] = r.occupancy_permille;
  f[26] = r.address;
  f[27] = r.stream;
}

Record record_of_fields(uint8_t kind, const uint64_t (&f)[kCodecFields], const DeltaBase& base) {
  Record r;
  r.kind = static_cast<RecordKind>(kind);
  r.stage = static_cast<uint8_t>(f[0]);
  r.flags = static_cast<uint8_t>(f[1]);
  r.thread = static_cast<uint32_t>(f[2]);
  r.name = static_cast<uint32_t>(f[3]);
  r.file = static_cast<uint32_t>(f[4]);
  r.line = static_cast<uint32_t>(f[5]);
  r.request = base.request + static_cast<uint64_t>(unzigzag(f[6]));
  r.id = f[7];
  r.hash = f[8];
  r.start_ns = base.start_ns + unzigzag(f[9]);
  r.dur_ns = unzigzag(f[10]);
  r.bytes = f[11];
  r.value = f[12];
  r.free_bytes = f[13];
  r.largest_free = f[14];
  r.session = f[15];
  for (int i = 0; i < 3; ++i) r.grid[i] = static_cast<uint32_t>(f[16 + i]);
  for (int i = 0; i < 3; ++i) r.block[i] = static_cast<uint32_t>(f[19 + i]);
  r.registers = static_cast<uint32_t>(f[22]);
  r.static_smem = static_cast<uint32_t>(f[23]);
  r.dynamic_smem = static_cast<uint32_t>(f[24]);
  r.occupancy_permille = static_cast<uint32_t>(f[25]);
  r.address = f[26];
  r.stream = f[27];
  return r;
}

size_t encode_record(std::vector<uint8_t>& out, size_t used, const Record& r, DeltaBase& base) {
  if (out.size() - used < kMaxEncodedRecord) [[unlikely]] {
    out.resize(std::max(out.size() * 2, used + kMaxEncodedRecord * 64));
  }
  // The fields of record_fields, in its order, read straight from the record: building the
  // 28-word array and walking it took ~55 ns a step span on the 2-core VM, most of a traced
  // step's cost; this takes ~15. Same bytes (tests/unit/profiler/test_compact.cpp checks it
  // against an encoder over record_fields).
  const uint64_t request = zigzag(static_cast<int64_t>(r.request - base.request));
  const uint64_t start = zigzag(r.start_ns - base.start_ns);
  const uint64_t dur = zigzag(r.dur_ns);
  // Fields 13 and up: Oom, Kernel, memory and segment records only.
  const bool tail = (r.free_bytes | r.largest_free | r.session | r.grid[0] | r.grid[1] | r.grid[2] |
                     r.block[0] | r.block[1] | r.block[2] | r.registers | r.static_smem |
                     r.dynamic_smem | r.occupancy_permille | r.address | r.stream) != 0;
  uint64_t mask =
      uint64_t{r.stage != 0} | uint64_t{r.flags != 0} << 1 | uint64_t{r.thread != 0} << 2 |
      uint64_t{r.name != 0} << 3 | uint64_t{r.file != 0} << 4 | uint64_t{r.line != 0} << 5 |
      uint64_t{request != 0} << 6 | uint64_t{r.id != 0} << 7 | uint64_t{r.hash != 0} << 8 |
      uint64_t{start != 0} << 9 | uint64_t{dur != 0} << 10 | uint64_t{r.bytes != 0} << 11 |
      uint64_t{r.value != 0} << 12;
  if (tail) {
    mask |= uint64_t{r.free_bytes != 0} << 13 | uint64_t{r.largest_free != 0} << 14 |
            uint64_t{r.session != 0} << 15;
    for (int i = 0; i < 3; ++i) mask |= uint64_t{r.grid[i] != 0} << (16 + i);
    for (int i = 0; i < 3; ++i) mask |= uint64_t{r.block[i] != 0} << (19 + i);
    mask |= uint64_t{r.registers != 0} << 22 | uint64_t{r.static_smem != 0} << 23 |
            uint64_t{r.dynamic_smem != 0} << 24 | uint64_t{r.occupancy_permille != 0} << 25 |
            uint64_t{r.address != 0} << 26 | uint64_t{r.stream != 0} << 27;
  }
  uint8_t* p = out.data() + used;
  *p++ = static_cast<uint8_t>(r.kind);
  p = put(p, mask);
  const auto field = [&p](uint64_t v) {
    if (v != 0) p = put(p, v);
  };
  field(r.stage);
  field(r.flags);
  field(r.thread);
  field(r.name);
  field(r.file);
  field(r.line);
  field(request);
  field(r.id);
  field(r.hash);
  field(start);
  field(dur);
  field(r.bytes);
  field(r.value);
  if (tail) {
    field(r.free_bytes);
    field(r.largest_free);
    field(r.session);
    for (uint32_t g : r.grid) field(g);
    for (uint32_t b : r.block) field(b);
    field(r.registers);
    field(r.static_smem);
    field(r.dynamic_smem);
    field(r.occupancy_permille);
    field(r.address);
    field(r.stream);
  }
  base = DeltaBase{r.start_ns, r.request};
  return static_cast<size_t>(p - out.data());
}

MemoryEventFields memory_event_fields(const Record& r) {
  MemoryEventFields e;
  e.start_ns = r.start_ns;
  e.request = r.request;
  e.id = r.id;
  e.bytes = r.bytes;
  e.value = r.value;
  e.session = r.session;
  e.address = r.address;
  e.stream = r.stream;
  e.name = r.name;
  e.file = r.file;
  e.line = r.line;
  e.kind = r.kind;
  e.stage = r.stage;
  e.flags = r.flags;
  return e;
}

Record memory_event_record(const MemoryEventFields& e) {
  Record r;
  r.kind = e.kind;
  r.stage = e.stage;
  r.flags = e.flags;
  r.name = e.name;
  r.file = e.file;
  r.line = e.line;
  r.request = e.request;
  r.id = e.id;
  r.start_ns = e.start_ns;
  r.bytes = e.bytes;
  r.value = e.value;
  r.session = e.session;
  r.address = e.address;
  r.stream = e.stream;
  return r;
}

Record step_span_record(const StepSpanFields& s) {
  Record r;
  r.kind = RecordKind::Span;
  r.stage = static_cast<uint8_t>(Stage::Step);
  r.flags = s.flags;
  r.thread = kWorkerThread;
  r.name = s.name;
  r.file = s.file;
  r.line = s.line;
  r.request = s.request;
  r.id = s.id;
  r.start_ns = s.start_ns;
  r.dur_ns = s.dur_ns;
  r.bytes = s.bytes;
  return r;
}

namespace {

// The most a step span takes: kind, a 2-byte mask (bits 0-11), stage, flags (2), thread, name,
// file and line (5 each), request, id, start, duration and bytes (10 each).
constexpr size_t kMaxStepSpan = 1 + 2 + 1 + 2 + 1 + 3 * 5 + 5 * 10;

uint8_t* put_step_span(uint8_t* p, const StepSpanFields& s, DeltaBase& base) {
  static_assert(static_cast<uint8_t>(Stage::Step) < 0x80 && kWorkerThread < 0x80);
  const uint64_t request = zigzag(static_cast<int64_t>(s.request - base.request));
  const uint64_t start = zigzag(s.start_ns - base.start_ns);
  const uint64_t dur = zigzag(s.dur_ns);
  // Bits of record_fields' order: stage (0) and thread (2) are never zero here; hash (8), value
  // (12) and the tail (13 and up) always are.
  const uint64_t mask = uint64_t{1} | uint64_t{s.flags != 0} << 1 | uint64_t{1} << 2 |
                        uint64_t{s.name != 0} << 3 | uint64_t{s.file != 0} << 4 |
                        uint64_t{s.line != 0} << 5 | uint64_t{request != 0} << 6 |
                        uint64_t{s.id != 0} << 7 | uint64_t{start != 0} << 9 |
                        uint64_t{dur != 0} << 10 | uint64_t{s.bytes != 0} << 11;
  *p++ = static_cast<uint8_t>(RecordKind::Span);
  p = put(p, mask);
  const auto field = [&p](uint64_t v) {
    if (v != 0) p = put(p, v);
  };
  *p++ = static_cast<uint8_t>(Stage::Step);
  field(s.flags);
  *p++ = static_cast<uint8_t>(kWorkerThread);
  field(s.name);
  field(s.file);
  field(s.line);
  field(request);
  field(s.id);
  field(start);
  field(dur);
  field(s.bytes);
  base = DeltaBase{s.start_ns, s.request};
  return p;
}

}  // namespace

size_t encode_memory_event(std::vector<uint8_t>& out, size_t used, const MemoryEventFields& e,
                           DeltaBase& base) {
  if (out.size() - used < kMaxEncodedRecord) [[unlikely]] {
    out.resize(std::max(out.size() * 2, used + kMaxEncodedRecord * 64));
  }
  const uint64_t request = zigzag(static_cast<int64_t>(e.request - base.request));
  const uint64_t start = zigzag(e.start_ns - base.start_ns);
  // record_fields' bits: thread (2), hash (8), duration (10), free_bytes (13), largest_free
  // (14) and the kernel fields (16-25) are zero in a memory record.
  const uint64_t mask =
      uint64_t{e.stage != 0} | uint64_t{e.flags != 0} << 1 | uint64_t{e.name != 0} << 3 |
      uint64_t{e.file != 0} << 4 | uint64_t{e.line != 0} << 5 | uint64_t{request != 0} << 6 |
      uint64_t{e.id != 0} << 7 | uint64_t{start != 0} << 9 | uint64_t{e.bytes != 0} << 11 |
      uint64_t{e.value != 0} << 12 | uint64_t{e.session != 0} << 15 |
      uint64_t{e.address != 0} << 26 | uint64_t{e.stream != 0} << 27;
  uint8_t* p = out.data() + used;
  *p++ = static_cast<uint8_t>(e.kind);
  p = put(p, mask);
  const auto field = [&p](uint64_t v) {
    if (v != 0) p = put(p, v);
  };
  field(e.stage);
  field(e.flags);
  field(e.name);
  field(e.file);
  field(e.line);
  field(request);
  field(e.id);
  field(start);
  field(e.bytes);
  field(e.value);
  field(e.session);
  field(e.address);
  field(e.stream);
  base = DeltaBase{e.start_ns, e.request};
  return static_cast<size_t>(p - out.data());
}

size_t encode_step_span(std::vector<uint8_t>& out, size_t used, const StepSpanFields& s,
                        DeltaBase& base) {
  return encode_step_spans(out, used, std::span(&s, 1), base);
}

size_t encode_step_spans(std::vector<uint8_t>& out, size_t used,
                         std::span<const StepSpanFields> spans, DeltaBase& base) {
  // Room for all of them at once: no check per span.
  const size_t most = spans.size() * kMaxStepSpan;
  if (out.size() - used < most) [[unlikely]] {
    out.resize(std::max(out.size() * 2, used + std::max(most, kMaxEncodedRecord * 64)));
  }
  uint8_t* p = out.data() + used;
  for (const StepSpanFields& s : spans) p = put_step_span(p, s, base);
  return static_cast<size_t>(p - out.data());
}

Record decode_trusted(const uint8_t* in, size_t& pos, DeltaBase& base) {
  const uint8_t kind = in[pos++];
  const uint64_t mask = get(in, pos);
  uint64_t f[kCodecFields] = {};
  for (uint64_t m = mask; m != 0; m &= m - 1) f[std::countr_zero(m)] = get(in, pos);
  Record r = record_of_fields(kind, f, base);
  base = DeltaBase{r.start_ns, r.request};
  return r;
}

}  // namespace tensord::profiler
