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

}  // namespace tensord::cuda::test
