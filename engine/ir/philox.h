// Philox4x32-10, the counter-based generator behind rand and randn (docs/ops.md), and the
// formulas that turn its output into uniform and normal samples. Header-only and free of
// dependencies so the CUDA backend compiles the same code for the device: a seeded program
// draws the same numbers on every backend.
#pragma once

#include <math.h>  // the global ::log/::sqrt/::cos overloads exist in host and device code
#include <stdint.h>

#if defined(__CUDACC__)
#define TENSORD_HOST_DEVICE __host__ __device__
#else
#define TENSORD_HOST_DEVICE
#endif

namespace tensord::ir {

struct Philox4x32 {
  uint32_t r[4];
};

namespace philox_detail {

inline constexpr uint32_t kM0 = 0xD2511F53u;
inline constexpr uint32_t kM1 = 0xCD9E8D57u;
inline constexpr uint32_t kW0 = 0x9E3779B9u;
inline constexpr uint32_t kW1 = 0xBB67AE85u;

TENSORD_HOST_DEVICE inline uint32_t mulhilo(uint32_t a, uint32_t b, uint32_t* hi) {
  uint64_t p = static_cast<uint64_t>(a) * b;
  *hi = static_cast<uint32_t>(p >> 32);
  return static_cast<uint32_t>(p);
}

}  // namespace philox_detail

// The raw generator: 10 rounds of Philox4x32 on `counter` under `key` (Random123's
// philox4x32_R(10, ...)).
TENSORD_HOST_DEVICE inline Philox4x32 philox4x32_10(Philox4x32 counter, uint32_t key0,
                                                    uint32_t key1) {
  using namespace philox_detail;
  uint32_t c0 = counter.r[0], c1 = counter.r[1], c2 = counter.r[2], c3 = counter.r[3];
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0, hi1;
    uint32_t lo0 = mulhilo(kM0, c0, &hi0);
    uint32_t lo1 = mulhilo(kM1, c2, &hi1);
    c0 = hi1 ^ c1 ^ key0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ key1;
    c3 = lo0;
    key0 += kW0;
    key1 += kW1;
  }
  return Philox4x32{{c0, c1, c2, c3}};
}

// The four words for element `index` (row-major) of a tensor drawn with `seed`.
TENSORD_HOST_DEVICE inline Philox4x32 philox_element(uint64_t seed, uint64_t index) {
  Philox4x32 counter{{static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), 0u, 0u}};
  return philox4x32_10(counter, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

// Uniform in [0, 1) with 24 random bits: exact in float32; the caller rounds it to float16 or
// bfloat16 and replaces a rounded 1.0 by the largest value below 1.
TENSORD_HOST_DEVICE inline float philox_uniform24(const Philox4x32& w) {
  return static_cast<float>(w.r[0] >> 8) * 5.9604644775390625e-8f;  // 2^-24
}

// Uniform in [0, 1) with 53 random bits, for float64.
TENSORD_HOST_DEVICE inline double philox_uniform53(const Philox4x32& w) {
  uint64_t bits = (static_cast<uint64_t>(w.r[0]) << 32 | w.r[1]) >> 11;
  return static_cast<double>(bits) * 1.1102230246251565e-16;  // 2^-53
}

// Box-Muller's two uniforms, 53 bits each: u1 in (0, 1], u2 in [0, 1).
TENSORD_HOST_DEVICE inline void philox_normal_uniforms(const Philox4x32& w, double* u1,
                                                       double* u2) {
  uint64_t b1 = (static_cast<uint64_t>(w.r[0]) << 32 | w.r[1]) >> 11;
  uint64_t b2 = (static_cast<uint64_t>(w.r[2]) << 32 | w.r[3]) >> 11;
  *u1 = static_cast<double>(b1 + 1) * 1.1102230246251565e-16;  // 2^-53
  *u2 = static_cast<double>(b2) * 1.1102230246251565e-16;
}

// Standard normal by Box-Muller in double; the caller casts it to the dtype.
TENSORD_HOST_DEVICE inline double philox_normal(const Philox4x32& w) {
  double u1, u2;
  philox_normal_uniforms(w, &u1, &u2);
  return ::sqrt(-2.0 * ::log(u1)) * ::cos(6.283185307179586 * u2);
}

}  // namespace tensord::ir
