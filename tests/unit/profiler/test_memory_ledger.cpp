#include "engine/profiler/memory_ledger.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "engine/profiler/advice.h"
#include "engine/profiler/compact.h"
#include "engine/profiler/summary.h"

using namespace tensord::profiler;

namespace {

// Drains the profiler into a trace (the way the daemon's stream and the client do).
void drain_into(Profiler& p, Trace& t) {
  Pending pending;
  pending.first_string = static_cast<uint32_t>(t.strings.size());
  while (p.drain(pending, 1 << 20)) t.append_chunk(encode_chunk(pending, p.session()));
}

}  // namespace

TEST_CASE("the ledger's books balance at every point") {
  auto ledger = std::make_shared<MemoryLedger>();
  auto p1 = std::make_shared<Profiler>(1);
  auto p2 = std::make_shared<Profiler>(2);
  p1->start({.trace = false, .memory = true, .capacity = 1 << 20});
  p2->start({.trace = false, .memory = true, .capacity = 1 << 20});
  std::mt19937 rng(7);
  std::vector<BlockTicket> live;
  uint64_t expected_live = 0;
  std::vector<uint64_t> sizes;
  for (int i = 0; i < 2000; ++i) {
    if (live.empty() || rng() % 3 != 0) {
      AllocSite site;
      site.profiler = rng() % 2 ? p1 : p2;
      site.op = "add";
      site.file = "model.py";
      site.line = 10 + rng() % 5;
      uint64_t bytes = 64 + rng() % 4096;
      live.push_back(ledger->track(bytes, site));
      sizes.push_back(bytes);
      expected_live += bytes;
    } else {
      size_t k = rng() % live.size();
      expected_live -= sizes[k];
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
      sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(k));
    }
    LedgerTotals t = ledger->totals();
    REQUIRE(t.live_bytes == expected_live);
    REQUIRE(t.allocated_bytes - t.freed_bytes == t.live_bytes);
    if (i % 100 == 0) {
      uint64_t sum = 0;
      for (const LiveBlock& b : ledger->snapshot()) sum += b.bytes;
      REQUIRE(sum == t.live_bytes);
      uint64_t s1 = 0, s2 = 0;
      for (const LiveBlock& b : ledger->snapshot(1)) s1 += b.bytes;
      for (const LiveBlock& b : ledger->snapshot(2)) s2 += b.bytes;
      REQUIRE(s1 + s2 == sum);
    }
  }
  live.clear();
  CHECK(ledger->totals().live_bytes == 0);
  CHECK(ledger->totals().allocs == ledger->totals().frees);
  // Each session's stream has an Alloc and a Free per block of its own, with matching sizes.
  for (auto* p : {p1.get(), p2.get()}) {
    Trace t;
    drain_into(*p, t);
    int64_t balance = 0;
    size_t allocs = 0;
    for (const Record& r : t.records) {
      CHECK(r.session == p->session());
      if (r.kind == RecordKind::Alloc) {
        balance += static_cast<int64_t>(r.bytes);
        allocs++;
        CHECK(t.str(r.file) == "model.py");
        CHECK(t.str(r.name) == "add");
      } else if (r.kind == RecordKind::Free) {
        balance -= static_cast<int64_t>(r.bytes);
      }
    }
    CHECK(allocs > 0);
    CHECK(balance == 0);
  }
}

TEST_CASE("the OOM report names the top holders by session and by line") {
  auto ledger = std::make_shared<MemoryLedger>();
  auto p = std::make_shared<Profiler>(4);
  p->start({.trace = false, .memory = true});
  AllocSite big{p, 1, "matmul", "train.py", 40, MemoryCategory::Tensor};
  AllocSite small{p, 1, "add", "train.py", 41, MemoryCategory::Tensor};
  auto a = ledger->track(1 << 20, big);
  auto b = ledger->track(1 << 20, big);
  auto c = ledger->track(1000, small);
  OomReport r = ledger->out_of_memory(uint64_t{1} << 40, small);
  CHECK(r.live_bytes == (2 << 20) + 1000);
  CHECK(r.live_blocks == 3);
  REQUIRE(r.by_line.size() == 2);
  CHECK(r.by_line[0].who == "train.py:40 (matmul)");
  CHECK(r.by_line[0].blocks == 2);
  REQUIRE(r.by_session.size() == 1);
  CHECK(r.by_session[0].who == "session 4");
  std::string text = r.text();
  CHECK(text.find("requested by train.py:41 (add)") != std::string::npos);
  CHECK(text.find("train.py:40 (matmul) 2097152 B in 2 blocks") != std::string::npos);
  CHECK(text.find('\n') == std::string::npos);  // one line: it goes into an error message
  Trace t;
  drain_into(*p, t);
  size_t ooms = 0;
  for (const Record& rec : t.records) ooms += rec.kind == RecordKind::Oom;
  CHECK(ooms == 1);
}

