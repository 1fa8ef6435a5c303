// philox_block.h's generator: Philox4x32-10's rounds over vectors of lanes.
#include "engine/backends/cpu/philox_block.h"

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#include "engine/ir/philox.h"

namespace tensord::cpu {
namespace {

#if defined(__AVX512F__) || defined(__AVX2__)
// 32 x 32 -> 64-bit products of every 32-bit lane by `m` (m in the low half of each 64-bit
// lane): the even lanes' and the odd lanes' products, their low and high halves interleaved
// back into lanes. GCC does not vectorize the scalar form (a widening multiply it rejects).
#if defined(__AVX512F__)
using Lanes = __m512i;
Lanes load(const uint32_t* p) {
  return _mm512_loadu_si512(p);
}
void store(uint32_t* p, Lanes v) {
  _mm512_storeu_si512(p, v);
}
Lanes splat(uint32_t v) {
  return _mm512_set1_epi32(static_cast<int>(v));
}
// The zero-masked forms: GCC 12 warns of the plain ones' undefined source (its bug 105593).
void mulhilo(Lanes c, Lanes m, Lanes& lo, Lanes& hi) {
  constexpr __mmask8 kAll = 0xFF;
  const Lanes even = _mm512_maskz_mul_epu32(kAll, c, m);
  const Lanes odd = _mm512_maskz_mul_epu32(kAll, _mm512_maskz_srli_epi64(kAll, c, 32), m);
  lo = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_maskz_slli_epi64(kAll, odd, 32));
  hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_maskz_srli_epi64(kAll, even, 32), odd);
}
Lanes xor3(Lanes a, Lanes b, Lanes c) {
  return _mm512_xor_si512(_mm512_xor_si512(a, b), c);
}
#else
using Lanes = __m256i;
Lanes load(const uint32_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
void store(uint32_t* p, Lanes v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}
Lanes splat(uint32_t v) {
  return _mm256_set1_epi32(static_cast<int>(v));
}
void mulhilo(Lanes c, Lanes m, Lanes& lo, Lanes& hi) {
  const Lanes even = _mm256_mul_epu32(c, m), odd = _mm256_mul_epu32(_mm256_srli_epi64(c, 32), m);
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}
Lanes xor3(Lanes a, Lanes b, Lanes c) {
  return _mm256_xor_si256(_mm256_xor_si256(a, b), c);
}
#endif
constexpr int kWidth = sizeof(Lanes) / sizeof(uint32_t);

// Ten rounds on the counters in w, a vector of lanes at a time.
void rounds(PhiloxBlock& w, uint32_t key0, uint32_t key1) {
  using namespace ir::philox_detail;
  const Lanes m0 = splat(kM0), m1 = splat(kM1);  // the odd 32-bit halves are never read
  for (int at = 0; at < kPhiloxLanes; at += kWidth) {
    Lanes c0 = load(w.r[0] + at), c1 = load(w.r[1] + at), c2 = load(w.r[2] + at),
          c3 = load(w.r[3] + at);
    uint32_t k0 = key0, k1 = key1;
    for (int round = 0; round < 10; ++round) {
      Lanes lo0, hi0, lo1, hi1;
      mulhilo(c0, m0, lo0, hi0);
      mulhilo(c2, m1, lo1, hi1);
      c0 = xor3(hi1, c1, splat(k0));
      c1 = lo1;
      c2 = xor3(hi0, c3, splat(k1));
      c3 = lo0;
      k0 += kW0;
      k1 += kW1;
    }
    store(w.r[0] + at, c0);
    store(w.r[1] + at, c1);
    store(w.r[2] + at, c2);
    store(w.r[3] + at, c3);
  }
}
#else
void rounds(PhiloxBlock& w, uint32_t key0, uint32_t key1) {
  for (int i = 0; i < kPhiloxLanes; ++i) {
    const ir::Philox4x32 out =
        ir::philox4x32_10(ir::Philox4x32{{w.r[0][i], w.r[1][i], w.r[2][i], w.r[3][i]}}, key0, key1);
    for (int j = 0; j < 4; ++j) w.r[j][i] = out.r[j];
  }
}
#endif

}  // namespace

void philox_block(uint64_t seed, uint64_t first, PhiloxBlock& w) {
  for (int i = 0; i < kPhiloxLanes; ++i) {
    const uint64_t index = first + static_cast<uint64_t>(i);
    w.r[0][i] = static_cast<uint32_t>(index);
    w.r[1][i] = static_cast<uint32_t>(index >> 32);
    w.r[2][i] = 0;
    w.r[3][i] = 0;
  }
  rounds(w, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

}  // namespace tensord::cpu
