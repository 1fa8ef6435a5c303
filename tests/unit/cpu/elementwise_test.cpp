#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "cpu_test_support.h"

namespace tensord::cpu::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TensorValue cast(CpuBackend& cpu, const TensorValue& x, DType to) {
  return run(cpu, node(Op::cast, {to, x.type.shape}, {{Attr::dtype, to}}), {x});
}

TEST_CASE("cast from float saturates and truncates toward zero") {
  CpuBackend cpu(1);
  auto x = tensor<float>(cpu, {9}, {kNaN, kInf, -kInf, 300, -300, 127.9f, -128.9f, -0.5f, 2.7f});
  CHECK(values<int8_t>(cast(cpu, x, DType::Int8)) ==
        std::vector<int8_t>{0, 127, -128, 127, -128, 127, -128, 0, 2});
  CHECK(values<uint8_t>(cast(cpu, x, DType::UInt8)) ==
        std::vector<uint8_t>{0, 255, 0, 255, 0, 127, 0, 0, 2});
  auto big = tensor<double>(cpu, {4}, {1e19, -1e19, 9.2e18, -9223372036854775808.0});
  CHECK(values<int64_t>(cast(cpu, big, DType::Int64)) ==
        std::vector<int64_t>{INT64_MAX, INT64_MIN, 9200000000000000000, INT64_MIN});
  CHECK(values<int32_t>(cast(cpu, big, DType::Int32)) ==
        std::vector<int32_t>{INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN});
}

TEST_CASE("cast between integers wraps; to bool tests != 0; from bool gives 0/1") {
  CpuBackend cpu(1);
  auto x = tensor<int32_t>(cpu, {4}, {300, -129, 255, -1});
  CHECK(values<int8_t>(cast(cpu, x, DType::Int8)) == std::vector<int8_t>{44, 127, -1, -1});
  CHECK(values<uint8_t>(cast(cpu, x, DType::UInt8)) == std::vector<uint8_t>{44, 127, 255, 255});
  auto f = tensor<float>(cpu, {4}, {kNaN, 0.0f, -0.0f, 1e-30f});
  CHECK(values<bool>(cast(cpu, f, DType::Bool)) == std::vector<bool>{true, false, false, true});
  auto b = tensor<bool>(cpu, {2}, {true, false});
  CHECK(values<float>(cast(cpu, b, DType::Float32)) == std::vector<float>{1.0f, 0.0f});
  CHECK(values<int64_t>(cast(cpu, b, DType::Int64)) == std::vector<int64_t>{1, 0});
}

TEST_CASE("cast to 16-bit floats rounds once to nearest even") {
  CpuBackend cpu(1);
  // Just above the halfway point between 1 and the next float16: float32 would round it down
  // to the halfway point first, and then to 1.0 by ties-to-even.
  double above_half = 1.0 + 0x1p-11 + 0x1p-40;
  auto d = tensor<double>(cpu, {3}, {above_half, 65519.0, 65520.0});
  auto h = values<Float16>(cast(cpu, d, DType::Float16));
  CHECK(h[0].bits == 0x3c01);
  CHECK(h[1].bits == 0x7bff);  // 65504, the largest float16
  CHECK(h[2].bits == 0x7c00);  // rounds to inf
  auto f = tensor<float>(cpu, {3}, {1.0f + 0x1p-8f, 1.0f + 0x1p-8f + 0x1p-20f, kNaN});
  auto bf = values<BFloat16>(cast(cpu, f, DType::BFloat16));
  CHECK(bf[0].bits == 0x3f80);  // tie: to even
  CHECK(bf[1].bits == 0x3f81);
  CHECK(std::isnan(static_cast<float>(bf[2])));
  // Long contiguous runs take the vectorized conversions; they must agree with the scalar ones.
  std::vector<float> many(1000);
  for (int i = 0; i < 1000; ++i) many[i] = std::ldexp(1.0f + i * 0.001f, i % 40 - 25);
  auto wide = tensor<float>(cpu, {1000}, many);
  auto narrow = values<Float16>(cast(cpu, wide, DType::Float16));
  for (int i = 0; i < 1000; ++i) CHECK(narrow[i].bits == Float16(many[i]).bits);
}

