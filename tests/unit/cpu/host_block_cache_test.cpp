// The CPU backend's cache of large host blocks: reuse at the same rounded size, small blocks
// left to malloc, eviction beyond the capacity, buffers outliving the cache.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/backends/cpu/host_block_cache.h"
#include "engine/profiler/memory_ledger.h"

using tensord::cpu::HostBlockCache;

namespace {
constexpr size_t MiB = size_t{1} << 20;
}

TEST_CASE("a freed large block serves the next allocation of the same rounded size", "[cpu]") {
  HostBlockCache cache(64 * MiB);
  void* first = nullptr;
  {
    auto a = cache.allocate(3 * MiB);
    first = a->data();
    CHECK(a->bytes() == 3 * MiB);
    CHECK(reinterpret_cast<uintptr_t>(first) % HostBlockCache::kGranule == 0);
    std::memset(a->data(), 1, a->bytes());  // usable over its whole length
  }
  CHECK(cache.stats().cached_bytes == 4 * MiB);
  auto b = cache.allocate(3 * MiB + 12345);  // rounds to the same 4 MiB
  CHECK(b->data() == first);
  CHECK(b->bytes() == 3 * MiB + 12345);
  auto s = cache.stats();
  CHECK(s.hits == 1);
  CHECK(s.misses == 1);
  CHECK(s.cached_bytes == 0);

  auto c = cache.allocate(5 * MiB);  // another size: new memory
  CHECK(c->data() != first);
  CHECK(cache.stats().misses == 2);
}

TEST_CASE("small blocks are not cached", "[cpu]") {
  HostBlockCache cache(64 * MiB);
  { auto a = cache.allocate(HostBlockCache::kMinBytes - 1); }
  { auto z = cache.allocate(0); }
  auto s = cache.stats();
  CHECK(s.hits + s.misses == 0);
  CHECK(s.cached_bytes == 0);
}

TEST_CASE("the cache stays within its capacity, evicting the oldest blocks", "[cpu]") {
  HostBlockCache cache(8 * MiB);
  {
    auto a = cache.allocate(4 * MiB);
    auto b = cache.allocate(4 * MiB);
    auto c = cache.allocate(4 * MiB);
  }
  auto s = cache.stats();
  CHECK(s.cached_bytes == 8 * MiB);
  CHECK(s.evictions == 1);
  { auto huge = cache.allocate(10 * MiB); }  // larger than the whole capacity: freed at once
  CHECK(cache.stats().cached_bytes == 8 * MiB);
  cache.release();
  CHECK(cache.stats().cached_bytes == 0);
}

TEST_CASE("buffers may outlive their cache", "[cpu]") {
  std::shared_ptr<tensord::engine::Buffer> kept;
  {
    HostBlockCache cache(64 * MiB);
    kept = cache.allocate(2 * MiB);
    { auto cached = cache.allocate(6 * MiB); }
  }
  std::memset(kept->data(), 7, kept->bytes());
  kept.reset();  // frees through the cache's shared state (ASan checks for leaks)
}

TEST_CASE("the default capacity is 1 GiB or an eighth of memory", "[cpu]") {
  CHECK(tensord::cpu::default_host_cache_bytes(0) == size_t{1} << 30);
  CHECK(tensord::cpu::default_host_cache_bytes(uint64_t{4} << 30) == size_t{512} << 20);
  CHECK(tensord::cpu::default_host_cache_bytes(uint64_t{64} << 30) == size_t{1} << 30);
}

