#include "engine/backends/cpu/parallel.h"

#include <omp.h>

#include <algorithm>
#include <exception>

namespace tensord::cpu {

void parallel_for(int64_t n, int64_t grain, int threads, FunctionRef<void(int64_t, int64_t)> fn) {
  if (n <= 0) return;
  int64_t chunks = n < grain ? 1 : n / std::max<int64_t>(1, grain / 2);
  int team = static_cast<int>(std::min<int64_t>(threads, chunks));
  if (team <= 1) {
    fn(0, n);
    return;
  }
  // An exception must not leave an OpenMP region (std::terminate: the daemon would die of one
  // kernel's std::bad_alloc): each thread catches, the first is kept and rethrown after.
  std::exception_ptr first;
#pragma omp parallel num_threads(team)
  {
    int64_t size = omp_get_num_threads();
    int64_t t = omp_get_thread_num();
    int64_t per = (n + size - 1) / size;
    int64_t begin = std::min(n, t * per), end = std::min(n, begin + per);
    try {
      if (begin < end) fn(begin, end);
    } catch (...) {
#pragma omp critical(tensord_parallel_for_error)
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace tensord::cpu
