// OpenMP parallelism sized to the work: small tensors run on the calling thread with no
// OpenMP overhead at all.
#pragma once

#include <cstdint>

#include "engine/backends/cpu/function_ref.h"

namespace tensord::cpu {

// Below this many units of work (elements, roughly) a kernel runs serially.
inline constexpr int64_t kParallelGrain = 32768;

// Calls fn(begin, end) on disjoint ranges covering [0, n), on up to `threads` threads, each
// range at least about `grain / 2` long. Kernels validate their inputs before they get here; if
// `fn` throws anyway (a work array that cannot be allocated), the other ranges still run and
// the first exception is rethrown on the calling thread once all are done.
void parallel_for(int64_t n, int64_t grain, int threads, FunctionRef<void(int64_t, int64_t)> fn);

}  // namespace tensord::cpu
