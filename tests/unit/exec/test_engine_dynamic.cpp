// Engine::run on graphs with data-dependent output shapes (engine_dynamic.cpp): segments
// around each such node, the plan cache keyed by the sizes found, and errors attributed to
// the caller's node.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/cache/kernel_cache.h"
#include "engine/exec/engine.h"
#include "engine/exec/explain.h"
#include "engine/ir/dynamic.h"

namespace ir = tensord::ir;
using tensord::Error;
using tensord::ErrorCode;
using tensord::engine::Engine;
using tensord::engine::TensorValue;
using Ints = std::vector<int64_t>;

namespace {

struct Fixture {
  tensord::cpu::CpuBackend cpu{1};
  Engine engine{cpu};

  TensorValue upload(const std::vector<float>& data, Ints shape) {
    ir::TensorType type{ir::DType::Float32, std::move(shape)};
    TensorValue v = TensorValue::contiguous(cpu.allocate(type.nbytes()), type);
    if (type.nbytes()) cpu.write(*v.buffer, 0, data.data(), type.nbytes());
    return v;
  }
  template <typename T>
  std::vector<T> download(const TensorValue& v) {
    std::vector<T> out(static_cast<size_t>(v.type.numel()));
    if (!out.empty()) cpu.read(*v.buffer, 0, out.data(), v.nbytes());
    return out;
  }
};

// y = sum(cast(nonzero(x)) * 10 + 1), z = nonzero(x) itself, and s = sum(x) (static).
struct NonzeroGraph {
  ir::Graph g;
  ir::ValueRef nz, y, s, scaled;
  explicit NonzeroGraph(Ints shape) {
    const uint32_t file = g.intern_file("dyn.py");
    auto x = g.add_input(0, {ir::DType::Float32, shape}, {file, 1});
    nz = g.add(ir::Op::nonzero, {x}, {}, {file, 2});
    auto f = g.add(ir::Op::cast, {nz}, {{ir::Attr::dtype, ir::DType::Float32}}, {file, 3});
    auto ten = g.add(
        ir::Op::full, {},
        {{ir::Attr::shape, Ints{}}, {ir::Attr::value, 10.0}, {ir::Attr::dtype, ir::DType::Float32}},
        {file, 3});
    scaled = g.add(ir::Op::add, {g.add(ir::Op::mul, {f, ten}, {}, {file, 3}), ten}, {}, {file, 4});
    y = g.add(ir::Op::sum, {scaled}, {}, {file, 5});
    s = g.add(ir::Op::sum, {x}, {}, {file, 6});
  }
};

}  // namespace

TEST_CASE("a nonzero feeds elementwise ops and a sum in one run", "[engine][dynamic]") {
  Fixture f;
  NonzeroGraph ng({2, 3});
  TensorValue x = f.upload({0, 1, 0, 2, 0, 3}, {2, 3});  // hits (0,1) (1,0) (1,2)
  auto out = f.engine.run(ng.g, std::vector{x}, std::vector{ng.y, ng.nz, ng.s, ng.scaled});
  REQUIRE(out.size() == 4);
  CHECK(out[1].type == ir::TensorType{ir::DType::Int64, {3, 2}});
  CHECK(f.download<int64_t>(out[1]) == std::vector<int64_t>{0, 1, 1, 0, 1, 2});
  CHECK(out[3].type.shape == Ints{3, 2});
  // sum of (10 * idx + 10) over the 6 entries: 10 * (0+1+1+0+1+2) + 60 = 110.
  CHECK(f.download<float>(out[0]) == std::vector<float>{110});
  CHECK(f.download<float>(out[2]) == std::vector<float>{6});
}

TEST_CASE("nonzero of an all-zero (2, 3) tensor has shape (0, 2)", "[engine][dynamic]") {
  Fixture f;
  NonzeroGraph ng({2, 3});
  auto out = f.engine.run(ng.g, std::vector{f.upload({0, 0, 0, 0, 0, 0}, {2, 3})},
                          std::vector{ng.nz, ng.y});
  CHECK(out[0].type == ir::TensorType{ir::DType::Int64, {0, 2}});
  CHECK(f.download<float>(out[1]) == std::vector<float>{0});
}

