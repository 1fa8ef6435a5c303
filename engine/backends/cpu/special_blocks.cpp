#include "engine/backends/cpu/special_blocks.h"

#include <cmath>
#include <numbers>

#include "engine/backends/cpu/convert.h"
#include "engine/backends/cpu/special_functions.h"
#include "engine/backends/cpu/vector_math.h"

namespace tensord::cpu::special {

void logit_block(const double* x, double* out, int64_t m) {
  for (int64_t i = 0; i < m; ++i) out[i] = x[i] / (1 - x[i]);
  vmath::log(out, out, m);  // 0 -> -inf, inf (x = 1) -> inf, negative (x outside [0, 1]) -> NaN
}

void ndtr_block(const double* x, double* out, int64_t m) {
  for (int64_t i = 0; i < m; ++i) out[i] = -x[i] / std::numbers::sqrt2;
  vmath::erfc(out, out, m);
  for (int64_t i = 0; i < m; ++i) out[i] *= 0.5;
}

void entr_block(const double* x, double* out, int64_t m) {
  vmath::log(x, out, m);
  for (int64_t i = 0; i < m; ++i) {
    const double v = x[i];
    out[i] = v > 0 ? -v * out[i] : v == 0 ? 0.0 : v < 0 ? -kInf : v;  // NaN stays NaN
  }
}

void digamma_block(const double* x, double* out, int64_t m) {
  constexpr int kSteps = 10;
  double at[kBlock], sum[kBlock];
  int64_t scalar[kBlock];  // as wide as a double, which GCC 12 needs to vectorize the loop
  for (int64_t k = 0; k < m; ++k) {
    const double v = x[k];
    // sum_j 1 / (v + j) = num / den, a fraction at a time; den <= 19! / 9! for v < 10. For
    // larger v it is not used (and may overflow to NaN).
    double num = 0, den = 1;
    for (int j = 0; j < kSteps; ++j) {
      const double s = v + j;
      num = num * s + den;
      den *= s;
    }
    const bool shift = v < kSteps;
    sum[k] = shift ? num / den : 0.0;
    at[k] = shift ? v + kSteps : v;
    scalar[k] = !(v > 0 && v < kInf);  // zero, negatives, NaN and inf
  }
  vmath::log(at, out, m);
  for (int64_t k = 0; k < m; ++k) {
    const double y = at[k], z = 1 / (y * y);
    out[k] = out[k] - 0.5 / y - digamma_series(z) - sum[k];
  }
  for (int64_t k = 0; k < m; ++k) {
    if (scalar[k]) out[k] = digamma(x[k]);
  }
}

namespace {

// x * f(y) with f's values in fy: 0 where x == 0 (even for an infinite f(y)), NaN where y is.
void times_unless_zero(const double* x, const double* y, double* fy, int64_t m) {
  for (int64_t i = 0; i < m; ++i) {
    fy[i] = std::isnan(y[i]) ? y[i] : x[i] == 0 ? 0.0 : x[i] * fy[i];
  }
}

}  // namespace

void xlogy_block(const double* x, const double* y, double* out, int64_t m) {
  vmath::log(y, out, m);
  times_unless_zero(x, y, out, m);
}

void xlog1py_block(const double* x, const double* y, double* out, int64_t m) {
  vmath::log1p(y, out, m);
  times_unless_zero(x, y, out, m);
}

void erfinv_block(const double* y, double* out, int64_t m) {
  const double c = 2 / std::sqrt(kPi);
  double a[kBlock], tail[kBlock], x[kBlock], e[kBlock], ec[kBlock], g[kBlock];
  for (int64_t k = 0; k < m; ++k) {
    a[k] = std::fabs(y[k]);
    tail[k] = 1 - a[k];
    x[k] = tail[k] * (1 + a[k]);
  }
  vmath::log(x, x, m);
  for (int64_t k = 0; k < m; ++k) {
    x[k] = giles_erfinv_factor(-x[k]) * a[k];
    g[k] = -x[k] * x[k];
  }
  vmath::erf(x, e, m);
  vmath::erfc(x, ec, m);
  vmath::exp(g, g, m);
  int64_t redo[kBlock];  // as wide as a double, which GCC 12 needs to vectorize the loop
  for (int64_t k = 0; k < m; ++k) {
    // special::erfinv's first Halley step and its test, without branches (so that it
    // vectorizes); the elements that fail it take the scalar function below.
    const double f = a[k] < 0.5 ? e[k] - a[k] : tail[k] - ec[k];
    const double r = f / (c * g[k]);
    const double dx = r / (1 + x[k] * r);
    const double x1 = x[k] - dx;
    const bool ordinary = a[k] > 0 && a[k] < 1;  // false for NaN
    redo[k] = !(ordinary && std::fabs(dx) <= 1e-6 * x1);
    out[k] = std::copysign(x1, y[k]);
  }
  for (int64_t k = 0; k < m; ++k) {
    if (redo[k]) out[k] = erfinv(y[k]);
  }
}

void ndtri_block(const double* p, double* out, int64_t m) {
  const double s = std::numbers::sqrt2;
  double central[kBlock], q[kBlock], x[kBlock] = {}, d[kBlock], ec[kBlock];
  for (int64_t k = 0; k < m; ++k) x[k] = 2 * p[k] - 1;
  erfinv_block(x, central, m);
  for (int64_t k = 0; k < m; ++k) {
    q[k] = p[k] > 0.5 ? 1 - p[k] : p[k];
    x[k] = q[k];
  }
  vmath::log(x, x, m);
  for (int64_t k = 0; k < m; ++k) {
    x[k] = q[k] < 0.02425 ? acklam_lower_t(std::sqrt(-2 * x[k])) : acklam_central(q[k] - 0.5);
    d[k] = -x[k] * x[k] / 2;
    ec[k] = -x[k] / s;
  }
  vmath::exp(d, d, m);
  vmath::erfc(ec, ec, m);
  int64_t redo[kBlock];  // as wide as a double, which GCC 12 needs to vectorize the loop
  for (int64_t k = 0; k < m; ++k) {
    // Central: sqrt 2 erfinv(2p - 1). Tails: special::ndtri's first Halley step and its test,
    // computed for every element without branches as erfinv_block's.
    const double dd = d[k] / std::sqrt(2 * kPi);
    const double r = (0.5 * ec[k] - q[k]) / dd;
    const double dx = r / (1 + x[k] * r / 2);
    const double x1 = x[k] - dx;
    const bool central_p = p[k] > 0.25 && p[k] < 0.75;
    const bool converged = dd != 0 && std::fabs(dx) <= 1e-6 * std::fabs(x1);
    const bool ordinary = p[k] > 0 && p[k] < 1;  // false for NaN
    redo[k] = !(ordinary && (central_p || converged));
    out[k] = central_p ? s * central[k] : p[k] > 0.5 ? -x1 : x1;
  }
  for (int64_t k = 0; k < m; ++k) {
    if (redo[k]) out[k] = ndtri(p[k]);
  }
}

}  // namespace tensord::cpu::special
