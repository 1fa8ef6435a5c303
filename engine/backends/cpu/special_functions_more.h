// More scalar special functions in float64 (kernels_special_more.cpp rounds once to the output
// dtype). Methods:
// - zeta(s, q) (Hurwitz): Cephes' (and PyTorch's) direct sum to q + 9, then the Euler-Maclaurin
//   tail with 12 Bernoulli terms; for q < -50 (integer s <= 60) the reflection of the polygamma
//   functions instead of a sum of |q| terms.
// - polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) (n >= 1), digamma for n = 0.
// - gammainc/gammaincc: the series of P(a, x) and the continued fraction of Q(a, x) (modified
//   Lentz), chosen as Cephes does, with Cephes' small-x series of Q; the factor x^a e^-x /
//   Gamma(a) is formed as a log1p(d) - a d (d = (x - a) / a) plus Stirling's series for a >= 10,
//   so it keeps its precision for large a.
// - bessel_j0/j1: power series for |x| <= 4 (bessel_series), Miller's backward
//   recurrence (normalized by J0 + 2 sum J2k = 1) up to 25, Hankel's asymptotic series beyond.
#pragma once

#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "engine/backends/cpu/special_functions.h"

namespace tensord::cpu::special {

inline constexpr double kEps = 1.11022302462515654042e-16;

// Hurwitz zeta (s > 1, both finite; q > 0, or q < 0 with s an integer): Cephes' method, which
// sums from q until the terms pass q + 9.
inline double zeta_positive(double s, double q) {
  static constexpr double kA[] = {12.0,
                                  -720.0,
                                  30240.0,
                                  -1209600.0,
                                  47900160.0,
                                  -1.8924375803183791606e9,
                                  7.47242496e10,
                                  -2.950130727918164224e12,
                                  1.1646782814350067249e14,
                                  -4.5979787224074726105e15,
                                  1.8152105401943546773e17,
                                  -7.1661652561756670113e18};
  double sum = std::pow(q, -s);
  double a = q, b = 0;
  for (int i = 0; i < 9 || a <= 9;) {
    ++i;
    a += 1;
    b = std::pow(a, -s);
    sum += b;
    if (std::fabs(b) < kEps * std::fabs(sum)) return sum;
  }
  if (b == 0) return sum;  // the terms underflowed (huge s): so does the tail
  const double w = a;
  sum += b * w / (s - 1);
  sum -= 0.5 * b;
  double fac = 1, k = 0;
  for (double div : kA) {
    fac *= s + k;
    b /= w;
    const double t = fac * b / div;
    sum += t;
    if (std::fabs(t / sum) < kEps) break;
    k += 1;
    fac *= s + k;
    b /= w;
    k += 1;
  }
  return sum;
}

// The n-th derivative of cot(y), as the polynomial P_n(cot y): P_0(c) = c, P_{k+1}(c) =
// -(1 + c^2) P_k'(c).
inline double cot_derivative(int n, double c) {
  std::vector<double> p(static_cast<size_t>(n) + 2, 0.0), q(p.size(), 0.0);
  p[1] = 1;
  for (int k = 0; k < n; ++k) {
    std::fill(q.begin(), q.end(), 0.0);
    for (size_t j = 1; j < p.size(); ++j) {
      const double d = p[j] * static_cast<double>(j);  // P' coefficient of c^(j-1)
      if (d == 0) continue;
      q[j - 1] -= d;
      if (j + 1 < q.size()) q[j + 1] -= d;
    }
    p.swap(q);
  }
  double v = 0;
  for (size_t j = p.size(); j-- > 0;) v = v * c + p[j];
  return v;
}

// zeta(s, q) for q < 0 not an integer and s >= 2 an integer, by the reflection of polygamma:
// zeta(s, q) = (-1)^(s-1) zeta(s, 1 - q) - (-1)^s pi^s P_{s-1}(cot pi q) / (s - 1)!.
inline double zeta_negative(double s, double q) {
  const int n = static_cast<int>(s) - 1;
  const double c = 1 / std::tan(kPi * std::fmod(q, 1.0));  // cot has period pi: exact reduction
  const double odd = (n % 2 == 0) ? 1.0 : -1.0;            // (-1)^(s-1)
  const double scale = std::exp(s * std::log(kPi) - special::lgamma(s));
  return odd * zeta_positive(s, 1 - q) + odd * scale * cot_derivative(n, c);
}

inline double zeta(double s, double q) {
  if (std::isnan(s) || std::isnan(q)) return NAN;
  if (s == 1) return kInf;
  if (s < 1) return NAN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;  // poles (and q = -inf)
    if (s != std::floor(s)) return NAN;   // q^-s is not real
  }
  if (s == kInf) return q > 1 ? 0.0 : q == 1 ? 1.0 : q > 0 ? kInf : NAN;
  if (q == kInf) return 0;
  // q < 0 (s an integer): PyTorch's sum from q for q >= -50 (and for large s, where the
  // polynomial of the reflection would overflow); the reflection where the sum would be long.
  if (q < -50 && s <= 60) return zeta_negative(s, q);
  return zeta_positive(s, q);
}

