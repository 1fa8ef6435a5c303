// Issue 6's fused kernels from the CUDA emitter, run on the host (movement_emulation.cpp: one
// thread per row, so each thread folds its TD_U lanes and td_reduce shuffles nothing):
// argmax/argmin with ties and NaNs over one and several inner dimensions, prod of floats and of
// wrapping integers, and integer floor division / remainder / shifts with their defined edges.
// The values are checked against the eager kernels' rules written out here.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/backends/cuda/loop_ir_launch.h"
#include "tests/unit/cuda/emulated_harness.h"
#include "tests/unit/cuda/loop_kernels.h"

namespace tensord::cuda::test {
namespace {

using codegen::Access;
using codegen::Level;
using engine::TensorValue;
using ir::DType;
using ir::Op;

// Runs `kernel` over `sizes` with `strides` (per operand, rank each) on `ptrs`.
void launch(const codegen::LoopKernel& kernel, std::vector<int64_t> sizes,
            std::vector<int64_t> strides, std::vector<void*> ptrs) {
  engine::FusedGroup group;
  group.kernel = kernel;
  group.launch.inner_rank = kernel.inner_rank;
  group.launch.sizes = std::move(sizes);
  group.launch.strides = std::move(strides);
  group.launch.constants = {1.0};
  const LoopEntry k = loop_kernel(h().ctx, group.kernel);
  launch_loop_kernel(h().ctx, k, group, ptrs, "an issue-6 test kernel");
}

// The eager rule (reduce_ops.h): ties keep the first index, the first NaN wins.
int64_t arg_best(const float* x, int64_t n, bool max) {
  int64_t at = 0;
  for (int64_t i = 1; i < n; ++i) {
    const float v = x[i], b = x[at];
    if ((max ? v > b : v < b) || (v != v && b == b)) at = i;
  }
  return at;
}

}  // namespace

TEST_CASE("emulated: fused argmax, argmin and prod of a row (ties, NaN, several inner dims)") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int inner : {1, 2}) {
    INFO("inner dims " << inner);
    const int64_t rows = 6, a = inner == 1 ? 37 : 5, b = inner == 1 ? 1 : 7, n = a * b;
    codegen::test::KernelBuilder kb(1, inner);
    const uint32_t x = kb.load(DType::Float32);
    const uint32_t e = kb.op(Op::mul, {x, kb.constant(DType::Float32, 0)}, DType::Float32);
    kb.out(kb.reduce(Op::argmax, e, DType::Int64))
        .out(kb.reduce(Op::argmin, e, DType::Int64))
        .out(kb.reduce(Op::prod, e, DType::Float32));
    TensorValue in = emulated_vector(DType::Float32, rows * n);
    float* v = in.data<float>();
    for (int64_t i = 0; i < rows * n; ++i) v[i] = 0.5f * static_cast<float>((i * 7) % 5) + 0.75f;
    for (int64_t i = 0; i < n; ++i) v[1 * n + i] = 1;  // all ties: index 0 for both
    v[2 * n + n - 1] = nan;                            // the NaN wins, even last
    v[3 * n + 2] = nan;                                // the first of two NaNs
    v[3 * n + n - 3] = nan;
    v[4 * n + n - 1] = 9;  // a unique max in the last lane of the tail
    TensorValue amax = emulated_vector(DType::Int64, rows),
                amin = emulated_vector(DType::Int64, rows),
                prod = emulated_vector(DType::Float32, rows);
    std::vector<int64_t> sizes{rows}, strides;
    if (inner == 1) {
      sizes.push_back(n);
      strides = {n, 1, 1, 0, 1, 0, 1, 0};
    } else {
      sizes.insert(sizes.end(), {a, b});
      strides = {n, b, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0};
    }
    launch(kb.kernel(), sizes, strides, {in.raw(), amax.raw(), amin.raw(), prod.raw()});
    for (int64_t r = 0; r < rows; ++r) {
      INFO("row " << r);
      CHECK(amax.data<int64_t>()[r] == arg_best(v + r * n, n, true));
      CHECK(amin.data<int64_t>()[r] == arg_best(v + r * n, n, false));
      double p = 1;
      for (int64_t i = 0; i < n; ++i) p *= v[r * n + i];
      const float got = prod.data<float>()[r];
      if (std::isnan(p)) {
        CHECK(std::isnan(got));
      } else {
        CHECK(std::fabs(got - p) <= 1e-5 * std::fabs(p));
      }
    }
    CHECK(amax.data<int64_t>()[1] == 0);
    CHECK(amax.data<int64_t>()[2] == n - 1);
    CHECK(amin.data<int64_t>()[3] == 2);
    CHECK(amax.data<int64_t>()[4] == n - 1);
  }
}