TEST_CASE("a free after the profile restarted does not reach the new stream") {
  auto ledger = std::make_shared<MemoryLedger>();
  auto p = std::make_shared<Profiler>(1);
  p->start({.trace = false, .memory = true});
  AllocSite site;
  site.profiler = p;
  auto block = ledger->track(100, site);
  p->stop();
  p->start({.trace = false, .memory = true});
  block.reset();
  Trace t;
  drain_into(*p, t);
  CHECK(t.records.empty());
  CHECK(ledger->totals().live_bytes == 0);
}

TEST_CASE("a profile adopts its session's blocks held at its start and records their frees") {
  auto ledger = std::make_shared<MemoryLedger>();
  auto p = std::make_shared<Profiler>(1);
  auto other = std::make_shared<Profiler>(2);
  // Tracked while earlier profiles recorded memory, then those profiles stopped.
  p->start({.trace = false, .memory = true});
  other->start({.trace = false, .memory = true});
  AllocSite mine{p, 4, "ones", "model.py", 7, MemoryCategory::Tensor};
  BlockTicket held = ledger->track(1 << 20, mine);
  BlockTicket kept = ledger->track(2 << 20, mine);
  AllocSite theirs{other, 5, "zeros", "other.py", 3, MemoryCategory::Tensor};
  BlockTicket foreign = ledger->track(4 << 20, theirs);
  p->stop();
  other->stop();
  Trace earlier, theirs_trace;
  drain_into(*p, earlier);
  drain_into(*other, theirs_trace);

  p->start({.trace = false, .memory = true});
  ledger->subscribe(p, 1);
  ledger->subscribe(p, 1);  // again: blocks of this profile are its own already
  AllocSite during{p, 6, "matmul", "model.py", 9, MemoryCategory::Tensor};
  BlockTicket fresh = ledger->track(8 << 20, during);
  held.reset();     // held before the profile, freed during it
  foreign.reset();  // another session's: not this profile's
  fresh.reset();
  Trace t;
  drain_into(*p, t);
  REQUIRE(t.records.size() == 5);
  CHECK(t.records[0].kind == RecordKind::Alloc);
  CHECK(t.records[0].flags == kExisting);
  CHECK(t.records[0].id == held.id());
  CHECK(t.records[0].bytes == 1 << 20);
  CHECK(t.records[0].session == 1);
  CHECK(t.str(t.records[0].name) == "ones");
  CHECK(t.str(t.records[0].file) == "model.py");
  CHECK(t.records[1].flags == kExisting);
  CHECK(t.records[1].bytes == 2 << 20);
  CHECK(t.records[2].kind == RecordKind::Alloc);
  CHECK(t.records[2].flags == 0);
  CHECK(t.records[3].kind == RecordKind::Free);
  CHECK(t.records[3].bytes == 1 << 20);
  CHECK(t.records[3].id == t.records[0].id);
  CHECK(t.records[4].kind == RecordKind::Free);
  CHECK(t.records[4].bytes == 8 << 20);
  for (const Record& r : t.records) CHECK(r.bytes != 4 << 20);  // never the other session's

  // The timeline starts from the held blocks and drops when one goes; the tables count only
  // the allocation made during the profile.
  const std::vector<MemoryPoint> points = memory_timeline(t);
  REQUIRE(points.size() == 5);
  CHECK(points[1].total() == 3 << 20);
  CHECK(points[2].total() == 11 << 20);
  CHECK(points[3].total() == 10 << 20);
  CHECK(points[4].total() == 2 << 20);
  // Of those bytes, the ones held before the profile (the dashboard's held_before band).
  CHECK(points[0].adoption);
  CHECK(points[1].adoption);
  CHECK_FALSE(points[2].adoption);
  CHECK(points[1].held_before_total() == 3 << 20);
  CHECK(points[2].held_before_total() == 3 << 20);
  CHECK(points[3].held_before_total() == 2 << 20);
  CHECK(points[4].held_before_total() == 2 << 20);
  // Stacked from the account's bytes then (3 MiB tracked, 5 MiB more the ledger never saw):
  // the band is all 8 MiB and drops by the tracked block freed; the categories have the rest.
  const MemoryStacker stacker(points, 8 << 20);
  CHECK(stacker.start().held_before == 8 << 20);
  CHECK(stacker.start().total() == 8 << 20);
  const size_t tensor = static_cast<size_t>(MemoryCategory::Tensor);
  CHECK(stacker.at(points[2]).held_before == 8 << 20);
  CHECK(stacker.at(points[2]).by_category[tensor] == 8 << 20);
  CHECK(stacker.at(points[3]).held_before == 7 << 20);
  CHECK(stacker.at(points[4]).total() == 7 << 20);
  CHECK(stacker.at(points[4]).by_category[tensor] == 0);
  // An account holding less than the ledger adopted (an older daemon sends 0): the adopted.
  CHECK(MemoryStacker(points, 0).start().held_before == 3 << 20);
  const std::vector<CategorySummary> rows = memory_summary(t);
  CHECK(rows[static_cast<size_t>(MemoryCategory::Tensor)].allocs == 1);
  CHECK(rows[static_cast<size_t>(MemoryCategory::Tensor)].allocated == 2 << 20);
  CHECK(rows[static_cast<size_t>(MemoryCategory::Tensor)].peak_allocated == 11 << 20);
}

