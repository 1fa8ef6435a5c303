// parallel_for: ranges cover [0, n) once, and an exception thrown on any thread of the region
// reaches the caller instead of ending the process (OpenMP cannot carry it out by itself).
#include <catch2/catch.hpp>

#include <atomic>
#include <new>
#include <stdexcept>
#include <vector>

#include "engine/backends/cpu/parallel.h"

namespace tensord::cpu {
namespace {

TEST_CASE("parallel_for covers every index once", "[parallel]") {
  const int64_t n = 1000003;
  std::vector<std::atomic<int>> seen(static_cast<size_t>(n));
  parallel_for(n, kParallelGrain, 4, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) seen[static_cast<size_t>(i)]++;
  });
  int64_t once = 0;
  for (const auto& s : seen) once += s.load() == 1;
  CHECK(once == n);
}

TEST_CASE("an exception inside the parallel region reaches the caller", "[parallel]") {
  const int64_t n = 1 << 20;
  std::atomic<int64_t> done{0};
  // The range holding index 0 fails as a work array that cannot be allocated would; the other
  // ranges still run.
  auto run = [&] {
    parallel_for(n, kParallelGrain, 4, [&](int64_t begin, int64_t end) {
      if (begin == 0) throw std::bad_alloc();
      done += end - begin;
    });
  };
  CHECK_THROWS_AS(run(), std::bad_alloc);
  CHECK(done.load() > 0);
  CHECK(done.load() < n);
  // One thread (no region): the exception goes straight through.
  CHECK_THROWS_AS(parallel_for(10, kParallelGrain, 1,
                               [](int64_t, int64_t) { throw std::runtime_error("kernel"); }),
                  std::runtime_error);
}

}  // namespace
}  // namespace tensord::cpu
