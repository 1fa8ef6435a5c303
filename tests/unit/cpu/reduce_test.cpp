#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "cpu_test_support.h"

namespace tensord::cpu::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

ir::Attrs axes(std::vector<int64_t> a, bool keepdim = false) {
  return {{Attr::axes, std::move(a)}, {Attr::keepdim, keepdim}};
}

TEST_CASE("sum over inner, outer, middle and all axes") {
  CpuBackend cpu(1);
  std::vector<float> data(2 * 3 * 4);
  for (int i = 0; i < 24; ++i) data[i] = static_cast<float>(i);
  auto x = tensor<float>(cpu, {2, 3, 4}, data);
  CHECK(values<float>(run(cpu, node(Op::sum, {DType::Float32, {2, 3}}, axes({2})), {x})) ==
        std::vector<float>{6, 22, 38, 54, 70, 86});
  CHECK(values<float>(run(cpu, node(Op::sum, {DType::Float32, {3, 4}}, axes({0})), {x})) ==
        std::vector<float>{12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34});
  CHECK(values<float>(run(cpu, node(Op::sum, {DType::Float32, {2, 1, 4}}, axes({-2}, true)),
                          {x})) == std::vector<float>{12, 15, 18, 21, 48, 51, 54, 57});
  CHECK(values<float>(run(cpu, node(Op::sum, {DType::Float32, {4}}, axes({0, 1})), {x})) ==
        std::vector<float>{60, 66, 72, 78});
  CHECK(values<float>(run(cpu, node(Op::sum, {DType::Float32, {}}), {x})) ==
        std::vector<float>{276});
  // Listed empty axes reduce nothing.
  CHECK(values<float>(run(cpu, node(Op::sum, {DType::Float32, {2, 3, 4}}, axes({})), {x})) == data);
  // Axes 0 and 2 of a transposed view: neither layout fast path applies.
  auto xt = view(x, {4, 3, 2}, {1, 4, 12}, 0);
  CHECK(values<float>(run(cpu, node(Op::sum, {DType::Float32, {3}}, axes({0, 2})), {xt})) ==
        std::vector<float>{60, 92, 124});
  CHECK_THROWS_AS(run(cpu, node(Op::sum, {DType::Float32, {2}}, axes({1, -2})), {x}), Error);
}

TEST_CASE("integer and bool sums give int64 and wrap; empty sums and products") {
  CpuBackend cpu(1);
  auto b = tensor<bool>(cpu, {5}, {true, false, true, true, false});
  CHECK(values<int64_t>(run(cpu, node(Op::sum, {DType::Int64, {}}), {b})) ==
        std::vector<int64_t>{3});
  auto i8 = tensor<int8_t>(cpu, {3}, {100, 100, 100});
  CHECK(values<int64_t>(run(cpu, node(Op::sum, {DType::Int64, {}}), {i8})) ==
        std::vector<int64_t>{300});
  auto big = tensor<int64_t>(cpu, {2}, {INT64_MAX, 1});
  CHECK(values<int64_t>(run(cpu, node(Op::sum, {DType::Int64, {}}), {big})) ==
        std::vector<int64_t>{INT64_MIN});
  auto empty_rows = tensor<float>(cpu, {2, 0}, {});
  CHECK(values<float>(run(cpu, node(Op::sum, {DType::Float32, {2}}, axes({1})), {empty_rows})) ==
        std::vector<float>{0, 0});
  CHECK(values<float>(run(cpu, node(Op::prod, {DType::Float32, {2}}, axes({1})), {empty_rows})) ==
        std::vector<float>{1, 1});
  CHECK_THROWS_AS(run(cpu, node(Op::max, {DType::Float32, {2}}, axes({1})), {empty_rows}), Error);
}

TEST_CASE("float32 sums are pairwise, not a running sum") {
  CpuBackend cpu(4);
  // A running float32 sum of 2^20 copies of 0.1f is off by about 1%.
  const int64_t n = 1 << 20;
  auto x = tensor<float>(cpu, {n}, std::vector<float>(n, 0.1f));
  double exact = static_cast<double>(0.1f) * n;
  float total = values<float>(run(cpu, node(Op::sum, {DType::Float32, {}}), {x}))[0];
  CHECK(std::abs(total - exact) / exact < 1e-6);
  // Along the outer axis: columns accumulate over blocks of rows.
  auto rows = view(x, {n / 4, 4}, {4, 1}, 0);
  auto cols = values<float>(run(cpu, node(Op::sum, {DType::Float32, {4}}, axes({0})), {rows}));
  for (float c : cols) CHECK(std::abs(c - exact / 4) / (exact / 4) < 1e-5);
  // float16 accumulates in float32.
  std::vector<Float16> h(4096, Float16(1.0f));
  auto hx = tensor<Float16>(cpu, {4096}, h);
  CHECK(static_cast<float>(
            values<Float16>(run(cpu, node(Op::sum, {DType::Float16, {}}), {hx}))[0]) == 4096.0f);
}

