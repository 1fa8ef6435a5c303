// The row cache of the CUDA emitter's row kernels (emit_cuda_rows.cpp): a row input that several
// passes read is kept in dynamic shared memory by the first pass when the launch gives the
// block room for it. Run on the host (movement_emulation.cpp: the blocks' threads as fibers,
// the launch's dynamic shared memory a buffer): the same kernel launched with and without that
// memory must give the same bits, and the host's rule (cuda_launch_config) must ask for it
// exactly when the row fits.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "engine/backends/cuda/loop_ir_launch.h"
#include "engine/codegen/emit_cuda.h"
#include "engine/ir/half.h"
#include "tests/unit/cuda/emulated_harness.h"
#include "tests/unit/cuda/loop_kernels.h"

namespace tensord::cuda::test {
namespace {

using codegen::Access;
using codegen::LoopKernel;
using engine::TensorValue;
using ir::DType;
using ir::Op;

engine::FusedGroup group(const LoopKernel& kernel, std::vector<int64_t> sizes,
                         std::vector<int64_t> strides) {
  engine::FusedGroup g;
  g.kernel = kernel;
  g.launch.inner_rank = kernel.inner_rank;
  g.launch.sizes = std::move(sizes);
  g.launch.strides = std::move(strides);
  g.launch.constants = {1.0};
  return g;
}

// Launches `g` with the dynamic shared memory its launch configuration asks for, or none.
void run(const engine::FusedGroup& g, const std::vector<void*>& ptrs, bool with_cache) {
  const LoopEntry k = loop_kernel(h().ctx, g.kernel);
  const codegen::CudaLaunchConfig c = codegen::cuda_launch_config(g.kernel, g.launch, 132, {});
  std::vector<uint64_t> params = codegen::cuda_params(g.kernel, g.launch, ptrs);
  void* args[] = {params.data()};
  REQUIRE_FALSE(c.row_registers);
  launch(k.loop, dim3(c.grid), dim3(c.block), args, with_cache ? c.shared_bytes : 0, nullptr,
         "a row-cache test kernel");
}

// Which of the `rows` rows of `x` (n floats each) the row cache `smem` holds, or -1.
int64_t cached_row(const unsigned char* smem, const float* x, int64_t rows, int64_t n) {
  for (int64_t r = 0; r < rows; ++r) {
    if (std::memcmp(smem, x + r * n, static_cast<size_t>(n * 4)) == 0) return r;
  }
  return -1;
}

}  // namespace

TEST_CASE("the host asks for a row cache only for inputs read by several passes") {
  const LoopKernel soft = codegen::test::softmax(DType::Float32, 1, 1, Access::Contiguous);
  CHECK(codegen::cuda_row_cache_bytes(soft, 300) == 1200);
  CHECK(codegen::cuda_row_cache_bytes(soft, 301) == 1216);  // 16-byte aligned
  codegen::test::KernelBuilder sum(1, 1);
  sum.out(sum.reduce(Op::sum, sum.load(DType::Float32), DType::Float32));
  CHECK(codegen::cuda_row_cache_bytes(sum.kernel(), 300) == 0);  // one pass
  codegen::test::KernelBuilder bcast(1, 1);
  const uint32_t b = bcast.load(DType::Float32, Access::Broadcast);
  const uint32_t x = bcast.load(DType::Float32);
  const uint32_t y = bcast.op(Op::mul, {x, b}, DType::Float32);
  bcast.out(bcast.op(Op::sub, {y, bcast.reduce(Op::max, y, DType::Float32)}, DType::Float32));
  CHECK(codegen::cuda_row_cache_bytes(bcast.kernel(), 300) == 1200);  // x only

  // A block per row: the row fits at 2000 floats; from kCudaRowRegistersMin to 1024 threads'
  // slots the row-register entry point takes the row (no cache) ...
  engine::FusedGroup g = group(soft, {64, 2000}, {2000, 1, 2000, 1});
  CHECK(codegen::cuda_launch_config(soft, g.launch, 132, {}).shared_bytes == 2000 * 4);
  g = group(soft, {64, 4096}, {4096, 1, 4096, 1});
  alignas(16) static float aligned[4];
  void* const ptrs[] = {aligned, aligned};
  CHECK(codegen::cuda_launch_config(soft, g.launch, 132, ptrs).shared_bytes == 0);
  CHECK(codegen::cuda_launch_config(soft, g.launch, 132, ptrs).row_registers);
  // ... given addresses that prove its vectors aligned; else the loop kernel and its cache.
  CHECK(codegen::cuda_launch_config(soft, g.launch, 132, {}).shared_bytes == 4096 * 4);
  g = group(soft, {8, 40000}, {40000, 1, 40000, 1});  // past both
  CHECK(codegen::cuda_launch_config(soft, g.launch, 132, {}).shared_bytes == 0);
  CHECK_FALSE(codegen::cuda_launch_config(soft, g.launch, 132, {}).row_registers);
  g = group(soft, {4096, 64}, {64, 1, 64, 1});  // short rows go to warps: no block to cache for
  CHECK(codegen::cuda_launch_config(soft, g.launch, 132, {}).shared_bytes == 0);
}

TEST_CASE("emulated: softmax rows read back from the row cache equal rows read from memory") {
  for (const int64_t n : {int64_t{300}, int64_t{2000}, int64_t{40000}}) {
    INFO("n = " << n);
    const int64_t rows = 3;
    const LoopKernel k = codegen::test::softmax(DType::Float32, 1, 1, Access::Contiguous);
    const engine::FusedGroup g = group(k, {rows, n}, {n, 1, n, 1});
    TensorValue x = emulated_vector(DType::Float32, rows * n);
    for (int64_t i = 0; i < rows * n; ++i) {
      x.data<float>()[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)) * 6.0);
    }
    TensorValue cached = emulated_vector(DType::Float32, rows * n),
                plain = emulated_vector(DType::Float32, rows * n);
    const bool fits = n * 4 <= codegen::kCudaRowCacheBytes;
    CHECK((codegen::cuda_launch_config(k, g.launch, 132, {}).shared_bytes > 0) == fits);
    run(g, {x.raw(), cached.raw()}, true);
    if (fits) {  // the last emulated block left the last row it cached there: one of x's
      const unsigned char* smem = emulated_shared_memory(loop_kernel(h().ctx, k).loop);
      REQUIRE(smem != nullptr);
      CHECK(cached_row(smem, x.data<float>(), rows, n) >= 0);
    }
    run(g, {x.raw(), plain.raw()}, false);
    CHECK(std::memcmp(cached.raw(), plain.raw(), static_cast<size_t>(rows * n * 4)) == 0);
    for (int64_t r = 0; r < rows; ++r) {
      const float* v = x.data<float>() + r * n;
      double m = v[0], s = 0;
      for (int64_t i = 1; i < n; ++i) m = std::max(m, static_cast<double>(v[i]));
      for (int64_t i = 0; i < n; ++i) s += std::exp(v[i] - m);
      for (int64_t i = 0; i < n; i += 97) {
        const double want = std::exp(v[i] - m) / s;
        CHECK(std::fabs(cached.data<float>()[r * n + i] - want) <= 1e-5 * want + 1e-12);
      }
    }
  }
}

