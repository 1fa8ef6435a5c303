// BlockFibers, the emulation's CUDA block (block_fibers.h): every thread runs to its end, each
// barrier holds every thread until all got there, and threads see their own indices across
// barriers.
#include "tests/unit/cuda/block_fibers.h"

#include <catch2/catch.hpp>

#include <cfenv>
#include <functional>
#include <numeric>
#include <vector>

namespace tensord::cuda::test {
namespace {

struct Block {
  BlockFibers fibers;
  unsigned x = 0, y = 0;  // threadIdx, as the emulated kernels' shim keeps it
  void sync() { BlockFibers::sync(&fibers); }
  // Runs `thread` as every thread of a (bx, by) block, each seeing its index in x and y.
  void run(unsigned bx, unsigned by, const std::function<void()>& thread) {
    fibers.run(
        bx, by,
        [this](unsigned tx, unsigned ty) {
          x = tx;
          y = ty;
        },
        thread);
  }
};

TEST_CASE("a barrier holds every fiber until all reach it", "[fibers]") {
  Block b;
  constexpr unsigned kThreads = 256;
  std::vector<int> shared(kThreads, -1);
  std::vector<int> seen(kThreads, -2);
  // Each thread writes its slot, waits, then reads its right neighbour's: right only if the
  // neighbour wrote before anyone read. A tree sum over the slots follows, a barrier a level.
  int total = -1;
  b.run(kThreads, 1, [&] {
    const unsigned me = b.x;
    shared[me] = static_cast<int>(me);
    b.sync();
    seen[me] = shared[(me + 1) % kThreads];
    b.sync();
    for (unsigned half = kThreads / 2; half > 0; half /= 2) {
      if (me < half) shared[me] += shared[me + half];
      b.sync();
    }
    CHECK(b.x == me);  // still this thread's index after its barriers
    if (me == 0) total = shared[0];
  });
  for (unsigned i = 0; i < kThreads; ++i) CHECK(seen[i] == static_cast<int>((i + 1) % kThreads));
  CHECK(total == static_cast<int>(kThreads * (kThreads - 1) / 2));
}

TEST_CASE("a 2-D block runs each (x, y) once; threads may end before others' barriers",
          "[fibers]") {
  Block b;
  std::vector<int> ran(8 * 4, 0);
  int after_barrier = 0;
  for (int launch = 0; launch < 3; ++launch) {  // the fibers and their stacks are reused
    b.run(8, 4, [&] {
      ++ran[b.y * 8 + b.x];
      if (b.y == 3) return;  // a quarter of the block ends early
      b.sync();
      ++after_barrier;
    });
  }
  for (int n : ran) CHECK(n == 3);
  CHECK(after_barrier == 3 * 8 * 3);
}

TEST_CASE("each fiber keeps its own rounding mode across switches", "[fibers]") {
  Block b;
  std::vector<int> before(4, -1), after(4, -1);
  b.run(4, 1, [&] {
    const unsigned me = b.x;
    before[me] = std::fegetround();
    if (me == 1) std::fesetround(FE_UPWARD);
    b.sync();
    after[me] = std::fegetround();
    if (me == 1) std::fesetround(FE_TONEAREST);
  });
  CHECK(before == std::vector<int>(4, FE_TONEAREST));
  CHECK(after == std::vector<int>{FE_TONEAREST, FE_UPWARD, FE_TONEAREST, FE_TONEAREST});
  CHECK(std::fegetround() == FE_TONEAREST);
}

}  // namespace
}  // namespace tensord::cuda::test