TEST_CASE("unary ops follow docs/ops.md edge cases") {
  CpuBackend cpu(1);
  auto i8 = tensor<int8_t>(cpu, {3}, {-128, -5, 7});
  CHECK(values<int8_t>(run(cpu, node(Op::neg, {DType::Int8, {3}}), {i8})) ==
        std::vector<int8_t>{-128, 5, -7});
  CHECK(values<int8_t>(run(cpu, node(Op::abs, {DType::Int8, {3}}), {i8})) ==
        std::vector<int8_t>{-128, 5, 7});
  auto f = tensor<float>(cpu, {6}, {kNaN, -0.0f, -2.5f, 0.5f, 1.5f, 2.5f});
  auto relu = values<float>(run(cpu, node(Op::relu, {DType::Float32, {6}}), {f}));
  CHECK(std::isnan(relu[0]));
  CHECK(relu[2] == 0.0f);
  auto sign = values<float>(run(cpu, node(Op::sign, {DType::Float32, {6}}), {f}));
  CHECK(std::isnan(sign[0]));
  CHECK((sign[1] == 0.0f && !std::signbit(sign[1])));
  CHECK(sign[2] == -1.0f);
  auto round = values<float>(run(cpu, node(Op::round, {DType::Float32, {6}}), {f}));
  CHECK(round[2] == -2.0f);
  CHECK(round[3] == 0.0f);
  CHECK(round[4] == 2.0f);
  CHECK(round[5] == 2.0f);
  // Float ops on integers compute in float32.
  auto ints = tensor<int32_t>(cpu, {3}, {0, 1, 4});
  CHECK(values<float>(run(cpu, node(Op::sqrt, {DType::Float32, {3}}), {ints})) ==
        std::vector<float>{0.0f, 1.0f, 2.0f});
  auto logs = values<float>(run(cpu, node(Op::log, {DType::Float32, {3}}), {ints}));
  CHECK(logs[0] == -kInf);
  auto rs = values<float>(run(cpu, node(Op::rsqrt, {DType::Float32, {3}}), {ints}));
  CHECK(rs[0] == kInf);
  CHECK(values<bool>(run(cpu, node(Op::logical_not, {DType::Bool, {3}}), {ints})) ==
        std::vector<bool>{true, false, false});
  CHECK(values<int32_t>(run(cpu, node(Op::floor, {DType::Int32, {3}}), {ints})) ==
        std::vector<int32_t>{0, 1, 4});
}

TEST_CASE("16-bit float unary ops compute in float32 and round on store") {
  CpuBackend cpu(1);
  std::vector<Float16> in;
  for (int i = 0; i < 300; ++i) in.push_back(Float16(0.01f * i));
  auto h = tensor<Float16>(cpu, {300}, in);
  auto out = values<Float16>(run(cpu, node(Op::exp, {DType::Float16, {300}}), {h}));
  for (int i = 0; i < 300; ++i) {
    CHECK(out[i].bits == Float16(std::exp(static_cast<float>(in[i]))).bits);
  }
  // Strided: every other element, backwards.
  auto back = view(h, {150}, {-2}, 299);
  auto out2 = values<Float16>(run(cpu, node(Op::neg, {DType::Float16, {150}}), {back}));
  for (int i = 0; i < 150; ++i)
    CHECK(static_cast<float>(out2[i]) == -static_cast<float>(in[299 - 2 * i]));
}