TEST_CASE("segments after a data-dependent node are cached by the size found",
          "[engine][dynamic]") {
  Fixture f;
  NonzeroGraph ng({2, 3});
  auto run = [&](std::vector<float> x) {
    return f.engine.run(ng.g, std::vector{f.upload(x, {2, 3})}, std::vector{ng.y});
  };
  run({1, 0, 0, 0, 0, 0});  // n = 1
  const auto misses = f.engine.stats().plan_cache_misses;
  const auto hits = f.engine.stats().plan_cache_hits;
  run({0, 0, 0, 0, 0, 5});  // n = 1 again: the segment after nonzero is a cache hit
  CHECK(f.engine.stats().plan_cache_misses == misses);
  CHECK(f.engine.stats().plan_cache_hits > hits);
  run({1, 1, 0, 0, 0, 0});  // n = 2: a new plan for that size
  CHECK(f.engine.stats().plan_cache_misses == misses + 1);
}

TEST_CASE("an error after a data-dependent node names the caller's node", "[engine][dynamic]") {
  Fixture f;
  ir::Graph g;
  const uint32_t file = g.intern_file("dyn.py");
  auto x = g.add_input(0, {ir::DType::Float32, {4}}, {file, 1});
  auto picked =
      g.add(ir::Op::masked_select, {x, g.add(ir::Op::gt, {x, x}, {}, {file, 2})}, {}, {file, 2});
  // (n,) + (m,): accepted while both are unknown; they turn out to differ (0 and 4).
  auto bad = g.add(ir::Op::add, {picked, g.add(ir::Op::unique, {x}, {}, {file, 4})}, {}, {file, 5});
  try {
    f.engine.run(g, std::vector{f.upload({1, 2, 3, 4}, {4})}, std::vector{bad});
    FAIL("expected a shape error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Shape);
    REQUIRE(e.node());
    CHECK(*e.node() == bad.node);
    CHECK(e.where().line == 5);
  }
  // The kernel's own errors are attributed to the data-dependent node.
  ir::Graph h;
  auto a = h.add_input(0, {ir::DType::Float32, {3}});
  auto r = h.add_input(1, {ir::DType::Float32, {3}});
  CHECK_THROWS_AS(h.add(ir::Op::repeat_interleave_tensor, {a, r}), Error);  // float repeats
}

TEST_CASE("explain-style planning of a data-dependent graph is refused clearly",
          "[engine][dynamic]") {
  Fixture f;
  NonzeroGraph ng({2, 3});
  std::vector<ir::TensorType> types{{ir::DType::Float32, {2, 3}}};
  try {
    f.engine.plan_for(ng.g, types, std::vector{ng.y}, tensord::engine::CompileMode::Default);
    FAIL("expected Unsupported");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Unsupported);
  }
}

