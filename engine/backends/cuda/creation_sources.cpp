// The creation source (movement_sources.h): arange, and rand/randn with engine/ir/philox.h's
// generator and transforms ported line for line, so that a seed draws the same numbers here as
// on the CPU backend.
#include "engine/backends/cuda/movement_sources.h"

namespace tensord::cuda {
namespace {

constexpr const char* kCreation = R"(
// element i = start + i * step in double, then cast. One fused multiply-add: what the CPU
// backend's loop compiles to (GCC contracts it on every FMA machine), so both give the same bits.
extern "C" __global__ void td_arange(char* out, int code, td_i64 n, double start, double step) {
  const td_i64 size = td_itemsize(code);
  for (td_i64 i = td_thread(); i < n; i += td_threads()) {
    td_val v;
    v.is_int = 0;
    v.i = 0;
    v.re = __fma_rn((double)i, step, start);
    v.im = 0;
    td_store(out + i * size, code, v);
  }
}

// Philox4x32-10 (engine/ir/philox.h).
struct td_philox { td_u32 r[4]; };
__device__ __forceinline__ td_philox td_philox_element(td_u64 seed, td_u64 index) {
  td_u32 c0 = (td_u32)index, c1 = (td_u32)(index >> 32), c2 = 0u, c3 = 0u;
  td_u32 key0 = (td_u32)seed, key1 = (td_u32)(seed >> 32);
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    const td_u64 p0 = (td_u64)0xD2511F53u * c0, p1 = (td_u64)0xCD9E8D57u * c2;
    const td_u32 hi0 = (td_u32)(p0 >> 32), lo0 = (td_u32)p0;
    const td_u32 hi1 = (td_u32)(p1 >> 32), lo1 = (td_u32)p1;
    c0 = hi1 ^ c1 ^ key0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ key1;
    c3 = lo0;
    key0 += 0x9E3779B9u;
    key1 += 0xBB67AE85u;
  }
  td_philox w;
  w.r[0] = c0;
  w.r[1] = c1;
  w.r[2] = c2;
  w.r[3] = c3;
  return w;
}

// Double-double arithmetic (hi + lo, about 106 bits), every operation rounded explicitly so that
// nothing is contracted differently on the device and in a host build of this text.
struct td_dd { double hi, lo; };
__device__ __forceinline__ td_dd td_dd_make(double hi, double lo) {
  td_dd r;
  r.hi = hi;
  r.lo = lo;
  return r;
}
__device__ __forceinline__ td_dd td_fast_two_sum(double a, double b) {  // |a| >= |b|
  const double s = __dadd_rn(a, b);
  return td_dd_make(s, __dsub_rn(b, __dsub_rn(s, a)));
}
__device__ __forceinline__ td_dd td_two_sum(double a, double b) {
  const double s = __dadd_rn(a, b), bb = __dsub_rn(s, a);
  return td_dd_make(s, __dadd_rn(__dsub_rn(a, __dsub_rn(s, bb)), __dsub_rn(b, bb)));
}
__device__ __forceinline__ td_dd td_dd_add(td_dd a, td_dd b) {
  td_dd s = td_two_sum(a.hi, b.hi);
  const td_dd t = td_two_sum(a.lo, b.lo);
  s = td_fast_two_sum(s.hi, __dadd_rn(s.lo, t.hi));
  return td_fast_two_sum(s.hi, __dadd_rn(s.lo, t.lo));
}
__device__ __forceinline__ td_dd td_dd_mul(td_dd a, td_dd b) {
  const double p = __dmul_rn(a.hi, b.hi);
  double e = __fma_rn(a.hi, b.hi, -p);
  e = __fma_rn(a.hi, b.lo, e);
  e = __fma_rn(a.lo, b.hi, e);
  return td_fast_two_sum(p, e);
}
__device__ __forceinline__ td_dd td_dd_neg(td_dd a) { return td_dd_make(-a.hi, -a.lo); }
__device__ td_dd td_dd_div(td_dd a, td_dd b) {
  const double q1 = __ddiv_rn(a.hi, b.hi);
  td_dd r = td_dd_add(a, td_dd_neg(td_dd_mul(b, td_dd_make(q1, 0.0))));
  const double q2 = __ddiv_rn(r.hi, b.hi);
  r = td_dd_add(r, td_dd_neg(td_dd_mul(b, td_dd_make(q2, 0.0))));
  const double q3 = __ddiv_rn(r.hi, b.hi);
  return td_dd_add(td_fast_two_sum(q1, q2), td_dd_make(q3, 0.0));
}
__device__ __forceinline__ double td_bits(td_u64 b) { return __longlong_as_double((td_i64)b); }

// log(x) for x in (0, 1] (normal), correctly rounded but for results within 2^-80 of a tie:
// x = m 2^e with m in (sqrt(1/2), sqrt(2)], log m = 2 atanh(s), s = (m - 1) / (m + 1), in
// double-double. glibc's log (the CPU's) is within 0.52 ulp, so the two agree but in rare ties.
__device__ double td_log_dd(double x) {
  const td_u64 bits = (td_u64)__double_as_longlong(x);
  int e = (int)((bits >> 52) & 0x7ff) - 1023;
  double m = td_bits((bits & 0xfffffffffffffull) | 0x3ff0000000000000ull);
  if (m > 1.4142135623730951) {
    m = __dmul_rn(m, 0.5);
    e += 1;
  }
  const td_dd s = td_dd_div(td_dd_make(__dsub_rn(m, 1.0), 0.0), td_two_sum(m, 1.0));
  const td_dd t = td_dd_mul(s, s);
  double tail = 0.0;  // sum over k >= 4 of t^(k-4) / (2k + 1): double is enough (t <= 0.03)
  for (int k = 24; k >= 4; --k) tail = __fma_rn(tail, t.hi, __ddiv_rn(1.0, (double)(2 * k + 1)));
  td_dd acc = td_dd_make(tail, 0.0);
  acc = td_dd_add(td_dd_mul(acc, t), td_dd_make(td_bits(0x3fc2492492492492ull), td_bits(0x3c62492492492492ull)));
  acc = td_dd_add(td_dd_mul(acc, t), td_dd_make(td_bits(0x3fc999999999999aull), td_bits(0xbc6999999999999aull)));
  acc = td_dd_add(td_dd_mul(acc, t), td_dd_make(td_bits(0x3fd5555555555555ull), td_bits(0x3c75555555555555ull)));
  acc = td_dd_add(td_dd_mul(acc, t), td_dd_make(1.0, 0.0));
  const td_dd log_m = td_dd_mul(td_dd_make(__dmul_rn(2.0, s.hi), __dmul_rn(2.0, s.lo)), acc);
  const td_dd ln2 = td_dd_make(td_bits(0x3fe62e42fefa39efull), td_bits(0x3c7abc9e3b39803full));
  const td_dd r = td_dd_add(td_dd_mul(ln2, td_dd_make((double)e, 0.0)), log_m);
  return __dadd_rn(r.hi, r.lo);
}

// cos(x) for x in [0, 2 pi], correctly rounded but for results within 2^-80 of a tie: x less
// k pi/2 (pi/2 in three doubles), then the Taylor series of cos or sin in double-double.
__device__ double td_cos_dd(double x) {
  const double k = rint(__dmul_rn(x, 0.63661977236758138));
  const double p1 = td_bits(0x3ff921fb54442d18ull), p2 = td_bits(0x3c91a62633145c07ull),
               p3 = td_bits(0xb91f1976b7ed8fbcull);
  const double k1 = __dmul_rn(k, p1), k2 = __dmul_rn(k, p2);
  td_dd r = td_dd_add(td_dd_make(x, 0.0), td_dd_make(-k1, -__fma_rn(k, p1, -k1)));
  r = td_dd_add(r, td_dd_make(-k2, -__fma_rn(k, p2, -k2)));
  r = td_dd_add(r, td_dd_make(-__dmul_rn(k, p3), 0.0));
  const td_dd r2 = td_dd_mul(r, r);
  const int q = ((int)k) & 3;
  // Horner from the inside: c = 1 - r2 / (1 2) (1 - r2 / (3 4) (1 - ...)), s likewise / (2 3)...
  td_dd acc = td_dd_make(1.0, 0.0);
  const bool odd = (q & 1) != 0;
  for (int n = 13; n >= 1; --n) {
    const double d = odd ? (double)((2 * n) * (2 * n + 1)) : (double)((2 * n - 1) * (2 * n));
    acc = td_dd_add(td_dd_make(1.0, 0.0), td_dd_neg(td_dd_div(td_dd_mul(r2, acc), td_dd_make(d, 0.0))));
  }
  if (odd) acc = td_dd_mul(acc, r);  // sin r
  const double v = __dadd_rn(acc.hi, acc.lo);
  return q == 0 || q == 3 ? v : -v;  // cos(r + k pi/2): cos r, -sin r, -cos r, sin r
}

// Standard normal by Box-Muller in double, as engine/ir/philox.h: each operation rounded as the
// CPU's (sqrt is correctly rounded; log and cos are the double-double ones above).
__device__ __forceinline__ double td_philox_normal(const td_philox& w) {
  const td_u64 b1 = ((td_u64)w.r[0] << 32 | w.r[1]) >> 11;
  const td_u64 b2 = ((td_u64)w.r[2] << 32 | w.r[3]) >> 11;
  const double u1 = __dmul_rn((double)(b1 + 1), 1.1102230246251565e-16);
  const double u2 = __dmul_rn((double)b2, 1.1102230246251565e-16);
  return __dmul_rn(__dsqrt_rn(__dmul_rn(-2.0, td_log_dd(u1))),
                   td_cos_dd(__dmul_rn(6.283185307179586, u2)));
}

// rand (normal = 0) or randn (normal = 1) into float16, bfloat16, float32 or float64.
extern "C" __global__ void td_random(char* out, int code, td_i64 n, td_u64 seed, int normal) {
  for (td_i64 i = td_thread(); i < n; i += td_threads()) {
    const td_philox w = td_philox_element(seed, (td_u64)i);
    if (normal) {
      td_val v;
      v.is_int = 0;
      v.i = 0;
      v.re = td_philox_normal(w);
      v.im = 0;
      td_store(out + i * td_itemsize(code), code, v);
    } else if (code == TD_F64) {
      const td_u64 bits = ((td_u64)w.r[0] << 32 | w.r[1]) >> 11;
      ((double*)out)[i] = (double)bits * 1.1102230246251565e-16;
    } else {
      const float u = (float)(w.r[0] >> 8) * 5.9604644775390625e-8f;  // exact
      if (code == TD_F32) {
        ((float*)out)[i] = u;
      } else if (code == TD_F16) {
        const td_u16 h = td_f2h(u);
        ((td_u16*)out)[i] = td_h2f(h) < 1.0f ? h : (td_u16)0x3BFFu;  // 1 - 2^-11
      } else {
        const td_u16 b = td_f2b(u);
        ((td_u16*)out)[i] = td_b2f(b) < 1.0f ? b : (td_u16)0x3F7Fu;  // 1 - 2^-8
      }
    }
  }
}
)";

}  // namespace

const std::string& creation_kernel_source() {
  static const std::string text = movement_prelude() + kCreation;
  return text;
}

}  // namespace tensord::cuda
