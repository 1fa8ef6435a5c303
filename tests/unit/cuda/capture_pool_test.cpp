// The memory recorder's view of a CUDA graph's private pool (capture_pool.h), without a GPU:
// a buffer the pool holds idle is the pool's (graph_pool, device-owned), one handed out is its
// user's; every byte is in one category at every point, and everything is freed with the pool.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <memory>

#include "engine/backends/cuda/capture_pool.h"
#include "engine/profiler/memory_ledger.h"

namespace tensord::cuda::test {
namespace {

using profiler::MemoryCategory;

class HostBuffer final : public engine::Buffer {
 public:
  explicit HostBuffer(size_t bytes) : Buffer(std::malloc(bytes), bytes) {}
  ~HostBuffer() override { std::free(data()); }
};

uint64_t in(const profiler::MemoryLedger& ledger, MemoryCategory c) {
  return ledger.totals().live_by_category[static_cast<size_t>(c)];
}

}  // namespace

TEST_CASE("idle graph pool buffers are the pool's in the ledger, handed-out ones their user's") {
  auto ledger = std::make_shared<profiler::MemoryLedger>();
  auto pool = std::make_shared<CapturePool>([ledger](const engine::Buffer& b) {
    profiler::AllocSite site;
    site.device_owned = true;
    site.category = MemoryCategory::GraphPool;
    site.op = "cuda graph pool";
    site.address = reinterpret_cast<uintptr_t>(b.data());
    return ledger->track(b.bytes(), site);
  });
  auto fresh = [] { return std::make_shared<HostBuffer>(4096); };
  // A session recording memory tracks what it gets (the executor's StepHook).
  auto user_tracks = [&](const std::shared_ptr<engine::Buffer>& b) {
    profiler::AllocSite site;
    site.category = MemoryCategory::Tensor;
    site.address = reinterpret_cast<uintptr_t>(b->data());
    b->ticket = ledger->track(b->bytes(), site);
  };
  std::shared_ptr<engine::Buffer> a = pool->allocate(4096, fresh);
  std::shared_ptr<engine::Buffer> b = pool->allocate(4096, fresh);
  user_tracks(a);
  user_tracks(b);
  CHECK(in(*ledger, MemoryCategory::Tensor) == 8192);
  CHECK(in(*ledger, MemoryCategory::GraphPool) == 0);
  void* a_data = a->data();
  a.reset();  // the plan released it: the graph still replays its address
  CHECK(in(*ledger, MemoryCategory::Tensor) == 4096);
  CHECK(in(*ledger, MemoryCategory::GraphPool) == 4096);
  auto c = pool->allocate(4096, fresh);  // reuses the idle one
  CHECK(c->data() == a_data);
  CHECK(in(*ledger, MemoryCategory::GraphPool) == 0);
  user_tracks(c);
  CHECK(in(*ledger, MemoryCategory::Tensor) == 8192);
  CHECK(pool->bytes() == 8192);
  b.reset();
  c.reset();
  CHECK(in(*ledger, MemoryCategory::Tensor) == 0);
  CHECK(in(*ledger, MemoryCategory::GraphPool) == 8192);
  CHECK(ledger->totals().live_bytes == 8192);
  pool.reset();  // the graph goes, and its pool with it
  CHECK(ledger->totals().live_bytes == 0);
  CHECK(ledger->totals().live_blocks == 0);
  CHECK(ledger->totals().frees == ledger->totals().allocs);
}

TEST_CASE("a graph pool without a ledger tracks nothing") {
  auto pool = std::make_shared<CapturePool>();
  auto b = pool->allocate(512, [] { return std::make_shared<HostBuffer>(512); });
  b.reset();
  CHECK_FALSE(
      pool->allocate(512, [] { return std::make_shared<HostBuffer>(512); })->ticket.tracked());
}

}  // namespace tensord::cuda::test
