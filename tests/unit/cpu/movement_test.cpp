#include <catch2/catch.hpp>

#include "cpu_test_support.h"

namespace tensord::cpu::test {
namespace {

TEST_CASE("contiguous copies any view into row-major order") {
  CpuBackend cpu(1);
  auto x = tensor<int16_t>(cpu, {2, 3}, {0, 1, 2, 3, 4, 5});
  auto flipped_t = view(x, {3, 2}, {-1, 3}, 2);  // transpose of x with axis 1 flipped
  CHECK(values<int16_t>(run(cpu, node(Op::contiguous, {DType::Int16, {3, 2}}), {flipped_t})) ==
        std::vector<int16_t>{2, 5, 1, 4, 0, 3});
  auto bcast = view(x, {2, 2}, {0, 1}, 4);
  CHECK(values<int16_t>(run(cpu, node(Op::contiguous, {DType::Int16, {2, 2}}), {bcast})) ==
        std::vector<int16_t>{4, 5, 4, 5});
}

TEST_CASE("concat joins along an axis and promotes") {
  CpuBackend cpu(1);
  auto a = tensor<int32_t>(cpu, {2, 1}, {1, 2});
  auto b = tensor<float>(cpu, {2, 2}, {0.5f, 1.5f, 2.5f, 3.5f});
  auto n = node(Op::concat, {DType::Float32, {2, 3}}, {{Attr::axis, int64_t{-1}}});
  CHECK(values<float>(run(cpu, n, {a, b})) == std::vector<float>{1, 0.5f, 1.5f, 2, 2.5f, 3.5f});
  auto n0 = node(Op::concat, {DType::Int32, {4, 1}}, {{Attr::axis, int64_t{0}}});
  CHECK(values<int32_t>(run(cpu, n0, {a, a})) == std::vector<int32_t>{1, 2, 1, 2});
}

TEST_CASE("pad adds a constant border and crops with negative pads") {
  CpuBackend cpu(1);
  auto x = tensor<float>(cpu, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto n = node(Op::pad, {DType::Float32, {3, 4}},
                {{Attr::pads, std::vector<int64_t>{1, 0, -1, 2}}, {Attr::value, 9.0}});
  CHECK(values<float>(run(cpu, n, {x})) == std::vector<float>{9, 9, 9, 9, 2, 3, 9, 9, 5, 6, 9, 9});
  auto zero =
      node(Op::pad, {DType::Float32, {2, 1}}, {{Attr::pads, std::vector<int64_t>{0, 0, -3, 1}}});
  CHECK(values<float>(run(cpu, zero, {x})) == std::vector<float>{0, 0});
}

TEST_CASE("index_select picks slices and checks bounds") {
  CpuBackend cpu(1);
  auto x = tensor<float>(cpu, {3, 2}, {0, 1, 10, 11, 20, 21});
  auto idx = tensor<int32_t>(cpu, {4}, {2, -3, 1, 2});
  auto rows = node(Op::index_select, {DType::Float32, {4, 2}}, {{Attr::axis, int64_t{0}}});
  CHECK(values<float>(run(cpu, rows, {x, idx})) ==
        std::vector<float>{20, 21, 0, 1, 10, 11, 20, 21});
  auto cols_idx = tensor<int64_t>(cpu, {3}, {1, 1, 0});
  auto cols = node(Op::index_select, {DType::Float32, {3, 3}}, {{Attr::axis, int64_t{1}}});
  CHECK(values<float>(run(cpu, cols, {x, cols_idx})) ==
        std::vector<float>{1, 1, 0, 11, 11, 10, 21, 21, 20});
  auto bad = tensor<int64_t>(cpu, {1}, {7});
  auto n = node(Op::index_select, {DType::Float32, {1, 2}}, {{Attr::axis, int64_t{0}}});
  try {
    run(cpu, n, {x, bad});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Shape);
    CHECK(e.message() == "index 7 is out of bounds for axis 0 with size 3");
  }
}

TEST_CASE("gather reads along an axis at per-element indices") {
  CpuBackend cpu(1);
  auto x = tensor<int64_t>(cpu, {2, 3}, {0, 1, 2, 10, 11, 12});
  auto idx = tensor<int8_t>(cpu, {2, 2}, {2, 0, -1, 1});
  auto n = node(Op::gather, {DType::Int64, {2, 2}}, {{Attr::axis, int64_t{1}}});
  CHECK(values<int64_t>(run(cpu, n, {x, idx})) == std::vector<int64_t>{2, 0, 12, 11});
  auto idx0 = tensor<int32_t>(cpu, {1, 3}, {1, 0, 1});
  auto n0 = node(Op::gather, {DType::Int64, {1, 3}}, {{Attr::axis, int64_t{0}}});
  CHECK(values<int64_t>(run(cpu, n0, {x, idx0})) == std::vector<int64_t>{10, 1, 12});
  auto bad = tensor<int32_t>(cpu, {1, 1}, {-4});
  auto n1 = node(Op::gather, {DType::Int64, {1, 1}}, {{Attr::axis, int64_t{1}}});
  CHECK_THROWS_AS(run(cpu, n1, {x, bad}), Error);
}

}  // namespace
}  // namespace tensord::cpu::test

namespace tensord::cpu::test {
namespace {

// Permuted views big enough for the tiled copy, checked element by element.
template <typename T>
void check_permuted_copy(CpuBackend& cpu, Shape base_shape, std::vector<int> perm,
                         bool flip_first) {
  int64_t n = ir::numel(base_shape);
  std::vector<T> data(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(i * 7 + 3);
  auto base = tensor<T>(cpu, base_shape, data);
  std::vector<int64_t> base_strides = ir::contiguous_strides(base_shape);
  Shape shape;
  std::vector<int64_t> strides;
  for (int d : perm) shape.push_back(base_shape[d]), strides.push_back(base_strides[d]);
  int64_t offset = 0;
  if (flip_first) {  // flip the view's first dim
    offset = (shape[0] - 1) * strides[0];
    strides[0] = -strides[0];
  }
  auto v = view(base, shape, strides, offset);
  auto got = values<T>(run(cpu, node(Op::contiguous, {dtype_of<T>(), shape}), {v}));
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = offset;
    for (size_t d = 0; d < shape.size(); ++d) off += idx[d] * strides[d];
    REQUIRE(got[i] == data[off]);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

TEST_CASE("transposing copies are tiled and exact") {
  CpuBackend serial(1), parallel(4);
  check_permuted_copy<float>(serial, {100, 77}, {1, 0}, false);
  check_permuted_copy<float>(parallel, {300, 257}, {1, 0}, false);
  check_permuted_copy<uint8_t>(parallel, {300, 257}, {1, 0}, true);
  check_permuted_copy<double>(serial, {5, 40, 33}, {0, 2, 1}, false);
  check_permuted_copy<int16_t>(parallel, {6, 50, 70}, {2, 1, 0}, true);
  check_permuted_copy<int64_t>(serial, {4, 3, 30, 50}, {1, 3, 0, 2}, false);
}

}  // namespace
}  // namespace tensord::cpu::test