TEST_CASE("binary ops broadcast and promote") {
  CpuBackend cpu(1);
  auto a = tensor<float>(cpu, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto row = tensor<float>(cpu, {3}, {10, 20, 30});
  CHECK(values<float>(run(cpu, node(Op::add, {DType::Float32, {2, 3}}), {a, row})) ==
        std::vector<float>{11, 22, 33, 14, 25, 36});
  auto col = tensor<int32_t>(cpu, {2, 1}, {100, 200});
  CHECK(values<float>(run(cpu, node(Op::sub, {DType::Float32, {2, 3}}), {col, a})) ==
        std::vector<float>{99, 98, 97, 196, 195, 194});
  auto i8 = tensor<int8_t>(cpu, {2}, {100, -100});
  CHECK(values<int8_t>(run(cpu, node(Op::add, {DType::Int8, {2}}), {i8, i8})) ==
        std::vector<int8_t>{-56, 56});
  CHECK(values<int8_t>(run(cpu, node(Op::mul, {DType::Int8, {2}}), {i8, i8})) ==
        std::vector<int8_t>{16, 16});
  auto seven = tensor<int32_t>(cpu, {}, {7});
  auto two = tensor<int64_t>(cpu, {}, {2});
  CHECK(values<float>(run(cpu, node(Op::div, {DType::Float32, {}}), {seven, two})) ==
        std::vector<float>{3.5f});
}

TEST_CASE("integer pow wraps and handles negative exponents") {
  CpuBackend cpu(1);
  auto base = tensor<int32_t>(cpu, {6}, {2, 2, 1, -1, -1, 3});
  auto exp = tensor<int32_t>(cpu, {6}, {10, -1, -5, -3, -2, 21});
  CHECK(
      values<int32_t>(run(cpu, node(Op::pow, {DType::Int32, {6}}), {base, exp})) ==
      std::vector<int32_t>{1024, 0, 1, -1, 1, static_cast<int32_t>(10460353203ull % (1ull << 32))});
}

TEST_CASE("maximum/minimum propagate NaN; comparisons are false on NaN except ne") {
  CpuBackend cpu(1);
  auto a = tensor<float>(cpu, {3}, {kNaN, 1, 2});
  auto b = tensor<float>(cpu, {3}, {1, kNaN, 3});
  auto mx = values<float>(run(cpu, node(Op::maximum, {DType::Float32, {3}}), {a, b}));
  CHECK((std::isnan(mx[0]) && std::isnan(mx[1]) && mx[2] == 3));
  auto mn = values<float>(run(cpu, node(Op::minimum, {DType::Float32, {3}}), {a, b}));
  CHECK((std::isnan(mn[0]) && std::isnan(mn[1]) && mn[2] == 2));
  CHECK(values<bool>(run(cpu, node(Op::eq, {DType::Bool, {3}}), {a, b})) ==
        std::vector<bool>{false, false, false});
  CHECK(values<bool>(run(cpu, node(Op::ne, {DType::Bool, {3}}), {a, b})) ==
        std::vector<bool>{true, true, true});
  CHECK(values<bool>(run(cpu, node(Op::lt, {DType::Bool, {3}}), {a, b})) ==
        std::vector<bool>{false, false, true});
  // Mixed dtypes compare in the promoted dtype: 3 < 3.5.
  auto i = tensor<int8_t>(cpu, {2}, {3, 4});
  auto f = tensor<float>(cpu, {}, {3.5f});
  CHECK(values<bool>(run(cpu, node(Op::lt, {DType::Bool, {2}}), {i, f})) ==
        std::vector<bool>{true, false});
  auto z = tensor<double>(cpu, {2}, {0.0, kNaN});
  CHECK(values<bool>(run(cpu, node(Op::logical_and, {DType::Bool, {2}}), {i, z})) ==
        std::vector<bool>{false, true});
}

TEST_CASE("where broadcasts all three operands") {
  CpuBackend cpu(1);
  auto cond = tensor<int32_t>(cpu, {2, 1}, {1, 0});
  auto a = tensor<float>(cpu, {3}, {1, 2, 3});
  auto b = tensor<int32_t>(cpu, {}, {-1});
  CHECK(values<float>(run(cpu, node(Op::where, {DType::Float32, {2, 3}}), {cond, a, b})) ==
        std::vector<float>{1, 2, 3, -1, -1, -1});
}

TEST_CASE("large elementwise ops run in parallel and match the serial result") {
  CpuBackend serial(1), parallel(4);
  const int64_t rows = 512, cols = 300;
  std::vector<float> data(rows * cols);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i % 977) * 0.5f;
  auto x = tensor<float>(serial, {rows, cols}, data);
  auto xt = view(x, {cols, rows}, {1, cols}, 0);  // transposed
  auto bias = tensor<float>(serial, {rows}, std::vector<float>(rows, 1.0f));
  auto n = node(Op::mul, {DType::Float32, {cols, rows}});
  auto a = values<float>(run(serial, n, {xt, bias}));
  auto b = values<float>(run(parallel, n, {xt, bias}));
  CHECK(a == b);
  for (int64_t i = 0; i < cols; i += 37) {
    for (int64_t j = 0; j < rows; j += 41) CHECK(a[i * rows + j] == data[j * cols + i]);
  }
}

}  // namespace
}  // namespace tensord::cpu::test