TEST_CASE("emulated: a fused integer product wraps like eager's uint64 accumulator") {
  const int64_t rows = 3, n = 45;
  codegen::test::KernelBuilder kb(1, 1);
  const uint32_t x = kb.load(DType::Int32);
  const uint32_t y = kb.op(Op::add, {x, x}, DType::Int32);  // wraps at 2^31
  kb.out(kb.reduce(Op::prod, y, DType::Int64)).out(kb.reduce(Op::argmin, y, DType::Int64));
  TensorValue in = emulated_vector(DType::Int32, rows * n);
  int32_t* v = in.data<int32_t>();
  for (int64_t i = 0; i < rows * n; ++i) v[i] = static_cast<int32_t>((i * 2654435761u) >> 3);
  TensorValue prod = emulated_vector(DType::Int64, rows),
              amin = emulated_vector(DType::Int64, rows);
  launch(kb.kernel(), {rows, n}, {n, 1, 1, 0, 1, 0}, {in.raw(), prod.raw(), amin.raw()});
  for (int64_t r = 0; r < rows; ++r) {
    uint64_t p = 1;
    int64_t at = 0;
    for (int64_t i = 0; i < n; ++i) {
      const auto twice = static_cast<int32_t>(2u * static_cast<uint32_t>(v[r * n + i]));
      p *= static_cast<uint64_t>(static_cast<int64_t>(twice));
      const auto best = static_cast<int32_t>(2u * static_cast<uint32_t>(v[r * n + at]));
      if (twice < best) at = i;
    }
    CHECK(prod.data<int64_t>()[r] == static_cast<int64_t>(p));
    CHECK(amin.data<int64_t>()[r] == at);
  }
}

TEST_CASE("emulated: fused integer floor division, remainder and shifts keep eager's edges") {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  const std::vector<int32_t> a{kMin, kMin, 7, -7, 7, -7, 0, 5, -1, 1 << 30, 3, -8};
  const std::vector<int32_t> b{-1, 0, 2, 2, -2, -2, 0, 31, 32, -1, 33, 2};
  const auto n = static_cast<int64_t>(a.size());
  codegen::test::KernelBuilder kb(1, 0);
  const uint32_t x = kb.load(DType::Int32), y = kb.load(DType::Int32);
  kb.out(kb.op(Op::floor_divide, {x, y}, DType::Int32))
      .out(kb.op(Op::remainder, {x, y}, DType::Int32))
      .out(kb.op(Op::bitwise_left_shift, {x, y}, DType::Int32))
      .out(kb.op(Op::bitwise_right_shift, {x, y}, DType::Int32));
  TensorValue ta = emulated_vector(DType::Int32, n), tb = emulated_vector(DType::Int32, n);
  std::memcpy(ta.raw(), a.data(), a.size() * 4);
  std::memcpy(tb.raw(), b.data(), b.size() * 4);
  std::vector<TensorValue> outs;
  std::vector<void*> ptrs{ta.raw(), tb.raw()};
  for (int i = 0; i < 4; ++i) {
    outs.push_back(emulated_vector(DType::Int32, n));
    ptrs.push_back(outs.back().raw());
  }
  launch(kb.kernel(), {n}, {1, 1, 1, 1, 1, 1}, ptrs);
  const std::vector<int32_t> q{kMin, 0, 3, -4, -4, 3, 0, 0, -1, -(1 << 30), 0, -4};
  const std::vector<int32_t> m{0, 0, 1, 1, -1, -1, 0, 5, 31, 0, 3, 0};
  const std::vector<int32_t> shl{0, kMin, 28, -28, 0, 0, 0, kMin, 0, 0, 0, -32};
  const std::vector<int32_t> shr{-1, kMin, 1, -2, 0, -1, 0, 0, -1, 0, 0, -2};
  for (int64_t i = 0; i < n; ++i) {
    INFO(a[i] << " and " << b[i]);
    CHECK(outs[0].data<int32_t>()[i] == q[i]);
    CHECK(outs[1].data<int32_t>()[i] == m[i]);
    CHECK(outs[2].data<int32_t>()[i] == shl[i]);
    CHECK(outs[3].data<int32_t>()[i] == shr[i]);
  }
}

