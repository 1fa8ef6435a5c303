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

// Standard normal by Box-Muller in double; each operation rounded as the CPU's (no contraction).
// sqrt is correctly rounded; log and cos are CUDA's (within 1 and 2 ulp of glibc's).
__device__ __forceinline__ double td_philox_normal(const td_philox& w) {
  const td_u64 b1 = ((td_u64)w.r[0] << 32 | w.r[1]) >> 11;
  const td_u64 b2 = ((td_u64)w.r[2] << 32 | w.r[3]) >> 11;
  const double u1 = __dmul_rn((double)(b1 + 1), 1.1102230246251565e-16);
  const double u2 = __dmul_rn((double)b2, 1.1102230246251565e-16);
  return __dmul_rn(__dsqrt_rn(__dmul_rn(-2.0, log(u1))), cos(__dmul_rn(6.283185307179586, u2)));
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