inline double polygamma(int64_t n, double x) {
  if (n == 0) return digamma(x);
  if (std::isnan(x) || x == -kInf) return NAN;
  if (x == kInf) return 0;
  const double sign = (n % 2 == 1) ? 1.0 : -1.0;  // (-1)^(n+1)
  const double s = static_cast<double>(n) + 1;
  if (x <= 0 && x == std::floor(x)) return sign * kInf;  // poles, as PyTorch
  const double z = zeta(s, x);
  if (z == 0 || std::isnan(z)) return sign * z;
  // n! zeta without overflowing n! alone: exp(lgamma(n + 1) + log|zeta|)
  return sign * std::copysign(std::exp(special::lgamma(s) + std::log(std::fabs(z))), z);
}

// log Gamma_p(x) = p (p - 1) / 4 log pi + sum_j lgamma(x - j / 2); NaN for x <= (p - 1) / 2.
inline double multigammaln(double x, int64_t p) {
  if (std::isnan(x)) return x;
  if (x <= 0.5 * static_cast<double>(p - 1)) return NAN;
  double sum = 0.25 * static_cast<double>(p) * static_cast<double>(p - 1) * std::log(kPi);
  for (int64_t j = 0; j < p; ++j) sum += special::lgamma(x - 0.5 * static_cast<double>(j));
  return sum;
}

// log(1 + d) - d, accurate for small d.
inline double log1pmx(double d) {
  if (std::fabs(d) >= 0.5) return std::log1p(d) - d;
  // -d^2/2 + d^3/3 - ...
  double power = d * d, sum = 0;
  for (int k = 2; k < 200; ++k) {
    const double term = power / k;
    sum += (k % 2 == 0) ? -term : term;
    if (std::fabs(term) <= kEps * std::fabs(sum)) break;
    power *= d;
  }
  return sum;
}

// lgamma(a) - ((a - 1/2) log a - a + log(2 pi) / 2) for a >= 10 (Stirling's series).
inline double stirling_correction(double a) {
  const double z = 1 / (a * a);
  return (1.0 / 12 -
          z * (1.0 / 360 -
               z * (1.0 / 1260 -
                    z * (1.0 / 1680 -
                         z * (1.0 / 1188 -
                              z * (691.0 / 360360 - z * (1.0 / 156 - z * 3617.0 / 122400))))))) /
         a;
}

// log(x^a e^-x / Gamma(a)), a > 0, x > 0.
inline double igam_log_factor(double a, double x) {
  if (a < 10) return a * std::log(x) - x - special::lgamma(a);
  return a * log1pmx((x - a) / a) + 0.5 * std::log(a / (2 * kPi)) - stirling_correction(a);
}

// lgamma(1 + a), accurate for small |a| (Taylor series with zeta(k)).
inline double lgam1p(double a) {
  if (std::fabs(a) > 0.5) {
    if (std::fabs(a - 1) < 0.5) return std::log(a) + lgam1p(a - 1);
    return special::lgamma(1 + a);
  }
  static const std::array<double, 64> kZeta = [] {
    std::array<double, 64> z{};
    for (int k = 2; k < 64; ++k) z[static_cast<size_t>(k)] = zeta_positive(k, 1);
    return z;
  }();
  constexpr double kEulerGamma = 0.57721566490153286061;
  double sum = -kEulerGamma * a, power = -a;
  for (int k = 2; k < 64; ++k) {
    power *= -a;  // (-a)^k
    const double term = kZeta[static_cast<size_t>(k)] * power / k;
    sum += term;
    if (std::fabs(term) <= kEps * std::fabs(sum)) break;
  }
  return sum;
}

// P(a, x) by its series (x < a + 1 or small x).
inline double igam_series(double a, double x) {
  double term = 1 / a, sum = term;
  for (long n = 1; n < 20000000; ++n) {
    term *= x / (a + static_cast<double>(n));
    sum += term;
    if (term <= kEps * sum) break;
  }
  return sum * std::exp(igam_log_factor(a, x));
}

// Q(a, x) by its continued fraction (x > 1.1 and x >= a).
inline double igamc_fraction(double a, double x) {
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a, c = 1 / kTiny, d = 1 / b, h = d;
  for (long i = 1; i < 20000000; ++i) {
    const double an = -static_cast<double>(i) * (static_cast<double>(i) - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) <= kEps) break;
  }
  return h * std::exp(igam_log_factor(a, x));
}

