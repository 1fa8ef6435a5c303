// The row-register entry point of row kernels (emit_cuda_row_registers.cpp), run on the host
// (movement_emulation.cpp: a block's threads as fibers): when the host picks it
// (cuda_row_register_block, cuda_row_registers_aligned), and that it computes what the loop
// kernel computes, against a float64 reference, on rows of whole vectors (the loop kernel takes
// unaligned or odd-length ones), with outer dimensions, outer outputs, row inputs broadcast over
// the outer dimensions, argmax with ties and NaN, and 16- and 64-bit floats.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/backends/cuda/loop_ir_launch.h"
#include "engine/codegen/emit_cuda.h"
#include "engine/ir/half.h"
#include "tests/unit/cuda/emulated_harness.h"
#include "tests/unit/cuda/loop_kernels.h"

namespace tensord::cuda::test {
namespace {

using codegen::Access;
using codegen::LaunchShape;
using codegen::LoopKernel;
using engine::TensorValue;
using ir::DType;
using ir::Op;

engine::FusedGroup group(const LoopKernel& kernel, std::vector<int64_t> sizes,
                         std::vector<int64_t> strides, std::vector<double> constants = {1.0}) {
  engine::FusedGroup g;
  g.kernel = kernel;
  g.launch.inner_rank = kernel.inner_rank;
  g.launch.sizes = std::move(sizes);
  g.launch.strides = std::move(strides);
  g.launch.constants = std::move(constants);
  return g;
}

// Runs `g` through the entry point the host picks (launch_loop_kernel), or with
// `loop_only` the loop kernel on its own configuration for these rows.
void run(const engine::FusedGroup& g, const std::vector<void*>& ptrs, bool loop_only) {
  const LoopEntry k = loop_kernel(h().ctx, g.kernel);
  if (!loop_only) return launch_loop_kernel(h().ctx, k, g, ptrs, "a row-register test kernel");
  codegen::CudaLaunchConfig c = codegen::cuda_launch_config(g.kernel, g.launch, 132, ptrs);
  REQUIRE(c.row_registers);  // the loop kernel is correct on any grid and block
  std::vector<uint64_t> params = codegen::cuda_params(g.kernel, g.launch, ptrs);
  void* args[] = {params.data()};
  launch(k.loop, dim3(c.grid), dim3(512), args, 0, nullptr, "the loop kernel");
}

std::vector<float> wavy(int64_t count, double scale) {
  std::vector<float> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    v[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)) * scale);
  }
  return v;
}

}  // namespace

