// Vectorized transcendental functions for the unary float ops (and atan2, hypot, pow): glibc's
// libmvec (its AVX-512 or AVX2 variants, picked at compile time, so with TENSORD_NATIVE) on whole
// blocks of floats, and plain libm loops where neither instruction set is enabled. libmvec
// results are within a few ulp of libm's; NaN, infinities, overflow and underflow come out the
// same. float32 exp with AVX-512, or AVX2 and FMA, is our own (engine/codegen/cpu_expf.inc), the
// one generated kernels embed.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <features.h>
#include <immintrin.h>
#if __GLIBC_PREREQ(2, 35)  // tanh and erf joined libmvec in 2.35
#define TENSORD_VECTOR_MATH 1
#endif
#endif

#include "engine/codegen/cpu_expf.inc"

namespace tensord::cpu::vmath {

#if defined(TENSORD_VECTOR_MATH)
#if defined(__AVX512F__)
#define TENSORD_MVEC(f, name) _ZGVeN16v_##name##f
#define TENSORD_MVEC_D(name) _ZGVeN8v_##name
#define TENSORD_MVEC2(name) _ZGVeN16vv_##name##f
#define TENSORD_MVEC2_D(name) _ZGVeN8vv_##name
using FloatVec = __m512;
using DoubleVec = __m512d;
inline FloatVec load(const float* p) {
  return _mm512_loadu_ps(p);
}
inline DoubleVec load(const double* p) {
  return _mm512_loadu_pd(p);
}
inline void store(float* p, FloatVec v) {
  _mm512_storeu_ps(p, v);
}
inline void store(double* p, DoubleVec v) {
  _mm512_storeu_pd(p, v);
}
#else
#define TENSORD_MVEC(f, name) _ZGVdN8v_##name##f
#define TENSORD_MVEC_D(name) _ZGVdN4v_##name
#define TENSORD_MVEC2(name) _ZGVdN8vv_##name##f
#define TENSORD_MVEC2_D(name) _ZGVdN4vv_##name
using FloatVec = __m256;
using DoubleVec = __m256d;
inline FloatVec load(const float* p) {
  return _mm256_loadu_ps(p);
}
inline DoubleVec load(const double* p) {
  return _mm256_loadu_pd(p);
}
inline void store(float* p, FloatVec v) {
  _mm256_storeu_ps(p, v);
}
inline void store(double* p, DoubleVec v) {
  _mm256_storeu_pd(p, v);
}
#endif

extern "C" {
#define TENSORD_DECLARE(name)                        \
  FloatVec TENSORD_MVEC(f, name)(FloatVec) noexcept; \
  DoubleVec TENSORD_MVEC_D(name)(DoubleVec) noexcept;
TENSORD_DECLARE(exp)
TENSORD_DECLARE(log)
TENSORD_DECLARE(sin)
TENSORD_DECLARE(cos)
TENSORD_DECLARE(tanh)
TENSORD_DECLARE(erf)
// Issue 4's elementwise math (also in libmvec since glibc 2.35).
TENSORD_DECLARE(exp2)
TENSORD_DECLARE(expm1)
TENSORD_DECLARE(log2)
TENSORD_DECLARE(log10)
TENSORD_DECLARE(log1p)
TENSORD_DECLARE(tan)
TENSORD_DECLARE(asin)
TENSORD_DECLARE(acos)
TENSORD_DECLARE(atan)
TENSORD_DECLARE(sinh)
TENSORD_DECLARE(cosh)
TENSORD_DECLARE(asinh)
TENSORD_DECLARE(acosh)
TENSORD_DECLARE(atanh)
TENSORD_DECLARE(erfc)
#undef TENSORD_DECLARE
// Two-argument functions (libmvec's "vv" variants, also since glibc 2.35).
#define TENSORD_DECLARE2(name)                               \
  FloatVec TENSORD_MVEC2(name)(FloatVec, FloatVec) noexcept; \
  DoubleVec TENSORD_MVEC2_D(name)(DoubleVec, DoubleVec) noexcept;
TENSORD_DECLARE2(atan2)
TENSORD_DECLARE2(hypot)
TENSORD_DECLARE2(pow)
#undef TENSORD_DECLARE2
}

// y[i] = f(x[i]) a vector at a time; the tail goes through a zero-padded vector.
template <typename T, typename Vec, Vec (*F)(Vec) noexcept>
inline void apply(const T* x, T* y, int64_t n) {
  constexpr int64_t kLanes = sizeof(Vec) / sizeof(T);
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(y + i, F(load(x + i)));
  if (i < n) {
    T tail[kLanes] = {};
    std::memcpy(tail, x + i, (n - i) * sizeof(T));
    store(tail, F(load(tail)));
    std::memcpy(y + i, tail, (n - i) * sizeof(T));
  }
}

// z[i] = f(x[i], y[i]) a vector at a time; the tail as apply's.
template <typename T, typename Vec, Vec (*F)(Vec, Vec) noexcept>
inline void apply2(const T* x, const T* y, T* z, int64_t n) {
  constexpr int64_t kLanes = sizeof(Vec) / sizeof(T);
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(z + i, F(load(x + i), load(y + i)));
  if (i < n) {
    T a[kLanes] = {}, b[kLanes] = {};
    std::memcpy(a, x + i, (n - i) * sizeof(T));
    std::memcpy(b, y + i, (n - i) * sizeof(T));
    store(a, F(load(a), load(b)));
    std::memcpy(z + i, a, (n - i) * sizeof(T));
  }
}

#define TENSORD_VECTOR_FN_D(name)                            \
  inline void name(const double* x, double* y, int64_t n) {  \
    apply<double, DoubleVec, TENSORD_MVEC_D(name)>(x, y, n); \
  }
#define TENSORD_VECTOR_FN(name)                             \
  inline void name(const float* x, float* y, int64_t n) {   \
    apply<float, FloatVec, TENSORD_MVEC(f, name)>(x, y, n); \
  }                                                         \
  TENSORD_VECTOR_FN_D(name)
#define TENSORD_VECTOR_FN2(name)                                             \
  inline void name(const float* x, const float* y, float* z, int64_t n) {    \
    apply2<float, FloatVec, TENSORD_MVEC2(name)>(x, y, z, n);                \
  }                                                                          \
  inline void name(const double* x, const double* y, double* z, int64_t n) { \
    apply2<double, DoubleVec, TENSORD_MVEC2_D(name)>(x, y, z, n);            \
  }
#else
#define TENSORD_VECTOR_FN_D(name)                           \
  inline void name(const double* x, double* y, int64_t n) { \
    for (int64_t i = 0; i < n; ++i) y[i] = std::name(x[i]); \
  }
#define TENSORD_VECTOR_FN(name)                             \
  inline void name(const float* x, float* y, int64_t n) {   \
    for (int64_t i = 0; i < n; ++i) y[i] = std::name(x[i]); \
  }                                                         \
  TENSORD_VECTOR_FN_D(name)
#define TENSORD_VECTOR_FN2(name)                                             \
  inline void name(const float* x, const float* y, float* z, int64_t n) {    \
    for (int64_t i = 0; i < n; ++i) z[i] = std::name(x[i], y[i]);            \
  }                                                                          \
  inline void name(const double* x, const double* y, double* z, int64_t n) { \
    for (int64_t i = 0; i < n; ++i) z[i] = std::name(x[i], y[i]);            \
  }
#endif

#if defined(TD_HAVE_EXPF16) || defined(TD_HAVE_EXPF8)
#if defined(TD_HAVE_EXPF16)
using ExpVec = td_v16f;
inline ExpVec exp_block(ExpVec v) {
  return td_expf16(v);
}
#else
using ExpVec = td_v8f;
inline ExpVec exp_block(ExpVec v) {
  return td_expf8(v);
}
#endif
// float32 exp: the one the generated kernels embed, so that fused and eager agree bit for bit;
// the tail goes through a zero-padded block.
inline void exp(const float* x, float* y, int64_t n) {
  constexpr int64_t kLanes = sizeof(ExpVec) / sizeof(float);
  ExpVec v;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    std::memcpy(&v, x + i, sizeof v);
    v = exp_block(v);
    std::memcpy(y + i, &v, sizeof v);
  }
  if (i < n) {
    v = ExpVec{};
    std::memcpy(&v, x + i, (n - i) * sizeof(float));
    v = exp_block(v);
    std::memcpy(y + i, &v, (n - i) * sizeof(float));
  }
}
TENSORD_VECTOR_FN_D(exp)
#else
TENSORD_VECTOR_FN(exp)
#endif
TENSORD_VECTOR_FN(log)
TENSORD_VECTOR_FN(sin)
TENSORD_VECTOR_FN(cos)
TENSORD_VECTOR_FN(tanh)
TENSORD_VECTOR_FN(erf)
TENSORD_VECTOR_FN(exp2)
TENSORD_VECTOR_FN(expm1)
TENSORD_VECTOR_FN(log2)
TENSORD_VECTOR_FN(log10)
TENSORD_VECTOR_FN(log1p)
TENSORD_VECTOR_FN(tan)
TENSORD_VECTOR_FN(asin)
TENSORD_VECTOR_FN(acos)
TENSORD_VECTOR_FN(atan)
TENSORD_VECTOR_FN(sinh)
TENSORD_VECTOR_FN(cosh)
TENSORD_VECTOR_FN(asinh)
TENSORD_VECTOR_FN(acosh)
TENSORD_VECTOR_FN(atanh)
TENSORD_VECTOR_FN(erfc)
TENSORD_VECTOR_FN2(atan2)
TENSORD_VECTOR_FN2(hypot)
TENSORD_VECTOR_FN2(pow)
#undef TENSORD_VECTOR_FN
#undef TENSORD_VECTOR_FN_D
#undef TENSORD_VECTOR_FN2

// 1 / (1 + exp(-x)), a block at a time.
template <typename T>
inline void sigmoid(const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = -x[i];
  exp(y, y, n);
  for (int64_t i = 0; i < n; ++i) y[i] = T(1) / (T(1) + y[i]);
}

}  // namespace tensord::cpu::vmath