// Rows of two inner dimensions read through a permutation (the offsets an odometer computes):
// the cache is indexed by the element's place in the row, not by its address.
TEST_CASE("emulated: a row of two permuted inner dimensions through the row cache") {
  const int64_t rows = 4, a = 13, b = 17, n = a * b;
  const LoopKernel k = codegen::test::softmax(DType::Float32, 1, 2, Access::Strided);
  // x is [rows, b, a] in memory, read as [rows, a, b]; the output is [rows, a, b].
  const engine::FusedGroup g = group(k, {rows, a, b}, {n, 1, a, n, b, 1});
  REQUIRE(codegen::cuda_launch_config(k, g.launch, 132, {}).shared_bytes > 0);
  TensorValue x = emulated_vector(DType::Float32, rows * n);
  for (int64_t i = 0; i < rows * n; ++i) x.data<float>()[i] = static_cast<float>((i * 29) % 23) / 4;
  TensorValue cached = emulated_vector(DType::Float32, rows * n),
              plain = emulated_vector(DType::Float32, rows * n);
  run(g, {x.raw(), cached.raw()}, true);
  // A row's elements in row order, x[r, j, i] for (i, j) in [a, b]: the last emulated block
  // left one there.
  const unsigned char* smem = emulated_shared_memory(loop_kernel(h().ctx, k).loop);
  REQUIRE(smem != nullptr);
  std::vector<float> in_row_order(static_cast<size_t>(rows * n));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < a; ++i) {
      for (int64_t j = 0; j < b; ++j) {
        in_row_order[r * n + i * b + j] = x.data<float>()[r * n + j * a + i];
      }
    }
  }
  CHECK(cached_row(smem, in_row_order.data(), rows, n) >= 0);
  run(g, {x.raw(), plain.raw()}, false);
  CHECK(std::memcmp(cached.raw(), plain.raw(), static_cast<size_t>(rows * n * 4)) == 0);
}

