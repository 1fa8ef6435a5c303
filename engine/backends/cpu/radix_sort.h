// A stable sort of (key, index) pairs by unsigned keys: LSD radix over bytes, each pass a
// histogram and a scatter, passes whose byte every key shares skipped. line_sort.h uses it for
// lines of at least kRadixMinLine elements: std::stable_sort of a line's positions with a
// NaN-aware comparison took 59 ms for tensord-bench-ops' argsort of 1000 x 1000 float32 (NumPy's
// 48); this, 9-12 ms.
//
// ordered_key maps a value to an unsigned key whose order is the sort's: ascending with NaN the
// largest and -0 equal to +0 (so that they keep their order, as the comparison sort did);
// descending is the complement, which keeps equal keys in order too.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace tensord::cpu {

inline constexpr int64_t kRadixMinLine = 64;

// The unsigned type of a key of K's width.
template <typename K>
using RadixKey =
    std::conditional_t<sizeof(K) == 1, uint8_t,
                       std::conditional_t<sizeof(K) == 2, uint16_t,
                                          std::conditional_t<sizeof(K) == 4, uint32_t, uint64_t>>>;

template <typename K>
RadixKey<K> ordered_key(K v, bool descending) {
  using U = RadixKey<K>;
  constexpr U kSign = U{1} << (8 * sizeof(K) - 1);
  U u;
  if constexpr (std::is_floating_point_v<K>) {
    if (v != v) {
      u = static_cast<U>(~U{0});  // NaN: above +inf
    } else {
      if (v == 0) v = 0;  // -0 sorts with +0
      std::memcpy(&u, &v, sizeof u);
      u = (u & kSign) ? static_cast<U>(~u) : static_cast<U>(u | kSign);
    }
  } else if constexpr (std::is_signed_v<K>) {
    u = static_cast<U>(static_cast<U>(v) ^ kSign);
  } else {
    u = static_cast<U>(v);
  }
  return descending ? static_cast<U>(~u) : u;
}

// Sorts keys[0, n) with idx alongside, stably; the *_tmp arrays hold n elements each. The
// result is in keys and idx. Keys are sorted as offsets from the smallest, so that only the
// bytes of the keys' range are passes: integers in [-1000, 1000] take 2 passes, not 4 or 8.
template <typename U>
void radix_sort_pairs(U* keys, int64_t* idx, U* keys_tmp, int64_t* idx_tmp, int64_t n) {
  if (n == 0) return;
  U lo = keys[0], hi = keys[0];
  for (int64_t j = 1; j < n; ++j) {
    lo = keys[j] < lo ? keys[j] : lo;
    hi = keys[j] > hi ? keys[j] : hi;
  }
  const U range = static_cast<U>(hi - lo);
  if (lo != 0) {
    for (int64_t j = 0; j < n; ++j) keys[j] = static_cast<U>(keys[j] - lo);
  }
  U* k_in = keys;
  U* k_out = keys_tmp;
  int64_t* i_in = idx;
  int64_t* i_out = idx_tmp;
  for (unsigned shift = 0; shift < 8 * sizeof(U) && (range >> shift) != 0; shift += 8) {
    int64_t count[256] = {};
    for (int64_t j = 0; j < n; ++j) ++count[(k_in[j] >> shift) & 0xff];
    if (count[(k_in[0] >> shift) & 0xff] == n) continue;  // every key has this byte
    int64_t at = 0;
    for (int64_t& c : count) {
      const int64_t here = c;
      c = at;
      at += here;
    }
    for (int64_t j = 0; j < n; ++j) {
      const int64_t to = count[(k_in[j] >> shift) & 0xff]++;
      k_out[to] = k_in[j];
      i_out[to] = i_in[j];
    }
    std::swap(k_in, k_out);
    std::swap(i_in, i_out);
  }
  if (k_in != keys) std::memcpy(idx, i_in, static_cast<size_t>(n) * sizeof(int64_t));
  for (int64_t j = 0; j < n; ++j) keys[j] = static_cast<U>(k_in[j] + lo);
}

}  // namespace tensord::cpu
