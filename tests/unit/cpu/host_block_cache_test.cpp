// The CPU backend's cache of large host blocks: reuse at the same rounded size, small blocks
// left to malloc, eviction beyond the capacity, buffers outliving the cache.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>

#include "engine/backends/cpu/host_block_cache.h"

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
