#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

#include "cpu_test_support.h"
#include "engine/ir/dynamic.h"
#include "engine/ir/philox.h"

namespace tensord::cpu::test {
namespace {

TEST_CASE("device info names the CPU and the thread count") {
  CpuBackend cpu(3);
  CHECK(cpu.info().kind == "cpu");
  CHECK(cpu.info().threads == 3);
  CHECK(cpu.info().name.find("(3 threads)") != std::string::npos);
  CHECK(cpu.info().total_memory > 0);
  CHECK(CpuBackend(0).info().threads >= 1);
}

TEST_CASE("allocations are aligned, may be empty, and fail with OutOfMemory") {
  CpuBackend cpu(1);
  auto buf = cpu.allocate(100);
  CHECK(reinterpret_cast<uintptr_t>(buf->data()) % 64 == 0);
  CHECK(buf->bytes() == 100);
  CHECK(cpu.allocate(0)->bytes() == 0);
  try {
    cpu.allocate(size_t{1} << 62);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::OutOfMemory);
    CHECK(e.message().find("cannot allocate") != std::string::npos);
  }
}

TEST_CASE("outputs of data-dependent ops come from the block cache and go back to it") {
  CpuBackend cpu(1);
  // 2^18 hits: a 2 MiB int64 output, over the cache's minimum size.
  const TensorValue x = tensor<int32_t>(cpu, {int64_t{1} << 18}, std::vector<int32_t>(1 << 18, 7));
  const ir::Node n = node(Op::flatnonzero, {DType::Int64, {ir::kDynamic}});
  const auto hits = [&] { return cpu.memory_stats().host_cache->hits; };
  const uint64_t before = hits();
  for (int i = 0; i < 3; ++i) {
    const std::vector<TensorValue> out = cpu.run_data_dependent(n, {&x, 1});
    REQUIRE(out.size() == 1);
    REQUIRE(out[0].type.shape == Shape{int64_t{1} << 18});
    CHECK(out[0].data<int64_t>()[12345] == 12345);
  }
  CHECK(hits() - before == 2);  // the first output was new; the next two reused its block
}

TEST_CASE("read and write copy bytes and check bounds") {
  CpuBackend cpu(1);
  auto buf = cpu.allocate(8);
  uint32_t in[2] = {1, 2}, out[2] = {};
  cpu.write(*buf, 0, in, 8);
  cpu.read(*buf, 4, out, 4);
  CHECK(out[0] == 2);
  CHECK_THROWS_AS(cpu.write(*buf, 4, in, 8), Error);
  CHECK_THROWS_AS(cpu.read(*buf, 9, out, 0), Error);
}

TEST_CASE("full, arange and eye") {
  CpuBackend cpu(1);
  auto full = node(Op::full, {DType::Int8, {2, 2}},
                   {{Attr::shape, std::vector<int64_t>{2, 2}},
                    {Attr::value, 300.7},
                    {Attr::dtype, DType::Int8}});
  CHECK(values<int8_t>(run(cpu, full, {})) == std::vector<int8_t>(4, 127));
  auto big = node(Op::full, {DType::Int64, {1}},
                  {{Attr::shape, std::vector<int64_t>{1}},
                   {Attr::value, int64_t{1} << 60},
                   {Attr::dtype, DType::Int64}});
  CHECK(values<int64_t>(run(cpu, big, {})) == std::vector<int64_t>{int64_t{1} << 60});
  auto ar = node(
      Op::arange, {DType::Float32, {4}},
      {{Attr::start, 1.0}, {Attr::stop, 2.9}, {Attr::step, 0.5}, {Attr::dtype, DType::Float32}});
  CHECK(values<float>(run(cpu, ar, {})) == std::vector<float>{1.0f, 1.5f, 2.0f, 2.5f});
  auto ari = node(Op::arange, {DType::Int32, {3}},
                  {{Attr::start, int64_t{5}},
                   {Attr::stop, int64_t{-1}},
                   {Attr::step, int64_t{-2}},
                   {Attr::dtype, DType::Int32}});
  CHECK(values<int32_t>(run(cpu, ari, {})) == std::vector<int32_t>{5, 3, 1});
  auto eye = node(Op::eye, {DType::Float32, {2, 3}},
                  {{Attr::n, int64_t{2}},
                   {Attr::m, int64_t{3}},
                   {Attr::k, int64_t{1}},
                   {Attr::dtype, DType::Float32}});
  CHECK(values<float>(run(cpu, eye, {})) == std::vector<float>{0, 1, 0, 0, 0, 1});
  auto eye_low = node(Op::eye, {DType::Bool, {3, 2}},
                      {{Attr::n, int64_t{3}},
                       {Attr::m, int64_t{2}},
                       {Attr::k, int64_t{-1}},
                       {Attr::dtype, DType::Bool}});
  CHECK(values<bool>(run(cpu, eye_low, {})) ==
        std::vector<bool>{false, false, true, false, false, true});
}

ir::Node random(Op op, DType dtype, int64_t n, int64_t seed) {
  return node(op, {dtype, {n}},
              {{Attr::shape, std::vector<int64_t>{n}}, {Attr::seed, seed}, {Attr::dtype, dtype}});
}

TEST_CASE("rand and randn follow the Philox formulas of docs/ops.md") {
  CpuBackend cpu(4);
  const int64_t n = 100000;
  const int64_t seed = 0x1234567890ll;
  auto u = values<float>(run(cpu, random(Op::rand, DType::Float32, n, seed), {}));
  double mean = 0;
  for (int64_t i = 0; i < n; ++i) {
    REQUIRE(u[i] >= 0.0f);
    REQUIRE(u[i] < 1.0f);
    mean += u[i];
  }
  CHECK(mean / n == Approx(0.5).margin(0.01));
  for (int64_t i : {int64_t{0}, int64_t{1}, n - 1}) {
    auto w = ir::philox_element(static_cast<uint64_t>(seed), static_cast<uint64_t>(i));
    CHECK(u[i] == ir::philox_uniform24(w));
  }
  auto d = values<double>(run(cpu, random(Op::rand, DType::Float64, 3, 7), {}));
  CHECK(d[2] == ir::philox_uniform53(ir::philox_element(7, 2)));
  auto z = values<double>(run(cpu, random(Op::randn, DType::Float64, n, 7), {}));
  double m1 = 0, m2 = 0;
  for (double v : z) m1 += v, m2 += v * v;
  CHECK(m1 / n == Approx(0.0).margin(0.02));
  CHECK(m2 / n == Approx(1.0).margin(0.02));
  // float64: philox_normal's own libm calls; float32: libmvec's log and cos, a few ulp from
  // libm in double, which rounding to float32 does not show
  auto z32 = values<float>(run(cpu, random(Op::randn, DType::Float32, n, 7), {}));
  int64_t differ64 = 0, differ32 = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double want = ir::philox_normal(ir::philox_element(7, static_cast<uint64_t>(i)));
    differ64 += z[i] != want;
    differ32 += z32[i] != static_cast<float>(want);
  }
  CHECK(differ64 == 0);
  CHECK(differ32 == 0);
  // Same seed, same numbers; another seed, other numbers.
  CHECK(values<float>(run(cpu, random(Op::rand, DType::Float32, 8, seed), {})) ==
        std::vector<float>(u.begin(), u.begin() + 8));
  CHECK(values<float>(run(cpu, random(Op::rand, DType::Float32, 8, seed + 1), {})) !=
        std::vector<float>(u.begin(), u.begin() + 8));
  auto h = values<BFloat16>(run(cpu, random(Op::rand, DType::BFloat16, n, seed), {}));
  for (auto v : h) REQUIRE(static_cast<float>(v) < 1.0f);
  CHECK_THROWS_AS(run(cpu, random(Op::rand, DType::Int32, 4, 1), {}), Error);
}

TEST_CASE("the backend refuses nodes that are not its job") {
  CpuBackend cpu(1);
  auto x = tensor<float>(cpu, {2}, {1, 2});
  auto reshape = node(Op::reshape, {DType::Float32, {2}}, {{Attr::shape, std::vector<int64_t>{2}}});
  try {
    run(cpu, reshape, {x});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Unsupported);
  }
}

}  // namespace
}  // namespace tensord::cpu::test
