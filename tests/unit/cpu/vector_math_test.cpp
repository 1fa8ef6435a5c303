// The eager kernels' float32 exp (the exp op, engine/backends/cpu/vector_math.h): on an AVX-512
// (or AVX2 and FMA) CPU with the backend built for it (TENSORD_NATIVE), our own
// (engine/codegen/cpu_expf.inc, also embedded in every generated kernel), else libmvec or libm. Its
// error against exp in double over a sweep of float bit patterns, and the special values, through
// the backend itself.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "tests/unit/cpu/cpu_test_support.h"

namespace tensord::cpu {
namespace {

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// |y - exp(x)| in units in the last place of the float32 result (2^-149 below the normals).
double ulp_error(float x, float y) {
  const double ref = std::exp(static_cast<double>(x));
  const auto rounded = static_cast<float>(ref);
  const double ulp = rounded < std::numeric_limits<float>::min()
                         ? std::ldexp(1.0, -149)
                         : std::ldexp(1.0, std::ilogb(rounded) - 23);
  return std::fabs(static_cast<double>(y) - ref) / ulp;
}

// 1.013 measured over every float32 for ours; libmvec's 2.6 seen, libm's below 1.
double max_ulp() {
#if defined(TENSORD_TEST_NATIVE)
  if (__builtin_cpu_supports("avx512f") ||
      (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
    return 1.02;
  }
#endif
  return 4;
}

// exp of `x` by the backend's exp kernel.
std::vector<float> backend_exp(const std::vector<float>& x) {
  CpuBackend backend(1);
  const ir::Shape shape{static_cast<int64_t>(x.size())};
  const engine::TensorValue in = test::tensor(backend, shape, x);
  return test::values<float>(
      test::run(backend, test::node(ir::Op::exp, {ir::DType::Float32, shape}), {in}));
}

TEST_CASE("float32 exp is within its bound over a sweep of every 97th bit pattern") {
  std::vector<float> x, y;
  x.reserve(4096);
  double worst = 0;
  float worst_x = 0;
  size_t overflows_wrong = 0;
  for (uint64_t b = 0; b <= UINT32_MAX; b += 97 * 4096) {
    x.clear();
    for (uint64_t c = b; c < b + 97 * 4096 && c <= UINT32_MAX; c += 97) {
      const float v = from_bits(static_cast<uint32_t>(c));
      if (!std::isnan(v)) x.push_back(v);
    }
    y = backend_exp(x);
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isinf(static_cast<float>(std::exp(static_cast<double>(x[i]))))) {
        overflows_wrong += !std::isinf(y[i]);
        continue;
      }
      const double e = ulp_error(x[i], y[i]);
      if (e > worst) worst = e, worst_x = x[i];
    }
  }
  INFO("worst at x = " << worst_x);
  CHECK(worst <= max_ulp());
  CHECK(overflows_wrong == 0);
}

TEST_CASE("float32 exp of special values") {
  constexpr float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x{nan,        -nan,    inf,      -inf,    0.0f,
                             -0.0f,      1e-40f,  -1e-40f,  1.0f,    -1.0f,
                             88.72283f,  // the largest x whose exp is finite
                             88.722839f, 89.0f,   1000.0f,
                             -87.33655f,  // exp near the smallest normal
                             -100.0f,    -103.9f, -103.98f, -104.0f, -1000.0f};
  // The tail of the block goes through the padded path: one value short of a multiple of 16.
  const std::vector<float> y = backend_exp(x);
  CHECK(std::isnan(y[0]));
  CHECK(std::isnan(y[1]));
  CHECK(y[2] == inf);
  CHECK(y[3] == 0.0f);
  CHECK(y[4] == 1.0f);
  CHECK(y[5] == 1.0f);
  CHECK(y[6] == 1.0f);
  CHECK(y[7] == 1.0f);
  for (size_t i = 8; i < x.size(); ++i) {
    INFO("x = " << x[i] << ", exp = " << y[i]);
    const auto expected = static_cast<float>(std::exp(static_cast<double>(x[i])));
    if (std::isinf(expected) || expected == 0.0f) {
      CHECK(y[i] == expected);
    } else {
      CHECK(ulp_error(x[i], y[i]) <= max_ulp());
    }
  }
}

// The steps of our exp (engine/codegen/cpu_expf.inc) in scalar code, vrndscaleps as nearbyintf
// and vscalefps as ldexpf (one rounding): what the AVX-512 path computes by definition. The AVX2
// path applies 2^k differently and must give the same bits.
float exp_model(float x) {
  x = std::fmax(-104.0f, std::fmin(89.0f, x));
  const float k = std::nearbyint(x * 1.44269504088896341f);
  float r = std::fma(k, -0.693145751953125f, x);
  r = std::fma(k, -1.428606765330187045e-06f, r);
  float p = 1.9875691500e-4f;
  for (float c :
       {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f}) {
    p = std::fma(p, r, c);
  }
  p = std::fma(p, r * r, r) + 1.0f;
  return std::ldexp(p, static_cast<int>(k));
}

TEST_CASE("our float32 exp gives the bits of its scalar model on every instruction set") {
  if (max_ulp() > 1.02) {
    SUCCEED("libmvec or libm here: no model to match");
    return;
  }
  std::vector<float> x;
  for (uint64_t b = 0; b <= UINT32_MAX; b += 4093) {
    const float v = from_bits(static_cast<uint32_t>(b));
    if (!std::isnan(v)) x.push_back(v);
  }
  const std::vector<float> y = backend_exp(x);
  size_t differ = 0;
  float first = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float m = exp_model(x[i]);
    if (std::memcmp(&m, &y[i], sizeof m) != 0 && differ++ == 0) first = x[i];
  }
  INFO(x.size() << " values; the first that differs: " << first);
  CHECK(differ == 0);
}

}  // namespace
}  // namespace tensord::cpu
