#include "engine/profiler/profiler.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <thread>
#include <vector>

#include "engine/profiler/tick_clock.h"

using namespace tensord::profiler;

TEST_CASE("a profiler records nothing until started and after stopped") {
  Profiler p(7);
  CHECK_FALSE(p.tracing());
  CHECK_FALSE(p.recording_memory());
  p.add(Record{});
  Pending out;
  CHECK_FALSE(p.drain(out, 100));
  p.start({.trace = true, .memory = false});
  CHECK(p.tracing());
  CHECK_FALSE(p.recording_memory());
  p.add(Record{});
  p.stop();
  p.add(Record{});
  REQUIRE(p.drain(out, 100));
  CHECK(out.records.size() == 1);
  CHECK(p.recorded() == 1);
}

TEST_CASE("strings get stable ids and go out once, in order") {
  Profiler p(1);
  p.start({});
  uint32_t a = p.intern("matmul");
  uint32_t b = p.intern("model.py");
  CHECK(p.intern("matmul") == a);
  CHECK(p.intern("") == 0);
  Pending out;
  REQUIRE(p.drain(out, 10));
  CHECK(out.first_string == 1);
  REQUIRE(out.strings.size() == 2);
  CHECK(out.strings[a - 1] == "matmul");
  CHECK(out.strings[b - 1] == "model.py");
  uint32_t c = p.intern("relu");
  REQUIRE(p.drain(out, 10));
  CHECK(out.first_string == 3);
  CHECK(c == 3);
  REQUIRE(out.strings.size() == 1);
  CHECK_FALSE(p.drain(out, 10));
}

TEST_CASE("a full profiler drops and counts instead of growing") {
  Profiler p(1);
  p.start({.trace = true, .memory = false, .capacity = 100});
  for (int i = 0; i < 1000; ++i) {
    Record r;
    r.id = static_cast<uint64_t>(i);
    p.add(r);
  }
  CHECK(p.dropped() == 900);
  CHECK(p.recorded() == 100);
  Pending out;
  REQUIRE(p.drain(out, 30));
  CHECK(out.records.size() == 30);
  CHECK(out.records.front().id == 0);
  CHECK(out.dropped == 900);
  // Draining frees room for exactly as many records as were taken.
  for (int i = 0; i < 50; ++i) p.add(Record{});
  CHECK(p.dropped() == 920);
  size_t total = 0;
  while (p.drain(out, 16)) total += out.records.size();
  CHECK(total == 100);
}

TEST_CASE("records from several threads all arrive") {
  Profiler p(1);
  p.start({.trace = true, .memory = false, .capacity = 1 << 20});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&p] {
      for (int i = 0; i < 10000; ++i) p.span(Stage::Step, p.now(), kWorkerThread, 1);
    });
  }
  for (auto& t : threads) t.join();
  Pending out;
  size_t n = 0;
  while (p.drain(out, 4096)) n += out.records.size();
  CHECK(n == 40000);
  CHECK(p.dropped() == 0);
}

TEST_CASE("restarting a profile starts a new clock, table and generation") {
  Profiler p(1);
  p.start({});
  p.intern("x");
  uint64_t g = p.generation();
  p.stop();
  p.start({});
  CHECK(p.generation() == g + 1);
  CHECK(p.intern("y") == 1);
  CHECK(p.now() >= 0);
  CHECK(content_hash("abc", 3) == content_hash("abc", 3));
  CHECK(content_hash("abc", 3) != content_hash("abd", 3));
}

namespace {

Record numbered(uint64_t i, uint64_t request) {
  Record r;
  r.kind = RecordKind::Span;
  r.stage = static_cast<uint8_t>(Stage::Step);
  r.thread = kWorkerThread;
  r.request = request;
  r.id = i;
  r.start_ns = 1000 + 10 * static_cast<int64_t>(i);
  r.dur_ns = 10;
  return r;
}

std::vector<Record> drain_all(Profiler& p, size_t max) {
  std::vector<Record> got;
  Pending out;
  while (p.drain(out, max)) got.insert(got.end(), out.records.begin(), out.records.end());
  return got;
}

}  // namespace

TEST_CASE("a batch appends its records in order after those pending") {
  Profiler p(1);
  p.start({.trace = true, .memory = false, .capacity = 1 << 20});
  RecordBatch batch;
  batch.generation = p.generation();
  std::vector<Record> want;
  for (uint64_t round = 0; round < 3; ++round) {
    // A record added directly (another thread's), then a batch: the batch's first record's
    // deltas are re-based on the record before it, the others' bytes are copied.
    Record single = numbered(1000 + round, 7);
    single.start_ns = 5;  // far from the batch's times: a wrong delta base would show
    p.add(single);
    want.push_back(single);
    for (uint64_t i = 0; i < 50; ++i) {
      const Record r = numbered(round * 50 + i, 2 + round);
      batch.add(r);
      want.push_back(r);
    }
    CHECK(batch.size() == 50);
    p.append(batch);
    CHECK(batch.empty());
    p.append(batch);  // an empty batch adds nothing
  }
  CHECK(p.recorded() == want.size());
  // Drained whole (the encoded buffer handed over) and in parts (re-encoded).
  for (size_t max : {size_t{1} << 20, size_t{7}}) {
    if (max == 7) {
      for (const Record& r : want) batch.add(r);
      p.append(batch);
    }
    const std::vector<Record> got = drain_all(p, max);
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == want[i]);
  }
  CHECK(p.dropped() == 0);
}