TEST_CASE("the row-register entry point: which kernels have one, and which rows it takes") {
  const LoopKernel soft = codegen::test::softmax(DType::Float32, 1, 1, Access::Contiguous);
  CHECK(codegen::cuda_row_register_slots(soft) == 32);
  CHECK(codegen::cuda_row_register_slots(
            codegen::test::softmax(DType::Float64, 1, 1, Access::Contiguous)) == 16);
  CHECK(codegen::cuda_row_register_slots(
            codegen::test::softmax(DType::Float16, 1, 1, Access::Contiguous)) == 32);
  CHECK(codegen::cuda_row_register_slots(
            codegen::test::softmax(DType::Float32, 1, 1, Access::Strided)) == 0);
  CHECK(codegen::cuda_row_register_slots(
            codegen::test::softmax(DType::Float32, 1, 2, Access::Contiguous)) == 0);
  codegen::test::KernelBuilder sum(1, 1);  // one pass: nothing read twice
  sum.out(sum.reduce(Op::sum, sum.load(DType::Float32), DType::Float32));
  CHECK(codegen::cuda_row_register_slots(sum.kernel()) == 0);
  // Eight float32 rows read twice: 4 slots; nine: fewer than TD_U, none.
  for (const int count : {8, 9}) {
    codegen::test::KernelBuilder many(1, 1);
    uint32_t acc = many.load(DType::Float32);
    for (int i = 1; i < count; ++i) {
      acc = many.op(Op::add, {acc, many.load(DType::Float32)}, DType::Float32);
    }
    many.out(many.op(Op::sub, {acc, many.reduce(Op::max, acc, DType::Float32)}, DType::Float32));
    CHECK(codegen::cuda_row_register_slots(many.kernel()) == (count == 8 ? 4 : 0));
  }
  CHECK(codegen::cuda_row_register_block(soft, 2047) == 0);
  CHECK(codegen::cuda_row_register_block(soft, 2048) == 128);
  CHECK(codegen::cuda_row_register_block(soft, 4096) == 128);
  CHECK(codegen::cuda_row_register_block(soft, 4097) == 256);
  CHECK(codegen::cuda_row_register_block(soft, 32768) == 1024);
  CHECK(codegen::cuda_row_register_block(soft, 32769) == 0);

  const codegen::CudaEmitter emitter;
  const std::vector<codegen::EmittedKernel> entries = emitter.entry_points(soft);
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].name != entries[1].name);
  CHECK(entries[1].source == emitter.emit_row_registers(soft)->source);  // deterministic
  CHECK(entries[1].source.find("__launch_bounds__(1024)") != std::string::npos);
  CHECK(emitter.entry_points(sum.kernel()).size() == 1);
  const LoopUnit unit = loop_unit(soft);
  CHECK(unit.row_registers == std::vector<std::string>{entries[1].name});

  // Whole vectors only: the row's length, each row operand's address and outer stride.
  alignas(64) static float buffer[64];
  const auto aligned = [&](int64_t n, int64_t stride, int offset) {
    LaunchShape l;
    l.inner_rank = 1;
    l.sizes = {2, n};
    l.strides = {stride, 1, n, 1};
    void* ptrs[] = {buffer + offset, buffer};
    return codegen::cuda_row_registers_aligned(soft, l, ptrs) &&
           codegen::cuda_launch_config(soft, l, 132, ptrs).row_registers;
  };
  CHECK(aligned(4096, 4096, 0));
  CHECK(aligned(4096, 4100, 4));
  CHECK_FALSE(aligned(4098, 4098, 0));
  CHECK_FALSE(aligned(4096, 4097, 0));
  CHECK_FALSE(aligned(4096, 4096, 2));
  LaunchShape l;
  l.inner_rank = 1;
  l.sizes = {2, 4096};
  l.strides = {4096, 1, 4096, 1};
  CHECK_FALSE(codegen::cuda_launch_config(soft, l, 132, {}).row_registers);  // addresses unknown
}

TEST_CASE("emulated: row-register softmax, aligned and not, against float64 and the loop kernel") {
  struct Case {
    int64_t n;
    int64_t x_offset, y_offset;  // elements past an aligned address
  };
  for (const Case c : {Case{2048, 0, 0}, Case{4096, 4, 0}, Case{5000, 0, 0}, Case{32768, 0, 0},
                       Case{4096, 1, 0}, Case{4099, 0, 0}, Case{5000, 0, 3}}) {
    INFO("n = " << c.n << ", offsets " << c.x_offset << ", " << c.y_offset);
    const int64_t rows = 3, n = c.n;
    const LoopKernel k = codegen::test::softmax(DType::Float32, 1, 1, Access::Contiguous);
    const engine::FusedGroup g = group(k, {rows, n}, {n, 1, n, 1});
    const bool whole = n % 4 == 0 && c.x_offset % 4 == 0 && c.y_offset % 4 == 0;
    TensorValue x = emulated_vector(DType::Float32, rows * n + 4),
                y = emulated_vector(DType::Float32, rows * n + 4),
                ref = emulated_vector(DType::Float32, rows * n + 4);
    float* xs = x.data<float>() + c.x_offset;
    float* ys = y.data<float>() + c.y_offset;
    float* loop = ref.data<float>() + c.y_offset;
    const std::vector<float> v = wavy(rows * n, 6.0);
    std::memcpy(xs, v.data(), v.size() * sizeof(float));
    const std::vector<void*> ptrs{xs, ys};
    CHECK(codegen::cuda_launch_config(k, g.launch, 132, ptrs).row_registers == whole);
    run(g, ptrs, false);
    if (whole) {
      run(g, {xs, loop}, true);
    } else {
      std::memcpy(loop, ys, static_cast<size_t>(rows * n) * sizeof(float));
    }
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = xs + r * n;
      double m = row[0], s = 0;
      for (int64_t i = 1; i < n; ++i) m = std::max(m, static_cast<double>(row[i]));
      for (int64_t i = 0; i < n; ++i) s += std::exp(row[i] - m);
      for (int64_t i = 0; i < n; ++i) {
        const double want = std::exp(row[i] - m) / s;
        const float got = ys[r * n + i];
        if (!(std::fabs(got - want) <= 2e-6 * want)) {
          FAIL_CHECK("row " << r << ", element " << i << ": " << got << ", want " << want);
          break;
        }
        if (!(std::fabs(got - loop[r * n + i]) <= 2e-6 * want)) {
          FAIL_CHECK("row " << r << ", element " << i << ": " << got << ", loop kernel "
                            << loop[r * n + i]);
          break;
        }
      }
    }
  }
}

