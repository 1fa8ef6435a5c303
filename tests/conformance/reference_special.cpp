// The special functions (docs/ops.md) in long double, by methods other than the kernels':
// lgamma and erfc from libm's long double versions; erfinv and ndtri by bisection on erfl and
// erfcl; digamma as the derivative of the log-gamma series (the sum over 1/(x + k) after a
// shift to large x, then the Stirling series); I0 and I1 by the trapezoid rule on their
// integral representations (exact to rounding for periodic integrands); erfcx, ndtr and
// log_ndtr from erfcl, and asymptotic series where it underflows.
#include <cmath>
#include <numbers>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Op;

namespace {

using LD = long double;
const LD kPi = std::numbers::pi_v<LD>;
const LD kInf = INFINITY;

LD bisect(LD lo, LD hi, LD target, LD (*f)(LD), bool increasing) {
  for (int i = 0; i < 200 && lo < hi; ++i) {
    const LD mid = (lo + hi) / 2;
    if (mid == lo || mid == hi) break;
    if ((f(mid) < target) == increasing) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return (lo + hi) / 2;
}

LD erf_l(LD x) {
  return erfl(x);
}
LD erfc_l(LD x) {
  return erfcl(x);
}

double erfinv(double y) {
  if (std::isnan(y) || std::fabs(y) > 1) return NAN;
  if (std::fabs(y) == 1) return std::copysign(INFINITY, y);
  if (y == 0) return y;
  const LD a = std::fabs(y);
  // erfc keeps the tail's precision: erfc(x) = 1 - a.
  const LD x = a < 0.5L ? bisect(0, 1, a, erf_l, true) : bisect(0, 30, 1 - a, erfc_l, false);
  return std::copysign(static_cast<double>(x), y);
}

double ndtri(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return NAN;
  if (p == 0) return -INFINITY;
  if (p == 1) return INFINITY;
  // ndtr(x) = erfc(-x / sqrt2) / 2 = p
  const bool upper = p > 0.5;
  const LD q = upper ? 1 - static_cast<LD>(p) : p;
  const LD t = bisect(0, 40, 2 * q, erfc_l, false);  // erfc(t) = 2q, x = -sqrt2 t
  const double x = static_cast<double>(-std::numbers::sqrt2_v<LD> * t);
  return upper ? -x : x;
}

double digamma(double x) {
  if (std::isnan(x) || x == INFINITY) return x;
  if (x == 0) return std::copysign(INFINITY, -x);
  if (x < 0 && x == std::trunc(x)) return NAN;
  LD v = x, acc = 0;
  if (v < 0) {                             // psi(x) = psi(1 - x) - pi cot(pi x)
    acc -= kPi / tanl(kPi * fmodl(v, 1));  // tan has period pi: an exact reduction
    v = 1 - v;
  }
  for (; v < 30; v += 1) acc -= 1 / v;
  const LD z = 1 / (v * v);
  return static_cast<double>(acc + logl(v) - 1 / (2 * v) - z / 12 + z * z / 120 - z * z * z / 252 +
                             z * z * z * z / 240);
}

// exp(-|x|) I_nu(x) = (1/pi) int_0^pi exp(|x| (cos t - 1)) cos(nu t) dt, with enough points
// for the peak at t = 0 (width ~ 1/sqrt|x|); beyond |x| = 1e4 the leading asymptotic terms.
double bessel_scaled(int nu, double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return 0;
  const LD a = std::fabs(x);
  LD v;
  if (a > 1e4L) {
    const LD mu = 4 * nu * nu;
    v = (1 - (mu - 1) / (8 * a) + (mu - 1) * (mu - 9) / (128 * a * a)) / sqrtl(2 * kPi * a);
  } else {
    const int n = 64 + static_cast<int>(a);
    LD sum = 0;
    for (int k = 0; k <= n; ++k) {
      const LD t = kPi * k / n;
      const LD w = k == 0 || k == n ? 0.5L : 1.0L;
      sum += w * expl(a * (cosl(t) - 1)) * (nu == 0 ? 1 : cosl(t));
    }
    v = sum / n;
  }
  return static_cast<double>(nu == 1 && x < 0 ? -v : v);
}

double bessel(int nu, double x) {
  if (std::isinf(x)) return nu == 0 ? INFINITY : x;
  return static_cast<double>(bessel_scaled(nu, x) * expl(std::fabs(static_cast<LD>(x))));
}

double erfcx(double x) {
  if (std::isnan(x)) return x;
  const LD v = x;
  if (v < 100) return static_cast<double>(expl(v * v) * erfcl(v));
  LD sum = 1, term = 1;
  for (int k = 1; k < 20; ++k) sum += term *= -(2 * k - 1) / (2 * v * v);
  return static_cast<double>(sum / (v * sqrtl(kPi)));
}

double log_ndtr(double x) {
  const LD v = x;
  const LD s = std::numbers::sqrt2_v<LD>;
  if (v > 0) return static_cast<double>(log1pl(-erfcl(v / s) / 2));
  if (v > -100) return static_cast<double>(logl(erfcl(-v / s) / 2));
  // log(phi(x) / -x * (1 - 1/x^2 + 3/x^4 - ...)), phi the normal density
  LD sum = 1, term = 1;
  for (int k = 1; k < 20; ++k) sum += term *= -(2 * k - 1) / (v * v);
  return static_cast<double>(-v * v / 2 - logl(-v) - logl(2 * kPi) / 2 + logl(sum));
}

double special(Op op, double x) {
  const LD v = x;
  switch (op) {
    case Op::lgamma:
      return static_cast<double>(lgammal(v));
    case Op::digamma:
      return digamma(x);
    case Op::erfinv:
      return erfinv(x);
    case Op::erfcx:
      return erfcx(x);
    case Op::i0:
      return bessel(0, x);
    case Op::i1:
      return bessel(1, x);
    case Op::i0e:
      return bessel_scaled(0, x);
    case Op::i1e:
      return bessel_scaled(1, x);
    case Op::ndtr:
      return static_cast<double>(erfcl(-v / std::numbers::sqrt2_v<LD>) / 2);
    case Op::ndtri:
      return ndtri(x);
    case Op::log_ndtr:
      return log_ndtr(x);
    case Op::sinc: {
      if (x == 0) return 1;
      if (std::isinf(x)) return 0;
      return static_cast<double>(sinl(kPi * fmodl(v, 2)) / (kPi * v));
    }
    case Op::entr:
      return std::isnan(x) ? x
             : x > 0       ? static_cast<double>(-v * logl(v))
             : x == 0      ? 0.0
                           : -INFINITY;
    case Op::logit:
      return static_cast<double>(logl(v / (1 - v)));
    case Op::expit:
      return static_cast<double>(1 / (1 + expl(-v)));
    default:
      return NAN;
  }
}

}  // namespace

Expected ref_special(Op op, std::span<const RefTensor> in) {
  if (in.size() == 1) {
    const RefTensor& x = in[0];
    const DType t = x.floating() ? x.dtype : DType::Float32;
    Expected e{RefTensor(t, x.shape)};
    for (int64_t k = 0; k < x.numel(); ++k) {
      e.value.put(k, Num::of_float(special(op, cast_to(t, x.at(k)).f)));
    }
    return e;
  }
  DType t = ref_promote(in[0].dtype, in[1].dtype);
  if (!ir::is_floating(t)) t = DType::Float32;
  const Shape shape = ref_broadcast(in[0].shape, in[1].shape);
  Expected e{RefTensor(t, shape)};
  for (int64_t k = 0; k < e.value.numel(); ++k) {
    std::vector<int64_t> idx = unravel(k, shape);
    const LD x = cast_to(t, in[0].at(broadcast_source(idx, in[0].shape))).f;
    const LD y = cast_to(t, in[1].at(broadcast_source(idx, in[1].shape))).f;
    LD r;
    if (std::isnan(static_cast<double>(y))) {
      r = NAN;
    } else if (x == 0) {
      r = 0;
    } else {
      r = x * (op == Op::xlogy ? logl(y) : log1pl(y));
    }
    e.value.put(k, Num::of_float(static_cast<double>(r)));
  }
  return e;
}

// issue 4: more special functions, in long double. zeta by direct summation up to q + N >= 40
// (and >= 2s) and the Euler-Maclaurin tail with Bernoulli numbers up to B20; polygamma from it
// (digamma above for n = 0); gammainc/gammaincc by the series of P and the continued fraction of
// Q (long double, no tricks: the extra precision covers the cancellation in x^a e^-x /
// Gamma(a) for the arguments the table uses); bessel_j0/j1 by the trapezoid rule on Bessel's
// integral (1/pi) int_0^pi cos(n t - x sin t) dt (exact to rounding with enough points: the
// integrand is periodic), its asymptotic series beyond |x| = 1e4.
namespace {

LD zeta_ref(LD s, LD q) {
  if (std::isnan(static_cast<double>(s)) || std::isnan(static_cast<double>(q))) return NAN;
  if (s == 1) return kInf;
  if (s < 1) return NAN;
  if (q <= 0) {
    if (q == floorl(q)) return kInf;
    if (s != floorl(s)) return NAN;
  }
  if (s == kInf) return q > 1 ? 0 : q == 1 ? 1 : q > 0 ? kInf : NAN;
  if (q == kInf) return 0;
  LD sum = 0, a = q;
  while (a < 40 || (a < 2 * s && a < 1000)) {  // huge s: the terms past 1000 underflow
    sum += powl(a, -s);
    a += 1;
  }
  // Euler-Maclaurin: a^(1-s)/(s-1) + a^-s/2 + sum_j B2j/(2j)! s(s+1)...(s+2j-2) a^(-s-2j+1)
  static const LD kB[] = {1.0L / 6, -1.0L / 30, 1.0L / 42, -1.0L / 30, 5.0L / 66,
                          -691.0L / 2730, 7.0L / 6, -3617.0L / 510, 43867.0L / 798,
                          -174611.0L / 330};
  if (powl(a, -s) == 0) return sum;  // huge s: the tail underflows
  sum += powl(a, 1 - s) / (s - 1) + powl(a, -s) / 2;
  LD rising = s, fact = 2, power = powl(a, -s - 1);  // s (s+1)...(s+2j-2), (2j)!, a^(-s-2j+1)
  for (int j = 1; j <= 10; ++j) {
    sum += kB[j - 1] / fact * rising * power;
    rising *= (s + 2 * j - 1) * (s + 2 * j);
    fact *= (2 * j + 1) * (2 * j + 2);
    power /= a * a;
  }
  return sum;
}

double polygamma_ref(int64_t n, double x) {
  if (n == 0) return digamma(x);
  if (std::isnan(x) || x == -INFINITY) return NAN;
  if (x == INFINITY) return 0;
  const LD sign = n % 2 == 1 ? 1 : -1;
  if (x <= 0 && x == std::floor(x)) return static_cast<double>(sign * kInf);
  return static_cast<double>(sign * tgammal(static_cast<LD>(n) + 1) *
                             zeta_ref(static_cast<LD>(n) + 1, x));
}

double multigammaln_ref(double x, int64_t p) {
  if (std::isnan(x)) return x;
  if (x <= (static_cast<double>(p) - 1) / 2) return NAN;
  LD sum = static_cast<LD>(p) * (p - 1) / 4 * logl(kPi);
  for (int64_t j = 0; j < p; ++j) sum += lgammal(static_cast<LD>(x) - static_cast<LD>(j) / 2);
  return static_cast<double>(sum);
}

LD igam_factor(LD a, LD x) {
  return expl(a * logl(x) - x - lgammal(a));
}
LD igam_p_series(LD a, LD x) {
  LD term = 1 / a, sum = term;
  for (int64_t k = 1; k < 100000000; ++k) {
    term *= x / (a + k);
    sum += term;
    if (term < sum * 1e-21L) break;
  }
  return sum * igam_factor(a, x);
}
LD igam_q_fraction(LD a, LD x) {
  const LD tiny = 1e-4000L;
  LD b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int64_t i = 1; i < 100000000; ++i) {
    const LD an = -static_cast<LD>(i) * (i - a);
    b += 2;
    d = an * d + b;
    if (fabsl(d) < tiny) d = tiny;
    c = b + an / c;
    if (fabsl(c) < tiny) c = tiny;
    d = 1 / d;
    const LD del = d * c;
    h *= del;
    if (fabsl(del - 1) < 1e-21L) break;
  }
  return h * igam_factor(a, x);
}

double igam_ref(bool upper, double a, double x) {
  double p;
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0) return NAN;
  if (a == 0) {
    if (!(x > 0)) return NAN;
    p = 1;
  } else if (x == 0) {
    p = 0;
  } else if (std::isinf(a)) {
    if (std::isinf(x)) return NAN;
    p = 0;
  } else if (std::isinf(x)) {
    p = 1;
  } else {
    // Q by the fraction where it converges well or where 1 - P would cancel (small a).
    const bool fraction = x >= a + 1 || (x > 0.25 && a < 1);
    const LD q = fraction ? igam_q_fraction(a, x) : 1 - igam_p_series(a, x);
    const LD pp = fraction ? 1 - q : igam_p_series(a, x);
    return static_cast<double>(upper ? q : pp);
  }
  return upper ? 1 - p : p;
}