TEST_CASE("a device allocator's OOM with scattered free memory triggers the fragmentation rule") {
  auto ledger = std::make_shared<MemoryLedger>();
  auto p = std::make_shared<Profiler>(2);
  p->start({.trace = false, .memory = true});
  AllocSite site{p, 9, "matmul", "train.py", 50, MemoryCategory::Tensor};
  auto held = ledger->track(uint64_t{3} << 30, site);
  OomReport r =
      ledger->out_of_memory(uint64_t{600} << 20, site, uint64_t{1000} << 20, uint64_t{200} << 20);
  CHECK(r.text().find("largest free block 209715200 of 1048576000 free") != std::string::npos);
  Trace t;
  drain_into(*p, t);
  auto advice = recommend(t);
  REQUIRE(advice.size() == 1);
  CHECK(advice[0].rule == "fragmentation");
  CHECK(advice[0].evidence.find("train.py:50") != std::string::npos);
}

TEST_CASE("on the host a free is requested and completed at once; old clients get the Free only") {
  auto ledger = std::make_shared<MemoryLedger>();
  auto modern = std::make_shared<Profiler>(1);
  auto old = std::make_shared<Profiler>(2);
  modern->start({.trace = false, .memory = true, .capacity = 1024, .free_requested = true});
  old->start({.trace = false, .memory = true, .capacity = 1024});
  AllocSite a{modern, 5, "exp", "model.py", 21, MemoryCategory::Tensor};
  AllocSite b{old, 6, "exp", "model.py", 22, MemoryCategory::Tensor};
  ledger->track(300, a).reset();
  ledger->track(400, b).reset();
  Trace tm, to;
  drain_into(*modern, tm);  // through the compact codec, as the client gets them
  drain_into(*old, to);
  REQUIRE(tm.records.size() == 3);
  CHECK(tm.records[0].kind == RecordKind::Alloc);
  CHECK(tm.records[1].kind == RecordKind::FreeRequested);
  CHECK(tm.records[2].kind == RecordKind::Free);
  for (const Record& r : tm.records) {
    CHECK(r.bytes == 300);
    CHECK(r.session == 1);
    CHECK(r.request == 5);
    CHECK(tm.str(r.name) == "exp");
    CHECK(tm.str(r.file) == "model.py");
    CHECK(r.line == 21);
    CHECK(r.id == tm.records[0].id);
  }
  CHECK((tm.records[1].flags & kDeferredFree) == 0);  // completed at once
  CHECK((tm.records[2].flags & kDeferredFree) == 0);
  CHECK(tm.records[1].value == 300);  // requested: still live
  CHECK(tm.records[2].value == 0);    // completed: the books change here
  CHECK(tm.records[1].start_ns <= tm.records[2].start_ns);
  REQUIRE(to.records.size() == 2);
  CHECK(to.records[0].kind == RecordKind::Alloc);
  CHECK(to.records[1].kind == RecordKind::Free);
  const LedgerTotals t = ledger->totals();
  CHECK(t.free_requests == 2);
  CHECK(t.frees == 2);
  CHECK(t.pending_free_blocks == 0);
  // The timeline counts the completed free once.
  auto points = memory_timeline(tm);
  REQUIRE(points.size() == 2);
  CHECK(points[1].total() == 0);
}