// The memory recorder's segment books over the cache (issue 7): reserved = the sum of the
// segments the cache holds (in use or cached) at every point, each tracked block sits in its
// segment, and the profile's segment records add up to the same figure.
TEST_CASE("the cache reports its segments to the memory ledger", "[cpu][profiler]") {
  using namespace tensord::profiler;
  auto ledger = std::make_shared<MemoryLedger>();
  auto prof = std::make_shared<Profiler>(1);
  prof->start({.trace = false, .memory = true, .capacity = 1 << 20});
  ledger->subscribe(prof);
  HostBlockCache cache(12 * MiB);
  cache.set_observer(ledger);

  struct Held {
    std::shared_ptr<tensord::engine::Buffer> buffer;
    BlockTicket ticket;
    size_t rounded;
  };
  std::vector<Held> held;
  uint64_t in_use = 0;
  uint32_t seed = 11;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  for (int i = 0; i < 300; ++i) {
    if (held.empty() || next() % 3 != 0) {
      size_t bytes = (2 + next() % 7) * MiB - next() % 4096;  // 2 to 8 MiB rounded
      AllocSite site;
      site.profiler = prof;
      site.op = "add";
      Held h{cache.allocate(bytes),
             {},
             (bytes + HostBlockCache::kGranule - 1) / HostBlockCache::kGranule *
                 HostBlockCache::kGranule};
      site.address = reinterpret_cast<uintptr_t>(h.buffer->data());
      h.ticket = ledger->track(bytes, site);
      in_use += h.rounded;
      held.push_back(std::move(h));
    } else {
      size_t k = next() % held.size();
      in_use -= held[k].rounded;
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
    }
    LedgerTotals t = ledger->totals();
    REQUIRE(t.reserved_bytes == in_use + cache.stats().cached_bytes);
    MemorySnapshot snap = ledger->segment_snapshot();
    REQUIRE(snap.outside.empty());
    uint64_t segments = 0, blocks = 0, allocated = 0;
    for (const SegmentState& s : snap.segments) {
      segments += s.segment.bytes;
      REQUIRE(s.blocks.size() <= 1);  // a host segment holds one block at most
      for (const LiveBlock& b : s.blocks) REQUIRE(b.address == s.segment.address);
      blocks += s.blocks.size();
      allocated += s.recorded_bytes;
    }
    REQUIRE(segments == t.reserved_bytes);
    REQUIRE(blocks == held.size());
    REQUIRE(allocated == t.live_bytes);
  }
  held.clear();
  cache.release();
  CHECK(ledger->totals().reserved_bytes == 0);
  CHECK(ledger->totals().segment_allocs == ledger->totals().segment_frees);
  CHECK(ledger->totals().segment_allocs > 3);  // evictions and new sizes took new memory

  // The profile's segment records carry the running sum in `value`.
  Pending pending;
  REQUIRE(prof->drain(pending, 1 << 20));
  int64_t reserved = 0;
  size_t segment_records = 0;
  for (const Record& r : pending.records) {
    if (r.kind != RecordKind::SegmentAlloc && r.kind != RecordKind::SegmentFree) continue;
    ++segment_records;
    reserved += r.kind == RecordKind::SegmentAlloc ? static_cast<int64_t>(r.bytes)
                                                   : -static_cast<int64_t>(r.bytes);
    CHECK(static_cast<uint64_t>(reserved) == r.value);
    CHECK(r.address != 0);
  }
  CHECK(segment_records == 2 * ledger->totals().segment_allocs);
  CHECK(reserved == 0);
}

TEST_CASE("a profile subscribing late starts from the segments held", "[cpu][profiler]") {
  using namespace tensord::profiler;
  auto ledger = std::make_shared<MemoryLedger>();
  HostBlockCache cache(64 * MiB);
  cache.set_observer(ledger, MemoryCategory::Staging);
  auto a = cache.allocate(3 * MiB);
  auto prof = std::make_shared<Profiler>(2);
  prof->start({.trace = false, .memory = true});
  ledger->subscribe(prof);
  ledger->subscribe(prof);  // again: no duplicate subscription, the held segments again
  Pending pending;
  REQUIRE(prof->drain(pending, 100));
  REQUIRE(pending.records.size() == 2);
  for (const Record& r : pending.records) {
    CHECK(r.kind == RecordKind::SegmentAlloc);
    CHECK(r.flags == kExisting);
    CHECK(r.bytes == 4 * MiB);
    CHECK(r.value == 4 * MiB);
    CHECK(r.stage == static_cast<uint8_t>(MemoryCategory::Staging));
    CHECK(r.address == reinterpret_cast<uintptr_t>(a->data()));
  }
  a.reset();
  cache.release();
  Pending after;
  REQUIRE(prof->drain(after, 100));
  REQUIRE(after.records.size() == 1);  // one free: the profile was subscribed once
  CHECK(after.records[0].kind == RecordKind::SegmentFree);
  CHECK(after.records[0].value == 0);
}

TEST_CASE("the most recently freed block of a size is reused first", "[cpu]") {
  // Its lines are the likeliest to be in cache: a loop that frees and allocates one size keeps
  // writing to the same block instead of cycling through all of them.
  HostBlockCache cache(64 * MiB);
  void* newest = nullptr;
  {
    auto a = cache.allocate(4 * MiB);
    auto b = cache.allocate(4 * MiB);
    auto c = cache.allocate(4 * MiB);
    newest = b->data();
    a.reset();
    c.reset();
    b.reset();  // freed last
  }
  for (int i = 0; i < 3; ++i) {
    auto d = cache.allocate(4 * MiB);
    CHECK(d->data() == newest);
  }
}
