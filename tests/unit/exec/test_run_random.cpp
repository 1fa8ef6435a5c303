// Untrusted graphs that validation accepts must run, or fail with an error the user can act on:
// never crash the worker (every session of the daemon shares it), never report an Internal
// error for what is the data's fault. Random valid graphs over the whole op table (small odd
// shapes, every dtype, inputs of small integers, so zeros, NaN and infinities appear as ops
// compute) run on the real CPU backend. This found a matmul of one-element operands that
// recursed until the stack ran out, and LAPACK refusing NaN as an "argument" error.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/exec/engine.h"
#include "engine/ir/passes.h"
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
  // Bytes 0..6: small integers, valid bools, tiny or zero floats.
  auto* bytes = static_cast<unsigned char*>(v.raw());
  for (size_t i = 0; i < type.nbytes(); ++i) bytes[i] = static_cast<unsigned char>(rng() % 7);
  return v;
}

TEST_CASE("random valid graphs run or fail with a user error on the CPU", "[random]") {
  cpu::CpuBackend cpu(1);
  Engine engine(cpu);
  int ran = 0, refused = 0;
  // Seeds where the two bugs above showed (with the first 20000 graphs of each).
  for (uint64_t seed : {3u, 24u, 29u, 109u, 125u, 20240601u}) {
    ir::test::RandomGraphs random(seed);
    std::mt19937 bytes(static_cast<uint32_t>(seed));
    for (int trial = 0; trial < 20000; ++trial) {
      std::vector<TensorType> types;
      for (size_t k = random.below(4); k > 0; --k)
        types.push_back(TensorType{random.dtype(), random.shape()});
      Graph g = random.graph(types);
      try {
        Graph copy = g;
        ir::validate(copy, types, ir::Limits{});
      } catch (const Error&) {
        continue;  // tests/unit/ir/test_random_graphs.cpp checks these
      }
      std::vector<TensorValue> inputs;
      for (const TensorType& t : types) inputs.push_back(random_input(cpu, t, bytes));
      const std::vector<ValueRef> outputs{ValueRef{static_cast<uint32_t>(g.nodes.size() - 1), 0}};
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