// Two cached inputs of different widths (a float16 one read strided, a float64 one), first
// read by different passes: x by the max pass, y by the sum pass, both by the store pass.
TEST_CASE("emulated: two row caches of different dtypes, filled by different passes") {
  const int64_t rows = 4, n = 777;
  codegen::test::KernelBuilder kb(1, 1);
  const uint32_t x = kb.load(DType::Float16, Access::Strided);
  const uint32_t y = kb.load(DType::Float64);
  const uint32_t m = kb.reduce(Op::max, x, DType::Float16);
  const uint32_t s = kb.reduce(Op::sum, y, DType::Float64);
  const uint32_t xd = kb.op(Op::cast, {kb.op(Op::sub, {x, m}, DType::Float16)}, DType::Float64);
  kb.out(kb.op(Op::mul, {xd, kb.op(Op::div, {y, s}, DType::Float64)}, DType::Float64));
  const LoopKernel& k = kb.kernel();
  CHECK(codegen::cuda_row_cache_bytes(k, n) == ((n * 2 + 15) & ~15) + ((n * 8 + 15) & ~15));
  // x is [n, rows] read along its columns (stride rows), y and the output are [rows, n].
  const engine::FusedGroup g = group(k, {rows, n}, {1, rows, n, 1, n, 1});
  TensorValue xs = emulated_vector(DType::Float16, rows * n),
              ys = emulated_vector(DType::Float64, rows * n);
  for (int64_t i = 0; i < rows * n; ++i) {
    xs.data<uint16_t>()[i] =
        ir::Float16::from_float(static_cast<float>((i * 37) % 101) / 8.0f - 6.0f);
    ys.data<double>()[i] = 1.0 + static_cast<double>((i * 13) % 17);
  }
  TensorValue cached = emulated_vector(DType::Float64, rows * n),
              plain = emulated_vector(DType::Float64, rows * n);
  REQUIRE(codegen::cuda_launch_config(k, g.launch, 132, {}).shared_bytes > 0);
  run(g, {xs.raw(), ys.raw(), cached.raw()}, true);
  run(g, {xs.raw(), ys.raw(), plain.raw()}, false);
  CHECK(std::memcmp(cached.raw(), plain.raw(), static_cast<size_t>(rows * n * 8)) == 0);
  for (int64_t r = 0; r < rows; ++r) {
    float mx = -INFINITY;
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      mx = std::max(mx, ir::Float16::to_float(xs.data<uint16_t>()[i * rows + r]));
      sum += ys.data<double>()[r * n + i];
    }
    for (int64_t i = 0; i < n; i += 31) {
      const float d = ir::Float16::to_float(
          ir::Float16::from_float(ir::Float16::to_float(xs.data<uint16_t>()[i * rows + r]) - mx));
      const double want = static_cast<double>(d) * (ys.data<double>()[r * n + i] / sum);
      CHECK(cached.data<double>()[r * n + i] == want);
    }
  }
}

}  // namespace tensord::cuda::test
