// Host stand-ins for the CUDA builtins the formula prelude (emit_cuda_math.cpp) calls, so that
// the generated formulas compile as C++ and run on the CPU: formulas_host_test.cpp checks
// their semantics (conversions, integer edge cases, special-value branches) against the CPU
// kernels without a GPU. The float functions are glibc's; the accuracy of CUDA's own is left
// to the GPU test. erfinv, erfcx and normcdfinv (CUDA builtins) are the CPU backend's.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/backends/cpu/special_functions.h"

#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))

template <typename To, typename From>
inline To td_host_bits(From f) {
  To t;
  std::memcpy(&t, &f, sizeof t);
  return t;
}
inline float __int_as_float(int x) {
  return td_host_bits<float>(x);
}
inline float __uint_as_float(unsigned x) {
  return td_host_bits<float>(x);
}
inline unsigned __float_as_uint(float x) {
  return td_host_bits<unsigned>(x);
}
inline double __longlong_as_double(long long x) {
  return td_host_bits<double>(x);
}
inline long long __double_as_longlong(double x) {
  return td_host_bits<long long>(x);
}
inline float __fadd_rn(float a, float b) {
  return a + b;
}
inline float __fsub_rn(float a, float b) {
  return a - b;
}
inline float __fmul_rn(float a, float b) {
  return a * b;
}
inline double __dadd_rn(double a, double b) {
  return a + b;
}
inline double __dsub_rn(double a, double b) {
  return a - b;
}
inline double __dmul_rn(double a, double b) {
  return a * b;
}
inline float __double2float_rz(double d) {
  float f = static_cast<float>(d);
  if (std::isfinite(d) && std::fabs(static_cast<double>(f)) > std::fabs(d)) {
    f = std::nextafter(f, 0.0f);
  }
  return f;
}
// sin(pi x) and cos(pi x), exact at the integers and half-integers like CUDA's.
inline double sinpi(double x) {
  const double r = std::fmod(x, 2.0);
  if (r == std::trunc(r)) return std::copysign(0.0, x);
  if (std::fabs(r) == 0.5 || std::fabs(r) == 1.5) return (std::fabs(r) == 0.5) == (r > 0) ? 1 : -1;
  return std::sin(M_PI * r);
}
inline double cospi(double x) {
  const double r = std::fabs(std::fmod(x, 2.0));
  if (r == 0.5 || r == 1.5) return 0;
  if (r == 0 || r == 1) return r == 0 ? 1 : -1;
  return std::cos(M_PI * r);
}
inline double erfinv(double y) {
  return tensord::cpu::special::erfinv(y);
}
inline double erfcx(double x) {
  return tensord::cpu::special::erfcx(x);
}
inline double normcdfinv(double p) {
  return tensord::cpu::special::ndtri(p);
}
