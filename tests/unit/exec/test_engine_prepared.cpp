// Engine::prepare and run_prepared (Session.function): the same results as run(), a plan per
// compile mode kept across runs, inputs of another type refused by name, errors as run().
#include <catch2/catch.hpp>

#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/exec/engine.h"

namespace ir = tensord::ir;
using tensord::Error;
using tensord::ErrorCode;
using tensord::engine::CompileMode;
using tensord::engine::Engine;
using tensord::engine::TensorValue;
using Ints = std::vector<int64_t>;

namespace {

ir::TensorType f32(Ints shape) {
  return ir::TensorType{ir::DType::Float32, std::move(shape)};
}

TensorValue upload(tensord::cpu::CpuBackend& cpu, const std::vector<float>& data, Ints shape) {
  const ir::TensorType type = f32(std::move(shape));
  TensorValue v = TensorValue::contiguous(cpu.allocate(type.nbytes()), type);
  cpu.write(*v.buffer, 0, data.data(), type.nbytes());
  return v;
}

std::vector<float> download(tensord::cpu::CpuBackend& cpu, const TensorValue& v) {
  std::vector<float> out(static_cast<size_t>(v.type.numel()));
  cpu.read(*v.buffer, 0, out.data(), v.nbytes());
  return out;
}

// y = tanh(x * w + 1), s = sum(y): two outputs, two inputs.
struct Affine {
  ir::Graph graph;
  std::vector<ir::ValueRef> outputs;
  Affine() {
    auto x = graph.add_input(0, f32({2, 3}));
    auto w = graph.add_input(1, f32({3}));
    auto one = graph.add(
        ir::Op::full, {},
        {{ir::Attr::shape, Ints{}}, {ir::Attr::value, 1.0}, {ir::Attr::dtype, ir::DType::Float32}});
    auto y =
        graph.add(ir::Op::tanh, {graph.add(ir::Op::add, {graph.add(ir::Op::mul, {x, w}), one})});
    outputs = {y, graph.add(ir::Op::sum, {y})};
  }
};

}  // namespace

TEST_CASE("a prepared graph computes what run() computes, planned once per mode") {
  tensord::cpu::CpuBackend cpu(1);
  Engine engine(cpu);
  Affine a;
  auto prepared = engine.prepare(a.graph, {f32({2, 3}), f32({3})}, a.outputs);
  const TensorValue x = upload(cpu, {1, 2, 3, -1, -2, -3}, {2, 3});
  const TensorValue w = upload(cpu, {0.5f, 0.25f, -1}, {3});
  const std::vector inputs{x, w};

  const auto expected = engine.run(a.graph, inputs, a.outputs);
  const uint64_t misses = engine.stats().plan_cache_misses;
  for (int i = 0; i < 3; ++i) {
    const auto out = engine.run_prepared(prepared, inputs);
    REQUIRE(out.size() == 2);
    CHECK(download(cpu, out[0]) == download(cpu, expected[0]));
    CHECK(download(cpu, out[1]) == download(cpu, expected[1]));
  }
  // The first prepared run found run()'s plan in the cache; the others never looked.
  CHECK(engine.stats().plan_cache_misses == misses);
  CHECK(engine.stats().runs == 4);

  // Another mode is another plan (eager: unfused), with the same values.
  const auto eager = engine.run_prepared(prepared, inputs, CompileMode::Eager);
  CHECK(engine.stats().plan_cache_misses == misses + 1);
  const auto y = download(cpu, eager[0]);
  const auto want = download(cpu, expected[0]);
  REQUIRE(y.size() == want.size());
  for (size_t i = 0; i < y.size(); ++i) CHECK(y[i] == Approx(want[i]));
}

TEST_CASE("a prepared graph refuses inputs of another type, naming the input") {
  tensord::cpu::CpuBackend cpu(1);
  Engine engine(cpu);
  Affine a;
  auto prepared = engine.prepare(a.graph, {f32({2, 3}), f32({3})}, a.outputs);
  const TensorValue x = upload(cpu, {1, 2, 3, 4, 5, 6}, {3, 2});
  const TensorValue w = upload(cpu, {1, 2, 3}, {3});
  try {
    engine.run_prepared(prepared, std::vector{x, w});
    FAIL("a (3, 2) input ran where (2, 3) was prepared");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::InvalidGraph);
    CHECK_THAT(e.what(), Catch::Contains("input 0") && Catch::Contains("(2, 3)"));
  }
  CHECK_THROWS_AS(engine.run_prepared(prepared, std::vector{w}), Error);
  // The engine goes on.
  const TensorValue good = upload(cpu, {1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(engine.run_prepared(prepared, std::vector{good, w}).size() == 2);
}

TEST_CASE("prepare validates as run() does") {
  tensord::cpu::CpuBackend cpu(1);
  Engine engine(cpu);
  Affine a;
  // The graph's input node says (2, 3); preparing it for (4) is a shape error of that node.
  CHECK_THROWS_AS(engine.prepare(a.graph, {f32({4}), f32({3})}, a.outputs), Error);
  CHECK_THROWS_AS(engine.prepare(a.graph, {f32({2, 3}), f32({3})}, {ir::ValueRef{99, 0}}), Error);
}

TEST_CASE("a prepared graph with a data-dependent op runs in segments each time") {
  tensord::cpu::CpuBackend cpu(1);
  Engine engine(cpu);
  ir::Graph g;
  auto x = g.add_input(0, f32({4}));
  auto nz = g.add(ir::Op::nonzero, {x});
  auto prepared = engine.prepare(g, {f32({4})}, {nz});
  auto rows = [&](std::vector<float> v) {
    return engine.run_prepared(prepared, std::vector{upload(cpu, v, {4})})[0].type.shape[0];
  };
  CHECK(rows({0, 1, 0, 2}) == 2);
  CHECK(rows({1, 1, 1, 0}) == 3);  // the same prepared graph, another size
}