TEST_CASE("a batch past the capacity keeps what fits and counts the rest as dropped") {
  Profiler p(1);
  p.start({.trace = true, .memory = false, .capacity = 100});
  for (uint64_t i = 0; i < 30; ++i) p.add(numbered(i, 1));
  RecordBatch batch;
  batch.generation = p.generation();
  for (uint64_t i = 30; i < 130; ++i) batch.add(numbered(i, 1));
  p.append(batch);
  CHECK(batch.empty());
  CHECK(p.recorded() == 100);
  CHECK(p.dropped() == 30);
  // Full: a whole batch is dropped, and so is a single record, as before.
  batch.add(numbered(500, 1));
  batch.add(numbered(501, 1));
  p.append(batch);
  p.add(numbered(502, 1));
  CHECK(p.dropped() == 33);
  std::vector<Record> got = drain_all(p, 64);
  REQUIRE(got.size() == 100);
  for (uint64_t i = 0; i < 100; ++i) REQUIRE(got[i] == numbered(i, 1));
  // Drained, there is room again: the next batch goes in whole.
  batch.generation = p.generation();
  for (uint64_t i = 0; i < 10; ++i) batch.add(numbered(i, 2));
  p.append(batch);
  CHECK(p.recorded() == 110);
  CHECK(p.dropped() == 33);
  got = drain_all(p, 64);
  REQUIRE(got.size() == 10);
  CHECK(got[9] == numbered(9, 2));
}

TEST_CASE("a batch of a stopped or earlier profile is ignored") {
  Profiler p(1);
  RecordBatch batch;
  batch.add(numbered(0, 1));
  p.append(batch);  // never started
  CHECK(batch.empty());
  p.start({});
  batch.generation = p.generation();
  batch.add(numbered(1, 1));
  p.stop();
  p.append(batch);  // stopped
  p.start({});      // a new profile: new string table, so the old ids mean nothing here
  batch.add(numbered(2, 1));
  p.append(batch);
  CHECK(batch.empty());
  CHECK(p.recorded() == 0);
  CHECK(p.dropped() == 0);
  batch.generation = p.generation();
  batch.add(numbered(3, 1));
  p.append(batch);
  const std::vector<Record> got = drain_all(p, 64);
  REQUIRE(got.size() == 1);
  CHECK(got[0] == numbered(3, 1));
}

TEST_CASE("ticks map onto the bracket of steady_clock readings, clamped and in order") {
  // 3 ticks a ns, from tick 3000 at 1000 ns to tick 6000 at 2000 ns.
  CHECK(map_ticks(3000, 3000, 1000, 6000, 2000) == 1000);
  CHECK(map_ticks(6000, 3000, 1000, 6000, 2000) == 2000);
  CHECK(map_ticks(4500, 3000, 1000, 6000, 2000) == 1500);
  CHECK(map_ticks(3003, 3000, 1000, 6000, 2000) == 1001);
  // Read a little outside the bracket: its edges.
  CHECK(map_ticks(2990, 3000, 1000, 6000, 2000) == 1000);
  CHECK(map_ticks(6010, 3000, 1000, 6000, 2000) == 2000);
  // An empty or reversed bracket gives its start.
  CHECK(map_ticks(3000, 3000, 1000, 3000, 1000) == 1000);
  CHECK(map_ticks(3500, 3000, 1000, 6000, 900) == 1000);
  int64_t last = 0;
  for (uint64_t t = 3000; t <= 6000; t += 7) {
    const int64_t ns = map_ticks(t, 3000, 1000, 6000, 2000);
    REQUIRE(ns >= last);
    last = ns;
  }
  // Long brackets keep nanosecond precision: one hour at 2.4 ticks a ns.
  const uint64_t hour_ticks = 3600ull * 2'400'000'000ull;
  const int64_t hour_ns = 3600ll * 1'000'000'000ll;
  CHECK(map_ticks(hour_ticks / 2, 0, 0, hour_ticks, hour_ns) == hour_ns / 2);
  CHECK(map_ticks(24, 0, 0, hour_ticks, hour_ns) == 10);
}

TEST_CASE("the tick clock, where usable, runs forward with steady_clock") {
  if (!TickClock::usable()) {
    SUCCEED("the kernel does not keep time with the TSC here: steady_clock is used");
    return;
  }
  const uint64_t t0 = TickClock::now();
  const int64_t n0 = Profiler::steady_ns();
  while (Profiler::steady_ns() - n0 < 2'000'000) {
  }
  const uint64_t t1 = TickClock::now();
  const int64_t n1 = Profiler::steady_ns();
  REQUIRE(t1 > t0);
  // Between 0.5 and 10 ticks a ns: a plausible counter, not a stuck or a wrapped one.
  const double per_ns = static_cast<double>(t1 - t0) / static_cast<double>(n1 - n0);
  CHECK(per_ns > 0.5);
  CHECK(per_ns < 10.0);
}