TEST_CASE("device-owned blocks: their own category, every profile, snapshots and OOM reports") {
  auto ledger = std::make_shared<MemoryLedger>();
  auto p1 = std::make_shared<Profiler>(1);
  p1->start({.trace = false, .memory = true, .capacity = 1024, .free_requested = true});
  ledger->subscribe(p1);
  AllocSite ws;
  ws.device_owned = true;
  ws.category = MemoryCategory::Workspace;
  ws.op = "cublaslt workspace";
  ws.address = 0x1000;
  BlockTicket workspace = ledger->track(32 << 20, ws);
  AllocSite pool = ws;
  pool.category = MemoryCategory::GraphPool;
  pool.op = "cuda graph pool";
  pool.address = 0x9000000;
  BlockTicket graph = ledger->track(8 << 20, pool);
  AllocSite mine{p1, 3, "matmul", "model.py", 8, MemoryCategory::Tensor};
  BlockTicket tensor = ledger->track(1 << 20, mine);
  // A profile that starts later gets the device's blocks as existing ones.
  auto p2 = std::make_shared<Profiler>(2);
  p2->start({.trace = false, .memory = true, .capacity = 1024});
  ledger->subscribe(p2);
  graph.reset();

  const LedgerTotals t = ledger->totals();
  CHECK(t.live_by_category[static_cast<size_t>(MemoryCategory::Workspace)] == 32 << 20);
  CHECK(t.live_by_category[static_cast<size_t>(MemoryCategory::GraphPool)] == 0);
  CHECK(t.live_by_category[static_cast<size_t>(MemoryCategory::Tensor)] == 1 << 20);
  uint64_t sum = 0;
  for (uint64_t b : t.live_by_category) sum += b;
  CHECK(sum == t.live_bytes);

  Trace t1, t2;
  drain_into(*p1, t1);
  drain_into(*p2, t2);
  int device1 = 0;
  for (const Record& r : t1.records) {
    if ((r.flags & kDeviceOwned) == 0) continue;
    ++device1;
    CHECK(r.session == 0);
  }
  CHECK(device1 == 4);              // two allocs, the pool's free requested and completed
  REQUIRE(t2.records.size() == 3);  // two existing blocks, then the pool's Free
  CHECK((t2.records[0].flags & kExisting) != 0);
  CHECK(t2.str(t2.records[0].name) == "cublaslt workspace");
  CHECK(t2.records[2].kind == RecordKind::Free);
  CHECK(t2.records[2].stage == static_cast<uint8_t>(MemoryCategory::GraphPool));
  // The timeline of p2 ends with the workspace in its category and nothing in the pool's.
  auto points = memory_timeline(t2);
  REQUIRE(!points.empty());
  CHECK(points.back().live_bytes[static_cast<size_t>(MemoryCategory::Workspace)] == 32 << 20);
  CHECK(points.back().live_bytes[static_cast<size_t>(MemoryCategory::GraphPool)] == 0);

  // A session's snapshot lists the device's blocks when asked; the OOM report ranks them.
  CHECK(ledger->snapshot(1).size() == 1);
  CHECK(ledger->snapshot(1, true).size() == 2);
  OomReport r = ledger->out_of_memory(uint64_t{1} << 40, mine);
  REQUIRE(r.by_session.size() == 2);
  CHECK(r.by_session[0].who == "device");
  REQUIRE(r.by_category.size() == 2);
  CHECK(r.by_category[0].who == "workspace");
  CHECK(r.by_category[1].who == "tensor");
  CHECK(r.fragmentation() == 0);  // the host says nothing of its free blocks
  CHECK(r.text().find("by category: workspace 33554432 B, tensor 1048576 B") != std::string::npos);
  CHECK(r.text().find("fragmentation") == std::string::npos);
}

