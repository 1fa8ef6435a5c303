#include "engine/profiler/compact.h"
#include "engine/profiler/record_codec.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <climits>
#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <vector>

using namespace tensord::profiler;

namespace {

Record random_record(std::mt19937_64& rng) {
  auto u = [&](uint64_t max) { return std::uniform_int_distribution<uint64_t>(0, max)(rng); };
  Record r;
  r.kind = static_cast<RecordKind>(1 + u(9));  // every kind, segments and free requests too
  r.stage = static_cast<uint8_t>(u(9));
  r.flags = static_cast<uint8_t>(u(15));
  r.thread = static_cast<uint32_t>(u(20));
  r.name = static_cast<uint32_t>(u(3));
  r.file = static_cast<uint32_t>(u(3));
  r.line = static_cast<uint32_t>(u(100000));
  r.request = u(1000);
  r.id = u(UINT64_MAX);
  r.hash = u(UINT64_MAX);
  r.start_ns = static_cast<int64_t>(u(1'000'000'000));
  r.dur_ns = static_cast<int64_t>(u(1'000'000)) - 10;  // a clock step can make it negative
  r.bytes = u(UINT64_MAX);
  r.value = u(1 << 20);
  r.free_bytes = u(1 << 30);
  r.largest_free = u(1 << 30);
  r.session = u(5);
  r.address = u(UINT64_MAX);
  r.stream = u(3);
  if (r.kind == RecordKind::Kernel) {
    for (auto& g : r.grid) g = static_cast<uint32_t>(u(UINT32_MAX));
    for (auto& b : r.block) b = static_cast<uint32_t>(u(1024));
    r.registers = static_cast<uint32_t>(u(255));
    r.static_smem = static_cast<uint32_t>(u(49152));
    r.dynamic_smem = static_cast<uint32_t>(u(200000));
    r.occupancy_permille = static_cast<uint32_t>(u(1000));
  }
  return r;
}

}  // namespace

TEST_CASE("chunks round-trip records and strings exactly") {
  std::mt19937_64 rng(42);
  Trace trace;
  std::vector<Record> all;
  for (int c = 0; c < 3; ++c) {
    Pending p;
    p.first_string = static_cast<uint32_t>(1 + 3 * c);
    p.strings = {"op" + std::to_string(c), "file" + std::to_string(c) + ".py", "x"};
    p.dropped = static_cast<uint64_t>(c * 5);
    for (int i = 0; i < 500; ++i) {
      Record r = random_record(rng);
      r.name += static_cast<uint32_t>(3 * c);
      r.file += static_cast<uint32_t>(3 * c);
      p.records.push_back(r);
    }
    trace.append_chunk(encode_chunk(p, 9));
    all.insert(all.end(), p.records.begin(), p.records.end());
  }
  CHECK(trace.session == 9);
  CHECK(trace.dropped == 10);
  REQUIRE(trace.strings.size() == 10);
  CHECK(trace.strings[4] == "op1");
  REQUIRE(trace.records.size() == all.size());
  for (size_t i = 0; i < all.size(); ++i) REQUIRE(trace.records[i] == all[i]);
}

namespace {

// The wire form as compact.h defines it, written plainly over record_fields: the kind, a varint
// mask of the non-zero fields, those fields as varints in order. encode_record is written for
// speed (it runs on the worker per step); it must produce these bytes exactly.
std::vector<uint8_t> reference_encoding(const Record& r, const DeltaBase& base) {
  std::vector<uint8_t> out{static_cast<uint8_t>(r.kind)};
  auto put = [&out](uint64_t v) {
    for (; v >= 0x80; v >>= 7) out.push_back(static_cast<uint8_t>(v | 0x80));
    out.push_back(static_cast<uint8_t>(v));
  };
  uint64_t f[kCodecFields];
  record_fields(r, base, f);
  uint64_t mask = 0;
  for (size_t i = 0; i < kCodecFields; ++i) mask |= uint64_t{f[i] != 0} << i;
  put(mask);
  for (size_t i = 0; i < kCodecFields; ++i)
    if (f[i] != 0) put(f[i]);
  return out;
}

}  // namespace

TEST_CASE("encode_record writes the reference encoding, field by field") {
  std::mt19937_64 rng(5);
  std::vector<uint8_t> buf;
  size_t used = 0;
  DeltaBase base, ref_base;
  for (int i = 0; i < 20000; ++i) {
    Record r = random_record(rng);
    // Zero a random subset of fields, so that every mask bit is seen both ways, including the
    // cases where only the last fields (address, stream) or only the first are set.
    const uint64_t keep = rng();
    uint32_t* u32[] = {&r.thread,       &r.name,
                       &r.file,         &r.line,
                       &r.grid[0],      &r.grid[1],
                       &r.grid[2],      &r.block[0],
                       &r.block[1],     &r.block[2],
                       &r.registers,    &r.static_smem,
                       &r.dynamic_smem, &r.occupancy_permille};
    uint64_t* u64[] = {&r.request,    &r.id,           &r.hash,    &r.bytes,   &r.value,
                       &r.free_bytes, &r.largest_free, &r.session, &r.address, &r.stream};
    for (size_t k = 0; k < std::size(u32); ++k)
      if ((keep >> k & 1) == 0) *u32[k] = 0;
    for (size_t k = 0; k < std::size(u64); ++k)
      if ((keep >> (20 + k) & 1) == 0) *u64[k] = 0;
    if ((keep >> 40 & 1) == 0) r.stage = 0;
    if ((keep >> 41 & 1) == 0) r.flags = 0;
    if ((keep >> 42 & 1) == 0) r.start_ns = base.start_ns;  // a zero delta
    if ((keep >> 43 & 1) == 0) r.dur_ns = 0;
    if ((keep >> 44 & 1) == 0) r.dur_ns = INT64_MIN;  // the widest zigzag
    const std::vector<uint8_t> want = reference_encoding(r, ref_base);
    DeltaBase decode_base = ref_base;
    ref_base = DeltaBase{r.start_ns, r.request};
    const size_t end = encode_record(buf, used, r, base);
    REQUIRE(end - used == want.size());
    REQUIRE(std::equal(want.begin(), want.end(), buf.begin() + static_cast<std::ptrdiff_t>(used)));
    CHECK(base == ref_base);
    size_t pos = used;
    REQUIRE(decode_trusted(buf.data(), pos, decode_base) == r);
    CHECK(pos == end);
    used = end > (1 << 16) ? 0 : end;
    if (used == 0) base = ref_base = DeltaBase{};
  }
}

TEST_CASE("encode_step_span writes what encode_record writes for the same step span") {
  std::mt19937_64 rng(7);
  std::vector<uint8_t> fast, general;
  size_t fast_used = 0, general_used = 0;
  DeltaBase fast_base, general_base;
  // Values of every varint length, and zero (a field left out of the mask) often.
  auto value = [&rng](uint64_t max_bits) -> uint64_t {
    const uint64_t bits = rng() % (max_bits + 1);
    if (rng() % 4 == 0 || bits == 0) return 0;
    const uint64_t v = rng();
    return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1);
  };
  for (int i = 0; i < 20000; ++i) {
    StepSpanFields s;
    // Requests and starts near the last record's (small deltas, as a run's are) or anywhere.
    s.request = rng() % 2 == 0 ? general_base.request + value(3) : value(64);
    s.start_ns = rng() % 2 == 0 ? general_base.start_ns + static_cast<int64_t>(value(20))
                                : static_cast<int64_t>(value(64));
    s.dur_ns = rng() % 8 == 0 ? INT64_MIN : static_cast<int64_t>(value(64));
    s.id = value(64);
    s.bytes = value(64);
    s.name = static_cast<uint32_t>(value(32));
    s.file = static_cast<uint32_t>(value(32));
    s.line = static_cast<uint32_t>(value(32));
    s.flags = static_cast<uint8_t>(value(8));
    const Record r = step_span_record(s);
    DeltaBase decode_base = fast_base;
    const size_t fast_end = encode_step_span(fast, fast_used, s, fast_base);
    const size_t general_end = encode_record(general, general_used, r, general_base);
    REQUIRE(fast_end - fast_used == general_end - general_used);
    REQUIRE(std::equal(fast.begin() + static_cast<std::ptrdiff_t>(fast_used),
                       fast.begin() + static_cast<std::ptrdiff_t>(fast_end),
                       general.begin() + static_cast<std::ptrdiff_t>(general_used)));
    CHECK(fast_base == general_base);
    size_t pos = fast_used;
    REQUIRE(decode_trusted(fast.data(), pos, decode_base) == r);
    CHECK(pos == fast_end);
    fast_used = fast_end > (1 << 16) ? 0 : fast_end;
    general_used = general_end > (1 << 16) ? 0 : general_end;
    if (fast_used == 0) fast_base = DeltaBase{};
    if (general_used == 0) general_base = DeltaBase{};
  }
}

TEST_CASE("a typical step span takes far less than 100 bytes") {
  Pending p;
  p.strings = {"add", "model.py"};
  for (int i = 0; i < 1000; ++i) {
    Record r;
    r.stage = static_cast<uint8_t>(Stage::Step);
    r.thread = kWorkerThread;
    r.name = 1;
    r.file = 2;
    r.line = 120;
    r.request = 17;
    r.id = static_cast<uint64_t>(i);
    r.start_ns = 5'000'000 + i * 1500;
    r.dur_ns = 900;
    p.records.push_back(r);
  }
  size_t bytes = encode_chunk(p, 1).size();
  CHECK(bytes < 1000 * 20);
}

TEST_CASE("malformed chunks are refused and leave the trace unchanged") {
  Pending p;
  p.strings = {"relu"};
  Record r;
  r.name = 1;
  r.start_ns = 10;
  p.records = {r, r};
  std::vector<uint8_t> chunk = encode_chunk(p, 1);
  for (size_t n = 0; n < chunk.size(); ++n) {
    Trace t;
    CHECK_THROWS(t.append_chunk(std::span<const uint8_t>(chunk.data(), n)));
    CHECK(t.records.empty());
    CHECK(t.strings.size() == 1);
  }
  Trace t;
  auto extra = chunk;
  extra.push_back(0);
  CHECK_THROWS(t.append_chunk(extra));
  auto bad_kind = chunk;
  // The first record's kind byte follows the header (magic, 4 varints, the string, count).
  size_t kind_at = 4 + 1 + 1 + 1 + 1 + 1 + 4 + 1;
  REQUIRE(bad_kind[kind_at] == static_cast<uint8_t>(RecordKind::Span));
  bad_kind[kind_at] = 99;
  CHECK_THROWS(t.append_chunk(bad_kind));
  Pending dangling;
  Record d;
  d.name = 5;  // no such string
  dangling.records = {d};
  CHECK_THROWS(t.append_chunk(encode_chunk(dangling, 1)));
  Pending late;
  late.first_string = 3;  // the table has 1 entry: strings would be out of order
  late.strings = {"x"};
  CHECK_THROWS(t.append_chunk(encode_chunk(late, 1)));
  CHECK(t.records.empty());
  t.append_chunk(chunk);
  CHECK(t.records.size() == 2);
}

// The profiler keeps pending records encoded (record_codec.h) and the daemon's stream sends
// them as they are, behind a chunk header: the chunks must decode to exactly the records added,
// whole or in parts (a part is re-encoded so its first record's deltas start from zero).
TEST_CASE("the profiler's encoded drains give back exactly the records added") {
  std::mt19937_64 rng(11);
  for (size_t max : {size_t{1}, size_t{7}, size_t{64}, size_t{1} << 20}) {
    Profiler p(3);
    p.start({.trace = true, .memory = true, .capacity = 1 << 20});
    p.intern("matmul");
    std::vector<Record> added;
    Trace t;
    Profiler::Encoded e;
    auto take = [&] {
      while (p.drain_encoded(e, max)) {
        CHECK(e.records <= max);
        std::vector<uint8_t> chunk;
        put_chunk_header(chunk, p.session(), e.dropped, e.first_string, e.strings, e.records);
        chunk.insert(chunk.end(), e.body.begin(),
                     e.body.begin() + static_cast<std::ptrdiff_t>(e.body_size));
        t.append_chunk(chunk);
      }
    };
    for (int round = 0; round < 5; ++round) {
      for (int i = 0; i < 300; ++i) {
        Record r = random_record(rng);
        r.name = static_cast<uint32_t>(rng() % 2);  // ids the table has
        r.file = 0;
        added.push_back(r);
        p.add(r);
      }
      take();
    }
    CHECK(t.session == 3);
    REQUIRE(t.records.size() == added.size());
    for (size_t i = 0; i < added.size(); ++i) REQUIRE(t.records[i] == added[i]);
    CHECK(t.str(1) == "matmul");
  }
}

TEST_CASE("decoded and encoded drains of one profile interleave without losing a record") {
  Profiler p(1);
  p.start({.trace = true, .memory = false, .capacity = 1 << 20});
  std::vector<Record> added;
  for (int i = 0; i < 1000; ++i) {
    Record r;
    r.request = 1 + static_cast<uint64_t>(i / 100);
    r.id = static_cast<uint64_t>(i);
    r.start_ns = 1000 + 7 * i;
    r.dur_ns = 5;
    added.push_back(r);
    p.add(r);
  }
  std::vector<Record> got;
  Pending d;
  Profiler::Encoded e;
  for (bool encoded = false;; encoded = !encoded) {
    if (encoded) {
      if (!p.drain_encoded(e, 37)) break;
      std::vector<uint8_t> chunk;
      put_chunk_header(chunk, 1, e.dropped, e.first_string, e.strings, e.records);
      chunk.insert(chunk.end(), e.body.begin(),
                   e.body.begin() + static_cast<std::ptrdiff_t>(e.body_size));
      Trace t;
      t.append_chunk(chunk);
      got.insert(got.end(), t.records.begin(), t.records.end());
    } else {
      if (!p.drain(d, 53)) break;
      got.insert(got.end(), d.records.begin(), d.records.end());
    }
  }
  CHECK(got == added);
}

// The executor's step spans and the ledger's memory records are kept raw
// (Profiler::append_steps, add_memory) and encoded when drained: the stream must send the very
// bytes it sent when each was added as a record, whatever lies between them and wherever a
// drain cuts.
namespace {

// A record as MemoryLedger records a session's block: Alloc, FreeRequested or Free.
Record memory_record(std::mt19937_64& rng) {
  const RecordKind kinds[] = {RecordKind::Alloc, RecordKind::FreeRequested, RecordKind::Free};
  Record r;
  r.kind = kinds[rng() % 3];
  r.stage = static_cast<uint8_t>(rng() % static_cast<uint64_t>(MemoryCategory::kCount));
  r.flags = static_cast<uint8_t>(rng() % 2 * kDeferredFree);
  r.name = static_cast<uint32_t>(rng() % 3);
  r.file = static_cast<uint32_t>(rng() % 3);
  r.line = static_cast<uint32_t>(rng() % 500);
  r.request = 1 + rng() % 8;
  r.id = 1 + rng() % 100000;
  r.start_ns = static_cast<int64_t>(rng() % 1'000'000'000);
  r.bytes = rng() % (uint64_t{1} << 40);
  r.value = rng() % (uint64_t{1} << 40);
  r.session = rng() % 4;
  r.address = rng() % 2 == 0 ? 0 : rng();
  r.stream = rng() % 3;
  return r;
}

}  // namespace

TEST_CASE("a memory record keeps every field through the form the profile keeps it in") {
  std::mt19937_64 rng(17);
  std::vector<uint8_t> fast, general;
  size_t fast_used = 0, general_used = 0;
  DeltaBase fast_base, general_base;
  for (int i = 0; i < 20000; ++i) {
    Record r = memory_record(rng);
    // Any field may be zero (left out of the mask), start and request near the last one's or not.
    const uint64_t keep = rng();
    uint64_t* u64[] = {&r.request, &r.id, &r.bytes, &r.value, &r.session, &r.address, &r.stream};
    for (size_t k = 0; k < std::size(u64); ++k)
      if ((keep >> k & 1) == 0) *u64[k] = 0;
    if ((keep >> 10 & 1) == 0) r.name = 0;
    if ((keep >> 11 & 1) == 0) r.file = 0;
    if ((keep >> 12 & 1) == 0) r.line = 0;
    if ((keep >> 13 & 1) == 0) r.stage = 0;
    if ((keep >> 14 & 1) == 0) r.start_ns = general_base.start_ns;
    if ((keep >> 15 & 1) == 0) r.request = general_base.request;
    const MemoryEventFields e = memory_event_fields(r);
    REQUIRE(memory_event_record(e) == r);
    const size_t fast_end = encode_memory_event(fast, fast_used, e, fast_base);
    const size_t general_end = encode_record(general, general_used, r, general_base);
    REQUIRE(fast_end - fast_used == general_end - general_used);
    REQUIRE(std::equal(fast.begin() + static_cast<std::ptrdiff_t>(fast_used),
                       fast.begin() + static_cast<std::ptrdiff_t>(fast_end),
                       general.begin() + static_cast<std::ptrdiff_t>(general_used)));
    CHECK(fast_base == general_base);
    fast_used = fast_end > (1 << 16) ? 0 : fast_end;
    general_used = general_end > (1 << 16) ? 0 : general_end;
    if (fast_used == 0) fast_base = general_base = DeltaBase{};
  }
}

TEST_CASE("raw step spans drain to the bytes of the same spans added as records") {
  std::mt19937_64 rng(13);
  for (size_t max : {size_t{1}, size_t{7}, size_t{64}, size_t{1} << 20}) {
    Profiler raw(3), ref(3);
    for (Profiler* p : {&raw, &ref}) p->start({.trace = true, .memory = true, .capacity = 1 << 20});
    std::vector<StepSpanFields> steps;
    int64_t clock = 1'000'000;
    for (int round = 0; round < 6; ++round) {
      for (int part = 0; part < 8; ++part) {
        if (rng() % 3 == 0) {  // another thread's record
          Record r = random_record(rng);
          r.name = r.file = 0;
          raw.add(r);
          ref.add(r);
        }
        for (uint64_t k = rng() % 4; k-- > 0;) {  // memory records, kept raw too (add_memory)
          const Record r = memory_record(rng);
          raw.add_memory(r);
          ref.add(r);
        }
        steps.clear();
        for (uint64_t i = 0, n = 1 + rng() % 70; i < n; ++i) {
          StepSpanFields s;
          s.request = 1 + static_cast<uint64_t>(round);
          s.id = rng() % 1000;
          s.start_ns = clock;
          s.dur_ns = static_cast<int64_t>(rng() % 5000);
          clock += s.dur_ns;
          s.bytes = rng() % 4096;
          s.line = static_cast<uint32_t>(rng() % 200);
          s.flags = static_cast<uint8_t>(rng() % 2 * kOnGpu);
          steps.push_back(s);
          ref.add(step_span_record(s));
        }
        raw.append_steps(steps, raw.generation());
      }
      // Drained in turn, with the same limit: the same chunks, byte for byte.
      Profiler::Encoded a, b;
      for (;;) {
        const bool more = raw.drain_encoded(a, max);
        REQUIRE(more == ref.drain_encoded(b, max));
        if (!more) break;
        REQUIRE(a.records == b.records);
        REQUIRE(a.body_size == b.body_size);
        REQUIRE(std::equal(a.body.begin(),
                           a.body.begin() + static_cast<std::ptrdiff_t>(a.body_size),
                           b.body.begin()));
      }
    }
    CHECK(raw.recorded() == ref.recorded());
    CHECK(raw.dropped() == 0);
  }
}
