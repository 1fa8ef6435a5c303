// Each rule on crafted traces: it fires on the evidence it is for and stays silent on a trace
// without it. GPU records (kernels, captured plans, TF32 flags, fragmentation) are crafted here
// because no backend emits them yet; the CPU-observable rules are also tested end to end
// against the daemon (tests/integration/client/test_profile.cpp).
#include "engine/profiler/advice.h"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace tensord::profiler;

namespace {

struct Builder {
  Trace t;
  int64_t now = 0;
  Builder() { t.strings = {"", "add", "loop.py", "matmul", "sort"}; }

  Record& add(Record r) {
    t.records.push_back(r);
    return t.records.back();
  }
  // One request: `steps` steps of `step_ns` each, touching `step_bytes` each, inside an execute
  // span, inside a request span with `overhead_ns` more around it.
  void request(uint64_t plan, int steps, int64_t step_ns, int64_t overhead_ns, uint8_t flags = 0,
               uint32_t op = 1, uint64_t step_bytes = 48) {
    uint64_t id = t.records.size() + 1;
    int64_t begin = now;
    int64_t exec_begin = now + overhead_ns / 2;
    for (int i = 0; i < steps; ++i) {
      Record s;
      s.stage = static_cast<uint8_t>(Stage::Step);
      s.thread = kWorkerThread;
      s.request = id;
      s.id = static_cast<uint64_t>(i);
      s.name = op;
      s.file = 2;
      s.line = 7;
      s.flags = flags;
      s.start_ns = exec_begin + i * step_ns;
      s.dur_ns = step_ns;
      s.bytes = step_bytes;
      add(s);
    }
    Record e;
    e.stage = static_cast<uint8_t>(Stage::Execute);
    e.thread = kWorkerThread;
    e.request = id;
    e.hash = plan;
    e.flags = flags;
    e.value = static_cast<uint64_t>(steps);
    e.start_ns = exec_begin;
    e.dur_ns = steps * step_ns;
    add(e);
    Record r;
    r.stage = static_cast<uint8_t>(Stage::Request);
    r.thread = kEventLoopThread;
    r.request = id;
    r.start_ns = begin;
    r.dur_ns = steps * step_ns + overhead_ns;
    add(r);
    now += r.dur_ns + 1000;
  }
  std::vector<std::string> rules() const {
    std::vector<std::string> out;
    for (const auto& r : recommend(t)) out.push_back(r.rule);
    return out;
  }
};

bool has(const std::vector<std::string>& rules, const std::string& rule) {
  return std::find(rules.begin(), rules.end(), rule) != rules.end();
}

}  // namespace

TEST_CASE("a trace of big graphs run once each gets no advice") {
  Builder b;
  // 50 steps of 1 MiB each: big by their sizes (the rules decide on sizes, not on times).
  for (int i = 0; i < 30; ++i) b.request(100 + i, 50, 200'000, 100'000, 0, 1, 1 << 20);
  CHECK(b.rules().empty());
}

TEST_CASE("cuda_graph: a plan repeated on the GPU without capture") {
  Builder b;
  for (int i = 0; i < 12; ++i) b.request(7, 30, 50'000, 10'000, kOnGpu);
  CHECK(has(b.rules(), "cuda_graph"));
  Builder captured;
  for (int i = 0; i < 12; ++i) captured.request(7, 30, 50'000, 10'000, kOnGpu | kGraphCaptured);
  CHECK_FALSE(has(captured.rules(), "cuda_graph"));
  Builder cpu;  // the same on the CPU: nothing to capture
  for (int i = 0; i < 12; ++i) cpu.request(7, 30, 50'000, 10'000);
  CHECK_FALSE(has(cpu.rules(), "cuda_graph"));
}

TEST_CASE("cuda_graph stays silent on plans reduce-overhead declined or could not capture") {
  for (CaptureNote note : {CaptureNote::TooLarge, CaptureNote::Unusable, CaptureNote::NoCapture}) {
    INFO("note " << static_cast<int>(note));
    Builder b;
    for (int i = 0; i < 12; ++i) {
      b.request(7, 30, 50'000, 10'000, kOnGpu);
      // The run's Execute span says why it was not a replay.
      for (Record& r : b.t.records) {
        if (r.stage == static_cast<uint8_t>(Stage::Execute)) r.id = static_cast<uint64_t>(note);
      }
    }
    // Another plan, repeated as often and not in reduce-overhead mode: still advised.
    for (int i = 0; i < 12; ++i) b.request(8, 30, 50'000, 10'000, kOnGpu);
    const std::vector<Recommendation> recs = recommend(b.t);
    int cuda_graph = 0;
    for (const Recommendation& r : recs) {
      if (r.rule != "cuda_graph") continue;
      ++cuda_graph;
      CHECK(r.message.find("plan 0000000000000008") != std::string::npos);
    }
    CHECK(cuda_graph == 1);
  }
}

