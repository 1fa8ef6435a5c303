// The integer helpers of the CUDA formulas (cuda_int_prelude, part of cuda_math_prelude()):
// arithmetic as kernels_binary*.cpp computes it, wrapping in the unsigned type WrapT, with the
// defined results of division by zero, INT_MIN / -1 and out-of-range shifts (no UB). The host
// emitter's emit_cpp_int.cpp gives the same helpers to the C++ kernels.
#include "engine/codegen/emit_cuda_internal.h"

namespace tensord::codegen {

std::string_view cuda_int_prelude() {
  return R"TD(
// Integers: T the compute type, W the unsigned type arithmetic wraps in, S signedness.
template <typename T, typename W>
static __device__ __forceinline__ T td_op_ineg(T a) { return (T)((W)0 - (W)a); }
template <typename T, typename W>
static __device__ __forceinline__ T td_op_iabs(T a) { return a < (T)0 ? (T)((W)0 - (W)a) : a; }
template <typename T, typename W>
static __device__ __forceinline__ T td_op_isquare(T a) { return (T)((W)a * (W)a); }
template <typename T>
static __device__ __forceinline__ T td_op_isign(T a) { return (T)((a > (T)0) - (a < (T)0)); }
template <typename T>
static __device__ __forceinline__ T td_op_usign(T a) { return (T)(a != (T)0); }
template <typename T, typename W, bool S>
static __device__ T td_op_ipow(T a, T b) {
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
// C's %, with x % 0 = 0 and x % -1 = 0 (MIN % -1 overflows).
template <typename T, bool S>
static __device__ __forceinline__ T td_op_imod(T a, T b) {
  if (b == (T)0) return (T)0;
  if constexpr (S) {
    if (b == (T)-1) return (T)0;
  }
  return (T)(a % b);
}
// Python's %: the sign of the divisor.
template <typename T, bool S>
static __device__ __forceinline__ T td_op_irem(T a, T b) {
  T r = td_op_imod<T, S>(a, b);
  if constexpr (S) {
    if (r != (T)0 && ((r < (T)0) != (b < (T)0))) r = (T)(r + b);
  }
  return r;
}
// Python's //: x // 0 = 0, MIN // -1 wraps.
template <typename T, typename W, bool S>
static __device__ __forceinline__ T td_op_ifloordiv(T a, T b) {
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
static __device__ __forceinline__ W td_op_umag(T a) {
  if constexpr (S) {
    if (a < (T)0) return (W)0 - (W)a;
  }
  return (W)a;
}
template <typename W>
static __device__ W td_op_ugcd(W x, W y) {
  while (y != (W)0) {
    const W r = x % y;
    x = y;
    y = r;
  }
  return x;
}
template <typename T, typename W, bool S>
static __device__ T td_op_gcd(T a, T b) {
  return (T)td_op_ugcd<W>(td_op_umag<T, W, S>(a), td_op_umag<T, W, S>(b));
}
template <typename T, typename W, bool S>
static __device__ T td_op_lcm(T a, T b) {
  const W x = td_op_umag<T, W, S>(a), y = td_op_umag<T, W, S>(b), g = td_op_ugcd<W>(x, y);
  return g == (W)0 ? (T)0 : (T)(x / g * y);
}
// Shifts by a negative amount or by the width or more: 0 to the left, the sign fill to the right.
template <typename T, typename W, bool S, int B>
static __device__ __forceinline__ T td_op_shl(T a, T s) {
  if constexpr (S) {
    if (s < (T)0) return (T)0;
  }
  if ((long long)s >= B) return (T)0;
  return (T)((W)a << (int)s);
}
template <typename T, bool S, int B>
static __device__ __forceinline__ T td_op_shr(T a, T s) {
  if constexpr (S) {
    if (s < (T)0 || (long long)s >= B) return a < (T)0 ? (T)-1 : (T)0;
  } else {
    if ((long long)s >= B) return (T)0;
  }
  return (T)(a >> (int)s);
}
)TD";
}

}  // namespace tensord::codegen