// Two outer dimensions (their coordinates decomposed per block), w and b rows read by the last
// pass only, and the mean and variance as outer outputs.
TEST_CASE("emulated: row-register layer norm with outer outputs equals the loop kernel") {
  const int64_t a = 2, b = 3, n = 3004, rows = a * b;
  const DType f32 = DType::Float32;
  const LoopKernel k = codegen::test::layer_norm();
  // x [a, b, n]; w and b [n] broadcast over the outer dimensions; y like x; mean, var [a, b].
  const engine::FusedGroup g =
      group(k, {a, b, n}, {b * n, n, 1, 0, 0, 1, 0, 0, 1, b * n, n, 1, b, 1, 0, b, 1, 0},
            {1.0 / static_cast<double>(n), 1e-5});
  const std::vector<float> xv = wavy(rows * n, 3.0), wv = wavy(n, 1.5);
  TensorValue xs = emulated_vector(f32, rows * n), ws = emulated_vector(f32, n),
              bs = emulated_vector(f32, n);
  std::memcpy(xs.raw(), xv.data(), xv.size() * 4);
  std::memcpy(ws.raw(), wv.data(), wv.size() * 4);
  for (int64_t i = 0; i < n; ++i) bs.data<float>()[i] = 0.25f * static_cast<float>(i % 7);
  std::vector<TensorValue> got, loop;
  for (auto* outs : {&got, &loop}) {
    outs->push_back(emulated_vector(f32, rows * n));
    outs->push_back(emulated_vector(f32, rows));
    outs->push_back(emulated_vector(f32, rows));
    const std::vector<void*> ptrs{xs.raw(),         ws.raw(),         bs.raw(),
                                  (*outs)[0].raw(), (*outs)[1].raw(), (*outs)[2].raw()};
    REQUIRE(codegen::cuda_launch_config(k, g.launch, 132, ptrs).row_registers);
    run(g, ptrs, outs == &loop);
  }
  for (int64_t r = 0; r < rows; ++r) {
    double m = 0, v = 0;
    for (int64_t i = 0; i < n; ++i) m += xv[r * n + i];
    m /= static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i) v += (xv[r * n + i] - m) * (xv[r * n + i] - m);
    v /= static_cast<double>(n);
    CHECK(got[1].data<float>()[r] == Approx(m).margin(1e-6));
    CHECK(got[2].data<float>()[r] == Approx(v).epsilon(1e-5));
    CHECK(got[1].data<float>()[r] == Approx(loop[1].data<float>()[r]).margin(1e-6));
    CHECK(got[2].data<float>()[r] == Approx(loop[2].data<float>()[r]).epsilon(1e-5));
    for (int64_t i = 0; i < n; i += 13) {
      const double want = (xv[r * n + i] - m) / (v + 1e-5) * wv[i] + 0.25 * (i % 7);
      CHECK(got[0].data<float>()[r * n + i] == Approx(want).epsilon(1e-4).margin(1e-4));
      CHECK(got[0].data<float>()[r * n + i] ==
            Approx(loop[0].data<float>()[r * n + i]).epsilon(1e-5).margin(1e-5));
    }
  }
}