TEST_CASE("explain describes a data-dependent graph by its segments", "[engine][dynamic]") {
  auto kernels =
      std::make_shared<tensord::cache::KernelCache>(tensord::cache::KernelCacheOptions{});
  tensord::cpu::CpuBackend fusing{1, kernels};
  Engine engine{fusing};
  // exp(-x) > 0.5 -> nonzero -> cast -> unique -> sum: cut at nonzero and at unique.
  ir::Graph g;
  auto x = g.add_input(0, {ir::DType::Float32, {4, 5}});
  auto e = g.add(ir::Op::exp, {g.add(ir::Op::neg, {x})});
  auto half = g.add(
      ir::Op::full, {},
      {{ir::Attr::shape, Ints{}}, {ir::Attr::value, 0.5}, {ir::Attr::dtype, ir::DType::Float32}});
  auto mask = g.add(ir::Op::gt, {g.add(ir::Op::mul, {e, e}), half});
  auto nz = g.add(ir::Op::nonzero, {mask});
  auto u =
      g.add(ir::Op::unique, {g.add(ir::Op::cast, {nz}, {{ir::Attr::dtype, ir::DType::Float32}})});
  auto y = g.add(ir::Op::sum, {u});
  std::vector<ir::TensorType> types{{ir::DType::Float32, {4, 5}}};

  tensord::engine::Explanation ex = tensord::engine::explain(engine, g, types, std::vector{y},
                                                             tensord::engine::CompileMode::Default);
  REQUIRE(ex.cuts.size() == 2);
  CHECK(ex.cuts[0].node == nz.node);
  CHECK(ex.cuts[0].op == "nonzero");
  CHECK(ex.cuts[1].node == u.node);
  CHECK(ex.cuts[1].op == "unique");
  // Segment 0 (neg, exp, mul, gt) is planned now and fused; its nodes are the user's.
  REQUIRE(ex.groups.size() == 1);
  CHECK(ex.groups[0].ops == std::vector<std::string>{"neg", "exp", "mul", "gt"});
  CHECK(ex.groups[0].nodes.front() == e.node - 1);
  CHECK_FALSE(ex.plan_cached);
  const std::string text = ex.text();
  INFO(text);
  CHECK(text.find("runs in 3 segments") != std::string::npos);
  CHECK(text.find("segment 0: the nodes before user node " + std::to_string(nz.node) +
                  " (nonzero): planned now") != std::string::npos);
  CHECK(text.find("segment 2: after user node " + std::to_string(u.node) +
                  " (unique), to the outputs: planned at run time") != std::string::npos);

  // The run reuses segment 0's plan that explain built, and plans the rest itself.
  const uint64_t misses = engine.stats().plan_cache_misses;
  ir::TensorType t = types[0];
  TensorValue xv = TensorValue::contiguous(fusing.allocate(t.nbytes()), t);
  std::vector<float> data(20);
  for (size_t i = 0; i < data.size(); ++i) data[i] = i % 3 == 0 ? -1.0f : 2.0f;
  fusing.write(*xv.buffer, 0, data.data(), t.nbytes());
  engine.run(g, std::vector{xv}, std::vector{y});
  CHECK(engine.stats().plan_cache_hits >= 1);
  CHECK(engine.stats().plan_cache_misses > misses);

  // A graph whose cut reads a graph input directly has nothing to plan before it.
  NonzeroGraph ng({2, 3});
  tensord::engine::Explanation direct = tensord::engine::explain(
      engine, ng.g, std::vector<ir::TensorType>{{ir::DType::Float32, {2, 3}}}, std::vector{ng.y},
      tensord::engine::CompileMode::Default);
  REQUIRE(direct.cuts.size() == 1);
  CHECK(direct.groups.empty());
  CHECK(direct.steps == 0);

  // Unknown output: the same error run() gives.
  CHECK_THROWS_AS(tensord::engine::explain(engine, g, types, std::vector{ir::ValueRef{999, 0}},
                                           tensord::engine::CompileMode::Default),
                  Error);
}

TEST_CASE("an input listed after a data-dependent node feeds the later segment",
          "[engine][dynamic]") {
  // A graph may list its inputs anywhere. Input 1 comes after nonzero: the segment after the
  // cut read it by its index in the first segment's inputs, past their end (found by random
  // graphs with several outputs; the daemon crashed).
  Fixture f;
  ir::Graph g;
  auto x = g.add_input(0, {ir::DType::Float32, {4}});
  auto nz = g.add(ir::Op::flatnonzero, {x});
  auto b = g.add_input(1, {ir::DType::Float32, {2}});
  auto doubled = g.add(ir::Op::add, {b, b});
  const std::vector<TensorValue> inputs{f.upload({0, 3, 0, 4}, {4}), f.upload({5, 6}, {2})};
  auto out = f.engine.run(g, inputs, std::vector{b, nz, doubled, b});
  REQUIRE(out.size() == 4);
  CHECK(f.download<float>(out[0]) == std::vector<float>{5, 6});
  CHECK(f.download<int64_t>(out[1]) == std::vector<int64_t>{1, 3});
  CHECK(f.download<float>(out[2]) == std::vector<float>{10, 12});
  CHECK(f.download<float>(out[3]) == std::vector<float>{5, 6});
}

TEST_CASE("a data-dependent op recorded twice runs once", "[engine][dynamic]") {
  // Clients record unique's values and its counts as two calls: equal nodes, one sort.
  Fixture f;
  ir::Graph g;
  auto x = g.add_input(0, {ir::DType::Float32, {2, 3}});
  auto values = g.add(ir::Op::unique, {x});
  auto counts = ir::ValueRef{g.add(ir::Op::unique, {x}).node, 3};
  std::vector<ir::TensorType> types{{ir::DType::Float32, {2, 3}}};
  tensord::engine::Explanation ex = tensord::engine::explain(
      f.engine, g, types, std::vector{values, counts}, tensord::engine::CompileMode::Default);
  REQUIRE(ex.cuts.size() == 1);
  CHECK(ex.cuts[0].node == values.node);

  auto out = f.engine.run(g, std::vector{f.upload({3, 1, 3, 2, 1, 3}, {2, 3})},
                          std::vector{values, counts});
  REQUIRE(out.size() == 2);
  CHECK(f.download<float>(out[0]) == std::vector<float>{1, 2, 3});
  CHECK(f.download<int64_t>(out[1]) == std::vector<int64_t>{2, 1, 3});
}