// Q(a, x) for small x (x <= 1.1), Cephes' igamc_series.
inline double igamc_series(double a, double x) {
  double fac = 1, sum = 0;
  for (int n = 1; n < 2000; ++n) {
    fac *= -x / n;
    const double term = fac / (a + n);
    sum += term;
    if (std::fabs(term) <= kEps * std::fabs(sum)) break;
  }
  const double logx = std::log(x);
  return -std::expm1(a * logx - lgam1p(a)) - std::exp(a * logx - special::lgamma(a)) * sum;
}

// The edge values shared by P and Q; returns true (and P in *p) when one applies.
inline bool igam_edge(double a, double x, double* p) {
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0) {
    *p = NAN;
  } else if (a == 0) {
    *p = x > 0 ? 1.0 : NAN;
  } else if (x == 0) {
    *p = 0;
  } else if (std::isinf(a)) {
    *p = std::isinf(x) ? NAN : 0.0;
  } else if (std::isinf(x)) {
    *p = 1;
  } else {
    return false;
  }
  return true;
}

inline double gammaincc(double a, double x);

inline double gammainc(double a, double x) {
  double p;
  if (igam_edge(a, x, &p)) return p;
  if (x > 1 && x > a) return 1 - gammaincc(a, x);
  return igam_series(a, x);
}

inline double gammaincc(double a, double x) {
  double p;
  if (igam_edge(a, x, &p)) return std::isnan(p) ? p : 1 - p;
  if (x > 1.1) return x < a ? 1 - igam_series(a, x) : igamc_fraction(a, x);
  if (x <= 0.5) return -0.4 / std::log(x) < a ? 1 - igam_series(a, x) : igamc_series(a, x);
  return x * 1.1 < a ? 1 - igam_series(a, x) : igamc_series(a, x);
}

// Bessel functions of the first kind, order 0 and 1: bessel_series (special_functions.h) for
// |x| <= 4, where it took 3.4x SciPy's time as a series with a division per term and a
// convergence test. The CUDA prelude's td_bessel_j* (engine/codegen/emit_cuda_math.cpp) are
// the same steps.
//
// 4 < x <= 25: Miller's backward recurrence J_{k-1} = (2k / x) J_k - J_{k+1} from k = 2 (x +
// 26) down, normalized by J0 + 2 sum J_2k = 1. Started at 1e-300 the values grow by at most
// 1 / J_start(x), about 1e64 (x just above 4): no rescaling (the largest is 2.9e-237 over a
// grid of step 0.01). Two steps a turn, so that no step tests its order's parity, and 2 / x
// once instead of a division a step: about 500 -> 230 ns an element (x uniform in (4, 25]).
inline double bessel_j_miller(int nu, double x) {
  const int half = static_cast<int>(x) + 26;  // start = 2 half
  const double r = 2 / x;
  double next = 0, cur = 1e-300, sum = 0;
  for (int k = 2 * half; k > 2; k -= 2) {
    const double odd = k * r * cur - next;        // J_{k-1}
    const double even = (k - 1) * r * odd - cur;  // J_{k-2}
    next = odd;
    cur = even;
    sum += even;
  }
  const double j1 = 2 * r * cur - next;  // J_1, from J_2 and J_3
  const double j0 = r * j1 - cur;        // J_0
  return (nu == 0 ? j0 : j1) / (j0 + 2 * sum);
}

inline double bessel_j_hankel(int nu, double x) {  // x > 25
  const double mu = 4.0 * nu * nu;
  double p = 1, q = 0, term = 1;
  for (int k = 1; k < 60; ++k) {
    const double next = term * (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8 * x);
    if (std::fabs(next) >= std::fabs(term) || next == 0) break;
    term = next;
    // k even: P gets (-1)^(k/2) term; k odd: Q gets (-1)^((k-1)/2) term.
    if (k % 2 == 0) {
      p += (k % 4 == 0) ? term : -term;
    } else {
      q += (k % 4 == 1) ? term : -term;
    }
  }
  const double c = std::cos(x), s = std::sin(x), r = std::numbers::sqrt2 / 2;
  // omega = x - pi/4 (nu = 0) or x - 3 pi/4 (nu = 1)
  const double cw = nu == 0 ? (c + s) * r : (s - c) * r;
  const double sw = nu == 0 ? (s - c) * r : -(s + c) * r;
  return std::sqrt(2 / (kPi * x)) * (p * cw - q * sw);
}

inline double bessel_j(int nu, double x) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(x);
  double v;
  if (std::isinf(a)) {
    v = 0;
  } else if (a <= 4) {
    v = bessel_series(nu, a, -a * a / 4);
  } else if (a <= 25) {
    v = bessel_j_miller(nu, a);
  } else {
    v = bessel_j_hankel(nu, a);
  }
  return nu == 1 && x < 0 ? -v : v;
}

}  // namespace tensord::cpu::special
