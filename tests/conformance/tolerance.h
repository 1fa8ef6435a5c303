// How close a backend's result must be to the float64 reference: one table for every op.
#pragma once

#include "engine/ir/dtype.h"

namespace tensord::conformance {

// What kind of computation produced a value, which decides how far it may be from the exact
// result once that is rounded to the output dtype.
enum class Accuracy : uint8_t {
  // Bit-exact: data movement, comparisons, casts, neg/abs/relu/floor/... and integer results.
  Exact,
  // One correctly rounded operation (add, sub, mul, div, sqrt), possibly after a conversion
  // to float32 and back (float16/bfloat16 compute in float32: double rounding, so one ulp).
  Rounded,
  // Library functions (exp, log, sin, tanh, erf, pow, ...) and short formulas of them.
  Transcendental,
  // Sums of many terms (reductions, matmul, softmax, layer_norm): the allowance grows with
  // sqrt(number of terms) times the magnitude of the terms (Expected::scale).
  Accumulated,
};

struct Tolerance {
  double rtol = 0;  // relative to |expected| (and to sqrt(terms) * scale for Accumulated)
  double atol = 0;  // absolute floor, for results near zero
};

// The table. Integer and bool outputs are always exact. Rows are output dtypes; float16 and
// bfloat16 allow one ulp of their own format (2^-10, 2^-7) on top of float32 work.
//
//                    float64          float32          float16          bfloat16
// Exact              0                0                0                0
// Rounded            4.5e-16          2.5e-7 (2 ulp)   1e-3 (1 ulp)     8e-3 (1 ulp)
// Transcendental     1e-13            4e-6 (~32 ulp)   1.5e-3           1.2e-2
// Accumulated        1e-11            1e-5             2e-3             1.6e-2
//
// float64 sums may run in any order (docs/ops.md asks blocked summation of float32 only); a
// running sum of n same-sign terms errs by up to n * 2^-53 relative, 1e-11 at n = 70,000.
// atol: Rounded allows one unit of the smallest subnormal; Transcendental and Accumulated use
// atol = rtol / 4 (absolute error of library functions near their zeros, e.g. sin(pi)).
inline Tolerance tolerance(Accuracy accuracy, ir::DType out) {
  using ir::DType;
  if (!ir::is_floating(out) || accuracy == Accuracy::Exact) return {};
  int col = out == DType::Float64 ? 0 : out == DType::Float32 ? 1 : out == DType::Float16 ? 2 : 3;
  constexpr double kRounded[4] = {4.5e-16, 2.5e-7, 1e-3, 8e-3};
  constexpr double kSubnormal[4] = {4.9406564584124654e-324, 1.401298464324817e-45,
                                    5.960464477539063e-8, 9.183549615799121e-41};
  constexpr double kTranscendental[4] = {1e-13, 4e-6, 1.5e-3, 1.2e-2};
  constexpr double kAccumulated[4] = {1e-11, 1e-5, 2e-3, 1.6e-2};
  switch (accuracy) {
    case Accuracy::Rounded:
      return {kRounded[col], kSubnormal[col]};
    case Accuracy::Transcendental:
      return {kTranscendental[col], kTranscendental[col] / 4};
    case Accuracy::Accumulated:
      return {kAccumulated[col], kAccumulated[col] / 4};
    case Accuracy::Exact:
      break;
  }
  return {};
}

}  // namespace tensord::conformance