double bessel_j_ref(int nu, double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return 0;
  const LD a = fabsl(static_cast<LD>(x));
  LD v;
  if (a > 1e4L) {
    // sqrt(2 / (pi a)) (P cos w - Q sin w), w = a - (2 nu + 1) pi / 4, six terms
    const LD mu = 4 * nu * nu;
    LD p = 0, q = 0, term = 1;
    for (int k = 0; k < 12; ++k) {
      if (k > 0) term *= (mu - (2 * k - 1) * (2 * k - 1)) / (k * 8 * a);
      const LD signed_term = (k / 2) % 2 == 0 ? term : -term;
      if (k % 2 == 0) p += signed_term;
      else q += signed_term;
    }
    const LD w = a - (2 * nu + 1) * kPi / 4;
    v = sqrtl(2 / (kPi * a)) * (p * cosl(w) - q * sinl(w));
  } else {
    const int n = 64 + static_cast<int>(1.2L * a);
    LD sum = 0;
    for (int k = 0; k <= n; ++k) {
      const LD t = kPi * k / n;
      const LD w = k == 0 || k == n ? 0.5L : 1.0L;
      sum += w * cosl(nu * t - a * sinl(t));
    }
    v = sum / n;
  }
  return static_cast<double>(nu == 1 && x < 0 ? -v : v);
}

}  // namespace

