// The stable order of one line's keys, NaN the largest (first when descending), as positions:
// what sort, argsort and the (values, indices) sorting ops build on (kernels_sort*.cpp). Lines
// of kRadixMinLine or more go through the radix sort of radix_sort.h; shorter ones through
// std::stable_sort of the positions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <type_traits>

#include "engine/backends/cpu/dispatch.h"
#include "engine/backends/cpu/radix_sort.h"
#include "engine/backends/cpu/scratch.h"

namespace tensord::cpu {

// The value a sort compares: 16-bit floats as float, bool as int, the rest as they are.
template <typename T>
using SortKey =
    std::conditional_t<kIsHalf<T>, float, std::conditional_t<std::is_same_v<T, bool>, int, T>>;

template <typename T>
SortKey<T> sort_key(T v) {
  return static_cast<SortKey<T>>(v);
}

template <typename K>
bool is_nan_key(K v) {
  if constexpr (std::is_floating_point_v<K>) {
    return v != v;
  } else {
    return false;
  }
}

// a before b in ascending order with NaN the largest value.
template <typename K>
bool nan_last_less(K a, K b) {
  if (is_nan_key(a)) return false;
  if (is_nan_key(b)) return true;
  return a < b;
}

// Scratch for lines of n keys; one per thread.
template <typename K>
class LineSort {
 public:
  LineSort(const ScratchSite& scratch, int64_t n)
      : radix_(n >= kRadixMinLine),
        keys_(scratch, radix_ ? static_cast<size_t>(n) : 0),
        keys_tmp_(scratch, radix_ ? static_cast<size_t>(n) : 0),
        idx_tmp_(scratch, radix_ ? static_cast<size_t>(n) : 0) {}

  // idx[0, n) = the positions of keys[0, n) in stable sorted order.
  void sort(const K* keys, int64_t n, bool descending, int64_t* idx) {
    std::iota(idx, idx + n, int64_t{0});
    if (radix_) {
      for (int64_t k = 0; k < n; ++k) keys_[k] = ordered_key(keys[k], descending);
      radix_sort_pairs(keys_.data(), idx, keys_tmp_.data(), idx_tmp_.data(), n);
      return;
    }
    std::stable_sort(idx, idx + n, [&](int64_t a, int64_t b) {
      return descending ? nan_last_less(keys[b], keys[a]) : nan_last_less(keys[a], keys[b]);
    });
  }

  // After a radix sort: the ordered keys (radix_sort.h) in sorted order; else null.
  const RadixKey<K>* sorted_keys() const { return radix_ ? keys_.data() : nullptr; }

 private:
  bool radix_;
  ScratchVector<RadixKey<K>> keys_, keys_tmp_;
  ScratchVector<int64_t> idx_tmp_;
};

}  // namespace tensord::cpu
