// Scalar special functions in float64 (the kernels of kernels_special.cpp evaluate every dtype
// through these and round once). Methods: digamma by recurrence to x >= 10 and its asymptotic
// series, with reflection below 0.5; Bessel I0/I1 by their power series (a fixed polynomial
// to |x| = 4, then to convergence) up to |x| = 30 and Hankel's asymptotic series beyond; erfinv and
// ndtri by Halley steps on erf/erfc from Giles' and Acklam's approximations (libm's erf/erfc are
// accurate to an ulp or two); erfcx = exp(x^2) erfc(x), or its asymptotic series where erfc
// underflows.
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

// The asymptotic series of digamma(x) - log(x) + 1 / (2x) at z = 1 / x^2, subtracted, for
// x >= 10: Bernoulli terms 1/12, -1/120, 1/252, -1/240, 1/132, -691/32760, 1/12.
inline double digamma_series(double z) {
  return z *
         (1.0 / 12 -
          z * (1.0 / 120 -
               z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
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
  return acc + std::log(x) - 0.5 / x - digamma_series(1 / (x * x));
}

// The power series of the Bessel functions I_nu (q = x^2 / 4) and J_nu (q = -x^2 / 4), nu = 0
// or 1, for |x| <= 4: (x/2)^nu sum_k q^k / (k! (k + nu)!) to k = 17 (the next term is below
// 1e-19 of the sum at |x| = 4), by Horner's rule. No division and no exit that depends on x,
// so the core overlaps neighbouring elements. Splitting it into even and odd chains in q^2
// would shorten the chain but cancels worse for J near x = 4: 2.4e-14 against 9e-15 (errors
// relative to max(|J1|, 0.05) on a grid of step 1e-4).
inline constexpr double kBesselSeries[2][18] = {
    {1.0, 1.0, 0.25, 0.027777777777777776, 0.001736111111111111, 6.944444444444444e-05,
     1.9290123456790124e-06, 3.936759889140842e-08, 6.151187326782565e-10, 7.594058428126624e-12,
     7.594058428126623e-14, 6.276081345559193e-16, 4.358389823304995e-18, 2.5789288895295828e-20,
     1.3157800456783586e-22, 5.8479113141260385e-25, 2.2843403570804838e-27, 7.904291893012054e-30},
    {1.0, 0.5, 0.08333333333333333, 0.006944444444444444, 0.00034722222222222224,
     1.1574074074074073e-05, 2.755731922398589e-07, 4.920949861426052e-09, 6.834652585313961e-11,
     7.594058428126623e-13, 6.903689480115112e-15, 5.230067787965994e-17, 3.352607556388458e-19,
     1.842092063949702e-21, 8.771866971189057e-24, 3.654944571328774e-26, 1.3437296218120491e-28,
     4.391273273895586e-31}};  // 1 / (k! (k + nu)!), rounded once

inline double bessel_series(int nu, double x, double q) {
  const double* c = kBesselSeries[nu];
  double sum = c[17];
  for (int k = 16; k >= 0; --k) sum = sum * q + c[k];
  return nu == 0 ? sum : x / 2 * sum;
}

// exp(-|x|) I_nu(x) for nu = 0 or 1.
inline double bessel_i_scaled(int nu, double x) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(x);
  double value;
  if (a <= 4) {
    value = bessel_series(nu, a, a * a / 4) * std::exp(-a);
  } else if (a <= 30) {
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
  if (std::fabs(x) <= 4) return bessel_series(nu, x, x * x / 4);  // not scaled and back
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

// Giles' single-precision erfinv(a) / a as a function of w = -log((1 - a) (1 + a)).
inline double giles_erfinv_factor(double w) {
  double p;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  return p;
}

// x with erf(x) = y, |y| < 1: Halley steps on erf (small |y|) or on erfc (|y| >= 0.5, where
// 1 - |y| is exact) from Giles' single-precision approximation ("Approximating the erfinv
// function", 2010), usually one step. (Newton from a rough start with a stopping rule below an
// ulp ran 50 to 100 steps: 0.9 s per 1M elements.)
inline double erfinv(double y) {
  if (std::isnan(y)) return y;
  const double a = std::fabs(y);
  if (a >= 1) return a == 1 ? std::copysign(kInf, y) : NAN;
  if (a == 0) return y;
  const double c = 2 / std::sqrt(kPi);
  const double tail = 1 - a;  // exact (Sterbenz) for a >= 0.5
  const double p = giles_erfinv_factor(-std::log(tail * (1 + a)));
  double x = p * a;
  for (int i = 0; i < 10; ++i) {
    // r = f / f' for f = erf(x) - a, or erfc(x) - tail where 1 - a is exact; f'' / f' = -2x.
    const double f = a < 0.5 ? std::erf(x) - a : tail - std::erfc(x);
    const double r = f / (c * std::exp(-x * x));
    const double dx = r / (1 + x * r);
    x -= dx;
    if (std::fabs(dx) <= 1e-6 * x) break;  // cubic convergence: what is left is below an ulp
  }
  return std::copysign(x, y);
}

// Acklam's rational approximation of ndtri for q < 0.02425 (relative error below 1.2e-9).
// t = sqrt(-2 log q).
inline double acklam_lower_t(double t) {
  return (((((-7.784894002430293e-03 * t - 3.223964580411365e-01) * t - 2.400758277161838e+00) * t -
            2.549732539343734e+00) *
               t +
           4.374664141464968e+00) *
              t +
          2.938163982698783e+00) /
         ((((7.784695709041462e-03 * t + 3.224671290700398e-01) * t + 2.445134137142996e+00) * t +
           3.754408661907416e+00) *
              t +
          1);
}
inline double acklam_lower(double q) {
  return acklam_lower_t(std::sqrt(-2 * std::log(q)));
}
inline double acklam_central(double q) {
  const double r = q * q;
  return (((((-3.969683028665376e+01 * r + 2.209460984245205e+02) * r - 2.759285104469687e+02) * r +
            1.383577518672690e+02) *
               r -
           3.066479806614716e+01) *
              r +
          2.506628277459239e+00) *
         q /
         (((((-5.447609879822406e+01 * r + 1.615858368580409e+02) * r - 1.556989798598866e+02) * r +
            6.680131188771972e+01) *
               r -
           1.328068155288572e+01) *
              r +
          1);
}

// x with ndtr(x) = p: erfinv on the side where it is accurate; in the tails Halley steps on
// erfc(-x / sqrt2) = 2 q with q = min(p, 1 - p), which keeps the relative precision of tiny p,
// from Acklam's approximation.
inline double ndtri(double p) {
  if (std::isnan(p)) return p;
  if (p <= 0 || p >= 1) return p == 0 ? -kInf : p == 1 ? kInf : NAN;
  const double s = std::numbers::sqrt2;
  if (p > 0.25 && p < 0.75) return s * erfinv(2 * p - 1);
  const bool upper = p > 0.5;
  const double q = upper ? 1 - p : p;  // q < 0.25; exact when computed from p > 0.75
  double x = q < 0.02425 ? acklam_lower(q) : acklam_central(q - 0.5);
  for (int i = 0; i < 10; ++i) {
    // Halley on f = ndtr(x) - q: f' = exp(-x^2 / 2) / sqrt(2 pi), f'' / f' = -x.
    const double d = std::exp(-x * x / 2) / std::sqrt(2 * kPi);
    if (d == 0) break;  // x beyond -38.5: the start is as close as float64 can tell
    const double r = (0.5 * std::erfc(-x / s) - q) / d;
    const double dx = r / (1 + x * r / 2);
    x -= dx;
    if (std::fabs(dx) <= 1e-6 * std::fabs(x)) break;
  }
  return upper ? -x : x;
}

inline double sinc(double x) {
  if (x == 0) return 1;
  if (std::isinf(x)) return 0;
  const double r = x - 2 * std::rint(x / 2);  // exact; sin(pi x) = sin(pi r)
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
