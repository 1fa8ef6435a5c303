// Every CUDA C source of the reduce, scan and sort families compiles with NVRTC for sm_90 (as
// the kernel cache compiles them: CUBIN, its options), for every dtype each can be asked for,
// and holds the entry points its family loads. No GPU needed; what the kernels compute is
// checked by the conformance table on a GPU.
#include <catch2/catch.hpp>

#include <string>

#include "engine/backends/cuda/cuda_kernel_cache.h"
#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/nvrtc_compiler.h"
#include "engine/backends/cuda/sort_common.h"
#include "engine/backends/cuda/sort_sources.h"
#include "engine/ir/error.h"

namespace tensord::cuda::test {
namespace {

void compiles_with_entries(const std::string& source, const std::vector<std::string>& names,
                           const std::string& what) {
  INFO(what);
  NvrtcRequest request;
  request.source = source;
  request.name = what + ".cu";
  request.arch = 90;
  request.options = CudaKernelCacheOptions{}.options;
  request.cubin = true;
  NvrtcOutput cubin = nvrtc_compile(request);
  REQUIRE(cubin.image.size() > 4);
  // The ELF symbol table names each extern "C" entry point.
  for (const std::string& name : names) {
    INFO(name);
    CHECK(cubin.image.find(name + std::string(1, '\0')) != std::string::npos);
  }
  CHECK(cubin.image.compare(0, 4,
                            "\x7f"
                            "ELF") == 0);
}

TEST_CASE("reduce sources (prod, argmax, argmin) compile for every dtype") {
  for (ir::DType t : sort_family_dtypes()) {
    compiles_with_entries(reduce_source(t), reduce_kernel_names(t),
                          "reduce_" + std::string(ir::name(t)));
  }
}

TEST_CASE("scan sources compile for every dtype") {
  for (ir::DType t : sort_family_dtypes()) {
    compiles_with_entries(scan_source(t), scan_kernel_names(t), "scan_" + std::string(ir::name(t)));
  }
}

TEST_CASE("the sorting network and the per-dtype sort sources compile") {
  compiles_with_entries(sort_network_source(), sort_network_kernel_names(), "sort_network");
  for (ir::DType t : sort_family_dtypes()) {
    if (ir::is_complex(t)) continue;
    compiles_with_entries(sort_source(t), sort_kernel_names(t), "sort_" + std::string(ir::name(t)));
  }
}

TEST_CASE("one source text per (family, dtype)") {
  CHECK(&reduce_source(ir::DType::Float32) == &reduce_source(ir::DType::Float32));
  CHECK(reduce_source(ir::DType::Float32) != reduce_source(ir::DType::Float64));
  CHECK(scan_source(ir::DType::Int8) != scan_source(ir::DType::UInt8));
  CHECK(sort_source(ir::DType::Float16) != sort_source(ir::DType::BFloat16));
}

engine::TensorValue view(ir::Shape shape, std::vector<int64_t> strides, int64_t offset = 0) {
  engine::TensorValue v;
  v.type = ir::TensorType{ir::DType::Float32, std::move(shape)};
  v.strides = std::move(strides);
  v.offset = offset;
  return v;
}

TEST_CASE("lines along an axis: batch dims merged where contiguous, inner for the output") {
  const LineGeo g = lines_along(view({2, 3, 4}, {12, 4, 1}), 2);
  CHECK(g.lines == 6);
  CHECK(g.n == 4);
  CHECK(g.m == 4);
  CHECK(g.inner == 1);
  REQUIRE(g.batch.rank == 1);  // (2, 3) with strides (12, 4) is one dim of 6
  CHECK(g.batch.size[0] == 6);
  CHECK(g.batch.stride[0] == 4);
  REQUIRE(g.line.rank == 1);
  CHECK(g.line.stride[0] == 1);

  const LineGeo mid = lines_along(view({2, 3, 4}, {12, 4, 1}), 1);
  CHECK(mid.lines == 8);
  CHECK(mid.inner == 4);
  REQUIRE(mid.batch.rank == 2);  // (2, 4) with strides (12, 1): not mergeable
  CHECK(mid.batch.stride[0] == 12);
  CHECK(mid.batch.stride[1] == 1);
  CHECK(mid.line.stride[0] == 4);
}

TEST_CASE("lines of a permuted, reversed view keep strides and offset") {
  // A (3, 4) view of a transposed buffer with rows reversed: element (i, j) at 2 - i + 3 j.
  const LineGeo g = lines_along(view({3, 4}, {-1, 3}, 2), 0);
  CHECK(g.offset == 2);
  CHECK(g.lines == 4);
  CHECK(g.n == 3);
  CHECK(g.inner == 4);
  REQUIRE(g.line.rank == 1);
  CHECK(g.line.stride[0] == -1);
  REQUIRE(g.batch.rank == 1);
  CHECK(g.batch.stride[0] == 3);
}

TEST_CASE("lines over a set of reduced dims; size-1 dims dropped") {
  const bool reduced[] = {true, false, true, false};
  const LineGeo g = lines_over(view({2, 3, 4, 1}, {12, 4, 1, 1}), reduced);
  CHECK(g.lines == 3);
  CHECK(g.n == 8);
  REQUIRE(g.line.rank == 2);  // (2, 4) with strides (12, 1)
  CHECK(g.line.size[0] == 2);
  CHECK(g.line.size[1] == 4);
  REQUIRE(g.batch.rank == 1);
  CHECK(g.batch.size[0] == 3);
  const bool all[] = {true, true};
  const LineGeo flat = lines_over(view({5, 7}, {7, 1}), all);
  CHECK(flat.lines == 1);
  CHECK(flat.n == 35);
  CHECK(flat.batch.rank == 0);
  REQUIRE(flat.line.rank == 1);
  CHECK(flat.line.size[0] == 35);
  const LineGeo scalar = lines_over(view({}, {}), all);
  CHECK(scalar.lines == 1);
  CHECK(scalar.n == 1);
  CHECK(next_pow2(0) == 1);
  CHECK(next_pow2(1) == 1);
  CHECK(next_pow2(5) == 8);
  CHECK(next_pow2(2048) == 2048);
}

// The families decide before touching the device: ops they do not own go to the next family,
// dtypes they lack are Unsupported with op and dtype named. No GPU needed.
TEST_CASE("the reduce, scan and sort families claim their ops and name what they lack") {
  CudaKernelCache cache(CudaKernelCacheOptions{});
  FamilyStates states;
  CudaContext ctx{0, 90, 1, nullptr, cache, states, engine::Float32MatmulPrecision::Highest, {}};
  auto node = [](ir::Op op, ir::Attrs attrs = {}) {
    ir::Node n;
    n.op = op;
    n.attrs = std::move(attrs);
    return n;
  };
  const engine::TensorValue x = view({4}, {1});
  const engine::TensorValue xs[] = {x};
  const engine::TensorValue outs[] = {x, x};
  for (ir::Op op : {ir::Op::sum, ir::Op::max, ir::Op::min, ir::Op::add, ir::Op::matmul}) {
    CHECK_FALSE(run_reduce(ctx, node(op), xs, outs));
    CHECK_FALSE(run_scan(ctx, node(op), xs, outs));
    CHECK_FALSE(run_sort(ctx, node(op), xs, outs));
  }
  engine::TensorValue c = x;
  c.type.dtype = ir::DType::Complex64;
  const engine::TensorValue cs[] = {c};
  auto unsupported = [&](auto family, ir::Op op, ir::Attrs attrs, size_t n_out) {
    try {
      family(ctx, node(op, std::move(attrs)), Values(cs), Values(outs, n_out));
      FAIL("no error for " << ir::name(op));
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Unsupported);
      CHECK(e.message().find(std::string(ir::name(op))) != std::string::npos);
      CHECK(e.message().find("complex64") != std::string::npos);
    }
  };
  unsupported(run_reduce, ir::Op::argmax, {}, 1);
  unsupported(run_scan, ir::Op::logcumsumexp, {{ir::Attr::axis, int64_t{0}}}, 1);
  unsupported(run_scan, ir::Op::cummax, {{ir::Attr::axis, int64_t{0}}}, 2);
  unsupported(run_sort, ir::Op::sort, {}, 2);
  unsupported(run_sort, ir::Op::median, {}, 1);
}

}  // namespace
}  // namespace tensord::cuda::test
