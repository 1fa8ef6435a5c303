#include <catch2/catch.hpp>

#include <vector>

#include "engine/backends/cpu/strided_iter.h"
#include "engine/ir/error.h"

namespace tensord::cpu {
namespace {

Operand make(std::vector<float>& data, std::vector<int64_t> shape, std::vector<int64_t> strides,
             int64_t offset = 0) {
  Operand op;
  op.data = reinterpret_cast<char*>(data.data() + offset);
  op.dtype = ir::DType::Float32;
  op.itemsize = sizeof(float);
  op.rank = static_cast<int>(shape.size());
  for (int d = 0; d < op.rank; ++d) op.shape[d] = shape[d], op.strides[d] = strides[d];
  return op;
}

// out = a + b through the loop, over [begin, end) only.
void add(const StridedLoop& loop, int64_t begin, int64_t end) {
  loop.run(begin, end, [](char* const* p, const int64_t* s, int64_t n) {
    for (int64_t k = 0; k < n; ++k) {
      *reinterpret_cast<float*>(p[0] + k * s[0]) =
          *reinterpret_cast<float*>(p[1] + k * s[1]) + *reinterpret_cast<float*>(p[2] + k * s[2]);
    }
  });
}

TEST_CASE("contiguous operands coalesce into one row") {
  std::vector<float> a(24), b(24), out(24);
  for (int i = 0; i < 24; ++i) a[i] = static_cast<float>(i), b[i] = 100.0f * i;
  Operand ops[3] = {make(out, {2, 3, 4}, {12, 4, 1}), make(a, {2, 3, 4}, {12, 4, 1}),
                    make(b, {2, 3, 4}, {12, 4, 1})};
  int64_t shape[] = {2, 3, 4};
  StridedLoop loop(shape, ops);
  CHECK(loop.ndim() == 1);
  CHECK(loop.inner_size() == 24);
  add(loop, 0, 24);
  for (int i = 0; i < 24; ++i) CHECK(out[i] == 101.0f * i);
}

TEST_CASE("broadcast operands get stride 0 and missing leading dims") {
  std::vector<float> a(6), b(3), out(6);
  for (int i = 0; i < 6; ++i) a[i] = static_cast<float>(i);
  b = {10, 20, 30};
  SECTION("row vector") {
    Operand ops[3] = {make(out, {2, 3}, {3, 1}), make(a, {2, 3}, {3, 1}), make(b, {3}, {1})};
    int64_t shape[] = {2, 3};
    StridedLoop loop(shape, ops);
    CHECK(loop.ndim() == 2);
    add(loop, 0, 6);
    CHECK(out == std::vector<float>{10, 21, 32, 13, 24, 35});
  }
  SECTION("column vector as (2, 1)") {
    std::vector<float> c = {100, 200};
    Operand ops[3] = {make(out, {2, 3}, {3, 1}), make(a, {2, 3}, {3, 1}), make(c, {2, 1}, {1, 1})};
    int64_t shape[] = {2, 3};
    StridedLoop loop(shape, ops);
    CHECK(loop.inner_strides()[2] == 0);
    add(loop, 0, 6);
    CHECK(out == std::vector<float>{100, 101, 102, 203, 204, 205});
  }
  SECTION("0-d scalar") {
    std::vector<float> s = {0.5f};
    Operand ops[3] = {make(out, {2, 3}, {3, 1}), make(a, {2, 3}, {3, 1}), make(s, {}, {})};
    int64_t shape[] = {2, 3};
    StridedLoop loop(shape, ops);
    CHECK(loop.ndim() == 1);
    add(loop, 0, 6);
    CHECK(out == std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f});
  }
  SECTION("shapes that do not broadcast are rejected") {
    std::vector<float> d(2);
    Operand ops[3] = {make(out, {2, 3}, {3, 1}), make(a, {2, 3}, {3, 1}), make(d, {2}, {1})};
    int64_t shape[] = {2, 3};
    CHECK_THROWS_AS(StridedLoop(shape, ops), Error);
  }
}

TEST_CASE("negative strides walk backwards; transposes keep the output order") {
  std::vector<float> a = {0, 1, 2, 3, 4, 5}, zero(6, 0.0f), out(6);
  SECTION("flip of both axes") {
    Operand ops[3] = {make(out, {2, 3}, {3, 1}), make(a, {2, 3}, {-3, -1}, 5),
                      make(zero, {2, 3}, {3, 1})};
    int64_t shape[] = {2, 3};
    StridedLoop loop(shape, ops);
    CHECK(loop.ndim() == 1);  // (-3, -1) is one flat row backwards
    add(loop, 0, 6);
    CHECK(out == std::vector<float>{5, 4, 3, 2, 1, 0});
  }
  SECTION("transpose") {
    Operand ops[3] = {make(out, {3, 2}, {2, 1}), make(a, {3, 2}, {1, 3}),
                      make(zero, {3, 2}, {2, 1})};
    int64_t shape[] = {3, 2};
    StridedLoop loop(shape, ops);
    CHECK(loop.ndim() == 2);
    add(loop, 0, 6);
    CHECK(out == std::vector<float>{0, 3, 1, 4, 2, 5});
  }
}

TEST_CASE("partial ranges start and stop mid-row") {
  std::vector<float> a(64), zero(60, 0.0f), out(60, -1.0f);
  for (int i = 0; i < 64; ++i) a[i] = static_cast<float>(i);
  // (3, 4, 5) viewed through a permutation so nothing merges.
  Operand ops[3] = {make(out, {3, 4, 5}, {20, 5, 1}), make(a, {3, 4, 5}, {1, 16, 3}),
                    make(zero, {3, 4, 5}, {20, 5, 1})};
  int64_t shape[] = {3, 4, 5};
  StridedLoop loop(shape, ops);
  CHECK(loop.ndim() == 3);
  add(loop, 7, 43);
  for (int i = 0; i < 60; ++i) {
    int x = i / 20, y = i / 5 % 4, z = i % 5;
    float want = i >= 7 && i < 43 ? static_cast<float>(x + 16 * y + 3 * z) : -1.0f;
    CHECK(out[i] == want);
  }
}

TEST_CASE("zero-size loops run nothing; all-ones shapes run one element") {
  std::vector<float> a = {3}, b = {4}, out = {0};
  int64_t empty_shape[] = {2, 0, 3};
  Operand e[3] = {make(out, {2, 0, 3}, {0, 3, 1}), make(a, {2, 0, 3}, {0, 3, 1}),
                  make(b, {2, 0, 3}, {0, 3, 1})};
  StridedLoop empty_loop(empty_shape, e);
  CHECK(empty_loop.numel() == 0);
  int calls = 0;
  empty_loop.run(0, 0, [&](char* const*, const int64_t*, int64_t) { ++calls; });
  CHECK(calls == 0);

  int64_t ones[] = {1, 1, 1};
  Operand o[3] = {make(out, {1, 1, 1}, {1, 1, 1}), make(a, {1, 1}, {7, 9}), make(b, {}, {})};
  StridedLoop one(ones, o);
  CHECK(one.numel() == 1);
  add(one, 0, 1);
  CHECK(out[0] == 7.0f);
}

}  // namespace
}  // namespace tensord::cpu
