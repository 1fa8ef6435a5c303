#include "engine/profiler/profiler.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <thread>
#include <vector>

#include "engine/profiler/compact.h"
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

namespace {

StepSpanFields step(uint64_t i, uint64_t request) {
  StepSpanFields s;
  s.request = request;
  s.id = i;
  s.start_ns = 1000 + 10 * static_cast<int64_t>(i);
  s.dur_ns = 10;
  return s;
}

}  // namespace

TEST_CASE("raw step spans keep their place among the records and the capacity") {
  Profiler p(1);
  p.start({.trace = true, .memory = false, .capacity = 100});
  CHECK(step_span_record(step(3, 1)) == numbered(3, 1));
  for (uint64_t i = 0; i < 30; ++i) p.add(numbered(i, 1));
  std::vector<StepSpanFields> steps;
  for (uint64_t i = 30; i < 60; ++i) steps.push_back(step(i, 1));
  p.append_steps(steps, p.generation());
  for (uint64_t i = 60; i < 70; ++i) p.add(numbered(i, 1));  // after the raw ones, in order
  steps.clear();
  for (uint64_t i = 70; i < 170; ++i) steps.push_back(step(i, 1));
  p.append_steps(steps, p.generation());  // 30 fit, 70 dropped, as add() would drop them
  CHECK(p.recorded() == 100);
  CHECK(p.dropped() == 70);
  p.append_steps(std::span(steps).first(1), p.generation());  // full: dropped whole
  p.add(numbered(500, 1));
  CHECK(p.dropped() == 72);
  // Drained in parts that end inside a run of raw steps, decoded and encoded alternately.
  std::vector<Record> got;
  Pending d;
  Profiler::Encoded e;
  for (bool encoded = false;; encoded = !encoded) {
    if (encoded) {
      if (!p.drain_encoded(e, 13)) break;
      std::vector<uint8_t> chunk;
      put_chunk_header(chunk, 1, e.dropped, e.first_string, e.strings, e.records);
      chunk.insert(chunk.end(), e.body.begin(),
                   e.body.begin() + static_cast<std::ptrdiff_t>(e.body_size));
      Trace t;
      t.append_chunk(chunk);
      got.insert(got.end(), t.records.begin(), t.records.end());
    } else {
      if (!p.drain(d, 11)) break;
      got.insert(got.end(), d.records.begin(), d.records.end());
    }
  }
  REQUIRE(got.size() == 100);
  for (uint64_t i = 0; i < 100; ++i) REQUIRE(got[i] == numbered(i, 1));
  // Drained, there is room again.
  p.append_steps(std::span(steps).first(10), p.generation());
  CHECK(drain_all(p, 64).size() == 10);
}

TEST_CASE("raw step spans of a stopped or earlier profile are ignored") {
  Profiler p(1);
  const std::vector<StepSpanFields> steps{step(0, 1), step(1, 1)};
  p.append_steps(steps, p.generation());  // never started
  p.start({});
  const uint64_t first = p.generation();
  p.stop();
  p.append_steps(steps, first);  // stopped
  p.start({});
  p.append_steps(steps, first);  // an earlier profile's string ids
  CHECK(p.recorded() == 0);
  CHECK(p.dropped() == 0);
  p.append_steps(steps, p.generation());
  const std::vector<Record> got = drain_all(p, 64);
  REQUIRE(got.size() == 2);
  CHECK(got[1] == numbered(1, 1));
}

TEST_CASE("raw memory records keep their order, capacity and drops, in runs or alone") {
  Profiler p(1);
  p.start({.trace = true, .memory = true, .capacity = 20});
  std::vector<Record> want;
  auto memory = [](uint64_t i) {
    Record r;
    r.kind = i % 2 == 0 ? RecordKind::Alloc : RecordKind::Free;
    r.request = 1;
    r.id = i;
    r.bytes = 64;
    r.value = 64 * (i % 2);
    r.session = 1;
    r.start_ns = 1000 + 10 * static_cast<int64_t>(i);
    return r;
  };
  for (uint64_t i = 0; i < 5; ++i) {  // a run behind one marker
    p.add_memory(memory(i));
    want.push_back(memory(i));
  }
  p.add(numbered(5, 1));  // between runs
  want.push_back(numbered(5, 1));
  p.add_memory(memory(6));
  want.push_back(memory(6));
  p.append_steps(std::vector{step(7, 1)}, p.generation());
  want.push_back(numbered(7, 1));
  for (uint64_t i = 8; i < 30; ++i) {  // 12 fit, 10 dropped
    p.add_memory(memory(i));
    if (i < 20) want.push_back(memory(i));
  }
  CHECK(p.recorded() == 20);
  CHECK(p.dropped() == 10);
  // Drained in parts of 3 (inside runs), a run extended between drains.
  std::vector<Record> got;
  Pending d;
  REQUIRE(p.drain(d, 3));
  got.insert(got.end(), d.records.begin(), d.records.end());
  p.add_memory(memory(30));  // room again after the drain (17 pending): it goes in
  want.push_back(memory(30));
  for (const Record& r : drain_all(p, 3)) got.push_back(r);
  CHECK(got == want);
  // Only memory records pending, drained whole for the stream: encoded, not handed over raw.
  p.add_memory(memory(31));
  p.add_memory(memory(32));
  Profiler::Encoded e;
  REQUIRE(p.drain_encoded(e, 1 << 20));
  std::vector<uint8_t> chunk;
  put_chunk_header(chunk, 1, e.dropped, e.first_string, e.strings, e.records);
  chunk.insert(chunk.end(), e.body.begin(),
               e.body.begin() + static_cast<std::ptrdiff_t>(e.body_size));
  Trace t;
  t.append_chunk(chunk);
  CHECK(t.records == std::vector{memory(31), memory(32)});
  p.stop();
  p.add_memory(memory(33));  // stopped: ignored
  CHECK(p.recorded() == 23);
}
