// first_extreme (the vector scan behind argmax/argmin rows) gives the serial scan's index for
// every length around its block sizes, with NaN, infinities, signed zeros and ties anywhere.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "engine/backends/cpu/arg_scan.h"

namespace tensord::cpu {
namespace {

// The definition: the first index whose value no later one beats; the first NaN wins.
template <typename T>
int64_t serial_argmax(const std::vector<T>& x) {
  int64_t at = 0;
  for (size_t i = 1; i < x.size(); ++i) {
    const T v = x[i], best = x[static_cast<size_t>(at)];
    if (v > best || (v != v && best == best)) at = static_cast<int64_t>(i);
  }
  return at;
}

template <typename T>
void check_lengths(std::mt19937& rng, const std::vector<T>& palette) {
  std::uniform_int_distribution<size_t> pick(0, palette.size() - 1);
  for (int n = 1; n <= 300; ++n) {
    for (int trial = 0; trial < 8; ++trial) {
      std::vector<T> x(static_cast<size_t>(n));
      for (T& v : x) v = palette[pick(rng)];
      const auto [value, at] = first_extreme<true>(x.data(), n);
      INFO("length " << n << ", trial " << trial);
      REQUIRE(at == serial_argmax(x));
      CHECK((value == x[static_cast<size_t>(at)] || value != value));
    }
  }
}

TEST_CASE("first_extreme agrees with the serial scan", "[arg_scan]") {
  std::mt19937 rng(7);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  check_lengths<float>(rng, {-0.0f, 0.0f, 1.5f, -2.0f, 3.0f, inf, -inf, nan});
  check_lengths<float>(rng, {-0.0f, 0.0f, 1.5f, -2.0f, 3.0f});  // no NaN: the value search
  check_lengths<double>(rng, {-0.0, 0.0, 1.5, -2.0, 3.0, inf, -inf, nan});
  check_lengths<int8_t>(rng, {-128, -1, 0, 1, 127});
  check_lengths<uint8_t>(rng, {0, 1, 200, 255});
  check_lengths<int64_t>(
      rng, {std::numeric_limits<int64_t>::min(), -1, 0, 1, std::numeric_limits<int64_t>::max()});
}

TEST_CASE("first_extreme finds the minimum with the reversed order", "[arg_scan]") {
  std::vector<int32_t> x(100, 5);
  x[70] = -3;
  x[90] = -3;
  CHECK(first_extreme<false>(x.data(), 100).second == 70);
  CHECK(first_extreme<false>(x.data(), 100).first == -3);
}

}  // namespace
}  // namespace tensord::cpu
