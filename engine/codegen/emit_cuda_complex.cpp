// The complex64/complex128 formulas of the CUDA emitter, with the CPU backend's semantics
// (engine/backends/cpu/kernels_complex.cpp): neg, exp, log, sqrt; abs, real, imag, angle (real
// results); add, sub, mul, div, pow (computed in the result's dtype, inputs converted first); eq,
// ne (in the promoted dtype); where; complex(re, im); casts to and from every real dtype; the
// functions of emit_cuda_complex_math.cpp (sin ... isfinite). conj is
// a view (its materialisation is the movement family's); every other op of a complex operand
// is rejected by shape inference before it reaches a backend.
//
// Values are td_c64 / td_c128 (the prelude below: two floats or two doubles, laid out as
// std::complex), so the emitter's structure loads, stores, reduces and passes them like any
// other compute type. No toolkit header is included (no cuComplex.h): the arithmetic is here.
#include <initializer_list>
#include <optional>
#include <string_view>

#include "engine/codegen/emit_cuda_internal.h"
#include "engine/ir/error.h"

namespace tensord::codegen {
namespace {

using ir::DType;
using ir::Op;

std::string ctype(DType t) {
  return std::string(cuda_compute_type(t));
}
// Concatenation without operator+ chains on temporaries (GCC 12 warns falsely about them).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (std::string_view p : parts) s += p;
  return s;
}
std::string paren(const std::string& x) {
  return cat({"(", x, ")"});
}
std::string call(const char* fn, const std::string& x) {
  return cat({fn, "(", x, ")"});
}
std::string call(const char* fn, const std::string& x, const std::string& y) {
  return cat({fn, "(", x, ", ", y, ")"});
}

// The result dtype of `op` when an operand or the result is complex; nullopt if not written
// here.
std::optional<DType> complex_result(Op op, std::span<const DType> in, DType result) {
  const ir::OpKind kind = ir::op_info(op).kind;
  if (op == Op::cast) return in.size() == 1 ? std::optional<DType>(result) : std::nullopt;
  if (kind == ir::OpKind::Unary && in.size() == 1) {
    if (!ir::is_complex(in[0])) return std::nullopt;
    switch (op) {
      case Op::neg:
      case Op::exp:
      case Op::log:
      case Op::sqrt:
        return in[0];
      case Op::abs:
      case Op::real:
      case Op::imag:
      case Op::angle:
        return ir::real_of(in[0]);
      case Op::isnan:
      case Op::isinf:
      case Op::isfinite:
        return DType::Bool;
      default:
        return cuda_complex_math_function(op) ? std::optional<DType>(in[0]) : std::nullopt;
    }
  }
  if (kind == ir::OpKind::Binary && in.size() == 2) {
    switch (op) {
      case Op::add:
      case Op::sub:
      case Op::mul:
      case Op::div:  // in the result's dtype, as the CPU computes (it is the promoted one)
      case Op::pow:
        return ir::is_complex(result) ? std::optional<DType>(result) : std::nullopt;
      case Op::eq:
      case Op::ne:
        return ir::is_complex(ir::promote(in[0], in[1])) ? std::optional<DType>(DType::Bool)
                                                         : std::nullopt;
      case Op::complex:
        if (ir::is_complex(in[0]) || ir::is_complex(in[1]) || !ir::is_complex(result))
          return std::nullopt;
        return result;
      default:
        return std::nullopt;
    }
  }
  if (op == Op::where && in.size() == 3 && ir::is_complex(result)) return result;
  return std::nullopt;
}

}  // namespace

bool cuda_complex_op_supported(Op op, std::span<const DType> inputs, DType result) {
  const std::optional<DType> r = complex_result(op, inputs, result);
  return r && *r == result;
}

std::string cuda_convert(const std::string& x, DType from, DType to) {
  const bool cf = ir::is_complex(from), ct = ir::is_complex(to);
  if (!cf && !ct) return cuda_real_convert(x, from, to);
  if (from == to) return x;
  if (cf && ct) return cat({"((", ctype(to), ")(", x, "))"});
  if (cf) {  // NumPy's rules: the imaginary part is dropped; to bool, nonzero if either part is
    if (to == DType::Bool) return cat({"(", x, ".re != 0 || ", x, ".im != 0)"});
    return cuda_real_convert(x + ".re", ir::real_of(from), to);
  }
  return cat({ctype(to), "(", cuda_real_convert(x, from, ir::real_of(to)), ")"});
}

