// The caching allocator's segment events (issue 7): the memory ledger, as the allocator's
// observer, holds the same segments as the allocator at every point (reserved = the sum of the
// segments), and the blocks recorded at their addresses nest in them. Host memory stands in for
// the device: the events come from the allocator's bookkeeping, which needs no GPU.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "engine/backends/cuda/caching_allocator.h"
#include "engine/ir/error.h"
#include "engine/profiler/memory_ledger.h"
#include "tests/unit/cuda/allocator_fixture.h"

namespace tensord::cuda::test {
namespace {

using namespace tensord::profiler;
constexpr size_t MiB = size_t{1} << 20;

void check_books(const MemoryLedger& ledger, const CachingAllocator& alloc, size_t live_blocks) {
  const LedgerTotals t = ledger.totals();
  const AllocatorStats s = alloc.stats();
  REQUIRE(t.reserved_bytes == static_cast<uint64_t>(s.reserved_bytes.current));
  REQUIRE(t.segments == static_cast<uint64_t>(s.segment.current));
  REQUIRE(t.live_bytes == static_cast<uint64_t>(s.allocated_bytes.current));
  const MemorySnapshot snap = ledger.segment_snapshot();
  REQUIRE(snap.outside.empty());
  uint64_t reserved = 0, allocated = 0;
  size_t blocks = 0;
  for (const SegmentState& seg : snap.segments) {
    reserved += seg.segment.bytes;
    allocated += seg.recorded_bytes;
    blocks += seg.blocks.size();
    REQUIRE(seg.recorded_bytes <= seg.segment.bytes);
  }
  REQUIRE(reserved == t.reserved_bytes);
  REQUIRE(allocated == t.live_bytes);
  REQUIRE(blocks == live_blocks);
}

}  // namespace

TEST_CASE("the ledger sees every segment the allocator takes and gives back") {
  auto ledger = std::make_shared<MemoryLedger>();
  auto prof = std::make_shared<Profiler>(1);
  prof->start({.trace = false, .memory = true, .capacity = 1 << 20});
  ledger->subscribe(prof);
  // A small device, so that refusals release the cache and retry (segment frees mid-request).
  auto source = make_segment_source(96 * MiB);
  AllocatorOptions options;
  options.observer = ledger;
  CachingAllocator alloc(*source, nullptr, options);

  struct Held {
    void* ptr;
    BlockTicket ticket;
  };
  std::vector<Held> held;
  std::mt19937 rng(5);
  const size_t sizes[] = {700, 64 * 1024, 900 * 1024, 3 * MiB, 12 * MiB, 30 * MiB};
  int ooms = 0;
  for (int i = 0; i < 400; ++i) {
    if (held.empty() || rng() % 5 < 3) {
      void* p = nullptr;
      try {
        p = alloc.allocate(sizes[rng() % 6], 1);
      } catch (const Error& e) {
        REQUIRE(e.code() == ErrorCode::OutOfMemory);
        ++ooms;
        check_books(*ledger, alloc, held.size());
        continue;
      }
      AllocSite site;
      site.profiler = prof;
      site.address = reinterpret_cast<uintptr_t>(p);
      held.push_back({p, ledger->track(alloc.block_size(p), site)});
    } else {
      size_t k = rng() % held.size();
      held[k].ticket.reset();
      alloc.free(held[k].ptr);
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
    }
    check_books(*ledger, alloc, held.size());
    if (i % 97 == 0) {
      alloc.empty_cache();
      check_books(*ledger, alloc, held.size());
    }
  }
  CHECK(ooms > 0);  // the refusal path ran
  CHECK(alloc.stats().num_device_free > 0);
  for (Held& h : held) {
    h.ticket.reset();
    alloc.free(h.ptr);
  }
  alloc.empty_cache();
  CHECK(ledger->totals().reserved_bytes == 0);
  CHECK(ledger->totals().segment_allocs == static_cast<uint64_t>(alloc.stats().num_device_alloc));
  CHECK(ledger->totals().segment_frees == static_cast<uint64_t>(alloc.stats().num_device_free));

  // The profile's records say the same, with the allocator's stream on each.
  Pending pending;
  REQUIRE(prof->drain(pending, 1 << 20));
  int64_t reserved = 0;
  for (const Record& r : pending.records) {
    if (r.kind != RecordKind::SegmentAlloc && r.kind != RecordKind::SegmentFree) continue;
    reserved += r.kind == RecordKind::SegmentAlloc ? static_cast<int64_t>(r.bytes)
                                                   : -static_cast<int64_t>(r.bytes);
    REQUIRE(static_cast<uint64_t>(reserved) == r.value);
    CHECK(r.stream == 1);
  }
  CHECK(reserved == 0);
}

TEST_CASE("a new observer is told of the segments held before it came") {
  // The CUDA backend allocates its cuBLASLt workspace before the daemon's ledger exists.
  auto early = std::make_shared<MemoryLedger>();
  auto source = make_segment_source(64 * MiB);
  AllocatorOptions options;
  options.observer = early;
  CachingAllocator alloc(*source, nullptr, options);
  void* workspace = alloc.allocate(32 * MiB, 3);
  void* small = alloc.allocate(1000, 3);
  alloc.free(alloc.allocate(5000, 3));
  REQUIRE(early->totals().segments == 2);
  auto ledger = std::make_shared<MemoryLedger>();
  alloc.set_observer(ledger);
  CHECK(early->totals().segments == 0);  // moved, not copied
  CHECK(ledger->totals().segments == 2);
  CHECK(ledger->totals().reserved_bytes ==
        static_cast<uint64_t>(alloc.stats().reserved_bytes.current));
  CHECK(ledger->segments().at(0).stream == 3);
  alloc.free(small);
  alloc.free(workspace);
  alloc.empty_cache();
  CHECK(ledger->totals().reserved_bytes == 0);
  CHECK(ledger->totals().segments == 0);
}

TEST_CASE("segments the allocator still holds when it goes are reported freed") {
  auto ledger = std::make_shared<MemoryLedger>();
  auto source = make_segment_source(64 * MiB);
  {
    AllocatorOptions options;
    options.observer = ledger;
    CachingAllocator alloc(*source, nullptr, options);
    alloc.free(alloc.allocate(3 * MiB, 7));
    alloc.free(alloc.allocate(100, 7));
    CHECK(ledger->totals().segments == 2);
    CHECK(ledger->segments().at(0).stream == 7);
  }
  CHECK(ledger->totals().segments == 0);
  CHECK(ledger->totals().reserved_bytes == 0);
}

namespace {

constexpr StreamId kStream = 1, kOther = 2;

struct PendingFixture {
  PendingFixture() : source(make_segment_source(128 * MiB)) {
    prof->start({.trace = false, .memory = true, .capacity = 1 << 20, .free_requested = true});
    ledger->subscribe(prof);
    AllocatorOptions options;
    options.observer = ledger;
    alloc = std::make_unique<CachingAllocator>(*source, &events, options);
  }
  BlockTicket track(void* p, uint32_t line) {
    AllocSite site;
    site.profiler = prof;
    site.op = "matmul";
    site.file = "model.py";
    site.line = line;
    site.address = reinterpret_cast<uintptr_t>(p);
    site.stream = kStream;
    return ledger->track(alloc->block_size(p), site);
  }
  // The allocator looks at its pending frees on its next call.
  void poll() { alloc->free(alloc->allocate(100, kStream)); }
  // The block records (not the segments' ones).
  std::vector<Record> records() {
    Pending pending;
    prof->drain(pending, 1 << 20);
    std::vector<Record> out;
    for (const Record& r : pending.records) {
      if (r.kind != RecordKind::SegmentAlloc && r.kind != RecordKind::SegmentFree) out.push_back(r);
    }
    return out;
  }

