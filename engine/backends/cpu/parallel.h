// OpenMP parallelism sized to the work: small tensors run on the calling thread with no
// OpenMP overhead at all.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace tensord::cpu {

// Below this many units of work (elements, roughly) a kernel runs serially.
inline constexpr int64_t kParallelGrain = 32768;

// Calls fn(begin, end) on disjoint ranges covering [0, n), on up to `threads` threads, each
// range at least about `grain / 2` long. `fn` must not throw (OpenMP cannot carry exceptions
// out of a parallel region): kernels validate their inputs before they get here.
template <typename F>
void parallel_for(int64_t n, int64_t grain, int threads, F&& fn) {
  if (n <= 0) return;
  int64_t chunks = n < grain ? 1 : n / std::max<int64_t>(1, grain / 2);
  int team = static_cast<int>(std::min<int64_t>(threads, chunks));
  if (team <= 1) {
    fn(int64_t{0}, n);
    return;
  }
#pragma omp parallel num_threads(team)
  {
    int64_t size = omp_get_num_threads();
    int64_t t = omp_get_thread_num();
    int64_t per = (n + size - 1) / size;
    int64_t begin = std::min(n, t * per), end = std::min(n, begin + per);
    if (begin < end) fn(begin, end);
  }
}

}  // namespace tensord::cpu