std::string cuda_complex_expr(Op op, std::span<const std::string> args,
                              std::span<const DType> arg_dtypes, DType result) {
  auto as = [&](size_t i, DType t) { return cuda_convert(paren(args[i]), arg_dtypes[i], t); };
  if (op == Op::cast) return as(0, result);
  if (op == Op::where) {
    return cat({"(", as(0, DType::Bool), " ? ", as(1, result), " : ", as(2, result), ")"});
  }
  if (op == Op::complex) {
    const DType part = ir::real_of(result);
    return cat({ctype(result), "(", as(0, part), ", ", as(1, part), ")"});
  }
  if (op == Op::eq || op == Op::ne) {
    const DType t = ir::promote(arg_dtypes[0], arg_dtypes[1]);
    const std::string e = call("td_ceq", as(0, t), as(1, t));
    return op == Op::eq ? e : cat({"(!", e, ")"});
  }
  if (args.size() == 1) {
    const std::string z = paren(args[0]);
    switch (op) {
      case Op::neg:
        return cat({"(-", z, ")"});
      case Op::exp:
        return call("td_cexp", z);
      case Op::log:
        return call("td_clog", z);
      case Op::sqrt:
        return call("td_csqrt", z);
      case Op::abs:
        return call("td_cabs", z);
      case Op::real:
        return z + ".re";
      case Op::imag:
        return z + ".im";
      case Op::angle:
        return call("td_carg", z);
      default:
        return call(cuda_complex_math_function(op), z);
    }
  }
  const std::string x = as(0, result), y = as(1, result);
  switch (op) {
    case Op::add:
      return cat({"(", x, " + ", y, ")"});
    case Op::sub:
      return cat({"(", x, " - ", y, ")"});
    case Op::mul:
      return call("td_cmul", x, y);
    case Op::pow:
      return call("td_cpow", x, y);
    default:  // div
      return call("td_cdiv", x, y);
  }
}

std::string_view cuda_complex_prelude() {
  static const std::string text =
      std::string(cuda_complex_arithmetic()) + std::string(cuda_complex_math_prelude());
  return text;
}

