#include "engine/codegen/cuda_half_prelude.h"

namespace tensord::codegen {

std::string_view cuda_half_prelude() {
  // By bits rather than the cvt instructions: the same on the device and in the host
  // emulation, and NaN payloads as the CPU's. Subnormal float16 results come from one float
  // addition that rounds at the right bit (__fadd_rn: no contraction).
  return R"TD(// 16-bit floats as bits
static __device__ __forceinline__ float td_h2f(unsigned short h) {
  unsigned sign = (unsigned)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (e == 0x1f) return __uint_as_float(sign | 0x7f800000u | (mant << 13));
  if (e == 0) { float v = (float)mant * 5.9604644775390625e-8f; return sign ? -v : v; }
  return __uint_as_float(sign | ((e + 112u) << 23) | (mant << 13));
}
static __device__ __forceinline__ unsigned short td_f2h(float f) {
  unsigned x = __float_as_uint(f), sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) return (unsigned short)(sign | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0u));
  if (a >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);
  if (a < 0x38800000u) {
    float r = __fadd_rn(__uint_as_float(a), 0.5f);
    return (unsigned short)(sign | (__float_as_uint(r) - 0x3f000000u));
  }
  a += 0xc8000fffu + ((a >> 13) & 1u);
  return (unsigned short)(sign | (a >> 13));
}
static __device__ __forceinline__ float td_b2f(unsigned short b) {
  return __uint_as_float((unsigned)b << 16);
}
static __device__ __forceinline__ unsigned short td_f2b(float f) {
  unsigned x = __float_as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (unsigned short)(x >> 16);
}
static __device__ __forceinline__ float td_rh(float x) { return td_h2f(td_f2h(x)); }
static __device__ __forceinline__ float td_rb(float x) { return td_b2f(td_f2b(x)); }
)TD";
}

}  // namespace tensord::codegen
