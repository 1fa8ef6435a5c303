// The complex functions <complex> does not have (expm1, log1p, exp2, log2, sign, sigmoid,
// NumPy's power), in complex<double>: kernels_complex.cpp computes complex64 through them and
// rounds once. The CUDA emitter's formulas (emit_cuda_complex_math.cpp) are the same ones, so
// both backends give the same special values; docs/ops.md "Complex numbers" states them.
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <numbers>

namespace tensord::cpu::complex_math {

using c128 = std::complex<double>;

// e^z - 1 without cancellation near 0: the real part as expm1(x) cos y - 2 sin^2(y / 2).
inline c128 expm1(c128 z) {
  const double x = z.real(), y = z.imag();
  if (y == 0) return {std::expm1(x), y};
  const double h = std::sin(0.5 * y);
  return {std::expm1(x) * std::cos(y) - 2 * h * h, std::exp(x) * std::sin(y)};
}

// log(1 + z) without cancellation near 0: the real part as log1p(2x + x^2 + y^2) / 2 while
// |z| < 1/2; elsewhere 1 + z loses nothing that matters (1 + x is exact for x in [-2, -1/2]).
inline c128 log1p(c128 z) {
  const double x = z.real(), y = z.imag();
  if (std::hypot(x, y) < 0.5) return {0.5 * std::log1p(x * (2 + x) + y * y), std::atan2(y, 1 + x)};
  return std::log(c128(1 + x, y));
}

// 2^z = e^(z ln 2), with the angle y ln 2 formed once.
inline c128 exp2(c128 z) {
  const double x = z.real(), y = z.imag();
  const double m = std::exp2(x);
  if (y == 0) return {m, y};
  const double a = y * std::numbers::ln2;
  return {m * std::cos(a), m * std::sin(a)};
}

// log(z) / log(base) part by part, the base's log given.
inline c128 log_base(c128 z, double log_of_base) {
  const c128 l = std::log(z);
  return {l.real() / log_of_base, l.imag() / log_of_base};
}

// z / |z| (NumPy 2, the Array API and torch.sgn); 0 for 0. (NumPy 1's sign(z) was the sign of
// the real part, or of the imaginary part when the real part is 0.)
inline c128 sign(c128 z) {
  if (z.real() == 0 && z.imag() == 0) return z;
  const double h = std::hypot(z.real(), z.imag());
  return {z.real() / h, z.imag() / h};
}

inline c128 sigmoid(c128 z) {
  return c128(1) / (c128(1) + std::exp(-z));
}

// z^w as NumPy computes it: 1 for w = 0; for z = 0, 0 when w is real and positive, else NaN;
// a real integer exponent under 100 in magnitude by repeated squaring (z ** 2 is z * z, and a
// negative one is 1 / z^n); otherwise e^(w log z).
inline c128 pow(c128 z, c128 w) {
  const double wr = w.real(), wi = w.imag();
  if (wr == 0 && wi == 0) return {1, 0};
  if (z.real() == 0 && z.imag() == 0) {
    if (wr > 0 && wi == 0) return {0, 0};
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan};
  }
  if (wi == 0 && wr == std::nearbyint(wr) && std::fabs(wr) < 100) {
    int n = static_cast<int>(std::fabs(wr));
    c128 result(1, 0), square = z;
    for (bool first = true; n > 0; n >>= 1) {
      if (n & 1) {
        result = first ? square : result * square;
        first = false;
      }
      if (n > 1) square = square * square;
    }
    return wr < 0 ? c128(1) / result : result;
  }
  return std::exp(w * std::log(z));
}

}  // namespace tensord::cpu::complex_math
