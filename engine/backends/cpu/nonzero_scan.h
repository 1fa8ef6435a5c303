// The row-major positions of the nonzero elements of a contiguous array (NaN is nonzero, -0 is
// not): nonzero and flatnonzero, and through flatnonzero boolean-mask indexing (x[mask]).
// Converting every element to 64 bits and pushing hits one by one past a branch that random
// masks mispredict took 30 ms for 2048 x 1024 bools here. Now chunks are counted in parallel,
// then each writes its positions from its offset without a branch: a sub-block's positions go
// to a stack buffer one slot larger than the sub-block (the write past the last hit lands there),
// then are copied out.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "engine/backends/cpu/parallel.h"

namespace tensord::cpu {

template <typename T, typename NonZero>
std::vector<int64_t> nonzero_positions(const T* p, int64_t n, int threads, NonZero nonzero) {
  constexpr int64_t kChunk = int64_t{1} << 16, kSub = 256;
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<int64_t> start(static_cast<size_t>(chunks) + 1, 0);
  parallel_for(chunks, 1, threads, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      int64_t count = 0;
      for (int64_t k = c * kChunk; k < std::min(n, (c + 1) * kChunk); ++k) count += nonzero(p[k]);
      start[static_cast<size_t>(c) + 1] = count;
    }
  });
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<int64_t> hits(static_cast<size_t>(start.back()));
  parallel_for(chunks, 1, threads, [&](int64_t begin, int64_t end) {
    int64_t local[kSub + 1];
    for (int64_t c = begin; c < end; ++c) {
      int64_t* out = hits.data() + start[static_cast<size_t>(c)];
      for (int64_t s = c * kChunk; s < std::min(n, (c + 1) * kChunk); s += kSub) {
        int64_t w = 0;
        for (int64_t k = s; k < std::min(n, s + kSub); ++k) {
          local[w] = k;
          w += nonzero(p[k]);
        }
        if (w == 0) continue;  // `out` may be null: no hits at all
        std::memcpy(out, local, static_cast<size_t>(w) * sizeof(int64_t));
        out += w;
      }
    }
  });
  return hits;
}

}  // namespace tensord::cpu