namespace tensord::cpu::test {
namespace {

// The vectorized math (libmvec where built for AVX2/AVX-512) against double-precision libm.
TEST_CASE("transcendental float ops are within 8 ulp, with IEEE special values") {
  CpuBackend cpu(1);
  std::vector<float> x;
  for (int i = -2000; i <= 2000; ++i) x.push_back(static_cast<float>(i) * 0.0537f);
  for (float v : {kNaN, kInf, -kInf, 0.0f, -0.0f, 1e-30f, -1e-30f, 88.7f, 89.0f, -87.5f, -104.0f,
                  1e6f, -1e6f, 3e38f}) {
    x.push_back(v);
  }
  int64_t n = static_cast<int64_t>(x.size());
  auto t = tensor<float>(cpu, {n}, x);
  struct Case {
    Op op;
    double (*ref)(double);
  };
  const Case cases[] = {
      {Op::exp, [](double v) { return std::exp(v); }},
      {Op::log, [](double v) { return std::log(v); }},
      {Op::sin, [](double v) { return std::sin(v); }},
      {Op::cos, [](double v) { return std::cos(v); }},
      {Op::tanh, [](double v) { return std::tanh(v); }},
      {Op::erf, [](double v) { return std::erf(v); }},
      {Op::sigmoid, [](double v) { return 1.0 / (1.0 + std::exp(-v)); }},
  };
  std::vector<double> xd(x.begin(), x.end());
  auto td = tensor<double>(cpu, {n}, xd);
  for (const Case& c : cases) {
    auto got64 = values<double>(run(cpu, node(c.op, {DType::Float64, {n}}), {td}));
    for (int64_t i = 0; i < n; ++i) {
      double want = c.ref(xd[i]);
      INFO(ir::name(c.op) << "(" << xd[i] << ") = " << got64[i] << ", want " << want);
      if (std::isnan(want)) {
        CHECK(std::isnan(got64[i]));
      } else if (std::isinf(want)) {
        CHECK(got64[i] == want);
      } else {
        CHECK(std::abs(got64[i] - want) <= 8 * 1.2e-16 * std::abs(want) + 1e-300);
      }
    }
    auto got = values<float>(run(cpu, node(c.op, {DType::Float32, {n}}), {t}));
    for (int64_t i = 0; i < n; ++i) {
      double want = static_cast<float>(c.ref(x[i]));
      INFO(ir::name(c.op) << "(" << x[i] << ") = " << got[i] << ", want " << want);
      if (std::isnan(want)) {
        CHECK(std::isnan(got[i]));
      } else if (std::isinf(want)) {
        CHECK(got[i] == want);
      } else {
        CHECK(std::abs(got[i] - want) <= 8 * 6e-8 * std::abs(want) + 1e-37);
      }
    }
  }
}

}  // namespace
}  // namespace tensord::cpu::test