// argmax keeps the first of equal values and the first NaN, as the loop kernel's does, with the
// row's values in slots of several threads.
TEST_CASE("emulated: row-register argmax with ties and NaN, beside max and a row output") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const int64_t rows = 4, n = 3000;
  codegen::test::KernelBuilder kb(1, 1);
  const uint32_t x = kb.load(DType::Float32);
  const uint32_t m = kb.reduce(Op::max, x, DType::Float32);
  kb.out(kb.op(Op::sub, {x, m}, DType::Float32)).out(kb.reduce(Op::argmax, x, DType::Int64));
  const LoopKernel& k = kb.kernel();
  const engine::FusedGroup g = group(k, {rows, n}, {n, 1, n, 1, 1, 0});
  TensorValue xs = emulated_vector(DType::Float32, rows * n);
  float* xv = xs.data<float>();
  for (int64_t i = 0; i < rows * n; ++i) xv[i] = static_cast<float>((i * 7919) % 1000);
  xv[0 * n + 2998] = 5000;                   // row 0: one maximum near the end
  xv[1 * n + 1700] = xv[1 * n + 40] = 7000;  // row 1: a tie, the first wins
  xv[2 * n + 2500] = nan;                    // row 2: NaN wins over every number
  xv[2 * n + 2600] = nan;
  const int64_t want[] = {2998, 40, 2500, -1};
  TensorValue y = emulated_vector(DType::Float32, rows * n),
              at = emulated_vector(DType::Int64, rows);
  const std::vector<void*> ptrs{xs.raw(), y.raw(), at.raw()};
  REQUIRE(codegen::cuda_launch_config(k, g.launch, 132, ptrs).row_registers);
  run(g, ptrs, false);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t best = 0;
    for (int64_t i = 1; i < n; ++i) {
      const float v = xv[r * n + i], b = xv[r * n + best];
      if (v > b || (v != v && b == b)) best = i;
    }
    if (want[r] >= 0) CHECK(best == want[r]);
    CHECK(at.data<int64_t>()[r] == best);
    if (r != 2) CHECK(y.data<float>()[r * n + 17] == xv[r * n + 17] - xv[r * n + best]);
  }
}