TEST_CASE("max and min propagate NaN; bool max/min are any/all") {
  CpuBackend cpu(1);
  auto x = tensor<float>(cpu, {2, 3}, {1, kNaN, 3, 4, 5, 6});
  auto mx = values<float>(run(cpu, node(Op::max, {DType::Float32, {2}}, axes({1})), {x}));
  CHECK(std::isnan(mx[0]));
  CHECK(mx[1] == 6);
  auto mn = values<float>(run(cpu, node(Op::min, {DType::Float32, {3}}, axes({0})), {x}));
  CHECK(mn[0] == 1);
  CHECK(std::isnan(mn[1]));
  auto b = tensor<bool>(cpu, {2, 2}, {true, false, true, true});
  CHECK(values<bool>(run(cpu, node(Op::max, {DType::Bool, {2}}, axes({0})), {b})) ==
        std::vector<bool>{true, true});
  CHECK(values<bool>(run(cpu, node(Op::min, {DType::Bool, {2}}, axes({0})), {b})) ==
        std::vector<bool>{true, false});
  std::vector<Float16> h = {Float16(1.5f), Float16(-2.0f), Float16(7.25f)};
  auto hx = tensor<Float16>(cpu, {3}, h);
  CHECK(values<Float16>(run(cpu, node(Op::max, {DType::Float16, {}}), {hx}))[0].bits ==
        Float16(7.25f).bits);
}

TEST_CASE("argmax/argmin take the first extreme and the first NaN") {
  CpuBackend cpu(1);
  auto x = tensor<float>(cpu, {2, 4}, {3, 7, 7, 1, 2, kNaN, 9, kNaN});
  ir::Attrs axis1{{Attr::axis, int64_t{1}}};
  CHECK(values<int64_t>(run(cpu, node(Op::argmax, {DType::Int64, {2}}, axis1), {x})) ==
        std::vector<int64_t>{1, 1});
  CHECK(values<int64_t>(run(cpu, node(Op::argmin, {DType::Int64, {2}}, axis1), {x})) ==
        std::vector<int64_t>{3, 1});
  ir::Attrs axis0{{Attr::axis, int64_t{0}}};
  CHECK(values<int64_t>(run(cpu, node(Op::argmax, {DType::Int64, {4}}, axis0), {x})) ==
        std::vector<int64_t>{0, 1, 1, 1});
  // No axis: over the flattened tensor.
  auto y = tensor<int32_t>(cpu, {2, 3}, {4, 9, 1, 9, 0, 0});
  CHECK(values<int64_t>(run(cpu, node(Op::argmax, {DType::Int64, {}}), {y})) ==
        std::vector<int64_t>{1});
  CHECK(values<int64_t>(run(cpu, node(Op::argmin, {DType::Int64, {1, 1}}, {{Attr::keepdim, true}}),
                            {y})) == std::vector<int64_t>{4});
  // Flattened over a transposed view: the index is row-major in the view.
  auto yt = view(y, {3, 2}, {1, 3}, 0);  // [[4, 9], [9, 0], [1, 0]]
  CHECK(values<int64_t>(run(cpu, node(Op::argmax, {DType::Int64, {}}), {yt})) ==
        std::vector<int64_t>{1});
  CHECK(values<int64_t>(run(cpu, node(Op::argmin, {DType::Int64, {}}), {yt})) ==
        std::vector<int64_t>{3});
}

TEST_CASE("large reductions agree between serial and parallel runs") {
  CpuBackend serial(1), parallel(4);
  const int64_t rows = 300, cols = 1000;
  std::vector<double> data(rows * cols);
  for (size_t i = 0; i < data.size(); ++i) data[i] = std::sin(static_cast<double>(i));
  auto x = tensor<double>(serial, {rows, cols}, data);
  for (int64_t axis : {0, 1}) {
    int64_t kept = axis == 0 ? cols : rows;
    auto n = node(Op::sum, {DType::Float64, {kept}}, axes({axis}));
    auto a = values<double>(run(serial, n, {x}));
    auto b = values<double>(run(parallel, n, {x}));
    for (int64_t i = 0; i < kept; ++i) {
      double want = 0;
      for (int64_t j = 0; j < (axis == 0 ? rows : cols); ++j) {
        want += axis == 0 ? data[j * cols + i] : data[i * cols + j];
      }
      CHECK(a[i] == Approx(want).margin(1e-9));
      CHECK(b[i] == a[i]);
    }
    auto am = node(Op::argmax, {DType::Int64, {kept}}, {{Attr::axis, axis}});
    CHECK(values<int64_t>(run(serial, am, {x})) == values<int64_t>(run(parallel, am, {x})));
  }
  auto all = node(Op::argmin, {DType::Int64, {}});
  auto flat = values<int64_t>(run(parallel, all, {x}))[0];
  CHECK(flat == std::min_element(data.begin(), data.end()) - data.begin());
}

}  // namespace
}  // namespace tensord::cpu::test
