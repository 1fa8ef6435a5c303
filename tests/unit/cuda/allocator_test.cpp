// The caching allocator's rules (caching_allocator.h), over the segment source of the binary
// (host memory here; cudaMalloc in tensord_gpu_cuda_allocator).
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "engine/backends/cuda/caching_allocator.h"
#include "engine/ir/error.h"
#include "tests/unit/cuda/allocator_fixture.h"

namespace tensord::cuda::test {
namespace {

constexpr size_t MiB = size_t{1} << 20;
constexpr StreamId kStream = 1, kOther = 2;

struct Fixture {
  explicit Fixture(size_t capacity = 256 * MiB, AllocatorOptions options = {})
      : source(make_segment_source(capacity)), alloc(*source, &events, options) {}
  std::unique_ptr<SegmentSource> source;
  ManualEvents events;
  CachingAllocator alloc;
};

TEST_CASE("sizes round to 512 bytes and pick the segment of their pool") {
  CHECK(round_size(0) == 512);
  CHECK(round_size(1) == 512);
  CHECK(round_size(512) == 512);
  CHECK(round_size(513) == 1024);
  CHECK(segment_size(512) == 2 * MiB);
  CHECK(segment_size(MiB) == 2 * MiB);
  CHECK(segment_size(MiB + 512) == 20 * MiB);
  CHECK(segment_size(10 * MiB - 512) == 20 * MiB);
  CHECK(segment_size(10 * MiB) == 10 * MiB);
  CHECK(segment_size(11 * MiB + 512) == 12 * MiB);
}

TEST_CASE("small requests split one 2 MiB segment; stats count bytes and blocks") {
  Fixture f;
  void* a = f.alloc.allocate(1000, kStream);
  void* b = f.alloc.allocate(100, kStream);
  CHECK(reinterpret_cast<uintptr_t>(a) % 512 == 0);
  CHECK(static_cast<char*>(b) == static_cast<char*>(a) + 1024);  // the split's remainder
  CHECK(f.alloc.block_size(a) == 1024);
  CHECK(f.alloc.block_size(b) == 512);
  AllocatorStats s = f.alloc.stats();
  CHECK(s.segment.current == 1);
  CHECK(s.reserved_bytes.current == int64_t(2 * MiB));
  CHECK(s.allocated_bytes.current == 1536);
  CHECK(s.requested_bytes.current == 1100);
  CHECK(s.allocation.current == 2);
  CHECK(s.active_bytes.current == 1536);
  CHECK(s.inactive_split.current == 1);
  CHECK(s.inactive_split_bytes.current == int64_t(2 * MiB - 1536));

  f.alloc.free(a);
  s = f.alloc.stats();
  CHECK(s.allocated_bytes.current == 512);
  CHECK(s.allocated_bytes.peak == 1536);
  CHECK(s.requested_bytes.current == 100);
  CHECK(s.inactive_split.current == 2);  // a's hole and the tail: b sits between them
  CHECK(s.inactive_split_bytes.current == int64_t(2 * MiB - 512));
  f.alloc.free(b);
  s = f.alloc.stats();
  // Everything merged back into one unsplit segment, still cached.
  CHECK(s.inactive_split.current == 0);
  CHECK(s.inactive_split_bytes.current == 0);
  CHECK(s.allocated_bytes.current == 0);
  CHECK(s.active.current == 0);
  CHECK(s.reserved_bytes.current == int64_t(2 * MiB));
  CHECK(f.alloc.largest_free_block() == 2 * MiB);
  CHECK(s.num_device_alloc == 1);
}

TEST_CASE("a freed block is reused without asking the device again") {
  Fixture f;
  void* a = f.alloc.allocate(4096, kStream);
  f.alloc.free(a);
  void* b = f.alloc.allocate(3000, kStream);
  CHECK(b == a);
  CHECK(f.alloc.stats().num_device_alloc == 1);
  f.alloc.free(b);
}

TEST_CASE("small and large requests come from different pools and segment sizes") {
  Fixture f;
  void* small = f.alloc.allocate(MiB, kStream);
  void* large = f.alloc.allocate(MiB + 1, kStream);
  void* huge = f.alloc.allocate(25 * MiB, kStream);  // more than the 20 MiB segment has left
  AllocatorStats s = f.alloc.stats();
  CHECK(s.segment.current == 3);
  CHECK(s.reserved_bytes.current == int64_t(2 * MiB + 20 * MiB + 26 * MiB));
  // The large pool keeps a remainder only when it is more than 1 MiB.
  CHECK(f.alloc.block_size(large) == MiB + 512);
  CHECK(f.alloc.block_size(huge) == 26 * MiB);  // a 1 MiB rest is not worth a block
  CHECK(f.alloc.block_size(small) == MiB);
  void* rest = f.alloc.allocate(MiB + 1, kStream);  // from the 20 MiB segment's remainder
  CHECK(static_cast<char*>(rest) == static_cast<char*>(large) + MiB + 512);
  CHECK(f.alloc.stats().segment.current == 3);
  // A small request never takes a large-pool block, even a free one.
  f.alloc.free(rest);
  void* small2 = f.alloc.allocate(MiB, kStream);
  CHECK(f.alloc.stats().segment.current == 3);  // the small segment's other half
  CHECK(static_cast<char*>(small2) == static_cast<char*>(small) + MiB);
  for (void* p : {small, large, huge, small2}) f.alloc.free(p);
}

TEST_CASE("a large block with less than 1 MiB to spare is handed out whole") {
  Fixture f;
  void* a = f.alloc.allocate(12 * MiB, kStream);
  f.alloc.free(a);
  void* b = f.alloc.allocate(11 * MiB + 512, kStream);
  CHECK(b == a);
  CHECK(f.alloc.block_size(b) == 12 * MiB);  // not split: the rest would be < 1 MiB
  CHECK(f.alloc.stats().requested_bytes.current == int64_t(11 * MiB + 512));
  f.alloc.free(b);
}

TEST_CASE("free neighbours merge on both sides") {
  Fixture f;
  void* a = f.alloc.allocate(512, kStream);
  void* b = f.alloc.allocate(512, kStream);
  void* c = f.alloc.allocate(512, kStream);
  f.alloc.free(a);
  f.alloc.free(c);  // merges with the tail
  CHECK(f.alloc.stats().inactive_split.current == 2);
  f.alloc.free(b);  // merges with a and with c+tail
  CHECK(f.alloc.stats().inactive_split.current == 0);
  void* whole = f.alloc.allocate(MiB, kStream);
  CHECK(whole == a);
  f.alloc.free(whole);
}

TEST_CASE("blocks are reused only by the stream they were allocated on") {
  Fixture f;
  void* a = f.alloc.allocate(4096, kStream);
  f.alloc.free(a);
  void* b = f.alloc.allocate(4096, kOther);
  CHECK(b != a);
  CHECK(f.alloc.stats().segment.current == 2);
  f.alloc.free(b);
}

TEST_CASE("a block used by another stream returns to the pool once that stream's work is done") {
  Fixture f;
  void* a = f.alloc.allocate(4096, kStream);
  f.alloc.record_stream(a, kOther);
  f.alloc.record_stream(a, kStream);  // its own stream: nothing to wait for
  f.alloc.free(a);
  REQUIRE(f.events.recorded == std::vector<StreamId>{kOther});
  AllocatorStats s = f.alloc.stats();
  CHECK(s.allocated_bytes.current == 0);
  CHECK(s.active_bytes.current == 4096);  // freed but still in use by kOther
  void* b = f.alloc.allocate(4096, kStream);
  CHECK(b != a);  // pending: not reusable yet
  f.events.complete_all();
  f.alloc.free(b);  // processes events: a returns, merges
  CHECK(f.alloc.stats().active_bytes.current == 0);
  void* c = f.alloc.allocate(4096, kStream);
  CHECK(c == a);
  f.alloc.free(c);
  CHECK(f.events.live.empty());
}

TEST_CASE("a device refusal releases the cache and retries once") {
  Fixture f(24 * MiB);
  void* big = f.alloc.allocate(20 * MiB, kStream);
  void* small = f.alloc.allocate(1000, kStream);  // 2 MiB segment: 22 of 24 MiB in use
  f.alloc.free(big);                              // cached, not returned
  CHECK(f.alloc.stats().reserved_bytes.current == int64_t(22 * MiB));
  void* other = f.alloc.allocate(20 * MiB, kOther);  // other stream: cannot reuse big
  AllocatorStats s = f.alloc.stats();
  CHECK(s.num_alloc_retries == 1);
  CHECK(s.num_device_free == 1);
  CHECK(s.num_ooms == 0);
  CHECK(s.reserved_bytes.current == int64_t(22 * MiB));
  f.alloc.free(other);
  f.alloc.free(small);
}

TEST_CASE("the release before the retry waits for pending blocks") {
  Fixture f(22 * MiB);
  void* big = f.alloc.allocate(20 * MiB, kStream);
  f.alloc.record_stream(big, kOther);
  f.alloc.free(big);  // pending on kOther
  void* again = f.alloc.allocate(20 * MiB, kOther);
  CHECK(f.events.synchronized == 1);
  CHECK(f.alloc.stats().num_alloc_retries == 1);
  f.alloc.free(again);
}

TEST_CASE("out of memory names the request, allocated, reserved and free, and fails only it") {
  Fixture f(30 * MiB);
  void* a = f.alloc.allocate(20 * MiB, kStream);
  try {
    f.alloc.allocate(15 * MiB, kStream);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::OutOfMemory);
    const std::string& m = e.message();
    INFO(m);
    CHECK(m.find("tried to allocate 15.00 MiB (15728640 bytes)") != std::string::npos);
    CHECK(m.find("20.00 MiB (20971520 bytes) allocated") != std::string::npos);
    CHECK(m.find("20.00 MiB (20971520 bytes) reserved") != std::string::npos);
    CHECK(m.find("10.00 MiB (10485760 bytes) free") != std::string::npos);
  }
  AllocatorStats s = f.alloc.stats();
  CHECK(s.num_ooms == 1);
  CHECK(s.num_alloc_retries == 1);
  void* b = f.alloc.allocate(1000, kStream);  // still serving
  f.alloc.free(a);
  f.alloc.free(b);
}

TEST_CASE("max_reserved caps the reserve like a device limit") {
  AllocatorOptions options;
  options.max_reserved = 4 * MiB;
  Fixture f(256 * MiB, options);
  std::vector<void*> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(f.alloc.allocate(MiB, kStream));  // 2 segments
  CHECK_THROWS_AS(f.alloc.allocate(MiB, kStream), Error);
  CHECK(f.alloc.stats().num_ooms == 1);
  f.alloc.empty_cache();
  CHECK(f.alloc.stats().reserved_bytes.current == int64_t(4 * MiB));
  for (void* p : blocks) f.alloc.free(p);
}

TEST_CASE("a session's account limits what it holds and is refunded on free") {
  Fixture f;
  SessionAccount account;
  account.limit = 3 * MiB;
  void* a = f.alloc.allocate(2 * MiB, kStream, &account);
  CHECK(account.allocated == 2 * MiB);
  try {
    f.alloc.allocate(2 * MiB, kStream, &account);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Quota);
    CHECK(e.message().find("past its limit of 3.00 MiB") != std::string::npos);
  }
  void* other = f.alloc.allocate(2 * MiB, kStream);  // another session (none) is not limited
  f.alloc.free(a);
  CHECK(account.allocated == 0);
  f.alloc.free(other);
}

