// nonzero_positions: every nonzero position once, in order, at sizes around its sub-block
// (256) and chunk (65536) boundaries and with several threads, including all-zero and all-one
// inputs (where a write past the last hit would show).
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "engine/backends/cpu/nonzero_scan.h"

namespace tensord::cpu {
namespace {

std::vector<int64_t> positions(const std::vector<uint8_t>& x) {
  std::vector<int64_t> want;
  for (size_t k = 0; k < x.size(); ++k) {
    if (x[k] != 0) want.push_back(static_cast<int64_t>(k));
  }
  return want;
}

TEST_CASE("nonzero_positions lists every nonzero position in order", "[nonzero]") {
  std::mt19937 rng(3);
  const auto nonzero = [](uint8_t v) -> int64_t { return v != 0; };
  for (int64_t n : {0, 1, 255, 256, 257, 65535, 65536, 65537, 200003}) {
    for (double density : {0.0, 0.01, 0.5, 1.0}) {
      std::bernoulli_distribution hit(density);
      std::vector<uint8_t> x(static_cast<size_t>(n));
      for (uint8_t& v : x) v = hit(rng) ? static_cast<uint8_t>(1 + rng() % 255) : 0;
      for (int threads : {1, 2, 4}) {
        INFO("n " << n << ", density " << density << ", threads " << threads);
        CHECK(nonzero_positions(x.data(), n, threads, nonzero) == positions(x));
      }
    }
  }
}

}  // namespace
}  // namespace tensord::cpu