TEST_CASE("host staging segments are reserved in their category, outside the device's total") {
  auto ledger = std::make_shared<MemoryLedger>();
  ledger->segment_allocated(0x10000, 20 << 20, 1, MemoryCategory::Tensor);
  ledger->segment_allocated(0x7000000, 8 << 20, 0, MemoryCategory::Staging);
  LedgerTotals t = ledger->totals();
  CHECK(t.reserved_bytes == 28 << 20);
  CHECK(t.reserved_by_category[static_cast<size_t>(MemoryCategory::Staging)] == 8 << 20);
  CHECK(t.device_reserved_bytes() == 20 << 20);
  ledger->segment_freed(0x7000000);
  CHECK(ledger->totals().device_reserved_bytes() == 20 << 20);
  CHECK(ledger->totals().reserved_by_category[static_cast<size_t>(MemoryCategory::Staging)] == 0);
}

TEST_CASE("a snapshot chunk carries each block's state, owner and stream (protocol 1.4 flags)") {
  // What the daemon's ProfileHandle.snapshot sends: a segment, a session's block whose free
  // waits on another stream, and a device-owned workspace.
  Pending p;
  p.strings = {"matmul", "model.py", "cublaslt workspace"};
  Record seg;
  seg.kind = RecordKind::SegmentAlloc;
  seg.flags = kExisting;
  seg.address = 0x100000;
  seg.bytes = 20 << 20;
  seg.stream = 5;
  p.records.push_back(seg);
  Record pending;
  pending.kind = RecordKind::Alloc;
  pending.flags = kPendingFree;
  pending.id = 1;
  pending.bytes = 1 << 20;
  pending.address = 0x100000;
  pending.stream = 5;
  pending.session = 3;
  pending.name = 1;
  pending.file = 2;
  pending.line = 9;
  p.records.push_back(pending);
  Record workspace = pending;
  workspace.flags = kDeviceOwned;
  workspace.id = 2;
  workspace.address = 0x100000 + (1 << 20);
  workspace.session = 0;
  workspace.name = 3;
  workspace.file = 0;
  p.records.push_back(workspace);
  Trace t;
  t.append_chunk(encode_chunk(p, 3));
  const MemorySnapshot snap = memory_snapshot_of(t);
  REQUIRE(snap.segments.size() == 1);
  REQUIRE(snap.segments[0].blocks.size() == 2);
  const LiveBlock& a = snap.segments[0].blocks[0];
  const LiveBlock& b = snap.segments[0].blocks[1];
  CHECK(block_state(a) == "active_pending_free");
  CHECK_FALSE(a.device_owned);
  CHECK(a.stream == 5);
  CHECK(a.op == "matmul");
  CHECK(block_state(b) == "active_allocated");
  CHECK(b.device_owned);
  CHECK(b.op == "cublaslt workspace");
  CHECK(snap.segments[0].recorded_bytes == 2 << 20);
}

TEST_CASE("the memory summary gives every category's allocated and reserved, now and at peak") {
  auto ledger = std::make_shared<MemoryLedger>();
  auto p = std::make_shared<Profiler>(1);
  p->start({.trace = false, .memory = true, .capacity = 1024, .free_requested = true});
  ledger->subscribe(p);
  ledger->segment_allocated(0x100000, 20 << 20, 1, MemoryCategory::Tensor);
  ledger->segment_allocated(0x9000000, 8 << 20, 0, MemoryCategory::Staging);
  AllocSite ws;
  ws.device_owned = true;
  ws.category = MemoryCategory::Workspace;
  ws.op = "cudnn workspace";
  ws.address = 0x100000;
  ws.stream = 1;
  ledger->track(4 << 20, ws).reset();  // a node's workspace, gone after it
  AllocSite t{p, 2, "matmul", "model.py", 3, MemoryCategory::Tensor};
  t.address = 0x100000 + (4 << 20);
  t.stream = 1;
  BlockTicket held = ledger->track(1 << 20, t);
  {
    // A block other streams use: its free completes after the request.
    t.address += 1 << 20;
    BlockTicket other = ledger->track(2 << 20, t);
    ledger->block_free_deferred(t.address, 1);
    other.reset();
    ledger->block_free_completed(t.address);
  }
  ledger->segment_freed(0x9000000);
  Trace trace;
  drain_into(*p, trace);
  const std::vector<CategorySummary> rows = memory_summary(trace);
  REQUIRE(rows.size() == static_cast<size_t>(MemoryCategory::kCount));
  const CategorySummary& tensor = rows[static_cast<size_t>(MemoryCategory::Tensor)];
  const CategorySummary& workspace = rows[static_cast<size_t>(MemoryCategory::Workspace)];
  const CategorySummary& staging = rows[static_cast<size_t>(MemoryCategory::Staging)];
  CHECK(tensor.allocated == 1 << 20);
  CHECK(tensor.peak_allocated == 3 << 20);
  CHECK(tensor.reserved == 20 << 20);
  CHECK(tensor.allocs == 2);
  CHECK(tensor.pending_frees == 1);  // the one that waited on another stream
  CHECK(workspace.allocated == 0);
  CHECK(workspace.peak_allocated == 4 << 20);
  CHECK(workspace.allocs == 1);
  CHECK(staging.reserved == 0);
  CHECK(staging.peak_reserved == 8 << 20);
  CHECK(rows[static_cast<size_t>(MemoryCategory::GraphPool)].peak_allocated == 0);
}

