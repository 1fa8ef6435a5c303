// The `cast` rules of docs/ops.md for one element: float -> integer truncates and saturates
// (NaN -> 0), anything -> bool is x != 0, integer -> narrower integer wraps, float -> narrower
// float rounds to nearest even.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "engine/backends/cpu/dispatch.h"
#include "engine/ir/attrs.h"

namespace tensord::cpu {

// float(d) rounded to odd: a float with enough spare bits that rounding it once more to a
// 16-bit float gives the same result as rounding `d` directly (no double rounding).
inline float round_to_odd_float(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) != d && !std::isnan(d)) {
    uint32_t bits = std::bit_cast<uint32_t>(f);
    if ((bits & 1u) == 0) f = std::nextafter(f, static_cast<float>(d > f ? INFINITY : -INFINITY));
  }
  return f;
}

template <typename F>
constexpr F power_of_two(int n) {
  F r = 1;
  for (int i = 0; i < n; ++i) r *= 2;
  return r;
}

// Float -> integer with truncation toward zero and saturation.
template <typename To, typename F>
inline To saturate_to_int(F v) {
  static_assert(kIsInt<To> && std::is_floating_point_v<F>);
  if (v != v) return 0;
  F t = std::trunc(v);
  // Powers of two bound the range exactly in any float type.
  constexpr F kHi = power_of_two<F>(sizeof(To) * 8 - (std::is_signed_v<To> ? 1 : 0));
  constexpr F kLo = std::is_signed_v<To> ? -kHi : F(0);
  if (t >= kHi) return std::numeric_limits<To>::max();
  if (t < kLo) return std::numeric_limits<To>::min();
  return static_cast<To>(t);
}

template <typename To, typename From>
inline To cast_scalar(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<To, bool>) {
    return static_cast<ComputeT<From>>(x) != 0;
  } else if constexpr (std::is_same_v<From, bool>) {
    return cast_scalar<To>(static_cast<uint8_t>(x));
  } else if constexpr (kIsInt<To>) {
    if constexpr (kIsInt<From>)
      return static_cast<To>(x);  // modular since C++20
    else
      return saturate_to_int<To>(static_cast<ComputeT<From>>(x));
  } else if constexpr (kIsHalf<To>) {
    if constexpr (std::is_same_v<From, float> || kIsHalf<From>) {
      return To(static_cast<float>(x));
    } else {
      return To(round_to_odd_float(static_cast<double>(x)));
    }
  } else {  // float or double
    return static_cast<To>(static_cast<ComputeT<From>>(x));
  }
}

// A scalar attribute (int, float or bool) cast to T.
template <typename T>
inline T cast_attr(const ir::AttrValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return cast_scalar<T>(*i);
  if (const auto* d = std::get_if<double>(&v)) return cast_scalar<T>(*d);
  if (const auto* b = std::get_if<bool>(&v)) return cast_scalar<T>(*b);
  throw Error(ErrorCode::InvalidGraph, "expected a scalar attribute");
}

}  // namespace tensord::cpu