TEST_CASE("emulated: row-register softmax in float16, bfloat16 and float64") {
  for (const DType t : {DType::Float16, DType::BFloat16, DType::Float64}) {
    INFO(ir::name(t));
    const int64_t rows = 2, n = 2500;
    const LoopKernel k = codegen::test::softmax(t, 1, 1, Access::Contiguous);
    const engine::FusedGroup g = group(k, {rows, n}, {n, 1, n, 1});
    const std::vector<float> v = wavy(rows * n, 4.0);
    TensorValue x = emulated_vector(t, rows * n), y = emulated_vector(t, rows * n),
                loop = emulated_vector(t, rows * n);
    std::vector<double> xd(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      if (t == DType::Float64) {
        x.data<double>()[i] = xd[i] = v[i];
      } else {
        const uint16_t bits =
            t == DType::Float16 ? ir::Float16::from_float(v[i]) : ir::BFloat16::from_float(v[i]);
        x.data<uint16_t>()[i] = bits;
        xd[i] = t == DType::Float16 ? ir::Float16::to_float(bits) : ir::BFloat16::to_float(bits);
      }
    }
    const std::vector<void*> ptrs{x.raw(), y.raw()};
    REQUIRE(codegen::cuda_launch_config(k, g.launch, 132, ptrs).row_registers);
    run(g, ptrs, false);
    run(g, {x.raw(), loop.raw()}, true);
    const double tol = t == DType::Float64 ? 1e-12 : t == DType::Float16 ? 4e-3 : 3e-2;
    const double ulp0 = t == DType::Float16 ? 6e-8 : 0;  // float16's subnormal step
    const auto value = [&](const TensorValue& tv, int64_t i) {
      if (t == DType::Float64) return tv.data<double>()[i];
      const uint16_t bits = tv.data<uint16_t>()[i];
      return static_cast<double>(t == DType::Float16 ? ir::Float16::to_float(bits)
                                                     : ir::BFloat16::to_float(bits));
    };
    for (int64_t r = 0; r < rows; ++r) {
      double m = xd[r * n], s = 0;
      for (int64_t i = 1; i < n; ++i) m = std::max(m, xd[r * n + i]);
      for (int64_t i = 0; i < n; ++i) s += std::exp(xd[r * n + i] - m);
      for (int64_t i = 0; i < n; i += 7) {
        const double want = std::exp(xd[r * n + i] - m) / s;
        CHECK(value(y, r * n + i) == Approx(want).epsilon(tol).margin(ulp0));
        CHECK(value(y, r * n + i) == Approx(value(loop, r * n + i)).epsilon(tol).margin(ulp0));
      }
    }
  }
}

// Complex rows: two or four registers a value, so fewer slots (16, 8).
TEST_CASE("emulated: row-register x - sum(x) in complex64 and complex128") {
  for (const DType t : {DType::Complex64, DType::Complex128}) {
    INFO(ir::name(t));
    const int64_t rows = 3, n = 2052;
    const LoopKernel k = codegen::test::centred(t);
    CHECK(codegen::cuda_row_register_slots(k) == (t == DType::Complex64 ? 16 : 8));
    const engine::FusedGroup g = group(k, {rows, n}, {n, 1, n, 1});
    TensorValue x = emulated_vector(t, rows * n), y = emulated_vector(t, rows * n),
                loop = emulated_vector(t, rows * n);
    const bool single = t == DType::Complex64;
    const auto put = [&](int64_t i, double re, double im) {
      if (single) {
        x.data<float>()[2 * i] = static_cast<float>(re),
                            x.data<float>()[2 * i + 1] = static_cast<float>(im);
      } else {
        x.data<double>()[2 * i] = re, x.data<double>()[2 * i + 1] = im;
      }
    };
    const auto get = [&](const TensorValue& v, int64_t i, int part) {
      return single ? static_cast<double>(v.data<float>()[2 * i + part])
                    : v.data<double>()[2 * i + part];
    };
    for (int64_t i = 0; i < rows * n; ++i) put(i, std::sin(0.3 * i), std::cos(0.7 * i) * 0.5);
    const std::vector<void*> ptrs{x.raw(), y.raw()};
    REQUIRE(codegen::cuda_launch_config(k, g.launch, 132, ptrs).row_registers);
    run(g, ptrs, false);
    run(g, {x.raw(), loop.raw()}, true);
    for (int64_t r = 0; r < rows; ++r) {
      double sre = 0, sim = 0;
      for (int64_t i = 0; i < n; ++i) sre += get(x, r * n + i, 0), sim += get(x, r * n + i, 1);
      for (int64_t i = 0; i < n; i += 11) {
        const int64_t at = r * n + i;
        const double tol = single ? 1e-4 : 1e-10;
        CHECK(get(y, at, 0) == Approx(get(x, at, 0) - sre).margin(tol));
        CHECK(get(y, at, 1) == Approx(get(x, at, 1) - sim).margin(tol));
        CHECK(get(y, at, 0) == Approx(get(loop, at, 0)).margin(tol));
        CHECK(get(y, at, 1) == Approx(get(loop, at, 1)).margin(tol));
      }
    }
  }
}

}  // namespace tensord::cuda::test
