// 16-bit float storage types. Arithmetic happens in float32: load, compute, round on store.
#pragma once

#include <bit>
#include <cstdint>

namespace tensord::ir {

struct Float16 {
  uint16_t bits = 0;
  Float16() = default;
  explicit Float16(float f) : bits(from_float(f)) {}
  operator float() const { return to_float(bits); }

  static uint16_t from_float(float f) {
    uint32_t x = std::bit_cast<uint32_t>(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) {  // inf or nan
      return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    }
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
    if (abs < 0x38800000u) {  // subnormal half or zero: let the FPU round, via a magic add
      float r = std::bit_cast<float>(abs) + 0.5f;
      return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(r) - 0x3f000000u));
    }
    uint32_t mant_odd = (abs >> 13) & 1u;  // round to nearest even
    abs += 0xc8000fffu + mant_odd;         // rebias exponent (-112 << 23) and add rounding bias
    return static_cast<uint16_t>(sign | (abs >> 13));
  }

  static float to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {  // zero or subnormal: value = mant * 2^-24
      float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
      return sign ? -v : v;
    }
    return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
  }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(from_float(f)) {}
  operator float() const { return to_float(bits); }

  static uint16_t from_float(float f) {
    uint32_t x = std::bit_cast<uint32_t>(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
      return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet nan
    x += 0x7fffu + ((x >> 16) & 1u);                    // round to nearest even
    return static_cast<uint16_t>(x >> 16);
  }
  static float to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }
};

static_assert(sizeof(Float16) == 2 && sizeof(BFloat16) == 2);

}  // namespace tensord::ir
