#include "engine/profiler/chrome.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "engine/profiler/summary.h"
#include "tests/support/profiler/chrome_check.h"

using namespace tensord::profiler;
using tensord::test::check_chrome_trace;

namespace {

Record span(Stage s, uint32_t thread, uint64_t request, int64_t start, int64_t dur) {
  Record r;
  r.stage = static_cast<uint8_t>(s);
  r.thread = thread;
  r.request = request;
  r.start_ns = start;
  r.dur_ns = dur;
  return r;
}

// One request as the daemon records it, with two steps, memory and a GPU kernel.
Trace sample() {
  Trace t;
  t.session = 3;
  t.strings = {"", "matmul", "model.py", "sgemm_128x64"};
  t.records.push_back(span(Stage::Receive, kEventLoopThread, 1, 0, 2000));
  t.records.push_back(span(Stage::QueueWait, kWorkerThread, 1, 2500, 500));
  t.records.push_back(span(Stage::Validate, kWorkerThread, 1, 3000, 1000));
  Record step = span(Stage::Step, kWorkerThread, 1, 5000, 3000);
  step.name = 1;
  step.file = 2;
  step.line = 12;
  step.flags = kOnGpu;
  t.records.push_back(step);
  step.start_ns = 8000;
  step.dur_ns = 1000;
  step.id = 1;
  t.records.push_back(step);
  Record exec = span(Stage::Execute, kWorkerThread, 1, 5000, 4500);
  exec.value = 2;
  t.records.push_back(exec);
  t.records.push_back(span(Stage::Request, kEventLoopThread, 1, 0, 12000));
  Record segment;  // the allocator's segment that the block below lives in
  segment.kind = RecordKind::SegmentAlloc;
  segment.bytes = 2 << 20;
  segment.value = 2 << 20;
  segment.address = 0x7f0000000000;
  segment.start_ns = 5050;
  t.records.push_back(segment);
  Record alloc;
  alloc.kind = RecordKind::Alloc;
  alloc.bytes = 4096;
  alloc.start_ns = 5100;
  alloc.name = 1;
  alloc.stream = 7;
  t.records.push_back(alloc);
  Record requested = alloc;  // freed while another stream used it: completed later
  requested.kind = RecordKind::FreeRequested;
  requested.flags = kDeferredFree;
  requested.start_ns = 10000;
  t.records.push_back(requested);
  Record free = requested;
  free.kind = RecordKind::Free;
  free.start_ns = 11000;
  t.records.push_back(free);
  segment.kind = RecordKind::SegmentFree;
  segment.value = 0;
  segment.start_ns = 11500;
  t.records.push_back(segment);
  Record k;
  k.kind = RecordKind::Kernel;
  k.name = 3;
  k.thread = kGpuStreamThread;
  k.request = 1;
  k.id = 0;
  k.start_ns = 6000;
  k.dur_ns = 1500;
  k.grid[0] = 64;
  k.block[0] = 256;
  t.records.push_back(k);
  Record oom;
  oom.kind = RecordKind::Oom;
  oom.bytes = 1 << 30;
  oom.start_ns = 9500;
  t.records.push_back(oom);
  return t;
}

}  // namespace

TEST_CASE("the Chrome export follows the format's rules") {
  std::string json = chrome_trace_json(sample());
  auto check = check_chrome_trace(json);
  INFO(json);
  CHECK(check.errors == std::vector<std::string>{});
  CHECK(check.complete == 8);  // 7 spans and the kernel
  CHECK(check.flows == 4);     // request -> execute; the GPU step that launched the kernel
  // Live memory by category after the alloc and the free completed; reserved vs allocated after
  // those and after the segment's alloc and free; reserved by category after the segment's.
  CHECK(check.counters == 8);
  CHECK(check.instants == 3);  // the out-of-memory event, the free requested and completed
  CHECK(check.metadata >= 3);  // the process and its threads
  auto doc = nlohmann::json::parse(json);
  bool named_step = false;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "matmul") {
      named_step = true;
      CHECK(e["args"]["source"] == "model.py:12");
      if (e["args"]["step"] == 0) CHECK(e["ts"] == 5.0);  // microseconds
    }
  }
  CHECK(named_step);
  // Reserved vs allocated, in time order: the segment, the block in it, its free, the segment's.
  std::vector<std::pair<int64_t, int64_t>> reserved_allocated;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "C" && e["name"] == "reserved vs allocated (bytes)") {
      reserved_allocated.push_back({e["args"]["reserved"], e["args"]["allocated"]});
    }
  }
  const std::vector<std::pair<int64_t, int64_t>> want = {
      {2 << 20, 0}, {2 << 20, 4096}, {2 << 20, 0}, {0, 0}};
  CHECK(reserved_allocated == want);
  std::vector<std::pair<std::string, double>> frees;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "i" && e.value("cat", "") == "memory") {
      frees.push_back({e["name"], e["ts"]});
      CHECK(e["args"]["bytes"] == 4096);
      CHECK(e["args"]["stream"] == 7);
    }
  }
  const std::vector<std::pair<std::string, double>> want_frees = {{"free requested", 10.0},
                                                                  {"free completed", 11.0}};
  CHECK(frees == want_frees);
}

