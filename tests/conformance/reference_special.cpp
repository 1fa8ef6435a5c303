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

}  // namespace tensord::conformance
