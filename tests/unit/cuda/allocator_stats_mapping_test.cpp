// The caching allocator's statistics in the engine's backend-neutral form (Session.memoryStats):
// every field lands in the field of the same name, none swapped or dropped.
#include <catch2/catch.hpp>

#include "engine/backends/cuda/allocator_stats.h"
#include "engine/backends/cuda/caching_allocator.h"
#include "engine/ir/error.h"
#include "tests/unit/cuda/allocator_fixture.h"

namespace tensord::cuda::test {
namespace {

// A stat whose four figures differ from each other and from every other stat's.
Stat distinct(int64_t base) {
  Stat s;
  s.current = base + 1;
  s.peak = base + 2;
  s.allocated = base + 3;
  s.freed = base + 4;
  return s;
}

void check_same(const engine::MemoryStat& got, const Stat& want) {
  CHECK(got.current == want.current);
  CHECK(got.peak == want.peak);
  CHECK(got.allocated == want.allocated);
  CHECK(got.freed == want.freed);
}

void check_mapped(const engine::AllocatorMemoryStats& got, const AllocatorStats& want) {
  check_same(got.allocated_bytes, want.allocated_bytes);
  check_same(got.reserved_bytes, want.reserved_bytes);
  check_same(got.active_bytes, want.active_bytes);
  check_same(got.inactive_split_bytes, want.inactive_split_bytes);
  check_same(got.requested_bytes, want.requested_bytes);
  check_same(got.allocation, want.allocation);
  check_same(got.segment, want.segment);
  check_same(got.active, want.active);
  check_same(got.inactive_split, want.inactive_split);
  CHECK(got.num_alloc_retries == want.num_alloc_retries);
  CHECK(got.num_ooms == want.num_ooms);
  CHECK(got.num_device_alloc == want.num_device_alloc);
  CHECK(got.num_device_free == want.num_device_free);
}

TEST_CASE("allocator statistics map field by field to the engine's memory stats") {
  AllocatorStats s;
  s.allocated_bytes = distinct(100);
  s.reserved_bytes = distinct(200);
  s.active_bytes = distinct(300);
  s.inactive_split_bytes = distinct(400);
  s.requested_bytes = distinct(500);
  s.allocation = distinct(600);
  s.segment = distinct(700);
  s.active = distinct(800);
  s.inactive_split = distinct(900);
  s.num_alloc_retries = 1001;
  s.num_ooms = 1002;
  s.num_device_alloc = 1003;
  s.num_device_free = 1004;
  check_mapped(to_allocator_memory_stats(s), s);
}

TEST_CASE("a real allocator's statistics, after splits, frees and an out-of-memory, map too") {
  constexpr size_t MiB = size_t{1} << 20;
  auto source = make_segment_source(64 * MiB);
  CachingAllocator alloc(*source, nullptr);
  void* a = alloc.allocate(1000, 1);     // small pool: a 2 MiB segment, split
  void* b = alloc.allocate(3 * MiB, 1);  // large pool: a 20 MiB segment, split
  alloc.free(a);
  CHECK_THROWS_AS(alloc.allocate(200 * MiB, 1), Error);  // past the source: retried, then OOM
  const AllocatorStats s = alloc.stats();
  CHECK(s.num_ooms == 1);
  CHECK(s.allocated_bytes.current > 0);
  CHECK(s.reserved_bytes.current >= s.allocated_bytes.current);
  const engine::AllocatorMemoryStats m = to_allocator_memory_stats(s);
  check_mapped(m, s);
  CHECK(m.num_ooms == 1);
  alloc.free(b);
}

}  // namespace
}  // namespace tensord::cuda::test
