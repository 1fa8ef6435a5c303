// The CUDA formulas of NumPy's other complex functions (trigonometric and hyperbolic functions
// and their inverses, exp2, expm1, log2, log10, log1p, square, reciprocal, rsqrt, sigmoid,
// sign, isnan, isinf, isfinite, pow): the CPU backend takes <complex> and complex_math.h for
// them; here each is written out, in double (complex64 rounded once), after the basic complex
// arithmetic of emit_cuda_complex.cpp.
//
// The inverse functions follow Kahan ("Branch cuts for complex elementary functions", 1987):
// square roots of 1 - z and 1 + z whose signed zeros put every branch cut where C99 puts it, and
// no cancellation near the branch points. tanh is the form of FreeBSD's ctanh (no overflow for
// large real parts). The rest are as in complex_math.h.
#include <string_view>

#include "engine/codegen/emit_cuda_internal.h"

namespace tensord::codegen {

const char* cuda_complex_math_function(ir::Op op) {
  using ir::Op;
  switch (op) {
    case Op::sin:
      return "td_csin";
    case Op::cos:
      return "td_ccos";
    case Op::tan:
      return "td_ctan";
    case Op::sinh:
      return "td_csinh";
    case Op::cosh:
      return "td_ccosh";
    case Op::tanh:
      return "td_ctanh";
    case Op::asin:
      return "td_casin";
    case Op::acos:
      return "td_cacos";
    case Op::atan:
      return "td_catan";
    case Op::asinh:
      return "td_casinh";
    case Op::acosh:
      return "td_cacosh";
    case Op::atanh:
      return "td_catanh";
    case Op::exp2:
      return "td_cexp2";
    case Op::expm1:
      return "td_cexpm1";
    case Op::log2:
      return "td_clog2";
    case Op::log10:
      return "td_clog10";
    case Op::log1p:
      return "td_clog1p";
    case Op::square:
      return "td_csquare";
    case Op::reciprocal:
      return "td_creciprocal";
    case Op::rsqrt:
      return "td_crsqrt";
    case Op::sigmoid:
      return "td_csigmoid";
    case Op::sign:
      return "td_csign";
    case Op::isnan:
      return "td_cisnan";
    case Op::isinf:
      return "td_cisinf_z";
    case Op::isfinite:
      return "td_cisfinite";
    case Op::pow:
      return "td_cpow";
    default:
      return nullptr;
  }
}

std::string_view cuda_complex_math_prelude() {
  return R"TD(// tensord complex functions
static __device__ __forceinline__ td_c128 td_csinh(td_c128 z) {
  if (z.im == 0) return td_c128(sinh(z.re), z.im);
  if (z.re == 0) return td_c128(z.re, sin(z.im));
  return td_c128(sinh(z.re) * cos(z.im), cosh(z.re) * sin(z.im));
}
static __device__ __forceinline__ td_c128 td_ccosh(td_c128 z) {
  if (z.im == 0) return td_c128(cosh(z.re), copysign(0.0, z.re) * z.im);
  return td_c128(cosh(z.re) * cos(z.im), sinh(z.re) * sin(z.im));
}
static __device__ __forceinline__ td_c128 td_ctanh(td_c128 z) {
  const double x = z.re, y = z.im;
  if (fabs(x) > 22) {  // tanh(x) is +-1 in double; the imaginary part 4 sin y cos y e^-2|x|
    const double e = exp(-2 * fabs(x));
    return td_c128(copysign(1.0, x), 4 * sin(y) * cos(y) * e);
  }
  const double t = tan(y), b = 1 + t * t, s = sinh(x), rho = sqrt(1 + s * s);
  const double den = 1 + b * s * s;
  return td_c128(b * rho * s / den, t / den);
}
// sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz).
static __device__ __forceinline__ td_c128 td_csin(td_c128 z) {
  const td_c128 h = td_csinh(td_c128(-z.im, z.re));
  return td_c128(h.im, -h.re);
}
static __device__ __forceinline__ td_c128 td_ccos(td_c128 z) { return td_ccosh(td_c128(-z.im, z.re)); }
static __device__ __forceinline__ td_c128 td_ctan(td_c128 z) {
  const td_c128 h = td_ctanh(td_c128(-z.im, z.re));
  return td_c128(h.im, -h.re);
}
// Kahan's inverses: s1 = sqrt(1 - z), s2 = sqrt(1 + z), the zeros' signs kept.
static __device__ __forceinline__ td_c128 td_casin(td_c128 z) {
  const td_c128 s1 = td_csqrt(td_c128(1 - z.re, -z.im)), s2 = td_csqrt(td_c128(1 + z.re, z.im));
  return td_c128(atan2(z.re, s1.re * s2.re - s1.im * s2.im), asinh(s1.re * s2.im - s1.im * s2.re));
}
static __device__ __forceinline__ td_c128 td_cacos(td_c128 z) {
  const td_c128 s1 = td_csqrt(td_c128(1 - z.re, -z.im)), s2 = td_csqrt(td_c128(1 + z.re, z.im));
  return td_c128(2 * atan2(s1.re, s2.re), asinh(s2.re * s1.im - s2.im * s1.re));
}
static __device__ __forceinline__ td_c128 td_cacosh(td_c128 z) {
  const td_c128 s1 = td_csqrt(td_c128(z.re - 1, z.im)), s2 = td_csqrt(td_c128(z.re + 1, z.im));
  return td_c128(asinh(s1.re * s2.re + s1.im * s2.im), 2 * atan2(s1.im, s2.re));
}
// asinh z = i asin(-iz).
static __device__ __forceinline__ td_c128 td_casinh(td_c128 z) {
  const td_c128 a = td_casin(td_c128(z.im, -z.re));
  return td_c128(-a.im, a.re);
}
// atanh z = (log1p(z) - log1p(-z)) / 2, each part formed without cancellation.
static __device__ __forceinline__ td_c128 td_catanh(td_c128 z) {
  const double x = z.re, y = z.im, m = 1 - x;
  return td_c128(0.25 * log1p(4 * x / (m * m + y * y)), 0.5 * atan2(2 * y, m * (1 + x) - y * y));
}
// atan z = -i atanh(iz).
static __device__ __forceinline__ td_c128 td_catan(td_c128 z) {
  const td_c128 h = td_catanh(td_c128(-z.im, z.re));
  return td_c128(h.im, -h.re);
}
static __device__ __forceinline__ td_c128 td_cexp2(td_c128 z) {
  const double m = exp2(z.re);
  if (z.im == 0) return td_c128(m, z.im);
  const double a = z.im * 0.6931471805599453094;
  return td_c128(m * cos(a), m * sin(a));
}
static __device__ __forceinline__ td_c128 td_cexpm1(td_c128 z) {
  if (z.im == 0) return td_c128(expm1(z.re), z.im);
  const double h = sin(0.5 * z.im);
  return td_c128(expm1(z.re) * cos(z.im) - 2 * h * h, exp(z.re) * sin(z.im));
}
static __device__ __forceinline__ td_c128 td_clog1p(td_c128 z) {
  const double x = z.re, y = z.im;
  if (td_op_hypot(x, y) < 0.5) return td_c128(0.5 * log1p(x * (2 + x) + y * y), atan2(y, 1 + x));
  return td_clog(td_c128(1 + x, y));
}
static __device__ __forceinline__ td_c128 td_clog2(td_c128 z) {
  const td_c128 l = td_clog(z);
  return td_c128(l.re / 0.6931471805599453094, l.im / 0.6931471805599453094);
}
static __device__ __forceinline__ td_c128 td_clog10(td_c128 z) {
  const td_c128 l = td_clog(z);
  return td_c128(l.re / 2.302585092994045684, l.im / 2.302585092994045684);
}
static __device__ __forceinline__ td_c128 td_crsqrt(td_c128 z) { return td_cdiv(td_c128(1.0), td_csqrt(z)); }
static __device__ __forceinline__ td_c128 td_csigmoid(td_c128 z) {
  return td_cdiv(td_c128(1.0), td_c128(1.0) + td_cexp(-z));
}
static __device__ __forceinline__ td_c128 td_csign(td_c128 z) {
  if (z.re == 0 && z.im == 0) return z;
  const double h = td_op_hypot(z.re, z.im);
  return td_c128(z.re / h, z.im / h);
}
// NumPy's power: 1 for w = 0; for z = 0, 0 when w is real and positive, else NaN; a real
// integer exponent under 100 in magnitude by repeated squaring; otherwise e^(w log z). Not
// inlined: one copy a unit (inlined, NVRTC took 2.3 s a kernel; its cost is exp and log's).
static __device__ __noinline__ td_c128 td_cpow(td_c128 z, td_c128 w) {
  if (w.re == 0 && w.im == 0) return td_c128(1.0);
  if (z.re == 0 && z.im == 0) {
    const double nan = __longlong_as_double(0x7ff8000000000000LL);
    return w.re > 0 && w.im == 0 ? td_c128(0.0) : td_c128(nan, nan);
  }
  if (w.im == 0 && w.re == rint(w.re) && fabs(w.re) < 100) {
    int n = (int)fabs(w.re);
    td_c128 result(1.0), square = z;
    for (bool first = true; n > 0; n >>= 1) {
      if (n & 1) {
        result = first ? square : td_cmul(result, square);
        first = false;
      }
      if (n > 1) square = td_cmul(square, square);
    }
    return w.re < 0 ? td_cdiv(td_c128(1.0), result) : result;
  }
  return td_cexp(td_cmul(w, td_clog(z)));
}
// The predicates (td_cisinf_z: td_cisinf is the real-valued helper of the arithmetic above).
static __device__ __forceinline__ bool td_cisnan(td_c128 z) { return z.re != z.re || z.im != z.im; }
static __device__ __forceinline__ bool td_cisinf_z(td_c128 z) { return td_cisinf(z.re) || td_cisinf(z.im); }
static __device__ __forceinline__ bool td_cisfinite(td_c128 z) {
  return z.re - z.re == z.re - z.re && z.im - z.im == z.im - z.im;
}
static __device__ __forceinline__ td_c64 td_csquare(td_c64 z) { return td_cmul(z, z); }
static __device__ __forceinline__ td_c128 td_csquare(td_c128 z) { return td_cmul(z, z); }
static __device__ __forceinline__ td_c64 td_creciprocal(td_c64 z) { return td_cdiv(td_c64(1.0f), z); }
static __device__ __forceinline__ td_c128 td_creciprocal(td_c128 z) { return td_cdiv(td_c128(1.0), z); }
// complex64: in double, rounded once.
#define TD_C64_VIA_C128(F) \
  static __device__ __forceinline__ td_c64 F(td_c64 z) { return td_c64(F(td_c128(z))); }
TD_C64_VIA_C128(td_csin) TD_C64_VIA_C128(td_ccos) TD_C64_VIA_C128(td_ctan)
TD_C64_VIA_C128(td_csinh) TD_C64_VIA_C128(td_ccosh) TD_C64_VIA_C128(td_ctanh)
TD_C64_VIA_C128(td_casin) TD_C64_VIA_C128(td_cacos) TD_C64_VIA_C128(td_catan)
TD_C64_VIA_C128(td_casinh) TD_C64_VIA_C128(td_cacosh) TD_C64_VIA_C128(td_catanh)
TD_C64_VIA_C128(td_cexp2) TD_C64_VIA_C128(td_cexpm1) TD_C64_VIA_C128(td_clog2)
TD_C64_VIA_C128(td_clog10) TD_C64_VIA_C128(td_clog1p) TD_C64_VIA_C128(td_crsqrt)
TD_C64_VIA_C128(td_csigmoid) TD_C64_VIA_C128(td_csign)
#undef TD_C64_VIA_C128
static __device__ __forceinline__ td_c64 td_cpow(td_c64 z, td_c64 w) {
  return td_c64(td_cpow(td_c128(z), td_c128(w)));
}
static __device__ __forceinline__ bool td_cisnan(td_c64 z) { return td_cisnan(td_c128(z)); }
static __device__ __forceinline__ bool td_cisinf_z(td_c64 z) { return td_cisinf_z(td_c128(z)); }
static __device__ __forceinline__ bool td_cisfinite(td_c64 z) { return td_cisfinite(td_c128(z)); }
)TD";
}

}  // namespace tensord::codegen