TEST_CASE("a free requested and completed at once (the host) draws no free instants") {
  Trace t;
  t.strings = {""};
  Record alloc;
  alloc.kind = RecordKind::Alloc;
  alloc.id = 3;
  alloc.bytes = 512;
  alloc.start_ns = 100;
  t.records.push_back(alloc);
  Record requested = alloc;
  requested.kind = RecordKind::FreeRequested;
  requested.start_ns = 200;
  t.records.push_back(requested);
  Record free = requested;
  free.kind = RecordKind::Free;
  free.start_ns = 260;  // a moment later, as the ledger sends them: still completed at once
  t.records.push_back(free);
  auto check = check_chrome_trace(chrome_trace_json(t));
  CHECK(check.errors == std::vector<std::string>{});
  CHECK(check.instants == 0);
  CHECK(check.counters == 4);
}

TEST_CASE("the checker catches what breaks the format") {
  CHECK_FALSE(check_chrome_trace("{").errors.empty());
  CHECK_FALSE(check_chrome_trace(R"({"events": []})").errors.empty());
  CHECK_FALSE(check_chrome_trace(R"({"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1,
                                               "ts": 0}]})")
                  .errors.empty());  // X without dur
  CHECK_FALSE(check_chrome_trace(R"({"traceEvents": [
      {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
      {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 5, "dur": 10}]})")
                  .errors.empty());  // partial overlap on one thread
  CHECK_FALSE(check_chrome_trace(R"({"traceEvents": [
      {"ph": "f", "bp": "e", "id": 3, "name": "x", "cat": "c", "pid": 1, "tid": 1, "ts": 5}]})")
                  .errors.empty());  // flow end without start
  CHECK(check_chrome_trace(R"({"traceEvents": [
      {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
      {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 3},
      {"ph": "X", "name": "c", "pid": 1, "tid": 2, "ts": 5, "dur": 10}]})")
            .errors.empty());
}

TEST_CASE("key averages count calls and split self from total time") {
  auto rows = key_averages(sample());
  auto find = [&](const std::string& key) {
    for (const auto& r : rows) {
      if (r.key == key) return r;
    }
    FAIL("no row " << key);
    return KeyAverage{};
  };
  KeyAverage matmul = find("matmul");
  CHECK(matmul.calls == 2);
  CHECK(matmul.total_ns == 4000);
  CHECK(matmul.self_ns == 4000);
  CHECK(matmul.alloc_bytes == 4096);
  CHECK(matmul.source == "model.py:12");
  KeyAverage exec = find("[execute]");
  CHECK(exec.total_ns == 4500);
  CHECK(exec.self_ns == 500);  // minus its two steps
  KeyAverage request = find("[request]");
  CHECK(request.self_ns == 10000);  // minus receive
  auto timeline = memory_timeline(sample());
  REQUIRE(timeline.size() == 4);
  CHECK(timeline[0].total() == 0);
  CHECK(timeline[0].reserved_bytes == 2 << 20);
  CHECK(timeline[1].total() == 4096);
  CHECK(timeline[1].reserved_bytes == 2 << 20);
  CHECK(timeline[2].total() == 0);
  CHECK(timeline[3].reserved_bytes == 0);
}