TEST_CASE("emulated: column kernels reduce leading axes per outer cell (odd sizes, wrap)") {
  const std::vector<codegen::test::NamedKernel> ks = codegen::test::column_kernels();
  {
    // [rows, cols] row-major: the kernel's domain is [cols | rows].
    const int64_t rows = 23, cols = 37;
    TensorValue x = emulated_vector(DType::Float32, rows * cols),
                w = emulated_vector(DType::Float32, cols);
    float* xv = x.data<float>();
    for (int64_t i = 0; i < rows * cols; ++i) xv[i] = 0.25f * static_cast<float>((i * 7) % 13) - 1;
    xv[5 * cols + 3] = std::numeric_limits<float>::quiet_NaN();  // column 3's max is NaN
    for (int64_t c = 0; c < cols; ++c) w.data<float>()[c] = 1.0f + 0.5f * static_cast<float>(c % 3);
    TensorValue sum = emulated_vector(DType::Float32, cols),
                mx = emulated_vector(DType::Float32, cols),
                e = emulated_vector(DType::Float32, rows * cols);
    engine::FusedGroup group;
    group.kernel = ks[0].kernel;
    group.launch.inner_rank = 1;
    group.launch.sizes = {cols, rows};
    group.launch.strides = {1, cols, 1, 0, 1, 0, 1, 0, 1, cols};
    group.launch.constants = {0.5};
    std::vector<void*> ptrs{x.raw(), w.raw(), sum.raw(), mx.raw(), e.raw()};
    launch_loop_kernel(h().ctx, loop_kernel(h().ctx, group.kernel), group, ptrs, "columns");
    for (int64_t c = 0; c < cols; ++c) {
      INFO("column " << c);
      double s = 0;
      float m = -std::numeric_limits<float>::infinity();
      for (int64_t r = 0; r < rows; ++r) {
        const float v = xv[r * cols + c];
        const float p = v * w.data<float>()[c];
        s += p;
        m = (v > m || v != v) ? v : m;
        CHECK((e.data<float>()[r * cols + c] == p ||
               (p != p && e.data<float>()[r * cols + c] != e.data<float>()[r * cols + c])));
      }
      if (c == 3) {
        CHECK(std::isnan(mx.data<float>()[c]));
        CHECK(std::isnan(sum.data<float>()[c]));
      } else {
        CHECK(mx.data<float>()[c] == m);
        CHECK(std::fabs(sum.data<float>()[c] - 0.5 * s) <= 1e-5 * (1 + std::fabs(s)));
      }
    }
  }
  {
    // int32 [a, b, c, d] summed over axes 0 and 2 into int64 (wrapping): kernel domain
    // [b, d | a, c], every input stride doubled (a strided view).
    const int64_t a = 3, b = 5, c = 4, d = 19;
    TensorValue x = emulated_vector(DType::Int32, 2 * a * b * c * d),
                out = emulated_vector(DType::Int64, b * d);
    int32_t* xv = x.data<int32_t>();
    for (int64_t i = 0; i < 2 * a * b * c * d; ++i)
      xv[i] = static_cast<int32_t>(static_cast<uint32_t>(i) * 2654435761u);
    engine::FusedGroup group;
    group.kernel = ks[1].kernel;
    group.launch.inner_rank = 2;
    group.launch.sizes = {b, d, a, c};
    group.launch.strides = {2 * c * d, 2, 2 * b * c * d, 2 * d, d, 1, 0, 0};
    group.launch.constants = {0};
    std::vector<void*> ptrs{x.raw(), out.raw()};
    launch_loop_kernel(h().ctx, loop_kernel(h().ctx, group.kernel), group, ptrs, "columns");
    for (int64_t j = 0; j < b; ++j) {
      for (int64_t l = 0; l < d; ++l) {
        uint64_t s = 0;
        for (int64_t i = 0; i < a; ++i) {
          for (int64_t k = 0; k < c; ++k) {
            s += static_cast<uint64_t>(
                static_cast<int64_t>(xv[2 * (((i * b + j) * c + k) * d + l)]));
          }
        }
        CHECK(out.data<int64_t>()[j * d + l] == static_cast<int64_t>(s));
      }
    }
  }
}

}  // namespace tensord::cuda::test