  std::shared_ptr<MemoryLedger> ledger = std::make_shared<MemoryLedger>();
  std::shared_ptr<Profiler> prof = std::make_shared<Profiler>(4);
  std::unique_ptr<SegmentSource> source;
  ManualEvents events;
  std::unique_ptr<CachingAllocator> alloc;
};

}  // namespace

TEST_CASE("a block other streams use is free requested at release and free completed later") {
  PendingFixture f;
  void* a = f.alloc->allocate(3 * MiB, kStream);
  const uint64_t bytes = f.alloc->block_size(a);
  BlockTicket ticket = f.track(a, 12);
  f.alloc->record_stream(a, kOther);
  f.records();  // the Alloc and the segment

  // The buffer's destructor frees the block, then its ticket goes.
  f.alloc->free(a);
  ticket.reset();
  LedgerTotals t = f.ledger->totals();
  CHECK(t.live_bytes == bytes);  // still allocated, as torch's books have it
  CHECK(t.pending_free_blocks == 1);
  CHECK(t.pending_free_bytes == bytes);
  CHECK(t.live_bytes == static_cast<uint64_t>(f.alloc->stats().active_bytes.current));
  std::vector<LiveBlock> live = f.ledger->snapshot();
  REQUIRE(live.size() == 1);
  CHECK(live[0].pending_free);
  CHECK(block_state(live[0]) == "active_pending_free");
  CHECK(live[0].stream == kStream);
  f.poll();  // the other stream's work is still queued: nothing changes
  CHECK(f.ledger->totals().pending_free_blocks == 1);
  std::vector<Record> requested = f.records();
  REQUIRE(requested.size() == 1);
  const Record& q = requested[0];
  CHECK(q.kind == RecordKind::FreeRequested);
  CHECK(q.bytes == bytes);
  CHECK(q.stream == kStream);
  CHECK(q.session == 4);
  CHECK(q.line == 12);
  CHECK(q.value == bytes);  // live bytes unchanged by the request
  CHECK((q.flags & kDeferredFree) != 0);

  f.events.complete_all();
  f.poll();
  t = f.ledger->totals();
  CHECK(t.live_bytes == 0);
  CHECK(t.pending_free_blocks == 0);
  CHECK(t.pending_free_bytes == 0);
  CHECK(t.frees == 1);
  CHECK(f.alloc->stats().active_bytes.current == 0);
  std::vector<Record> completed = f.records();
  REQUIRE(completed.size() == 1);
  CHECK(completed[0].kind == RecordKind::Free);
  CHECK(completed[0].id == q.id);
  CHECK(completed[0].stream == kStream);
  CHECK(completed[0].line == 12);
  CHECK(completed[0].value == 0);
  CHECK((completed[0].flags & kDeferredFree) != 0);
  CHECK(completed[0].start_ns >= q.start_ns);
}

TEST_CASE("a pending free is completed once in either order of ticket and allocator") {
  PendingFixture f;
  SECTION("the ticket goes first, then the block is freed") {
    void* a = f.alloc->allocate(4096, kStream);
    BlockTicket ticket = f.track(a, 3);
    f.alloc->record_stream(a, kOther);
    ticket.reset();  // the ledger cannot know yet: the free completes in its books now
    f.alloc->free(a);
    f.events.complete_all();
    f.poll();
  }
  SECTION("the events complete before the ticket goes") {
    void* a = f.alloc->allocate(4096, kStream);
    BlockTicket ticket = f.track(a, 3);
    f.alloc->record_stream(a, kOther);
    f.alloc->free(a);
    f.events.complete_all();
    f.poll();        // completed in the allocator
    ticket.reset();  // requested and completed at once in the ledger
    // The address is reused by a new block, which is not pending.
    void* b = f.alloc->allocate(4096, kStream);
    CHECK(b == a);
    BlockTicket again = f.track(b, 4);
    again.reset();
    f.alloc->free(b);
  }
  const LedgerTotals t = f.ledger->totals();
  CHECK(t.live_bytes == 0);
  CHECK(t.live_blocks == 0);
  CHECK(t.pending_free_blocks == 0);
  CHECK(t.frees == t.allocs);
  int requested = 0, completed = 0;
  for (const Record& r : f.records()) {
    requested += r.kind == RecordKind::FreeRequested;
    completed += r.kind == RecordKind::Free;
  }
  CHECK(requested == completed);
  CHECK(completed == static_cast<int>(t.frees));
}

TEST_CASE("with streams and record_stream, allocated = the allocator's active bytes throughout") {
  PendingFixture f;
  struct Held {
    void* ptr;
    BlockTicket ticket;
  };
  std::vector<Held> held;
  std::mt19937 rng(11);
  const size_t sizes[] = {700, 64 * 1024, 900 * 1024, 3 * MiB};
  for (int i = 0; i < 500; ++i) {
    const unsigned roll = rng() % 10;
    if (held.empty() || roll < 4) {
      void* p = f.alloc->allocate(sizes[rng() % 4], kStream);
      held.push_back({p, f.track(p, static_cast<uint32_t>(i))});
    } else if (roll < 6) {
      f.alloc->record_stream(held[rng() % held.size()].ptr, kOther);
    } else if (roll < 9) {
      size_t k = rng() % held.size();
      // Both orders happen: a buffer's destructor frees first, a plain ticket may go first.
      if (rng() % 2) {
        f.alloc->free(held[k].ptr);
        held[k].ticket.reset();
      } else {
        held[k].ticket.reset();
        f.alloc->free(held[k].ptr);
      }
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      f.events.complete_all();
    }
    const LedgerTotals t = f.ledger->totals();
    const AllocatorStats s = f.alloc->stats();
    REQUIRE(t.live_bytes >= static_cast<uint64_t>(s.allocated_bytes.current));
    REQUIRE(t.live_bytes <= static_cast<uint64_t>(s.active_bytes.current));
    REQUIRE(t.reserved_bytes == static_cast<uint64_t>(s.reserved_bytes.current));
  }
  for (Held& h : held) {
    f.alloc->free(h.ptr);
    h.ticket.reset();
  }
  f.alloc->empty_cache();  // waits for the other stream and completes every pending free
  const LedgerTotals t = f.ledger->totals();
  CHECK(t.live_bytes == 0);
  CHECK(t.pending_free_blocks == 0);
  CHECK(t.frees == t.allocs);
  CHECK(f.alloc->stats().active_bytes.current == 0);
  CHECK(f.alloc->stats().reserved_bytes.current == 0);
}

TEST_CASE("an OOM report from the allocator's free memory names fragmentation and holders") {
  // 24 MiB: two 12 MiB blocks of one 20 MiB large segment's neighbours cannot both stay.
  auto ledger = std::make_shared<MemoryLedger>();
  auto prof = std::make_shared<Profiler>(9);
  prof->start({.trace = false, .memory = true, .capacity = 1 << 20});
  auto source = make_segment_source(24 * MiB);
  AllocatorOptions options;
  options.observer = ledger;
  CachingAllocator alloc(*source, nullptr, options);
  // Fill a 20 MiB segment with 2 MiB blocks, then free every other one: 10 MiB free in pieces.
  std::vector<void*> blocks;
  std::vector<BlockTicket> tickets;
  for (int i = 0; i < 10; ++i) {
    void* p = alloc.allocate(2 * MiB - 4096, 1);
    AllocSite site;
    site.profiler = prof;
    site.op = "relu";
    site.file = "train.py";
    site.line = static_cast<uint32_t>(40 + i % 2);
    site.address = reinterpret_cast<uintptr_t>(p);
    blocks.push_back(p);
    tickets.push_back(ledger->track(alloc.block_size(p), site));
  }
  for (int i = 0; i < 10; i += 2) {
    tickets[static_cast<size_t>(i)].reset();
    alloc.free(blocks[static_cast<size_t>(i)]);
  }
  const uint64_t free_bytes = alloc.cached_free_bytes();
  CHECK(free_bytes == static_cast<uint64_t>(alloc.stats().reserved_bytes.current -
                                            alloc.stats().allocated_bytes.current));
  const uint64_t largest = alloc.largest_free_block();
  CHECK(largest < free_bytes);
  AllocSite site;
  site.profiler = prof;
  site.op = "matmul";
  site.file = "train.py";
  site.line = 77;
  REQUIRE_THROWS_AS(alloc.allocate(6 * MiB, 1), Error);
  const OomReport report = ledger->out_of_memory(6 * MiB, site, free_bytes, largest);
  CHECK(report.requested == 6 * MiB);
  CHECK(report.requested_by == "train.py:77 (matmul)");
  CHECK(report.largest_free == largest);
  CHECK(report.fragmentation() > 0.5);
  CHECK(report.reserved_bytes == static_cast<uint64_t>(alloc.stats().reserved_bytes.current));
  REQUIRE(report.by_session.size() == 1);
  CHECK(report.by_session[0].who == "session 9");
  REQUIRE(report.by_line.size() == 1);  // the live blocks are all at line 41
  CHECK(report.by_line[0].who == "train.py:41 (relu)");
  CHECK(report.by_line[0].blocks == 5);
  const std::string text = report.text();
  CHECK_THAT(text, Catch::Contains("fragmentation 8"));
  CHECK_THAT(text, Catch::Contains("the request would fit unfragmented"));
  CHECK_THAT(text, Catch::Contains("session 9"));
  CHECK_THAT(text, Catch::Contains("train.py:41 (relu)"));
  for (size_t i = 1; i < 10; i += 2) {
    tickets[i].reset();
    alloc.free(blocks[i]);
  }
}

}  // namespace tensord::cuda::test
