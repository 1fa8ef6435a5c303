// Integer and mixed integer/float ops of the C++ emitter. The formula text is the CUDA
// emitter's (emit_cuda_ops.cpp: the eager kernels' wrapping, division by zero giving 0, MIN / -1
// wrapping, out-of-range shifts, the cast rules of scalar_cast.h), so both targets compute the
// same bits from one table; this file gives the host the td_op_* helpers those formulas call,
// written as emit_cuda_math.cpp's device versions with GCC builtins instead of CUDA's.
#include "engine/codegen/emit_cpp_internal.h"
#include "engine/codegen/emit_cuda_internal.h"

namespace tensord::codegen {

std::string_view cpp_int_prelude() {
  return R"(// integer formulas (the CUDA emitter's, for the host)
// CUDA's rounded float arithmetic, which the formulas use so that no product is contracted
// into an FMA; the host compiles with -ffp-contract=off, where the plain operators round alike.
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline float td_op_rto(double d) {
  float f = (float)d;
  if ((double)f != d && d == d) {
    td_u32 b = __builtin_bit_cast(td_u32, f);
    if ((b & 1u) == 0) f = __builtin_bit_cast(float, (double)f < d ? (f >= 0 ? b + 1 : b - 1)
                                                                   : (f > 0 ? b - 1 : b + 1));
  }
  return f;
}
template <typename To, typename F>
static inline To td_op_sat(F v, F hi, F lo, To mx, To mn) {
  if (v != v) return (To)0;
  const F t = __builtin_trunc(v);
  if (t >= hi) return mx;
  if (t < lo) return mn;
  return (To)t;
}
#define TD_OP_SAT(name, T, hi, lo, mx, mn) \
  static inline T name(float v) { return td_op_sat<T, double>(v, hi, lo, (T)(mx), (T)(mn)); } \
  static inline T name(double v) { return td_op_sat<T, double>(v, hi, lo, (T)(mx), (T)(mn)); }
TD_OP_SAT(td_op_f2i8, signed char, 128.0, -128.0, 127, -128)
TD_OP_SAT(td_op_f2u8, unsigned char, 256.0, 0.0, 255, 0)
TD_OP_SAT(td_op_f2i16, short, 32768.0, -32768.0, 32767, -32768)
TD_OP_SAT(td_op_f2i32, int, 2147483648.0, -2147483648.0, 2147483647, -2147483647 - 1)
TD_OP_SAT(td_op_f2i64, long long, 9223372036854775808.0, -9223372036854775808.0,
          9223372036854775807LL, -9223372036854775807LL - 1)
#undef TD_OP_SAT
template <typename T, typename W> static inline T td_op_ineg(T a) { return (T)((W)0 - (W)a); }
template <typename T, typename W> static inline T td_op_iabs(T a) {
  return a < (T)0 ? (T)((W)0 - (W)a) : a;
}
template <typename T, typename W> static inline T td_op_isquare(T a) { return (T)((W)a * (W)a); }
template <typename T> static inline T td_op_isign(T a) { return (T)((a > (T)0) - (a < (T)0)); }
template <typename T> static inline T td_op_usign(T a) { return (T)(a != (T)0); }
template <typename T, typename W, bool S> static inline T td_op_ipow(T a, T b) {
  if constexpr (S) {
    if (b < (T)0) return a == (T)1 ? (T)1 : a == (T)-1 ? (T)((b & 1) ? -1 : 1) : (T)0;
  }
  W r = 1, base = (W)a;
  for (unsigned long long e = (unsigned long long)b; e != 0; e >>= 1) {
    if (e & 1) r *= base;
    base *= base;
  }
  return (T)r;
}
template <typename T, bool S> static inline T td_op_imod(T a, T b) {
  if (b == (T)0) return (T)0;
  if constexpr (S) {
    if (b == (T)-1) return (T)0;
  }
  return (T)(a % b);
}
template <typename T, bool S> static inline T td_op_irem(T a, T b) {
  T r = td_op_imod<T, S>(a, b);
  if constexpr (S) {
    if (r != (T)0 && ((r < (T)0) != (b < (T)0))) r = (T)(r + b);
  }
  return r;
}
template <typename T, typename W, bool S> static inline T td_op_ifloordiv(T a, T b) {
  if (b == (T)0) return (T)0;
  if constexpr (S) {
    if (b == (T)-1) return (T)((W)0 - (W)a);
    T q = (T)(a / b);
    if ((T)(a % b) != (T)0 && ((a < (T)0) != (b < (T)0))) q = (T)(q - 1);
    return q;
  } else {
    return (T)(a / b);
  }
}
// NumPy's gcd and lcm: Euclid on the magnitudes in the wrap type, where |MIN| fits; the result
// wraps back to T (gcd(MIN, 0) = MIN and an lcm past the range wrap, as NumPy's).
template <typename T, typename W, bool S>
static inline W td_op_umag(T a) {
  if constexpr (S) {
    if (a < (T)0) return (W)0 - (W)a;
  }
  return (W)a;
}
template <typename W>
static inline W td_op_ugcd(W x, W y) {
  while (y != (W)0) {
    const W r = x % y;
    x = y;
    y = r;
  }
  return x;
}
template <typename T, typename W, bool S>
static inline T td_op_gcd(T a, T b) {
  return (T)td_op_ugcd<W>(td_op_umag<T, W, S>(a), td_op_umag<T, W, S>(b));
}
template <typename T, typename W, bool S>
static inline T td_op_lcm(T a, T b) {
  const W x = td_op_umag<T, W, S>(a), y = td_op_umag<T, W, S>(b), g = td_op_ugcd<W>(x, y);
  return g == (W)0 ? (T)0 : (T)(x / g * y);
}
template <typename T, typename W, bool S, int B> static inline T td_op_shl(T a, T s) {
  if constexpr (S) {
    if (s < (T)0) return (T)0;
  }
  if ((long long)s >= B) return (T)0;
  return (T)((W)a << (int)s);
}
template <typename T, bool S, int B> static inline T td_op_shr(T a, T s) {
  if constexpr (S) {
    if (s < (T)0 || (long long)s >= B) return a < (T)0 ? (T)-1 : (T)0;
  } else {
    if ((long long)s >= B) return (T)0;
  }
  return (T)(a >> (int)s);
}
template <typename T> static inline T td_op_maximum(T a, T b) { return a > b || a != a ? a : b; }
template <typename T> static inline T td_op_minimum(T a, T b) { return a < b || a != a ? a : b; }
template <typename T> static inline T td_op_relu(T a) { return a > (T)0 || a != a ? a : (T)0; }
// argmax / argmin of a row (eager reduce_ops.h): ties keep the first index, the first NaN wins.
template <typename T> static inline bool td_argmax_better(T v, T best) {
  return v > best || (v != v && best == best);
}
template <typename T> static inline bool td_argmin_better(T v, T best) {
  return v < best || (v != v && best == best);
}
)";
}

std::string cpp_int_expr(ir::Op op, std::span<const std::string> args,
                         std::span<const ir::DType> arg_dtypes, ir::DType result) {
  return cuda_expr(op, args, arg_dtypes, result);
}

std::string_view cpp_compute_type(ir::DType t) {
  return cuda_compute_type(t);
}

}  // namespace tensord::codegen
