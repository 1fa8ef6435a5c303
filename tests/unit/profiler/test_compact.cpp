#include "engine/profiler/compact.h"

#include <catch2/catch.hpp>
#include <random>

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