namespace tensord::cuda::test {

// A count of trues per row (sum of bools: int64 through the wrapping uint64 accumulator) and
// a product of bools per column, as the structure and column kernels of loop_kernels.cpp.
TEST_CASE("emulated: fused counts of trues per row and products of bools per column") {
  const int64_t rows = 5, n = 301;
  TensorValue x = emulated_vector(DType::Float32, rows * n),
              y = emulated_vector(DType::Float32, rows * n);
  for (int64_t i = 0; i < rows * n; ++i) {
    x.data<float>()[i] = static_cast<float>((i * 37) % 17) - 8;
    y.data<float>()[i] = static_cast<float>((i * 11) % 13) - 6;
  }
  codegen::LoopKernel count;
  for (const auto& nk : codegen::test::structure_kernels()) {
    if (nk.what == "bool count of a row") count = nk.kernel;
  }
  REQUIRE(count.outer_rank == 1);
  TensorValue counts = emulated_vector(DType::Int64, rows);
  // x is [rows, n]; y is read as its transpose's rows: y[e * rows + r].
  launch(count, {rows, n}, {n, 1, 1, rows, 1, 0}, {x.raw(), y.raw(), counts.raw()});
  for (int64_t r = 0; r < rows; ++r) {
    int64_t want = 0;
    for (int64_t e = 0; e < n; ++e)
      want += x.data<float>()[r * n + e] < y.data<float>()[e * rows + r];
    CHECK(counts.data<int64_t>()[r] == want);
  }
  codegen::LoopKernel all;
  for (const auto& nk : codegen::test::column_kernels()) {
    if (nk.what == "bool column product, 1 + 1") all = nk.kernel;
  }
  REQUIRE(all.columns);
  // [rows, n] row-major, reduced over rows per column: the domain is [n | rows].
  TensorValue w = emulated_vector(DType::Float32, n), prods = emulated_vector(DType::Int64, n);
  for (int64_t c = 0; c < n; ++c) w.data<float>()[c] = c % 4 == 0 ? x.data<float>()[c] : 100.0f;
  launch(all, {n, rows}, {1, n, 1, 0, 1, 0}, {x.raw(), w.raw(), prods.raw()});
  for (int64_t c = 0; c < n; ++c) {
    int64_t want = 1;
    for (int64_t r = 0; r < rows; ++r) want *= x.data<float>()[r * n + c] != w.data<float>()[c];
    INFO("column " << c);
    CHECK(prods.data<int64_t>()[c] == want);
  }
}

}  // namespace tensord::cuda::test