TEST_CASE("fusion_break names the op and its line") {
  Builder b;
  Record r;
  r.kind = RecordKind::FusionBreak;
  r.name = 4;
  r.file = 2;
  r.line = 33;
  b.add(r);
  auto recs = recommend(b.t);
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].rule == "fusion_break");
  CHECK(recs[0].message.find("'sort' at loop.py:33") != std::string::npos);
}

TEST_CASE("tf32: float32 matmuls at highest precision on the GPU") {
  Builder b;
  for (int i = 0; i < 5; ++i) b.request(1 + i, 1, 2'000'000, 10'000, kOnGpu | kF32Highest, 3);
  CHECK(has(b.rules(), "tf32"));
  Builder high;  // the same time at "high" precision
  for (int i = 0; i < 5; ++i) high.request(1 + i, 1, 2'000'000, 10'000, kOnGpu, 3);
  CHECK_FALSE(has(high.rules(), "tf32"));
  Builder cpu;  // highest on the CPU is the only precision there is
  for (int i = 0; i < 5; ++i) cpu.request(1 + i, 1, 2'000'000, 10'000, kF32Highest, 3);
  CHECK_FALSE(has(cpu.rules(), "tf32"));
}

TEST_CASE("sync_in_loop: many syncs of one tiny graph, whatever the machine's speed") {
  // The same workload timed on a fast idle machine and on a slow loaded one (steps 100x
  // slower, round trips shorter than the steps): the rule sees counts and sizes, not times.
  for (int64_t step_ns : {2'000, 200'000}) {
    Builder b;
    for (int i = 0; i < 25; ++i) b.request(9, 2, step_ns, 80'000);
    auto recs = recommend(b.t);
    auto it = std::find_if(recs.begin(), recs.end(),
                           [](const auto& r) { return r.rule == "sync_in_loop"; });
    REQUIRE(it != recs.end());
    CHECK(it->message.find("loop.py:7") != std::string::npos);
    CHECK(it->evidence ==
          "25 syncs of plan 0000000000000009, each 2 steps touching 96 bytes "
          "(tiny: <= 8 steps and 1048576 bytes per sync)");
  }
  Builder few;  // too few to be a loop
  for (int i = 0; i < 5; ++i) few.request(9, 2, 2'000, 80'000);
  CHECK_FALSE(has(few.rules(), "sync_in_loop"));
  for (int64_t step_ns : {2'000, 500'000}) {
    Builder heavy;  // repeated, but each sync moves 8 MiB: real work, however fast it ran
    for (int i = 0; i < 25; ++i) heavy.request(9, 2, step_ns, 80'000, 0, 1, 4 << 20);
    CHECK_FALSE(has(heavy.rules(), "sync_in_loop"));
  }
  Builder long_graph;  // many steps per sync: not a tiny graph
  for (int i = 0; i < 25; ++i) long_graph.request(9, 9, 2'000, 80'000);
  CHECK_FALSE(has(long_graph.rules(), "sync_in_loop"));
}

TEST_CASE("fragmentation: an OOM with enough free memory in scattered blocks") {
  Builder b;
  Record oom;
  oom.kind = RecordKind::Oom;
  oom.bytes = 600 << 20;
  oom.free_bytes = 1000 << 20;
  oom.largest_free = 200 << 20;
  b.add(oom);
  CHECK(has(b.rules(), "fragmentation"));
  Builder full;  // really out of memory
  oom.free_bytes = 100 << 20;
  oom.largest_free = 90 << 20;
  full.add(oom);
  CHECK_FALSE(has(full.rules(), "fragmentation"));
  Builder cpu;  // the CPU reports no free blocks
  oom.free_bytes = 0;
  oom.largest_free = 0;
  cpu.add(oom);
  CHECK_FALSE(has(cpu.rules(), "fragmentation"));
}

TEST_CASE("launch_overhead: tiny GPU kernels, or many requests of tiny work, by sizes") {
  // GPU: 60 steps, each launching one kernel over 48 bytes. Their times do not matter: long
  // kernels (a loaded or slow device) give the same answer.
  for (int64_t kernel_ns : {int64_t{3'000}, int64_t{3'000'000}}) {
    Builder gpu;
    gpu.request(1, 60, 1'000, 5'000, kOnGpu);
    for (int i = 0; i < 60; ++i) {
      Record k;
      k.kind = RecordKind::Kernel;
      k.thread = kGpuStreamThread;
      k.request = 1;
      k.id = static_cast<uint64_t>(i);
      k.start_ns = i * 10'000;
      k.dur_ns = kernel_ns;
      k.grid[0] = 1;
      k.block[0] = 128;
      gpu.add(k);
    }
    const auto advice = recommend(gpu.t);
    auto it = std::find_if(advice.begin(), advice.end(),
                           [](const Recommendation& r) { return r.rule == "launch_overhead"; });
    REQUIRE(it != advice.end());
    CHECK_THAT(it->evidence, Catch::Contains("60 of 60 kernels tiny"));
    CHECK_THAT(it->evidence, Catch::Contains("median 48 bytes moved per kernel"));
  }
  Builder big_kernels;  // the same count of kernels over 64 MiB each, however short
  big_kernels.request(1, 60, 1'000, 5'000, kOnGpu, 3, uint64_t{64} << 20);
  for (int i = 0; i < 60; ++i) {
    Record k;
    k.kind = RecordKind::Kernel;
    k.request = 1;
    k.id = static_cast<uint64_t>(i);
    k.dur_ns = 3'000;
    big_kernels.add(k);
  }
  CHECK_FALSE(has(big_kernels.rules(), "launch_overhead"));
  Builder unattributed;  // kernels without a step: sized by their threads
  for (int i = 0; i < 60; ++i) {
    Record k;
    k.kind = RecordKind::Kernel;
    k.grid[0] = i < 40 ? 1024 : 2;
    k.block[0] = 256;
    unattributed.add(k);
  }
  CHECK_FALSE(has(unattributed.rules(), "launch_overhead"));  // 40 of 60 launch 262144 threads

  // Host: 25 different small graphs (no sync_in_loop: no plan repeats), 3 steps of 48 bytes.
  // Their steps take most of each request's time here: the rule does not look at times.
  Builder host;
  for (int i = 0; i < 25; ++i) host.request(1000 + i, 3, 90'000, 3'000);
  const auto rules = host.rules();
  CHECK(has(rules, "launch_overhead"));
  CHECK_FALSE(has(rules, "sync_in_loop"));
  for (const auto& r : recommend(host.t)) {
    if (r.rule == "launch_overhead") {
      CHECK_THAT(r.evidence, Catch::Contains("25 of 25 requests touched <= 1048576 bytes"));
      CHECK_THAT(r.evidence, Catch::Contains("median 144 bytes in 3 steps"));
    }
  }
  Builder big_requests;  // the same requests over 4 MiB per step, swamped by overhead or not
  for (int i = 0; i < 25; ++i) {
    big_requests.request(1000 + i, 3, 1'000, 900'000, 0, 3, uint64_t{4} << 20);
  }
  CHECK_FALSE(has(big_requests.rules(), "launch_overhead"));
  Builder few;  // 19 small requests: not enough evidence
  for (int i = 0; i < 19; ++i) few.request(1000 + i, 3, 3'000, 90'000);
  CHECK_FALSE(has(few.rules(), "launch_overhead"));
}

TEST_CASE("repeated_transfer: the same bytes uploaded again and again") {
  Builder b;
  for (int i = 0; i < 4; ++i) {
    Record u;
    u.stage = static_cast<uint8_t>(Stage::Upload);
    u.hash = 0xabcdef;
    u.bytes = 1 << 20;
    b.add(u);
  }
  CHECK(has(b.rules(), "repeated_transfer"));
  Builder different;
  for (int i = 0; i < 4; ++i) {
    Record u;
    u.stage = static_cast<uint8_t>(Stage::Upload);
    u.hash = 0xabcdef + static_cast<uint64_t>(i);
    u.bytes = 1 << 20;
    different.add(u);
  }
  CHECK_FALSE(has(different.rules(), "repeated_transfer"));
  Builder gpu;  // host-to-device copies of the same content
  for (int i = 0; i < 3; ++i) {
    Record m;
    m.kind = RecordKind::Memcpy;
    m.stage = static_cast<uint8_t>(MemcpyKind::HostToDevice);
    m.hash = 77;
    m.bytes = 1 << 16;
    gpu.add(m);
  }
  CHECK(has(gpu.rules(), "repeated_transfer"));
}
