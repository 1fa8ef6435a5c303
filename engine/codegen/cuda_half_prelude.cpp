#include "engine/codegen/cuda_half_prelude.h"

namespace tensord::codegen {

std::string_view cuda_half_prelude() {
  // By bits rather than the cvt instructions: the same on the device and in the host
  // emulation, and NaN payloads as the CPU's. Written for NVRTC's compile time as much as for
  // speed: a float16 kernel converts each element up to four times (load, the rounding of each
  // op's result, store), each inlined in the four unrolled lanes, and the branchy first version
  // (three paths each way, td_rh a round trip through the bits) made float16 kernels cost 1.4x
  // float32 ones in NVVM's optimizer and ptxas (docs/cuda.md "16-bit kernels"). Now:
  // - td_h2f scales the 15 bits in place by 2^112 (exact: float16 subnormals become float
  //   normals, so one multiplication serves zero, subnormal and normal), inf/NaN by an add;
  // - td_f2h computes the normal result and overrides it for the other ranges (selects, no
  //   branches); subnormal results come from one float addition that rounds at the right bit
  //   (__fadd_rn: no contraction);
  // - td_rh/td_rb round a float to the 16-bit grid in float bits, without the round trip.
  // Bit for bit the former text (checked over every float and every half: docs/cuda.md).
  return R"TD(// 16-bit floats as bits
static __device__ __forceinline__ float td_h2f(unsigned short h) {
  const unsigned em = h & 0x7fffu, sign = (unsigned)(h & 0x8000u) << 16;
  const float v = __uint_as_float(em << 13) * 5.192296858534828e+33f;
  return __uint_as_float((em >= 0x7c00u ? (em << 13) + 0x70000000u : __float_as_uint(v)) | sign);
}
static __device__ __forceinline__ unsigned short td_f2h(float f) {
  const unsigned x = __float_as_uint(f), a = x & 0x7fffffffu;
  unsigned r = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;
  if (a < 0x38800000u) r = __float_as_uint(__fadd_rn(__uint_as_float(a), 0.5f)) - 0x3f000000u;
  if (a >= 0x477ff000u) r = a > 0x7f800000u ? 0x7e00u : 0x7c00u;
  return (unsigned short)(((x >> 16) & 0x8000u) | r);
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
static __device__ __forceinline__ float td_rh(float x) {
  const unsigned u = __float_as_uint(x), s = u & 0x80000000u, a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return __uint_as_float(a > 0x7f800000u ? s | 0x7fc00000u : u);
  if (a >= 0x477ff000u) return __uint_as_float(s | 0x7f800000u);
  if (a < 0x38800000u) {
    const float r = __fadd_rn(__fadd_rn(__uint_as_float(a), 0.5f), -0.5f);
    return __uint_as_float(s | __float_as_uint(r));
  }
  return __uint_as_float(s | ((a + 0xfffu + ((a >> 13) & 1u)) & 0xffffe000u));
}
static __device__ __forceinline__ float td_rb(float x) {
  const unsigned u = __float_as_uint(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return __uint_as_float((u | 0x400000u) & 0xffff0000u);
  return __uint_as_float((u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u);
}
)TD";
}

}  // namespace tensord::codegen
