// Deterministic input data: a fixed-seed generator and the value families the table uses.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tests/conformance/ref_tensor.h"

namespace tensord::conformance {

// splitmix64: tiny, fast, and the same on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  double uniform();                       // [0, 1)
  int64_t range(int64_t lo, int64_t hi);  // [lo, hi]

 private:
  uint64_t state_;
};

uint64_t hash_string(std::string_view s);  // FNV-1a: seeds each case from its description

enum class Values : uint8_t {
  Mixed,     // floats in [-4, 4] with exact halves; integers over much of their range
  Small,     // floats in [-3, 3]; integers in [-4, 4] (uint8 [0, 8]); for pow, exp, matmul
  Positive,  // floats in (0.05, 10]; integers in [1, 20]
  NearOne,   // magnitudes in [0.5, 1.5] (integers 1..3), random signs: products stay finite
  Halves,    // multiples of 0.5 in [-4, 4] (integers in [-4, 4]): many ties and zeros
  Special,   // Mixed plus NaN, +-inf, +-0, huge, tiny, subnormal, halves; integer min/max
  // Special without huge and subnormal values, for ops that sum or multiply many terms: there
  // a float32 intermediate may overflow or lose precision in an order-dependent way (3e38 * 3
  // is inf in float32), which a float64 reference cannot predict. NaN and inf propagation is
  // order-independent and stays.
  Edge,
  Index,     // integers in [-bound, bound) (uint8 [0, bound)): indices, including negative
  Explicit,  // the case's own list
};
std::string_view name(Values v);

// Fills a tensor of `dtype` and `shape`; every float is exactly representable in `dtype`.
RefTensor generate(DType dtype, const Shape& shape, Values values, Rng& rng, int64_t bound = 0,
                   const std::vector<double>& explicit_values = {});

}  // namespace tensord::conformance
