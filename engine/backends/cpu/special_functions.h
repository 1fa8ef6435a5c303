// Scalar special functions in float64 (the kernels of kernels_special.cpp evaluate every dtype
// through these and round once). Methods: digamma by recurrence to x >= 10 and its asymptotic
// series, with reflection below 0.5; Bessel I0/I1 by their power series up to |x| = 30 and
// Hankel's asymptotic series beyond; erfinv and ndtri by Newton steps on erf/erfc from rough
// starts (libm's erf/erfc are accurate to an ulp or two); erfcx = exp(x^2) erfc(x), or its
// asymptotic series where erfc underflows.
#pragma once

#include <cmath>
#include <limits>
#include <numbers>

namespace tensord::cpu::special {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kPi = std::numbers::pi;

inline double lgamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);  // lgamma's global signgam would race between threads
}

inline double digamma(double x) {
  if (std::isnan(x) || x == kInf) return x;
  if (x == 0) return std::copysign(kInf, -x);  // PyTorch: digamma(+-0) = -+inf
  if (x < 0) {
    if (x == std::trunc(x)) return NAN;  // poles
    // Reflection: psi(x) = psi(1 - x) - pi / tan(pi x); tan has period pi, so fmod(x, 1)
    // reduces exactly.
    return digamma(1 - x) - kPi / std::tan(kPi * std::fmod(x, 1.0));
  }
  double acc = 0;
  while (x < 10) acc -= 1 / x, x += 1;
  const double z = 1 / (x * x);
  // Bernoulli terms: 1/12, -1/120, 1/252, -1/240, 1/132, -691/32760, 1/12.
  const double series =
      z * (1.0 / 12 - z * (1.0 / 120 -
                           z * (1.0 / 252 -
                                z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return acc + std::log(x) - 0.5 / x - series;
}

// exp(-|x|) I_nu(x) for nu = 0 or 1.
inline double bessel_i_scaled(int nu, double x) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(x);
  double value;
  if (a <= 30) {
    // sum (x/2)^(2k + nu) / (k! (k + nu)!)
    const double q = a * a / 4;
    double term = nu == 0 ? 1.0 : a / 2, sum = term;
    for (int k = 1; k < 500; ++k) {
      term *= q / (static_cast<double>(k) * (k + nu));
      sum += term;
      if (term < sum * 1e-17) break;
    }
    value = sum * std::exp(-a);
  } else if (std::isinf(a)) {
    value = 0;
  } else {
    // Hankel: e^x / sqrt(2 pi x) sum_k (-1)^k prod_{j<=k} (mu - (2j - 1)^2) / (k! (8x)^k).
    const double mu = 4.0 * nu * nu;
    double term = 1, sum = 1;
    for (int k = 1; k < 60; ++k) {
      const double next = -term * (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8 * a);
      if (std::fabs(next) >= std::fabs(term)) break;  // asymptotic: stop at the smallest term
      term = next;
      sum += term;
    }
    value = sum / (std::sqrt(2 * kPi) * std::sqrt(a));  // 2 pi a would overflow near max
  }
  return nu == 1 && x < 0 ? -value : value;
}

inline double bessel_i(int nu, double x) {
  if (std::isinf(x)) return nu == 0 ? kInf : x;  // i0(+-inf) = inf, i1(+-inf) = +-inf
  const double scaled = bessel_i_scaled(nu, x);
  if (std::fabs(x) > 700) {  // exp(|x|) alone would overflow before the product does
    const double half = std::exp(std::fabs(x) / 2);
    return scaled * half * half;
  }
  return scaled * std::exp(std::fabs(x));
}

inline double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < 26) return std::exp(x * x) * std::erfc(x);
  // 1 / (x sqrt(pi)) * sum_k (-1)^k (2k - 1)!! / (2 x^2)^k
  const double z = 1 / (2 * x * x);
  double term = 1, sum = 1;
  for (int k = 1; k < 30; ++k) {
    term *= -(2.0 * k - 1) * z;
    sum += term;
    if (std::fabs(term) < 1e-17) break;
  }
  return sum / (x * std::sqrt(kPi));
}

inline double ndtr(double x) {
  return 0.5 * std::erfc(-x / std::numbers::sqrt2);
}

inline double log_ndtr(double x) {
  const double t = x / std::numbers::sqrt2;
  if (x < -1) return std::log(erfcx(-t) / 2) - t * t;
  return std::log1p(-std::erfc(t) / 2);
}

// x with erf(x) = y, |y| < 1: Newton steps on erf (small |y|) or on erfc (|y| >= 0.5, where
// 1 - |y| is exact).
inline double erfinv(double y) {
  if (std::isnan(y)) return y;
  const double a = std::fabs(y);
  if (a >= 1) return a == 1 ? std::copysign(kInf, y) : NAN;
  if (a == 0) return y;
  const double c = 2 / std::sqrt(kPi);
  double x;
  if (a < 0.5) {
    x = a / c;
    for (int i = 0; i < 50; ++i) {
      const double dx = (std::erf(x) - a) / (c * std::exp(-x * x));
      x -= dx;
      if (std::fabs(dx) <= 1e-17 * x) break;
    }
  } else {
    const double tail = 1 - a;  // exact (Sterbenz)
    x = std::sqrt(-std::log(tail));
    for (int i = 0; i < 100; ++i) {
      const double dx = (std::erfc(x) - tail) / (-c * std::exp(-x * x));
      const double next = std::max(x - dx, x / 2);  // stay positive on the first steps
      const double step = next - x;
      x = next;
      if (std::fabs(step) <= 1e-16 * x) break;
    }
  }
  return std::copysign(x, y);
}

// x with ndtr(x) = p: erfinv on the side where it is accurate.
inline double ndtri(double p) {
  if (std::isnan(p)) return p;
  if (p <= 0 || p >= 1) return p == 0 ? -kInf : p == 1 ? kInf : NAN;
  const double s = std::numbers::sqrt2;
  if (p > 0.25 && p < 0.75) return s * erfinv(2 * p - 1);
  // Tails: Newton on erfc(-x / sqrt2) = 2 p (or 2 (1 - p) by symmetry), which keeps the
  // relative precision of tiny p.
  const bool upper = p > 0.5;
  const double q = upper ? 1 - p : p;  // q < 0.25; exact when computed from p > 0.75
  double x = -std::sqrt(-2 * std::log(q));
  for (int i = 0; i < 100; ++i) {
    const double f = 0.5 * std::erfc(-x / s) - q;
    const double d = std::exp(-x * x / 2) / std::sqrt(2 * kPi);
    const double next = std::min(x - f / d, x / 2 - 1e-300);
    const double step = next - x;
    x = next;
    if (std::fabs(step) <= 1e-16 * std::fabs(x)) break;
  }
  return upper ? -x : x;
}

inline double sinc(double x) {
  if (x == 0) return 1;
  if (std::isinf(x)) return 0;
  const double r = x - 2 * std::round(x / 2);  // exact; sin(pi x) = sin(pi r)
  return std::sin(kPi * r) / (kPi * x);
}

inline double entr(double x) {
  if (std::isnan(x)) return x;
  if (x > 0) return -x * std::log(x);
  return x == 0 ? 0 : -kInf;
}

inline double logit(double x) {
  return std::log(x / (1 - x));
}

inline double xlogy(double x, double y) {
  if (std::isnan(y)) return NAN;
  return x == 0 ? 0 : x * std::log(y);
}

inline double xlog1py(double x, double y) {
  if (std::isnan(y)) return NAN;
  return x == 0 ? 0 : x * std::log1p(y);
}

}  // namespace tensord::cpu::special