TEST_CASE("empty_cache returns whole free segments; peaks reset to the current values") {
  Fixture f;
  void* a = f.alloc.allocate(100, kStream);
  void* b = f.alloc.allocate(5 * MiB, kStream);
  f.alloc.free(b);
  f.alloc.empty_cache();  // b's segment goes; a's stays (a is allocated)
  AllocatorStats s = f.alloc.stats();
  CHECK(s.reserved_bytes.current == int64_t(2 * MiB));
  CHECK(s.reserved_bytes.peak == int64_t(22 * MiB));
  CHECK(s.segment.freed == 1);
  f.alloc.reset_peak_stats();
  CHECK(f.alloc.stats().reserved_bytes.peak == int64_t(2 * MiB));
  CHECK(f.source->free_bytes() == f.source->total_bytes() - 2 * MiB);
  f.alloc.free(a);
}

TEST_CASE("freeing an unknown pointer is an internal error, not a crash") {
  Fixture f;
  int x = 0;
  CHECK_THROWS_AS(f.alloc.free(&x), Error);
  CHECK_THROWS_AS(f.alloc.record_stream(&x, kOther), Error);
  CHECK(f.alloc.block_size(&x) == 0);
}

TEST_CASE("the allocator returns its cache to the source when it goes") {
  auto source = make_segment_source(64 * MiB);
  {
    CachingAllocator alloc(*source, nullptr);
    alloc.free(alloc.allocate(3 * MiB, kStream));
    alloc.free(alloc.allocate(100, kStream));
    CHECK(source->free_bytes() == 42 * MiB);
    void* p = alloc.allocate(10, kStream);
    CHECK_THROWS_AS(alloc.record_stream(p, kOther), Error);  // no events to wait with
    alloc.free(p);
  }
  CHECK(source->free_bytes() == 64 * MiB);
}

}  // namespace
}  // namespace tensord::cuda::test