std::string_view cuda_complex_arithmetic() {
  // Products and quotients follow C99 Annex G as GCC's libgcc does (the CPU's std::complex):
  // the plain formula, then infinities recovered where it gave NaN in both parts. complex64
  // quotients are computed in double (as libgcc's __divsc3), complex128 ones by Smith's method.
  // exp, log, sqrt, abs and angle of complex64 are computed in double and rounded.
  return R"TD(// tensord complex formulas
struct td_c128;
struct alignas(8) td_c64 {
  float re, im;
  td_c64() = default;
  __device__ __forceinline__ td_c64(float r, float i = 0.0f) : re(r), im(i) {}
  explicit __device__ __forceinline__ td_c64(const td_c128& z);
};
struct alignas(16) td_c128 {
  double re, im;
  td_c128() = default;
  __device__ __forceinline__ td_c128(double r, double i = 0.0) : re(r), im(i) {}
  __device__ __forceinline__ td_c128(const td_c64& z) : re(z.re), im(z.im) {}
};
__device__ __forceinline__ td_c64::td_c64(const td_c128& z) : re((float)z.re), im((float)z.im) {}
#define TD_COMPLEX_BASICS(Z)                                                                    \
  static __device__ __forceinline__ Z operator-(Z a) { return Z(-a.re, -a.im); }              \
  static __device__ __forceinline__ Z operator+(Z a, Z b) { return Z(a.re + b.re, a.im + b.im); } \
  static __device__ __forceinline__ Z operator-(Z a, Z b) { return Z(a.re - b.re, a.im - b.im); } \
  static __device__ __forceinline__ bool td_ceq(Z a, Z b) { return a.re == b.re && a.im == b.im; } \
  static __device__ __forceinline__ Z td_shfl(unsigned m, Z x, int o) {                       \
    return Z(td_shfl(m, x.re, o), td_shfl(m, x.im, o));                                      \
  }
TD_COMPLEX_BASICS(td_c64)
TD_COMPLEX_BASICS(td_c128)
#undef TD_COMPLEX_BASICS
template <class R> static __device__ __forceinline__ bool td_cisinf(R x) {
  return x - x != x - x && x == x;
}
template <class R> static __device__ __forceinline__ R td_cbox(R x) {  // 1 for inf, else 0, signed
  return copysign(td_cisinf(x) ? (R)1 : (R)0, x);
}
template <class R> static __device__ __forceinline__ R td_cunnan(R x) {
  return x != x ? copysign((R)0, x) : x;
}
// libgcc's __muldc3.
template <class R> static __device__ __forceinline__ void td_cmul_parts(R a, R b, R c, R d, R& x, R& y) {
  const R ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  x = ac - bd;
  y = ad + bc;
  if (x != x && y != y) {
    bool again = false;
    if (td_cisinf(a) || td_cisinf(b)) {
      a = td_cbox(a); b = td_cbox(b); c = td_cunnan(c); d = td_cunnan(d); again = true;
    }
    if (td_cisinf(c) || td_cisinf(d)) {
      c = td_cbox(c); d = td_cbox(d); a = td_cunnan(a); b = td_cunnan(b); again = true;
    }
    if (!again && (td_cisinf(ac) || td_cisinf(bd) || td_cisinf(ad) || td_cisinf(bc))) {
      a = td_cunnan(a); b = td_cunnan(b); c = td_cunnan(c); d = td_cunnan(d); again = true;
    }
    if (again) {
      const R inf = (R)__longlong_as_double(0x7ff0000000000000LL);
      x = inf * (a * c - b * d);
      y = inf * (a * d + b * c);
    }
  }
}
// The Annex G recovery of a quotient that came out NaN in both parts.
template <class R> static __device__ __forceinline__ void td_cdiv_recover(R a, R b, R c, R d, R& x, R& y) {
  if (!(x != x && y != y)) return;
  const R inf = (R)__longlong_as_double(0x7ff0000000000000LL);
  const bool fin_ab = a - a == a - a && b - b == b - b, fin_cd = c - c == c - c && d - d == d - d;
  if (c == 0 && d == 0 && (a == a || b == b)) {
    x = copysign(inf, c) * a;
    y = copysign(inf, c) * b;
  } else if ((td_cisinf(a) || td_cisinf(b)) && fin_cd) {
    a = td_cbox(a); b = td_cbox(b);
    x = inf * (a * c + b * d);
    y = inf * (b * c - a * d);
  } else if ((td_cisinf(c) || td_cisinf(d)) && fin_ab) {
    c = td_cbox(c); d = td_cbox(d);
    x = (R)0 * (a * c + b * d);
    y = (R)0 * (b * c - a * d);
  }
}
static __device__ __forceinline__ td_c64 td_cmul(td_c64 p, td_c64 q) {
  float x, y;
  td_cmul_parts(p.re, p.im, q.re, q.im, x, y);
  return td_c64(x, y);
}
static __device__ __forceinline__ td_c128 td_cmul(td_c128 p, td_c128 q) {
  double x, y;
  td_cmul_parts(p.re, p.im, q.re, q.im, x, y);
  return td_c128(x, y);
}
static __device__ __forceinline__ td_c64 td_cdiv(td_c64 p, td_c64 q) {
  const double a = p.re, b = p.im, c = q.re, d = q.im, den = c * c + d * d;
  double x = (a * c + b * d) / den, y = (b * c - a * d) / den;
  td_cdiv_recover(a, b, c, d, x, y);
  return td_c64((float)x, (float)y);
}
static __device__ __forceinline__ td_c128 td_cdiv(td_c128 p, td_c128 q) {
  const double a = p.re, b = p.im, c = q.re, d = q.im;
  double x, y;
  if (fabs(c) < fabs(d)) {
    const double r = c / d, den = c * r + d;
    x = (a * r + b) / den;
    y = (b * r - a) / den;
  } else {
    const double r = d / c, den = d * r + c;
    x = (b * r + a) / den;
    y = (b - a * r) / den;
  }
  td_cdiv_recover(a, b, c, d, x, y);
  return td_c128(x, y);
}
// exp(x + iy): (e^x cos y, e^x sin y); a zero y stays (exp(inf) times sin 0 is no NaN).
static __device__ __forceinline__ td_c128 td_cexp(td_c128 z) {
  const double e = exp(z.re);
  if (z.im == 0) return td_c128(e, z.im);
  return td_c128(e * cos(z.im), e * sin(z.im));
}
static __device__ __forceinline__ double td_cabs(td_c128 z) { return td_op_hypot(z.re, z.im); }
static __device__ __forceinline__ double td_carg(td_c128 z) { return atan2(z.im, z.re); }
// log|z| + i arg z; near |z| = 1, log1p of |z|^2 - 1 formed without cancellation.
static __device__ __forceinline__ td_c128 td_clog(td_c128 z) {
  const double h = td_op_hypot(z.re, z.im);
  double lr;
  if (h > 0.7 && h < 1.4) {
    const double m = fmax(fabs(z.re), fabs(z.im)), n = fmin(fabs(z.re), fabs(z.im));
    lr = 0.5 * log1p((m - 1) * (m + 1) + n * n);
  } else {
    lr = log(h);
  }
  return td_c128(lr, atan2(z.im, z.re));
}
// sqrt with the branch cut on the negative reals (the sign of a zero imaginary part decides).
static __device__ __forceinline__ td_c128 td_csqrt(td_c128 z) {
  if (z.re == 0 && z.im == 0) return td_c128(0.0, z.im);
  if (td_cisinf(z.im)) return td_c128(__longlong_as_double(0x7ff0000000000000LL), z.im);
  const double t = sqrt(0.5 * fabs(z.re) + 0.5 * td_op_hypot(z.re, z.im));
  if (z.re >= 0) return td_c128(t, z.im / (2 * t));
  return td_c128(fabs(z.im) / (2 * t), copysign(t, z.im));
}
static __device__ __forceinline__ td_c64 td_cexp(td_c64 z) { return td_c64(td_cexp(td_c128(z))); }
static __device__ __forceinline__ td_c64 td_clog(td_c64 z) { return td_c64(td_clog(td_c128(z))); }
static __device__ __forceinline__ td_c64 td_csqrt(td_c64 z) { return td_c64(td_csqrt(td_c128(z))); }
static __device__ __forceinline__ float td_cabs(td_c64 z) { return (float)td_cabs(td_c128(z)); }
static __device__ __forceinline__ float td_carg(td_c64 z) { return (float)td_carg(td_c128(z)); }
)TD";
}

}  // namespace tensord::codegen
