// Untrusted graphs that validation accepts must run, or fail with an error the user can act on:
// never crash the worker (every session of the daemon shares it), never report an Internal
// error for what is the data's fault. Random valid graphs over the whole op table (small odd
// shapes, every dtype, inputs of small integers, so zeros, NaN and infinities appear as ops
// compute; several outputs) run on the real CPU backend, eagerly and fused. This found a matmul
// of one-element operands that recursed until the stack ran out, LAPACK refusing NaN as an
// "argument" error, three fused kernels that did not compile, and a graph with a data-dependent
// op whose later segment read an input past the end of its inputs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/cache/kernel_cache.h"
#include "engine/exec/engine.h"
#include "engine/ir/half.h"
#include "engine/ir/passes.h"
#include "tests/support/backend/compile_ahead.h"
#include "tests/unit/ir/random_graphs.h"

namespace tensord::engine {
namespace {

using ir::DType;
using ir::Graph;
using ir::Op;
using ir::TensorType;
using ir::ValueRef;

TensorValue random_input(cpu::CpuBackend& cpu, const TensorType& type, std::mt19937& rng) {
  TensorValue v = TensorValue::contiguous(cpu.allocate(type.nbytes()), type);
  // Bytes 0..6: small integers, tiny or zero floats; bools 0 or 1, as the daemon normalizes
  // every bool that enters it.
  const unsigned span = type.dtype == DType::Bool ? 2 : 7;
  auto* bytes = static_cast<unsigned char*>(v.raw());
  for (size_t i = 0; i < type.nbytes(); ++i) bytes[i] = static_cast<unsigned char>(rng() % span);
  return v;
}

// Values with magnitude for the fused-versus-eager comparison (tiny denormals from random bytes
// pass any relative tolerance): small integers and halves, bounds of the integer types, huge and
// tiny floats, infinities and NaN, each as the dtype stores it.
TensorValue typed_input(cpu::CpuBackend& cpu, const TensorType& type, std::mt19937& rng) {
  // Mostly moderate values, so that a wrong result shows; one in eight an edge.
  static constexpr double kModerate[] = {0.0, 1.0, -1.0, 0.5, 2.0, -3.0, 3.75, -0.25, 5.0, -7.0};
  static constexpr double kEdges[] = {-0.0,  127.0,   -128.0, 255.0,    32767.0,   1e30, -1e30,
                                      1e-30, 65504.0, 7e4,    INFINITY, -INFINITY, NAN};
  TensorValue v = TensorValue::contiguous(cpu.allocate(type.nbytes()), type);
  const auto pick = [&] {
    return rng() % 8 ? kModerate[rng() % std::size(kModerate)] : kEdges[rng() % std::size(kEdges)];
  };
  const size_t n = static_cast<size_t>(type.numel());
  for (size_t i = 0; i < n; ++i) {
    const double x = pick();
    // Integers take the value when it is finite and in range, else 7.
    const auto integer = [&](double lo, double hi) {
      return std::isfinite(x) && x >= lo && x <= hi ? x : 7.0;
    };
    switch (type.dtype) {
      case DType::Bool:
        v.data<uint8_t>()[i] = x != 0 && !std::isnan(x);
        break;
      case DType::Int8:
        v.data<int8_t>()[i] = static_cast<int8_t>(integer(-128, 127));
        break;
      case DType::UInt8:
        v.data<uint8_t>()[i] = static_cast<uint8_t>(integer(0, 255));
        break;
      case DType::Int16:
        v.data<int16_t>()[i] = static_cast<int16_t>(integer(-32768, 32767));
        break;
      case DType::Int32:
        v.data<int32_t>()[i] = static_cast<int32_t>(integer(-1e9, 1e9));
        break;
      case DType::Int64:
        v.data<int64_t>()[i] = static_cast<int64_t>(integer(-1e18, 1e18));
        break;
      case DType::Float16:
        v.data<uint16_t>()[i] = ir::Float16(static_cast<float>(x)).bits;
        break;
      case DType::BFloat16:
        v.data<uint16_t>()[i] = ir::BFloat16(static_cast<float>(x)).bits;
        break;
      case DType::Float32:
        v.data<float>()[i] = static_cast<float>(x);
        break;
      case DType::Float64:
        v.data<double>()[i] = x;
        break;
      case DType::Complex64:
        v.data<float>()[2 * i] = static_cast<float>(x);
        v.data<float>()[2 * i + 1] = static_cast<float>(pick());
        break;
      case DType::Complex128:
        v.data<double>()[2 * i] = x;
        v.data<double>()[2 * i + 1] = pick();
        break;
    }
  }
  return v;
}

TEST_CASE("random valid graphs run or fail with a user error on the CPU", "[random]") {
  cpu::CpuBackend cpu(1);
  Engine engine(cpu);
  int ran = 0, refused = 0;
  // Seeds where the bugs above showed (with the first 20000 graphs of each; an input listed
  // after a data-dependent node, requested as an output, crashed with 1 and 24).
  for (uint64_t seed : {1u, 3u, 24u, 29u, 109u, 125u, 20240601u}) {
    ir::test::RandomGraphs random(seed);
    std::mt19937 bytes(static_cast<uint32_t>(seed));
    for (int trial = 0; trial < 20000; ++trial) {
      auto [types, g] = random.draw();
      // The last node's value, and on every other graph a few more: any node's (inputs too),
      // a second output, the same value twice.
      std::vector<ValueRef> outputs{ValueRef{static_cast<uint32_t>(g.nodes.size() - 1), 0}};
      for (size_t k = trial % 2 ? bytes() % 4 : 0; k > 0; --k) {
        const auto n = static_cast<uint32_t>(bytes() % g.nodes.size());
        outputs.push_back(ValueRef{n, bytes() % 3 == 0 ? 1u : 0u});
      }
      if (trial % 7 == 0) outputs.push_back(outputs[0]);
      try {
        Graph copy = g;
        ir::validate(copy, types, ir::Limits{});
        ir::validate_outputs(copy, outputs);
      } catch (const Error&) {
        continue;  // tests/unit/ir/test_random_graphs.cpp checks these
      }
      std::vector<TensorValue> inputs;
      for (const TensorType& t : types) inputs.push_back(random_input(cpu, t, bytes));
      try {
        engine.run(g, inputs, outputs, CompileMode::Eager);
        ++ran;
      } catch (const Error& e) {
        INFO("seed " << seed << " trial " << trial << ": " << e.what());
        CHECK(e.code() != ErrorCode::Internal);
        ++refused;
      }
    }
  }
  CHECK(ran > 5000);
  WARN(ran << " random graphs ran, " << refused << " failed at run time");
}

// Element i of a float32 or float64 value.
double float_at(const TensorValue& v, size_t i) {
  return v.type.dtype == DType::Float32 ? v.data<float>()[i] : v.data<double>()[i];
}

// Fused kernels compute what eager kernels do: integers and bools bit for bit, float32 and
// float64 to a few ulps (libmvec's vector functions against the same in eager's blocks), both
// NaN or both not. 16-bit floats and complex values are compared by type only.
void check_same(const TensorValue& eager, const TensorValue& fused) {
  REQUIRE(eager.type == fused.type);
  const DType t = eager.type.dtype;
  const size_t n = static_cast<size_t>(eager.type.numel());
  if (t == DType::Float16 || t == DType::BFloat16 || ir::is_complex(t)) return;
  if (!ir::is_floating(t)) {
    CHECK(std::memcmp(eager.raw(), fused.raw(), eager.nbytes()) == 0);
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    const double a = float_at(eager, i), b = float_at(fused, i);
    if (std::isnan(a) || std::isnan(b)) {
      CHECK(std::isnan(a) == std::isnan(b));
    } else if (a != b) {
      INFO("element " << i << ": eager " << a << ", fused " << b);
      CHECK(std::abs(a - b) <= 1e-5 * std::max(1.0, std::abs(a)));
    }
  }
}

// The graphs the fused test runs, each with its inputs, drawn the same on every call: seeds
// where the fused bugs showed; larger dims on one of them, so that kernels run whole vector
// blocks, tails and both threads.
template <class Trial>
void for_each_fused_trial(cpu::CpuBackend& cpu, Trial&& trial) {
  for (auto [seed, extent] : {std::pair{1u, 3}, std::pair{13u, 3}, std::pair{14u, 3},
                              std::pair{19u, 3}, std::pair{2u, 24}}) {
    ir::test::RandomGraphs random(seed);
    random.max_extent = extent;
    std::mt19937 bytes(static_cast<uint32_t>(seed));
    for (int n = 0; n < 20000; ++n) {
      const ir::test::RandomGraphs::Drawn drawn = random.draw();
      if (!ir::test::RandomGraphs::accepted(drawn)) continue;
      const auto& [types, g] = drawn;
      std::vector<TensorValue> inputs;
      for (const TensorType& t : types) inputs.push_back(typed_input(cpu, t, bytes));
      trial(seed, n, g, inputs);
    }
  }
}

std::vector<ValueRef> last_output(const Graph& g) {
  return {ValueRef{static_cast<uint32_t>(g.nodes.size() - 1), 0}};
}

TEST_CASE("random valid graphs give eager's results fused", "[random][fusion]") {
  auto kernels = std::make_shared<cache::KernelCache>(
      cache::KernelCacheOptions{cache::default_cache_dir(), {}});
  cpu::CpuBackend cpu(2, kernels);
  // Their fused groups compile forty to a unit first: one by one, this test took minutes.
  const test::CompiledAhead ahead = test::compile_fused_ahead(cpu, [&](Backend& recording) {
    EngineOptions options;
    options.unfused_on_compile_error = true;
    Engine engine(recording, std::move(options));
    for_each_fused_trial(cpu, [&](uint32_t, int, const Graph& g, const auto& inputs) {
      try {
        (void)engine.run(g, inputs, last_output(g), CompileMode::Default);
      } catch (const Error&) {
        // The data's fault (a singular matrix): the run below compares it with eager's.
      }
    });
  });
  WARN(test::describe(ahead));
  Engine engine(cpu);
  int fused_runs = 0;
  for_each_fused_trial(cpu, [&](uint32_t seed, int trial, const Graph& g, const auto& inputs) {
    INFO("seed " << seed << " trial " << trial);
    std::vector<TensorValue> eager, fused;
    std::string eager_error, fused_error;
    try {
      eager = engine.run(g, inputs, last_output(g), CompileMode::Eager);
    } catch (const Error& e) {
      eager_error = e.what();
    }
    try {
      fused = engine.run(g, inputs, last_output(g), CompileMode::Default);
    } catch (const Error& e) {
      fused_error = e.what();
    }
    // Both fail (the data's fault, e.g. a singular matrix) or neither.
    CHECK(eager_error.empty() == fused_error.empty());
    if (!eager.empty() && !fused.empty()) check_same(eager[0], fused[0]);
    ++fused_runs;
  });
  CHECK(engine.stats().fused_groups > 100);
  // No fused kernel failed to compile (such a plan runs unfused and still passes above).
  CHECK(engine.stats().unfused_after_compile_error == 0);
  WARN(fused_runs << " random graphs ran eagerly and fused, " << engine.stats().fused_groups
                  << " fused groups");
}

TEST_CASE("fused chains of reductions over square domains give eager's results",
          "[random][fusion]") {
  auto kernels = std::make_shared<cache::KernelCache>(
      cache::KernelCacheOptions{cache::default_cache_dir(), {}});
  cpu::CpuBackend cpu(1, kernels);
  Engine engine(cpu);
  std::mt19937 rng(20261128);
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t n = 2 + rng() % 3;
    const TensorType type{DType::Float32, ir::Shape(2 + rng() % 2, n)};
    Graph g;
    std::vector<ValueRef> values{g.add_input(0, type)};
    for (int step = 0, steps = 2 + rng() % 6; step < steps; ++step) {
      const ValueRef a = values[rng() % values.size()], b = values[rng() % values.size()];
      try {
        switch (rng() % 5) {
          case 0: {
            const size_t rank = g.type(a).rank();
            if (rank == 0) break;
            const Op op = std::array{Op::sum, Op::max, Op::mean}[rng() % 3];
            const std::vector<int64_t> axes{static_cast<int64_t>(rng() % rank)};
            values.push_back(
                g.add(op, {a}, {{ir::Attr::axes, axes}, {ir::Attr::keepdim, rng() % 2 == 0}}));
            break;
          }
          case 1:
            values.push_back(g.add(std::array{Op::exp, Op::neg, Op::abs}[rng() % 3], {a}));
            break;
          default:  // shapes that do not broadcast are refused here
            values.push_back(g.add(std::array{Op::add, Op::mul, Op::sub}[rng() % 3], {a, b}));
        }
      } catch (const Error&) {
      }
    }
    const std::vector<TensorValue> inputs{typed_input(cpu, type, rng)};
    const std::vector<ValueRef> outputs{values.back()};
    INFO("trial " << trial);
    const std::vector<TensorValue> eager = engine.run(g, inputs, outputs, CompileMode::Eager);
    const std::vector<TensorValue> fused = engine.run(g, inputs, outputs, CompileMode::Default);
    check_same(eager[0], fused[0]);
  }
  CHECK(engine.stats().fused_groups > 100);
}

// The iterative LAPACK routines get no NaN or infinity: PyTorch and NumPy raise for these too.
TEST_CASE("svd, eigh and lstsq of non-finite matrices fail naming the input") {
  cpu::CpuBackend cpu(1);
  Engine engine(cpu);
  const TensorType square{DType::Float32, ir::Shape{3, 3}};
  for (float bad :
       {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    TensorValue a = TensorValue::contiguous(cpu.allocate(square.nbytes()), square);
    float* p = a.data<float>();
    for (int i = 0; i < 9; ++i) p[i] = i % 4 == 0 ? 2.0f : 0.5f;
    p[4] = bad;
    for (Op op :
         {Op::svd, Op::svdvals, Op::pinv, Op::matrix_rank, Op::eigh, Op::eigvalsh, Op::lstsq}) {
      Graph g;
      const ValueRef x = g.add_input(0, square);
      const ValueRef y = op == Op::lstsq ? g.add(op, {x, x}) : g.add(op, {x});
      const std::vector<TensorValue> inputs{a};
      const std::vector<ValueRef> outputs{y};
      INFO(ir::name(op) << " with " << bad);
      try {
        engine.run(g, inputs, outputs, CompileMode::Eager);
        FAIL("no error");
      } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::Shape);
        CHECK(std::string(e.what()).find("NaN or infinity") != std::string::npos);
      }
    }
    // NaN in the triangle eigvalsh does not read changes nothing.
    p[4] = 2.0f;
    p[1] = bad;  // row 0, column 1: upper triangle
    Graph g;
    const ValueRef y = g.add(Op::eigvalsh, {g.add_input(0, square)});
    const std::vector<TensorValue> inputs{a};
    const std::vector<ValueRef> outputs{y};
    const std::vector<TensorValue> w = engine.run(g, inputs, outputs, CompileMode::Eager);
    for (int i = 0; i < 3; ++i) CHECK(std::isfinite(w[0].data<float>()[i]));
    // det and inv propagate the NaN instead, as NumPy does.
    Graph d;
    const ValueRef det = d.add(Op::det, {d.add_input(0, square)});
    p[1] = std::numeric_limits<float>::quiet_NaN();
    const std::vector<ValueRef> det_out{det};
    CHECK(std::isnan(engine.run(d, inputs, det_out, CompileMode::Eager)[0].data<float>()[0]));
  }
}

}  // namespace
}  // namespace tensord::engine
