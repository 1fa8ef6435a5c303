// The index of the first maximum (or minimum) of a contiguous row, the first NaN winning: the
// scan behind argmax/argmin over rows. A scan that carries the best value and its index from
// element to element is one long dependency chain (about 1.2 ns an element here, 12x NumPy's
// argmax over 1024-wide float32 rows), and GCC does not vectorize it, nor the same scan split
// into sixteen lanes (it kept the lanes in scalar registers). So this is written with GCC's
// vector extensions: the extreme value over vectors as wide as the target's registers, a NaN mask
// beside it, then the first vector holding the value (or a NaN), then the element. 2048 rows of
// 1024 float32 on one core here (a harness outside the tree): 0.30-0.36 ms, the serial scan 1.8-1.9
// ms. Ties and signed zeros give the serial scan's index: x == m first holds at the element that
// scan would keep.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

#include "engine/backends/cpu/vector_width.h"

namespace tensord::cpu {

// kMax: the maximum (argmax), else the minimum. Integral T has no NaN.
template <bool kMax, typename T>
std::pair<T, int64_t> first_extreme(const T* x, int64_t n) {
  typedef T V __attribute__((vector_size(kVectorBytes)));
  using Mask = decltype(V{} != V{});
  constexpr int64_t kW = kVectorBytes / static_cast<int64_t>(sizeof(T));
  // The strict order, spelled out where used: no function here takes or returns a vector by
  // value, which changes the ABI where this is compiled without AVX-512 (-Wpsabi).
  int64_t i = 0;
  T m = x[0];
  bool nan = false;
  if (n >= 2 * kW) {
    V best, v;
    std::memcpy(&best, x, sizeof best);
    Mask nans = best != best;
    for (i = kW; i + kW <= n; i += kW) {
      std::memcpy(&v, x + i, sizeof v);
      best = (kMax ? v > best : v < best) ? v : best;
      nans |= v != v;
    }
    for (int64_t j = 0; j < kW; ++j) {
      nan |= nans[j] != 0 || best[j] != best[j];
      m = (kMax ? best[j] > m : best[j] < m) ? best[j] : m;
    }
  }
  for (; i < n; ++i) {
    nan |= x[i] != x[i];
    m = (kMax ? x[i] > m : x[i] < m) ? x[i] : m;
  }
  // The first of `blocks` vectors from k that holds the value (or a NaN): their masks are
  // or-ed before one horizontal test, whose cost is per test.
  const auto holds = [&](int64_t k, int64_t blocks) {
    Mask hit{};
    V v;
    for (int64_t b = 0; b < blocks; ++b) {
      std::memcpy(&v, x + k + b * kW, sizeof v);
      hit |= nan ? v != v : v == m;
    }
    uint64_t words[sizeof(Mask) / 8];
    std::memcpy(words, &hit, sizeof words);
    uint64_t any = 0;
    for (uint64_t w : words) any |= w;
    return any != 0;
  };
  int64_t at = 0;
  for (; at + 4 * kW <= n && !holds(at, 4); at += 4 * kW) {
  }
  for (; at + kW <= n && !holds(at, 1); at += kW) {
  }
  while (!(nan ? x[at] != x[at] : x[at] == m)) ++at;
  return {x[at], at};
}

}  // namespace tensord::cpu
