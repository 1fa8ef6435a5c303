// Session.profile against the real daemon: streamed spans of every stage tagged with this file's
// lines, memory books that balance, the OOM report, back-pressure with counted drops, and the
// CPU-observable recommendations firing on crafted workloads and silent on a good one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "engine/profiler/chrome.h"
#include "tests/integration/client/client_fixture.h"
#include "tests/support/profiler/chrome_check.h"

using tensord::test::ClientFixture;
namespace profiler = tensord::profiler;

namespace {

bool is(const profiler::Record& r, profiler::Stage s) {
  return r.kind == profiler::RecordKind::Span && static_cast<profiler::Stage>(r.stage) == s;
}

bool from_this_file(const profiler::Trace& t, const profiler::Record& r) {
  return t.str(r.file).ends_with("test_profile.cpp");
}

std::set<std::string> rules(tensord::Profile& p) {
  std::set<std::string> out;
  for (const auto& r : p.recommendations()) out.insert(r.rule);
  return out;
}

}  // namespace

TEST_CASE("a profile streams every stage of a request, steps tagged with the user's line") {
  ClientFixture f;
  auto& s = f.session;
  auto prof = s.profile();
  auto x = s.from_vector<float>(std::vector<float>(256, 1.0f), {16, 16});
  const uint32_t line = __LINE__ + 2;
  // abs is no matmul epilogue, so the matmul is a step of its own (engine/plan/epilogue.h).
  auto y = tensord::abs(tensord::matmul(x, x) + 1.0f);
  std::vector<float> v = y.to_vector<float>();
  CHECK(v[0] == 17.0f);
  prof.stop();
  CHECK_FALSE(prof.running());
  const profiler::Trace& t = prof.trace();
  CHECK(prof.dropped() == 0);
  std::map<profiler::Stage, int> stages;
  const profiler::Record* request = nullptr;
  for (const auto& r : t.records) {
    if (r.kind != profiler::RecordKind::Span) continue;
    stages[static_cast<profiler::Stage>(r.stage)]++;
    if (is(r, profiler::Stage::Request)) request = &r;
  }
  for (auto stage :
       {profiler::Stage::Receive, profiler::Stage::QueueWait, profiler::Stage::Validate,
        profiler::Stage::PlanLookup, profiler::Stage::PlanBuild, profiler::Stage::Execute,
        profiler::Stage::Upload, profiler::Stage::Fetch}) {
    INFO(profiler::stage_name(stage));
    CHECK(stages[stage] == 1);
  }
  REQUIRE(request != nullptr);
  std::set<std::string> ops;
  for (const auto& r : t.records) {
    if (r.kind != profiler::RecordKind::Span) continue;
    // Every span of the request lies within it (the clocks are one steady clock).
    CHECK(r.request == request->request);
    CHECK(r.start_ns >= request->start_ns);
    CHECK(r.start_ns + r.dur_ns <= request->start_ns + request->dur_ns);
    if (is(r, profiler::Stage::Step)) {
      CHECK(from_this_file(t, r));
      CHECK(r.line == line);
      ops.insert(t.str(r.name));
    }
  }
  CHECK(ops.count("matmul") == 1);
  CHECK(ops.count("fused:add+abs") == 1);  // one generated kernel for + 1.0f and abs
  auto check = tensord::test::check_chrome_trace(prof.chrome_trace_json());
  CHECK(check.errors == std::vector<std::string>{});
  bool listed = false;
  for (const auto& row : prof.key_averages()) {
    if (row.key == "matmul") {
      listed = true;
      CHECK(row.calls == 1);
      CHECK(row.source.ends_with("test_profile.cpp:" + std::to_string(line)));
    }
  }
  CHECK(listed);
}