Expected ref_special_more(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  if (in.size() == 1) {
    const RefTensor& x = in[0];
    const DType t = x.floating() ? x.dtype : DType::Float32;
    if (op == Op::polygamma && attrs.get_int(ir::Attr::n) < 0) reject(ErrorCode::Shape, "n < 0");
    if (op == Op::multigammaln && attrs.get_int(ir::Attr::p) < 1) reject(ErrorCode::Shape, "p < 1");
    Expected e{RefTensor(t, x.shape)};
    for (int64_t k = 0; k < x.numel(); ++k) {
      const double v = cast_to(t, x.at(k)).f;
      double r = NAN;
      switch (op) {
        case Op::polygamma:
          r = polygamma_ref(attrs.get_int(ir::Attr::n), v);
          break;
        case Op::multigammaln:
          r = multigammaln_ref(v, attrs.get_int(ir::Attr::p));
          break;
        case Op::bessel_j0:
          r = bessel_j_ref(0, v);
          break;
        case Op::bessel_j1:
          r = bessel_j_ref(1, v);
          break;
        case Op::logit: {
          // eps and 1 - eps rounded to the dtype; x clamped to them (NaN stays NaN)
          const double lo = cast_to(t, Num::of_float(attrs.get_float(ir::Attr::eps))).f;
          const double hi = cast_to(t, Num::of_float(1 - lo)).f;
          const LD z = v < lo ? lo : v > hi ? hi : v;
          r = static_cast<double>(logl(z / (1 - z)));
          break;
        }
        default:
          break;
      }
      e.value.put(k, Num::of_float(r));
    }
    return e;
  }
  DType t = ref_promote(in[0].dtype, in[1].dtype);
  if (!ir::is_floating(t)) t = DType::Float32;
  const Shape shape = ref_broadcast(in[0].shape, in[1].shape);
  Expected e{RefTensor(t, shape)};
  for (int64_t k = 0; k < e.value.numel(); ++k) {
    std::vector<int64_t> idx = unravel(k, shape);
    const double x = cast_to(t, in[0].at(broadcast_source(idx, in[0].shape))).f;
    const double y = cast_to(t, in[1].at(broadcast_source(idx, in[1].shape))).f;
    double r = op == Op::zeta        ? static_cast<double>(zeta_ref(x, y))
               : op == Op::gammainc ? igam_ref(false, x, y)
                                     : igam_ref(true, x, y);
    e.value.put(k, Num::of_float(r));
  }
  return e;
}

}  // namespace tensord::conformance