TEST_CASE("the ledger keeps its own copy of live blocks' names and reuses their slots") {
  auto ledger = std::make_shared<MemoryLedger>();
  auto p = std::make_shared<Profiler>(4);
  p->start({.trace = false, .memory = true, .capacity = 1 << 20});
  std::vector<BlockTicket> live;
  uint64_t last_id = 0;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 50; ++i) {
      // The site's strings go before the block does: the ledger must not point into them.
      std::string file = "file_" + std::to_string(round) + "_" + std::to_string(i) + ".py";
      std::string op = "op" + std::to_string(i % 3);
      AllocSite site{p, 1, op, file, static_cast<uint32_t>(i), MemoryCategory::Tensor};
      live.push_back(ledger->track(100, site));
      CHECK(live.back().id() > last_id);  // ids never repeat, though slots are reused
      last_id = live.back().id();
    }
    std::vector<LiveBlock> blocks = ledger->snapshot(4);
    REQUIRE(blocks.size() == 50);
    for (size_t i = 0; i < blocks.size(); ++i) {
      CHECK(blocks[i].file == "file_" + std::to_string(round) + "_" + std::to_string(i) + ".py");
      CHECK(blocks[i].op == "op" + std::to_string(i % 3));
    }
    // A moved-from ticket frees nothing; the moved-to one frees its own block once.
    BlockTicket moved = std::move(live[0]);
    live[0].reset();
    CHECK(ledger->totals().live_blocks == 50);
    moved.reset();
    moved.reset();
    CHECK(ledger->totals().live_blocks == 49);
    live.clear();
    CHECK(ledger->totals().live_blocks == 0);
    CHECK(ledger->snapshot().empty());
  }
  // The stream got each block's names (the profile's ids) in its Alloc and Free.
  Trace t;
  drain_into(*p, t);
  size_t frees = 0;
  for (const Record& r : t.records) {
    if (r.kind != RecordKind::Free) continue;
    ++frees;
    CHECK(t.str(r.file).rfind("file_", 0) == 0);
    CHECK(t.str(r.name).rfind("op", 0) == 0);
  }
  CHECK(frees == 150);
}

TEST_CASE("a stacked timeline holds the bytes held before from the profile's first record") {
  // A profile's first records are the segments held (flag kExisting), then the adopted blocks:
  // until those are in, the band is all the bytes held, not a dip to 0.
  Trace t;
  Record seg;
  seg.kind = RecordKind::SegmentAlloc;
  seg.flags = kExisting;
  seg.bytes = 4 << 20;
  seg.start_ns = 1;
  Record adopted;
  adopted.kind = RecordKind::Alloc;
  adopted.flags = kExisting;
  adopted.id = 7;
  adopted.bytes = 1 << 20;
  adopted.start_ns = 2;
  Record freed = adopted;
  freed.kind = RecordKind::Free;
  freed.flags = 0;
  freed.start_ns = 10;
  t.records = {seg, adopted, freed};
  const std::vector<MemoryPoint> points = memory_timeline(t);
  REQUIRE(points.size() == 3);
  const MemoryStacker stacker(points, 3 << 20);  // 2 MiB more the ledger never saw
  CHECK(stacker.at(points[0]).held_before == 3 << 20);
  CHECK(stacker.at(points[1]).held_before == 3 << 20);
  CHECK(stacker.at(points[2]).held_before == 2 << 20);  // the adopted block went
  CHECK(stacker.at(points[2]).total() == 2 << 20);
}