TEST_CASE("memory books balance: snapshot = live tensors, every alloc freed at the end") {
  // Large host data goes through shared memory on a unix socket and through a staging buffer
  // in chunks over TCP: both paths are in the books.
  const bool tcp = GENERATE(false, true);
  ClientFixture f({}, tcp ? tensord::test::Transport::Tcp : tensord::test::Transport::Unix);
  auto& s = f.session;
  auto prof = s.profile({.trace = true, .memory = true});
  {
    auto x = s.from_vector<float>(std::vector<float>(256, 2.0f), {16, 16});
    auto y = tensord::exp(x * 0.5f) + 1.0f;
    // Over maxChunkBytes: an upload of its own (shared memory, or chunks through staging).
    auto big = s.from_vector<float>(std::vector<float>(1200000, 1.0f), {1200000});
    s.sync({y, big});
    REQUIRE(f.live_tensors_eventually(3) == 3);
    CHECK(big.to_vector<float>().size() == 1200000);  // in chunks, or through shared memory
    profiler::Trace snap = prof.memory_snapshot();
    uint64_t bytes = 0;
    std::set<std::string> ops;
    for (const auto& r : snap.records) {
      if (r.kind == profiler::RecordKind::SegmentAlloc) continue;  // the device's segments
      if (r.flags & profiler::kDeviceOwned) continue;  // a GPU's workspaces: no session's
      CHECK((r.flags & profiler::kPendingFree) == 0);  // one stream: frees complete at once
      bytes += r.bytes;
      ops.insert(snap.str(r.name));
      CHECK(r.kind == profiler::RecordKind::Alloc);
    }
    CHECK(bytes == s.stats().live_bytes);
    CHECK(ops.count("upload") == 1);
    size_t uploads = 0;
    for (const auto& r : snap.records) uploads += snap.str(r.name) == "upload";
    CHECK(uploads == 2);  // the inline input and the large upload; any staging went
    // Nested: the large upload's buffer is a block of the host block cache (a segment of its
    // own); the small ones come from malloc, outside any segment.
    profiler::MemorySnapshot nested = prof.memory_segments();
    uint64_t nested_bytes = 0;
    bool big_in_segment = false;
    for (const auto& seg : nested.segments) {
      CHECK(seg.recorded_bytes <= seg.segment.bytes);
      for (const auto& b : seg.blocks) {
        nested_bytes += b.bytes;
        big_in_segment = big_in_segment || (b.bytes == 4800000 && b.op == "upload" &&
                                            b.address == seg.segment.address);
      }
    }
    for (const auto& b : nested.outside) nested_bytes += b.bytes;
    CHECK(nested_bytes == bytes);
    if (tcp) CHECK(big_in_segment);  // over unix sockets it may be a shared memory mapping
  }
  REQUIRE(f.live_tensors_eventually(0) == 0);
  // A buffer is freed when its last holder lets go, which can be a moment after the session's
  // count drops: a worker finishing the chunked read that used it. Wait for the books, not a
  // fixed time.
  auto live_blocks = [&] {
    size_t n = 0;
    for (const auto& r : prof.memory_snapshot().records) {
      n += r.kind == profiler::RecordKind::Alloc && !(r.flags & profiler::kDeviceOwned);
    }
    return n;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (live_blocks() != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  prof.stop();
  const profiler::Trace& t = prof.trace();
  std::map<uint64_t, int64_t> blocks;
  std::map<uint64_t, int> requested;  // the client asks for free-requested records (1.4)
  size_t allocs = 0;
  for (const auto& r : t.records) {
    if (r.flags & profiler::kDeviceOwned) continue;
    if (r.kind == profiler::RecordKind::Alloc) {
      blocks[r.id] += static_cast<int64_t>(r.bytes);
      allocs++;
    } else if (r.kind == profiler::RecordKind::FreeRequested) {
      requested[r.id]++;
      CHECK(r.session == t.session);
      CHECK(!t.str(r.name).empty());
    } else if (r.kind == profiler::RecordKind::Free) {
      CHECK(requested[r.id] == 1);  // requested once, before it completed
      blocks[r.id] -= static_cast<int64_t>(r.bytes);
    }
  }
  CHECK(requested.size() == blocks.size());
  // The two uploads, y's buffer (one fused kernel writes it) and, over TCP, the staging.
  CHECK(allocs >= (tcp ? 4u : 3u));
  for (const auto& [id, balance] : blocks) CHECK(balance == 0);
  std::map<std::string, uint64_t> staging;  // bytes by op
  for (const auto& r : t.records) {
    if (r.kind == profiler::RecordKind::Alloc &&
        static_cast<profiler::MemoryCategory>(r.stage) == profiler::MemoryCategory::Staging) {
      staging[t.str(r.name) + (r.request == 0 ? "" : " in run")] += r.bytes;
    }
  }
  // The inline input's bytes while they wait for the worker; over TCP the chunked reads'
  // replies and the chunked upload's staging too (a unix socket shares memory both ways).
  CHECK(staging["upload in run"] == 256 * 4);
  CHECK(staging["fetch"] == (tcp ? 4800000u : 0u));
  CHECK(staging["upload"] == (tcp ? 4800000u : 0u));
  uint64_t chunked_read = 0;
  for (const auto& r : t.records) {
    if (is(r, profiler::Stage::Fetch) && r.request == 0) chunked_read += r.bytes;
  }
  CHECK(chunked_read == 4800000);
  auto timeline = prof.memory_timeline();
  REQUIRE_FALSE(timeline.empty());
  CHECK(timeline.back().total() == 0);
  // Segment records: the device's reserved bytes, never negative, and the records' running sum
  // is what each carries as the reserved total after it.
  int64_t reserved = 0, peak_reserved = 0;
  for (const auto& r : t.records) {
    if (r.kind != profiler::RecordKind::SegmentAlloc &&
        r.kind != profiler::RecordKind::SegmentFree) {
      continue;
    }
    reserved += r.kind == profiler::RecordKind::SegmentAlloc ? static_cast<int64_t>(r.bytes)
                                                             : -static_cast<int64_t>(r.bytes);
    CHECK(static_cast<uint64_t>(reserved) == r.value);
    peak_reserved = std::max(peak_reserved, reserved);
  }
  if (tcp) CHECK(peak_reserved >= 4800000);  // the big upload's segment (and its staging)
  for (const auto& p : timeline) CHECK(p.reserved_bytes >= 0);
}

TEST_CASE("kernel scratch and fetch staging are in the books, at the user's line, and freed") {
  // Over TCP a large result is read back in chunks (each reply is staging); over a unix socket
  // it goes straight into the client's shared memory (no staging).
  const bool tcp = GENERATE(false, true);
  ClientFixture f({}, tcp ? tensord::test::Transport::Tcp : tensord::test::Transport::Unix);
  auto& s = f.session;
  auto prof = s.profile({.trace = true, .memory = true});
  std::vector<float> data(8 * 65536);
  uint32_t line = 0, big_line = 0;
  {
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>((i * 7919) % 10007);
    auto x = s.from_vector<float>(data, {8, 65536});
    line = __LINE__ + 1;
    auto sorted = tensord::sort(x, 1).values;             // keys and indices per row chunk: scratch
    std::vector<float> back = sorted.to_vector<float>();  // 2 MiB: inline in the run's reply
    REQUIRE(back.size() == data.size());
    CHECK(std::is_sorted(back.begin(), back.begin() + 65536));
    // Over maxChunkBytes: read back in chunks over TCP.
    auto ones = s.from_vector<float>(std::vector<float>(1200000, 1.0f), {1200000});
    big_line = __LINE__ + 1;
    auto big = tensord::sort(ones).values;
    CHECK(big.to_vector<float>().size() == 1200000);
  }
  REQUIRE(f.live_tensors_eventually(0) == 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  auto live_blocks = [&] {
    size_t n = 0;
    for (const auto& r : prof.memory_snapshot().records) {
      n += r.kind == profiler::RecordKind::Alloc && !(r.flags & profiler::kDeviceOwned);
    }
    return n;
  };
  while (live_blocks() != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  prof.stop();
  const profiler::Trace& t = prof.trace();
  std::map<uint64_t, int64_t> blocks;
  std::map<std::string, uint64_t> scratch_ops, staging_ops;
  bool fetch_at_line = false;
  uint64_t chunked_fetch_at_big_line = 0;
  for (const auto& r : t.records) {
    if (r.flags & profiler::kDeviceOwned) continue;
    const auto category = static_cast<profiler::MemoryCategory>(r.stage);
    if (r.kind == profiler::RecordKind::Alloc) {
      blocks[r.id] += static_cast<int64_t>(r.bytes);
      if (category == profiler::MemoryCategory::Scratch) {
        scratch_ops[t.str(r.name)] += r.bytes;
        if (t.str(r.name) == "sort") {
          CHECK(from_this_file(t, r));
          CHECK((r.line == line || r.line == big_line));
        }
      }
      if (category == profiler::MemoryCategory::Staging) {
        staging_ops[t.str(r.name)] += r.bytes;
        fetch_at_line = fetch_at_line || (t.str(r.name) == "fetch" && r.line == line &&
                                          from_this_file(t, r) && r.bytes == data.size() * 4);
        // A chunked read is not part of a run (request 0) but names the line that made it.
        if (t.str(r.name) == "fetch" && r.request == 0 && r.line == big_line &&
            from_this_file(t, r))
          chunked_fetch_at_big_line += r.bytes;
      }
    } else if (r.kind == profiler::RecordKind::Free) {
      blocks[r.id] -= static_cast<int64_t>(r.bytes);
    }
  }
  for (const auto& [id, balance] : blocks) CHECK(balance == 0);
  CHECK(scratch_ops["sort"] >= 65536 * 8);  // one row's int64 permutation at least
  CHECK(fetch_at_line);  // the inline fetch of `sorted`, named after the line that made it
  CHECK(chunked_fetch_at_big_line == (tcp ? 4800000u : 0u));  // `big`'s chunks, over TCP
  CHECK(staging_ops["fetch"] >= data.size() * 4 + (tcp ? 4800000u : 0u));
  CHECK(staging_ops["upload"] > 0);  // inline input bytes waiting for the worker
  std::map<std::string, profiler::CategorySummary> rows;
  for (const auto& r : prof.memory_summary())
    rows[std::string(profiler::category_name(r.category))] = r;
  for (const char* c : {"scratch", "staging"}) {
    CHECK(rows[c].allocs > 0);
    CHECK(rows[c].peak_allocated > 0);
    CHECK(rows[c].allocated == 0);  // every block freed by the end
  }
  auto check = tensord::test::check_chrome_trace(prof.chrome_trace_json());
  CHECK(check.errors == std::vector<std::string>{});
  CHECK(prof.chrome_trace_json().find("\"scratch\"") != std::string::npos);
}

TEST_CASE("a client that does not ask for free-requested records gets the completed frees only") {
  // A 1.3 client's decoder refuses unknown record kinds: it never sets freeRequested.
  ClientFixture f;
  auto& s = f.session;
  auto prof = s.profile({.trace = false, .memory = true, .free_requested = false});
  (s.full({64}, 1.0f) * 2.0f).to_vector<float>();
  REQUIRE(f.live_tensors_eventually(0) == 0);
  prof.stop();
  size_t allocs = 0, frees = 0;
  for (const auto& r : prof.trace().records) {
    CHECK(r.kind != profiler::RecordKind::FreeRequested);
    allocs += r.kind == profiler::RecordKind::Alloc;
    frees += r.kind == profiler::RecordKind::Free;
  }
  CHECK(allocs > 0);
  CHECK(frees > 0);
}

TEST_CASE("a profile says what the session held when it began, and stacks from it") {
  ClientFixture f;
  auto& s = f.session;
  const uint32_t line = __LINE__ + 1;
  auto held = s.full({1 << 16}, 1.0f);  // 256 KiB, made while no profile records memory
  s.sync({held});
  const uint64_t live = s.stats().live_bytes;
  auto prof = s.profile({.trace = true, .memory = true});
  CHECK(prof.held_before() == live);
  REQUIRE_FALSE(prof.held_before_by().empty());
  const std::string origin = prof.held_before_by()[0].origin;  // the client's full path
  CHECK(origin.ends_with("/test_profile.cpp:" + std::to_string(line) + " (full)"));
  CHECK(prof.held_before_by()[0].bytes == 262144);
  auto small = s.full({256}, 2.0f);
  s.sync({small});
  prof.stop();
  // The ledger never saw `held` allocated: the timeline alone starts from 0; stacked, from the
  // bytes held, with the 1 KiB made since on top.
  const std::vector<profiler::MemoryPoint> timeline = prof.memory_timeline();
  REQUIRE_FALSE(timeline.empty());
  const profiler::MemoryStacker stacker(timeline, prof.held_before());
  CHECK(stacker.start().total() == static_cast<int64_t>(live));
  int64_t peak = 0;
  for (const profiler::MemoryPoint& p : timeline) {
    const profiler::MemoryStack stack = stacker.at(p);
    CHECK(stack.held_before == static_cast<int64_t>(live));
    peak = std::max(peak, stack.total());
  }
  CHECK(peak >= static_cast<int64_t>(live) + 1024);
}

TEST_CASE("out of memory names the request and the lines holding memory") {
  ClientFixture f(
      tensord::test::DaemonOptions::with_args({"--max-tensor-bytes", "4503599627370496"}));
  auto& s = f.session;
  auto prof = s.profile({.trace = true, .memory = true});
  const uint32_t keep_line = __LINE__ + 1;
  auto keep = s.full({1 << 16}, 1.0f);
  s.sync({keep});
  const uint32_t huge_line = __LINE__ + 1;
  auto huge = s.full({int64_t{1} << 23, int64_t{1} << 23}, 2.0f);  // 256 TiB
  try {
    s.sync({huge});
    FAIL("a 256 TiB tensor was allocated");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == tensord::ErrorCode::OutOfMemory);
    std::string m = e.what();
    INFO(m);
    CHECK(m.find("test_profile.cpp:" + std::to_string(huge_line) + " (full)") != std::string::npos);
    CHECK(m.find("test_profile.cpp:" + std::to_string(keep_line) + " (full) 262144 B") !=
          std::string::npos);
  }
  prof.stop();
  size_t ooms = 0;
  for (const auto& r : prof.trace().records) ooms += r.kind == profiler::RecordKind::Oom;
  CHECK(ooms == 1);
  CHECK((keep + 1.0f).to_vector<float>()[0] == 2.0f);  // the session goes on
}

TEST_CASE("a slow reader makes the daemon drop and count, never grow") {
  ClientFixture f;
  auto& s = f.session;
  auto x = s.from_vector<float>(std::vector<float>(16, 1.0f), {16});
  auto chain = [&] {
    tensord::Tensor y = x;
    for (int i = 0; i < 2000; ++i) y = (i % 2 == 0) ? y * 1.0001f : y + 0.5f;
    return y.to_vector<float>();
  };
  s.set_compile_mode("eager");  // a step per op: many records, not one fused kernel
  s.sync({x});
  chain();  // the plan is cached from here on, so both profiles see the same records
  size_t bounded_total = 0, full_total = 0;
  uint64_t dropped = 0;
  {
    auto prof = s.profile({.trace = true, .memory = false, .buffer_records = 32});
    chain();
    prof.stop();
    dropped = prof.dropped();
    bounded_total = prof.trace().records.size() + dropped;
    CHECK(prof.trace().records.size() < 2000);
  }
  {
    auto prof = s.profile({.trace = true, .memory = false, .buffer_records = 1 << 20});
    chain();
    prof.stop();
    CHECK(prof.dropped() == 0);
    full_total = prof.trace().records.size();
  }
  CHECK(dropped > 0);
  CHECK(full_total > 2000);
  CHECK(bounded_total == full_total);  // every record either arrived or was counted
}

TEST_CASE("one profile at a time; dropping the Profile stops and flushes it") {
  ClientFixture f;
  auto& s = f.session;
  {
    auto prof = s.profile();
    CHECK_THROWS_AS(s.profile(), tensord::Error);
    (s.full({4}, 1.0f) + 1.0f).to_vector<float>();
  }
  auto again = s.profile();  // the first one stopped when it went
  (s.full({4}, 1.0f) + 2.0f).to_vector<float>();
  again.stop();
  CHECK(again.trace().records.size() > 5);
}

TEST_CASE("recommendations fire on round trips in a loop and repeated transfers") {
  ClientFixture f;
  auto& s = f.session;
  auto x = s.from_vector<float>({1, 2, 3, 4}, {4});
  s.sync({x});
  {
    auto prof = s.profile();
    for (int i = 0; i < 30; ++i) (x + 1.0f).to_vector<float>();  // a sync per iteration
    prof.stop();
    auto r = rules(prof);
    CHECK(r.count("sync_in_loop") == 1);
    CHECK(r.count("launch_overhead") == 1);
    CHECK(r.count("repeated_transfer") == 0);
    for (const auto& rec : prof.recommendations()) {
      if (rec.rule == "sync_in_loop") {
        CHECK(rec.message.find("test_profile.cpp:") != std::string::npos);
        CHECK(rec.evidence.find("30 syncs") != std::string::npos);
      }
    }
  }
  {
    auto prof = s.profile();
    std::vector<float> data(4096, 3.0f);
    for (int i = 0; i < 4; ++i) s.from_vector<float>(data, {4096}).sum().to_vector<float>();
    prof.stop();
    auto r = rules(prof);
    CHECK(r.count("repeated_transfer") == 1);
    CHECK(r.count("sync_in_loop") == 0);
  }
}

TEST_CASE("recommendations name the op that breaks fusion, at the user's line") {
  ClientFixture f;
  auto& s = f.session;
  auto x = s.from_vector<float>(std::vector<float>(64, 0.5f), {8, 8});
  s.sync({x});
  auto prof = s.profile();
  const uint32_t line = __LINE__ + 1;
  auto l = tensord::lgamma(tensord::exp(-x));  // the code generator has no lgamma
  tensord::exp(l * 2.0f).to_vector<float>();
  prof.stop();
  bool named = false;
  for (const auto& rec : prof.recommendations()) {
    if (rec.rule != "fusion_break") continue;
    named = rec.message.find("'lgamma' at ") != std::string::npos &&
            rec.message.find("test_profile.cpp:" + std::to_string(line)) != std::string::npos;
  }
  CHECK(named);
}

TEST_CASE("recommendations stay silent on a good workload") {
  ClientFixture f;
  auto& s = f.session;
  // Each sync multiplies 768x768 matrices (7 MiB read and written): real work, not a tiny
  // graph, however fast or loaded the machine (sync_in_loop decides on sizes, not times).
  auto a = s.rand({768, 768}, 1);
  auto b = s.rand({768, 768}, 2);
  s.sync({a, b});
  auto prof = s.profile();
  for (int i = 0; i < 25; ++i) s.sync({tensord::matmul(a, b)});
  std::vector<float> data(4096, 3.0f);
  auto big = s.from_vector<float>(data, {4096});  // uploaded once, used many times
  tensord::Tensor acc = big;
  for (int i = 0; i < 200; ++i) acc = acc * 0.5f + big;
  acc.to_vector<float>();
  prof.stop();
  std::string fired;
  for (const auto& r : prof.recommendations()) fired += r.rule + ": " + r.evidence + "\n";
  INFO(fired);
  CHECK(fired.empty());
}

TEST_CASE("a fused step is named after the ops of its kernel, at the first op's line") {
  ClientFixture f;
  auto& s = f.session;
  auto x = s.from_vector<float>(std::vector<float>(64, 2.0f), {8, 8});
  s.sync({x});
  auto prof = s.profile();
  const uint32_t line = __LINE__ + 1;
  auto y = tensord::exp(x * 0.5f) + 1.0f;
  CHECK(y.to_vector<float>()[0] == Approx(std::exp(1.0f) + 1.0f));
  prof.stop();
  const profiler::Trace& t = prof.trace();
  std::vector<std::string> steps;
  for (const auto& r : t.records) {
    if (!is(r, profiler::Stage::Step)) continue;
    steps.push_back(t.str(r.name));
    CHECK(r.line == line);
  }
  REQUIRE(steps.size() == 1);  // one generated kernel for mul, exp and add
  CHECK(steps[0] == "fused:mul+exp+add");
}
