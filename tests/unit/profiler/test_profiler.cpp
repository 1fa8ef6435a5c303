#include "engine/profiler/profiler.h"

#include <catch2/catch.hpp>
#include <thread>

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
