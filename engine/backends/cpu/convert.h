// Bulk conversions between the 16-bit floats and float32, with F16C instructions when the
// build targets a CPU that has them (the scalar code in half.h rounds identically).
#pragma once

#include <cstdint>

#if defined(__F16C__)
#include <immintrin.h>
#endif

#include "engine/backends/cpu/dispatch.h"

namespace tensord::cpu {

// Elements converted at a time by kernels that compute 16-bit floats in float32.
inline constexpr int64_t kBlock = 256;

inline void widen(const Float16* src, float* dst, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
#endif
  for (; i < n; ++i) dst[i] = src[i];
}

inline void narrow(const float* src, Float16* dst, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
#endif
  for (; i < n; ++i) dst[i] = Float16(src[i]);
}

inline void widen(const BFloat16* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
}

inline void narrow(const float* src, BFloat16* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = BFloat16(src[i]);
}

// A block of `n` elements of T (any stride in bytes, 0 broadcasts) as compute values.
template <typename T>
inline void load_block(const char* src, int64_t stride, ComputeT<T>* dst, int64_t n) {
  if constexpr (kIsHalf<T>) {
    if (stride == sizeof(T)) return widen(reinterpret_cast<const T*>(src), dst, n);
  }
  if (stride == 0) {
    ComputeT<T> v = *reinterpret_cast<const T*>(src);
    for (int64_t i = 0; i < n; ++i) dst[i] = v;
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = *reinterpret_cast<const T*>(src + i * stride);
}

template <typename T>
inline void store_block(const ComputeT<T>* src, char* dst, int64_t stride, int64_t n) {
  if constexpr (kIsHalf<T>) {
    if (stride == sizeof(T)) return narrow(src, reinterpret_cast<T*>(dst), n);
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(dst + i * stride) = T(src[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(dst + i * stride) = src[i];
  }
}

}  // namespace tensord::cpu
