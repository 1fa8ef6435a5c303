// LineSort (radix for long lines, std::stable_sort for short) gives the stable NaN-last order of
// std::stable_sort at every length around kRadixMinLine, both directions, for keys of every
// width with NaN, infinities, signed zeros and many ties.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "engine/backends/cpu/line_sort.h"

namespace tensord::cpu {
namespace {

template <typename K>
std::vector<int64_t> reference(const std::vector<K>& keys, bool descending) {
  std::vector<int64_t> idx(keys.size());
  std::iota(idx.begin(), idx.end(), int64_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
    return descending ? nan_last_less(keys[b], keys[a]) : nan_last_less(keys[a], keys[b]);
  });
  return idx;
}

template <typename K>
void check_orders(std::mt19937& rng, const std::vector<K>& palette) {
  std::uniform_int_distribution<size_t> pick(0, palette.size() - 1);
  for (int64_t n : {1, 2, 31, 63, 64, 65, 130, 257, 1000}) {
    LineSort<K> sorter(ScratchSite{}, n);
    std::vector<K> keys(static_cast<size_t>(n));
    std::vector<int64_t> idx(static_cast<size_t>(n));
    for (int trial = 0; trial < 4; ++trial) {
      for (K& k : keys) k = palette[pick(rng)];
      for (bool descending : {false, true}) {
        INFO("n " << n << ", descending " << descending);
        sorter.sort(keys.data(), n, descending, idx.data());
        CHECK(idx == reference(keys, descending));
      }
    }
  }
}

TEST_CASE("LineSort orders lines as a NaN-last stable sort", "[line_sort]") {
  std::mt19937 rng(11);
  const float inf = std::numeric_limits<float>::infinity();
  check_orders<float>(rng, {-0.0f, 0.0f, 1.5f, -2.0f, 3e38f, -1e-45f, inf, -inf, std::nanf("")});
  check_orders<double>(rng, {-0.0, 0.0, 1.5, -2.0, 1e300, -5e-324, std::nan(""),
                             -std::numeric_limits<double>::infinity()});
  check_orders<int8_t>(rng, {-128, -1, 0, 1, 127});
  check_orders<uint8_t>(rng, {0, 1, 128, 255});
  check_orders<int16_t>(rng, {-32768, -300, 0, 300, 32767});
  check_orders<int32_t>(rng, {std::numeric_limits<int32_t>::min(), -70000, 0, 70000,
                              std::numeric_limits<int32_t>::max()});
  check_orders<int64_t>(rng, {std::numeric_limits<int64_t>::min(), -1, 0, int64_t{1} << 40,
                              std::numeric_limits<int64_t>::max()});
}

}  // namespace
}  // namespace tensord::cpu
