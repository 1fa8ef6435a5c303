// The device functions the CUDA formulas call (cuda_math_prelude): what CUDA's math library
// lacks or computes differently from the CPU backend. Names start with td_op_ (helpers) or
// td_ + the op (special functions), so they do not meet the structure's own td_ names.
// - 16-bit rounding: cuda_half_prelude() (the rounding of engine/ir/half.h), and float rounded
//   to odd (scalar_cast.h) so that double -> half rounds once.
// - Integer arithmetic: cuda_int_prelude() (emit_cuda_int.cpp), appended to this text.
// - Special functions in double, ported from special_functions*.h (every dtype is evaluated in
//   float64 and rounded once, as on the CPU); CUDA's own erfinv, erfcx and normcdfinv where
//   they are as accurate; lgamma by reflection where CUDA's is less accurate (-11 < x < -2.26).
#include "engine/codegen/emit_cuda_internal.h"

namespace tensord::codegen {

namespace {

// The float helpers and special functions; cuda_math_prelude() appends the integer ones.
constexpr std::string_view kFloatFormulas = R"TD(// tensord elementwise formulas
static __device__ __forceinline__ float td_op_finf() { return __int_as_float(0x7f800000); }
static __device__ __forceinline__ double td_op_dinf() {
  return __longlong_as_double(0x7ff0000000000000LL);
}
static __device__ __forceinline__ double td_op_dnan() {
  return __longlong_as_double(0x7ff8000000000000LL);
}
// d rounded to a float with an odd last bit when inexact: rounding that once more to a 16-bit
// float gives the rounding of d itself.
static __device__ __forceinline__ float td_op_rto(double d) {
  float f = __double2float_rz(d);
  if ((double)f != d && d == d) f = __uint_as_float(__float_as_uint(f) | 1u);
  return f;
}

static __device__ __forceinline__ float td_op_trunc(float x) { return truncf(x); }
static __device__ __forceinline__ double td_op_trunc(double x) { return trunc(x); }
// float -> integer: truncation, saturation, NaN -> 0 (scalar_cast.h).
template <typename To, typename F>
static __device__ __forceinline__ To td_op_sat(F v, F hi, F lo, To mx, To mn) {
  if (v != v) return (To)0;
  const F t = td_op_trunc(v);
  if (t >= hi) return mx;
  if (t < lo) return mn;
  return (To)t;
}
#define TD_OP_SAT(name, T, hi, lo, mx, mn)                                            \
  static __device__ __forceinline__ T name(float v) {                                 \
    return td_op_sat<T, float>(v, (float)(hi), (float)(lo), (T)(mx), (T)(mn));        \
  }                                                                                   \
  static __device__ __forceinline__ T name(double v) {                                \
    return td_op_sat<T, double>(v, (double)(hi), (double)(lo), (T)(mx), (T)(mn));     \
  }
TD_OP_SAT(td_op_f2i8, signed char, 128.0, -128.0, 127, -128)
TD_OP_SAT(td_op_f2u8, unsigned char, 256.0, 0.0, 255, 0)
TD_OP_SAT(td_op_f2i16, short, 32768.0, -32768.0, 32767, -32768)
TD_OP_SAT(td_op_f2i32, int, 2147483648.0, -2147483648.0, 2147483647, -2147483647 - 1)
TD_OP_SAT(td_op_f2i64, long long, 9223372036854775808.0, -9223372036854775808.0,
          9223372036854775807LL, -9223372036854775807LL - 1)
#undef TD_OP_SAT

// Any type (NaN propagates from either side; relu(NaN) = NaN; sign keeps NaN and gives +0).
template <typename T>
static __device__ __forceinline__ T td_op_maximum(T a, T b) { return a > b || a != a ? a : b; }
template <typename T>
static __device__ __forceinline__ T td_op_minimum(T a, T b) { return a < b || a != a ? a : b; }
template <typename T>
static __device__ __forceinline__ T td_op_relu(T a) { return a > (T)0 || a != a ? a : (T)0; }
template <typename T>
static __device__ __forceinline__ T td_op_fsign(T a) {
  return a > (T)0 ? (T)1 : a < (T)0 ? (T)-1 : a == (T)0 ? (T)0 : a;
}
template <typename T>
static __device__ __forceinline__ T td_op_square(T a) { return a * a; }
template <typename T>
static __device__ __forceinline__ bool td_op_isnan(T a) { return a != a; }

static __device__ __forceinline__ bool td_op_isinf(float x) { return fabsf(x) == td_op_finf(); }
static __device__ __forceinline__ bool td_op_isinf(double x) { return fabs(x) == td_op_dinf(); }
static __device__ __forceinline__ bool td_op_isfinite(float x) { return fabsf(x) < td_op_finf(); }
static __device__ __forceinline__ bool td_op_isfinite(double x) { return fabs(x) < td_op_dinf(); }
static __device__ __forceinline__ bool td_op_signbit(float x) { return (__float_as_uint(x) >> 31) != 0u; }
static __device__ __forceinline__ bool td_op_signbit(double x) { return __double_as_longlong(x) < 0; }
static __device__ __forceinline__ float td_op_frac(float x) { return x - truncf(x); }
static __device__ __forceinline__ double td_op_frac(double x) { return x - trunc(x); }
static __device__ __forceinline__ float td_op_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
static __device__ __forceinline__ double td_op_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

// sqrt(a^2 + b^2) without overflow and exact where one side dominates: CUDA's hypot is
// within 2 ulp, which at the largest finite values rounds up to inf.
static __device__ __forceinline__ double td_op_hypot(double a, double b) {
  a = fabs(a), b = fabs(b);
  if (a == td_op_dinf() || b == td_op_dinf()) return td_op_dinf();
  if (a != a || b != b) return a + b;
  const double m = fmax(a, b), n = fmin(a, b);
  if (m == 0) return 0;
  const double r = n / m;
  return m * sqrt(fma(r, r, 1.0));
}
static __device__ __forceinline__ float td_op_hypot(float a, float b) {
  return (float)td_op_hypot((double)a, (double)b);
}

// log(exp(a) + exp(b)) without overflow; equal infinities give themselves.
static __device__ __forceinline__ float td_op_logaddexp(float a, float b) {
  if (td_op_isinf(a) && a == b) return a;
  if (a != a || b != b) return a + b;
  return fmaxf(a, b) + log1pf(expf(-fabsf(a - b)));
}
static __device__ __forceinline__ double td_op_logaddexp(double a, double b) {
  if (td_op_isinf(a) && a == b) return a;
  if (a != a || b != b) return a + b;
  return fmax(a, b) + log1p(exp(-fabs(a - b)));
}
static __device__ __forceinline__ float td_op_logaddexp2(float a, float b) {
  if (td_op_isinf(a) && a == b) return a;
  if (a != a || b != b) return a + b;
  return fmaxf(a, b) + log1pf(exp2f(-fabsf(a - b))) / 0.693147180559945309417f;
}
static __device__ __forceinline__ double td_op_logaddexp2(double a, double b) {
  if (td_op_isinf(a) && a == b) return a;
  if (a != a || b != b) return a + b;
  return fmax(a, b) + log1p(exp2(-fabs(a - b))) / 0.693147180559945309417;
}
// Python's % on floats: fmod, then the sign of the divisor.
static __device__ __forceinline__ float td_op_remainder(float a, float b) {
  float r = fmodf(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
static __device__ __forceinline__ double td_op_remainder(double a, double b) {
  double r = fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
// Python's // on floats (PyTorch's div_floor_floating), in double for every float dtype.
static __device__ double td_op_floordiv(double a, double b) {
  if (b == 0) return a / b;
  const double mod = fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
  if (div == 0) return copysign(0.0, a / b);
  double floor_div = floor(div);
  if (div - floor_div > 0.5) floor_div += 1;
  return floor_div;
}
// nextafter on the grid of float16 / bfloat16 (values arrive widened to float, exactly).
static __device__ __forceinline__ float td_op_nextafter_h(float a, float b) {
  if (a != a || b != b) return a + b;
  if (a == b) return b;
  if (a == 0) return copysignf(td_h2f((unsigned short)1), b);
  unsigned short h = td_f2h(a);
  h = (unsigned short)((b > a) == (a > 0) ? h + 1 : h - 1);
  return td_h2f(h);
}
static __device__ __forceinline__ float td_op_nextafter_b(float a, float b) {
  if (a != a || b != b) return a + b;
  if (a == b) return b;
  if (a == 0) return copysignf(td_b2f((unsigned short)1), b);
  unsigned short h = td_f2b(a);
  h = (unsigned short)((b > a) == (a > 0) ? h + 1 : h - 1);
  return td_b2f(h);
}
)TD"
                                            R"TD(
// ---- special functions, in double ----
static __device__ double td_lgamma(double x) {
  // Reflection where CUDA's lgamma is less accurate: log|Gamma(x)| = log(pi / |sin(pi x)|) -
  // lgamma(1 - x); 1 - x is exact below 2^52 (beyond, every x is a pole).
  if (x < -2.0 && x > -4503599627370496.0) {
    if (x == trunc(x)) return td_op_dinf();  // poles
    const double s = sinpi(x);
    return log(3.141592653589793 / fabs(s)) - lgamma(1.0 - x);
  }
  return lgamma(x);
}
static __device__ __noinline__ double td_digamma(double x) {
  if (x != x || x == td_op_dinf()) return x;
  if (x == 0) return copysign(td_op_dinf(), -x);  // digamma(+-0) = -+inf
  double acc = 0;
  if (x < 0) {
    if (x == trunc(x)) return td_op_dnan();  // poles
    // psi(x) = psi(1 - x) - pi / tan(pi x), with an exact reduction of pi x
    const double r = fmod(x, 1.0);
    acc = -3.141592653589793 * cospi(r) / sinpi(r);
    x = 1 - x;
  }
  while (x < 10) {
    acc -= 1 / x;
    x += 1;
  }
  const double z = 1 / (x * x);
  const double series =
      z * (1.0 / 12 - z * (1.0 / 120 -
                           z * (1.0 / 252 -
                                z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return acc + log(x) - 0.5 / x - series;
}
// special_functions.h's bessel_series: I_nu (q = x^2 / 4) and J_nu (q = -x^2 / 4) for
// |x| <= 4.
static __device__ const double td_bessel_c[2][18] = {
    {1.0, 1.0, 0.25, 0.027777777777777776, 0.001736111111111111, 6.944444444444444e-05,
     1.9290123456790124e-06, 3.936759889140842e-08, 6.151187326782565e-10,
     7.594058428126624e-12, 7.594058428126623e-14, 6.276081345559193e-16,
     4.358389823304995e-18, 2.5789288895295828e-20, 1.3157800456783586e-22,
     5.8479113141260385e-25, 2.2843403570804838e-27, 7.904291893012054e-30},
    {1.0, 0.5, 0.08333333333333333, 0.006944444444444444, 0.00034722222222222224,
     1.1574074074074073e-05, 2.755731922398589e-07, 4.920949861426052e-09,
     6.834652585313961e-11, 7.594058428126623e-13, 6.903689480115112e-15,
     5.230067787965994e-17, 3.352607556388458e-19, 1.842092063949702e-21,
     8.771866971189057e-24, 3.654944571328774e-26, 1.3437296218120491e-28,
     4.391273273895586e-31}};
static __device__ double td_bessel_series(int nu, double x, double q) {
  const double* c = td_bessel_c[nu];
  double sum = c[17];
  for (int k = 16; k >= 0; --k) sum = sum * q + c[k];
  return nu == 0 ? sum : x / 2 * sum;
}
// exp(-|x|) I_nu(x), nu = 0 or 1: power series to |x| = 30, Hankel's asymptotic series beyond.
static __device__ __noinline__ double td_bessel_i_scaled(int nu, double x) {
  if (x != x) return x;
  const double a = fabs(x);
  double value;
  if (a <= 4) {
    value = td_bessel_series(nu, a, a * a / 4) * exp(-a);
  } else if (a <= 30) {
    const double q = a * a / 4;
    double term = nu == 0 ? 1.0 : a / 2, sum = term;
    for (int k = 1; k < 500; ++k) {
      term *= q / ((double)k * (k + nu));
      sum += term;
      if (term < sum * 1e-17) break;
    }
    value = sum * exp(-a);
  } else if (a == td_op_dinf()) {
    value = 0;
  } else {
    const double mu = 4.0 * nu * nu;
    double term = 1, sum = 1;
    for (int k = 1; k < 60; ++k) {
      const double next = -term * (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8 * a);
      if (fabs(next) >= fabs(term)) break;
      term = next;
      sum += term;
    }
    value = sum / (sqrt(2 * 3.141592653589793) * sqrt(a));
  }
  return nu == 1 && x < 0 ? -value : value;
}
static __device__ double td_bessel_i(int nu, double x) {
  if (fabs(x) <= 4) return td_bessel_series(nu, x, x * x / 4);
  if (td_op_isinf(x)) return nu == 0 ? td_op_dinf() : x;
  const double scaled = td_bessel_i_scaled(nu, x);
  if (fabs(x) > 700) {  // exp(|x|) alone would overflow before the product does
    const double half = exp(fabs(x) / 2);
    return scaled * half * half;
  }
  return scaled * exp(fabs(x));
}
static __device__ __forceinline__ double td_i0(double x) { return td_bessel_i(0, x); }
static __device__ __forceinline__ double td_i1(double x) { return td_bessel_i(1, x); }
static __device__ __forceinline__ double td_i0e(double x) { return td_bessel_i_scaled(0, x); }
static __device__ __forceinline__ double td_i1e(double x) { return td_bessel_i_scaled(1, x); }
static __device__ __forceinline__ double td_ndtr(double x) {
  return 0.5 * erfc(-x / 1.4142135623730951);
}
static __device__ double td_log_ndtr(double x) {
  const double t = x / 1.4142135623730951;
  if (x < -1) return log(erfcx(-t) / 2) - t * t;
  return log1p(-erfc(t) / 2);
}
static __device__ __forceinline__ double td_ndtri(double p) {
  if (p != p) return p;
  if (p <= 0 || p >= 1) return p == 0 ? -td_op_dinf() : p == 1 ? td_op_dinf() : td_op_dnan();
  return normcdfinv(p);
}
static __device__ __forceinline__ double td_erfinv(double y) { return erfinv(y); }
static __device__ __forceinline__ double td_erfcx(double x) { return erfcx(x); }
static __device__ __forceinline__ double td_sinc(double x) {
  if (x == 0) return 1;
  if (td_op_isinf(x)) return 0;
  return sinpi(x) / (3.141592653589793 * x);  // sinpi reduces exactly
}
static __device__ __forceinline__ double td_entr(double x) {
  if (x != x) return x;
  if (x > 0) return -x * log(x);
  return x == 0 ? 0.0 : -td_op_dinf();
}
static __device__ __forceinline__ double td_logit(double x) { return log(x / (1 - x)); }
// logit with eps: x clamped to [lo, hi] first (a NaN bound clamps nothing).
static __device__ __forceinline__ double td_logit_clamped(double x, double lo, double hi) {
  return td_logit(x < lo ? lo : x > hi ? hi : x);
}
// x = mantissa * 2^exponent, 0.5 <= |mantissa| < 1; a non-finite x is its own mantissa with
// exponent 0 (NumPy's and PyTorch's choice). Halves arrive as floats: the same split.
static __device__ __forceinline__ float td_frexp_mantissa(float x) {
  int e;
  return td_op_isfinite(x) ? frexpf(x, &e) : x;
}
static __device__ __forceinline__ double td_frexp_mantissa(double x) {
  int e;
  return td_op_isfinite(x) ? frexp(x, &e) : x;
}
static __device__ __forceinline__ int td_frexp_exponent(float x) {
  int e = 0;
  if (td_op_isfinite(x)) frexpf(x, &e);
  return e;
}
static __device__ __forceinline__ int td_frexp_exponent(double x) {
  int e = 0;
  if (td_op_isfinite(x)) frexp(x, &e);
  return e;
}
static __device__ __forceinline__ double td_xlogy(double x, double y) {
  if (y != y) return y;
  return x == 0 ? 0.0 : x * log(y);
}
static __device__ __forceinline__ double td_xlog1py(double x, double y) {
  if (y != y) return y;
  return x == 0 ? 0.0 : x * log1p(y);
}
)TD"
                                            R"TD(
// Bessel J0/J1: power series to |x| = 4, Miller's backward recurrence to 25, Hankel beyond.
// special_functions_more.h's bessel_j_miller, step for step.
static __device__ double td_bessel_j_miller(int nu, double x) {
  const int half = (int)x + 26;
  const double r = 2 / x;
  double next = 0, cur = 1e-300, sum = 0;
  for (int k = 2 * half; k > 2; k -= 2) {
    const double odd = k * r * cur - next;
    const double even = (k - 1) * r * odd - cur;
    next = odd;
    cur = even;
    sum += even;
  }
  const double j1 = 2 * r * cur - next;
  const double j0 = r * j1 - cur;
  return (nu == 0 ? j0 : j1) / (j0 + 2 * sum);
}
static __device__ double td_bessel_j_hankel(int nu, double x) {
  const double mu = 4.0 * nu * nu;
  double p = 1, q = 0, term = 1;
  for (int k = 1; k < 60; ++k) {
    const double next = term * (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8 * x);
    if (fabs(next) >= fabs(term) || next == 0) break;
    term = next;
    if (k % 2 == 0) {
      p += (k % 4 == 0) ? term : -term;
    } else {
      q += (k % 4 == 1) ? term : -term;
    }
  }
  double s, c;
  sincos(x, &s, &c);
  const double r = 0.70710678118654752440;
  const double cw = nu == 0 ? (c + s) * r : (s - c) * r;
  const double sw = nu == 0 ? (s - c) * r : -(s + c) * r;
  return sqrt(2 / (3.141592653589793 * x)) * (p * cw - q * sw);
}
static __device__ __noinline__ double td_bessel_j(int nu, double x) {
  if (x != x) return x;
  const double a = fabs(x);
  double v;
  if (td_op_isinf(a)) {
    v = 0;
  } else if (a <= 4) {
    v = td_bessel_series(nu, a, -a * a / 4);
  } else if (a <= 25) {
    v = td_bessel_j_miller(nu, a);
  } else {
    v = td_bessel_j_hankel(nu, a);
  }
  return nu == 1 && x < 0 ? -v : v;
}
static __device__ __forceinline__ double td_bessel_j0(double x) { return td_bessel_j(0, x); }
static __device__ __forceinline__ double td_bessel_j1(double x) { return td_bessel_j(1, x); }

// Hurwitz zeta (Cephes' method: the direct sum to q + 9, then Euler-Maclaurin).
static __device__ double td_zeta_positive(double s, double q) {
  const double kA[12] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0,
                         -1.8924375803183791606e9, 7.47242496e10, -2.950130727918164224e12,
                         1.1646782814350067249e14, -4.5979787224074726105e15,
                         1.8152105401943546773e17, -7.1661652561756670113e18};
  const double eps = 1.11022302462515654042e-16;
  double sum = pow(q, -s);
  double a = q, b = 0;
  for (int i = 0; i < 9 || a <= 9;) {
    ++i;
    a += 1;
    b = pow(a, -s);
    sum += b;
    if (fabs(b) < eps * fabs(sum)) return sum;
  }
  if (b == 0) return sum;
  const double w = a;
  sum += b * w / (s - 1);
  sum -= 0.5 * b;
  double fac = 1, k = 0;
  for (int j = 0; j < 12; ++j) {
    fac *= s + k;
    b /= w;
    const double t = fac * b / kA[j];
    sum += t;
    if (fabs(t / sum) < eps) break;
    k += 1;
    fac *= s + k;
    b /= w;
    k += 1;
  }
  return sum;
}
// The n-th derivative of cot(y) as a polynomial of c = cot(y), n <= 59.
static __device__ double td_cot_derivative(int n, double c) {
  double p[62], q[62];
  const int size = n + 2;
  for (int j = 0; j < size; ++j) p[j] = 0;
  p[1] = 1;
  for (int k = 0; k < n; ++k) {
    for (int j = 0; j < size; ++j) q[j] = 0;
    for (int j = 1; j < size; ++j) {
      const double d = p[j] * (double)j;
      if (d == 0) continue;
      q[j - 1] -= d;
      if (j + 1 < size) q[j + 1] -= d;
    }
    for (int j = 0; j < size; ++j) p[j] = q[j];
  }
  double v = 0;
  for (int j = size - 1; j >= 0; --j) v = v * c + p[j];
  return v;
}
static __device__ double td_zeta_negative(double s, double q) {
  const int n = (int)s - 1;
  const double r = fmod(q, 1.0);
  const double c = cospi(r) / sinpi(r);
  const double odd = (n % 2 == 0) ? 1.0 : -1.0;
  const double scale = exp(s * log(3.141592653589793) - lgamma(s));
  return odd * td_zeta_positive(s, 1 - q) + odd * scale * td_cot_derivative(n, c);
}
static __device__ __noinline__ double td_zeta(double s, double q) {
  if (s != s || q != q) return td_op_dnan();
  if (s == 1) return td_op_dinf();
  if (s < 1) return td_op_dnan();
  if (q <= 0) {
    if (q == floor(q)) return td_op_dinf();
    if (s != floor(s)) return td_op_dnan();
  }
  if (s == td_op_dinf()) return q > 1 ? 0.0 : q == 1 ? 1.0 : q > 0 ? td_op_dinf() : td_op_dnan();
  if (q == td_op_dinf()) return 0;
  if (q < -50 && s <= 60) return td_zeta_negative(s, q);
  return td_zeta_positive(s, q);
}
// polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x), digamma for n = 0 (special_functions_more.h).
static __device__ __noinline__ double td_polygamma(double order, double x) {
  const long long n = (long long)order;
  if (n == 0) return td_digamma(x);
  if (x != x || x == -td_op_dinf()) return td_op_dnan();
  if (x == td_op_dinf()) return 0;
  const double sign = (n % 2 == 1) ? 1.0 : -1.0;
  const double s = order + 1;
  if (x <= 0 && x == floor(x)) return sign * td_op_dinf();
  const double z = td_zeta(s, x);
  if (z == 0 || z != z) return sign * z;
  return sign * copysign(exp(td_lgamma(s) + log(fabs(z))), z);
}
// The multivariate log-gamma of dimension p.
static __device__ __noinline__ double td_multigammaln(double x, double p) {
  if (x != x) return x;
  if (x <= 0.5 * (p - 1)) return td_op_dnan();
  double sum = 0.25 * p * (p - 1) * log(3.141592653589793);
  for (long long j = 0; j < (long long)p; ++j) sum += td_lgamma(x - 0.5 * (double)j);
  return sum;
}
)TD"
                                            R"TD(
// Regularized incomplete gamma P(a, x) and Q(a, x) (Cephes' choice of series and fraction).
static __device__ double td_log1pmx(double d) {
  if (fabs(d) >= 0.5) return log1p(d) - d;
  double power = d * d, sum = 0;
  for (int k = 2; k < 200; ++k) {
    const double term = power / k;
    sum += (k % 2 == 0) ? -term : term;
    if (fabs(term) <= 1.11022302462515654042e-16 * fabs(sum)) break;
    power *= d;
  }
  return sum;
}
static __device__ double td_stirling_correction(double a) {
  const double z = 1 / (a * a);
  return (1.0 / 12 -
          z * (1.0 / 360 -
               z * (1.0 / 1260 -
                    z * (1.0 / 1680 -
                         z * (1.0 / 1188 -
                              z * (691.0 / 360360 - z * (1.0 / 156 - z * 3617.0 / 122400))))))) /
         a;
}
static __device__ double td_igam_log_factor(double a, double x) {
  if (a < 10) return a * log(x) - x - lgamma(a);
  return a * td_log1pmx((x - a) / a) + 0.5 * log(a / (2 * 3.141592653589793)) -
         td_stirling_correction(a);
}
// lgamma(1 + a), accurate for small |a|: the Taylor series with zeta(k).
static __device__ double td_lgam1p(double a) {
  double shift = 0;
  if (fabs(a) > 0.5) {
    if (!(fabs(a - 1) < 0.5)) return lgamma(1 + a);
    shift = log(a);
    a -= 1;
  }
  const double kZeta[62] = {
      1.6449340668482264, 1.2020569031595942, 1.0823232337111381, 1.03692775514337,
      1.0173430619844492, 1.008349277381923, 1.0040773561979444, 1.0020083928260821,
      1.000994575127818, 1.0004941886041194, 1.000246086553308, 1.0001227133475785,
      1.0000612481350588, 1.000030588236307, 1.0000152822594086, 1.0000076371976379,
      1.000003817293265, 1.0000019082127165, 1.0000009539620338, 1.0000004769329869,
      1.0000002384505027, 1.000000119219926, 1.000000059608189, 1.0000000298035034,
      1.0000000149015549, 1.0000000074507118, 1.000000003725334, 1.0000000018626598,
      1.0000000009313275, 1.0000000004656628, 1.000000000232831, 1.0000000001164155,
      1.0000000000582077, 1.0000000000291038, 1.000000000014552, 1.000000000007276,
      1.000000000003638, 1.000000000001819, 1.0000000000009095, 1.0000000000004547,
      1.0000000000002274, 1.0000000000001137, 1.0000000000000568, 1.0000000000000284,
      1.0000000000000142, 1.000000000000007, 1.0000000000000036, 1.0000000000000018,
      1.0000000000000009, 1.0000000000000004, 1.0000000000000002, 1.0000000000000002,
      1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
  double sum = -0.57721566490153286061 * a, power = -a;
  for (int k = 2; k < 64; ++k) {
    power *= -a;
    const double term = kZeta[k - 2] * power / k;
    sum += term;
    if (fabs(term) <= 1.11022302462515654042e-16 * fabs(sum)) break;
  }
  return shift + sum;
}
static __device__ double td_igam_series(double a, double x) {
  double term = 1 / a, sum = term;
  for (long long n = 1; n < 20000000; ++n) {
    term *= x / (a + (double)n);
    sum += term;
    if (term <= 1.11022302462515654042e-16 * sum) break;
  }
  return sum * exp(td_igam_log_factor(a, x));
}
static __device__ double td_igamc_fraction(double a, double x) {
  const double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (long long i = 1; i < 20000000; ++i) {
    const double an = -(double)i * ((double)i - a);
    b += 2;
    d = an * d + b;
    if (fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (fabs(del - 1) <= 1.11022302462515654042e-16) break;
  }
  return h * exp(td_igam_log_factor(a, x));
}
static __device__ double td_igamc_series(double a, double x) {
  double fac = 1, sum = 0;
  for (int n = 1; n < 2000; ++n) {
    fac *= -x / n;
    const double term = fac / (a + n);
    sum += term;
    if (fabs(term) <= 1.11022302462515654042e-16 * fabs(sum)) break;
  }
  const double logx = log(x);
  return -expm1(a * logx - td_lgam1p(a)) - exp(a * logx - lgamma(a)) * sum;
}
// The edge values shared by P and Q; true (and P in *p) when one applies.
static __device__ bool td_igam_edge(double a, double x, double* p) {
  if (a != a || x != x || a < 0 || x < 0) {
    *p = td_op_dnan();
  } else if (a == 0) {
    *p = x > 0 ? 1.0 : td_op_dnan();
  } else if (x == 0) {
    *p = 0;
  } else if (td_op_isinf(a)) {
    *p = td_op_isinf(x) ? td_op_dnan() : 0.0;
  } else if (td_op_isinf(x)) {
    *p = 1;
  } else {
    return false;
  }
  return true;
}
static __device__ __noinline__ double td_gammaincc(double a, double x) {
  double p;
  if (td_igam_edge(a, x, &p)) return p != p ? p : 1 - p;
  if (x > 1.1) return x < a ? 1 - td_igam_series(a, x) : td_igamc_fraction(a, x);
  if (x <= 0.5) return -0.4 / log(x) < a ? 1 - td_igam_series(a, x) : td_igamc_series(a, x);
  return x * 1.1 < a ? 1 - td_igam_series(a, x) : td_igamc_series(a, x);
}
static __device__ __noinline__ double td_gammainc(double a, double x) {
  double p;
  if (td_igam_edge(a, x, &p)) return p;
  if (x > 1 && x > a) return 1 - td_gammaincc(a, x);
  return td_igam_series(a, x);
}
)TD";

}  // namespace

std::string_view cuda_math_prelude() {
  static const std::string text = std::string(kFloatFormulas) + std::string(cuda_int_prelude());
  return text;
}

}  // namespace tensord::codegen
