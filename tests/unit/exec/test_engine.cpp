// Engine::run end to end on the real CPU backend: results, plan caching, buffer lifetimes and
// errors attributed to the user's node and source line.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/exec/engine.h"
#include "tests/support/backend/forwarding_backend.h"

namespace ir = tensord::ir;
using tensord::Error;
using tensord::ErrorCode;
using tensord::engine::Backend;
using tensord::engine::Buffer;
using tensord::engine::DeviceInfo;
using tensord::engine::Engine;
using tensord::engine::EngineOptions;
using tensord::engine::TensorValue;
using Ints = std::vector<int64_t>;

namespace {

// The real CPU backend behind a window: counts allocations and live buffers, and can be told
// to fail on one op the way a backend would (a tensord::Error or any other exception).
class WatchedBackend final : public tensord::test::ForwardingBackend {
 public:
  WatchedBackend() : ForwardingBackend(std::make_unique<tensord::cpu::CpuBackend>(1)) {}

  std::shared_ptr<Buffer> allocate(size_t bytes) override {
    ++allocations;
    ++live;
    std::shared_ptr<Buffer> owner = inner().allocate(bytes);
    Buffer* raw = owner.get();
    // Same Buffer object; the deleter keeps the real owner alive until the last reference goes.
    return std::shared_ptr<Buffer>(raw, [this, owner = std::move(owner)](Buffer*) mutable {
      --live;
      owner.reset();
    });
  }

  void run(const ir::Node& node, std::span<const TensorValue> inputs,
           std::span<const TensorValue> outputs) override {
    if (fail_on && node.op == *fail_on) {
      if (fail_with_std) throw std::logic_error("injected failure");
      throw Error(ErrorCode::Unsupported, "injected failure");
    }
    live_at_run.push_back(live);
    inner().run(node, inputs, outputs);
  }

  // Backend::prepare: what it was shown (the plan's kernel steps), before any step ran.
  void prepare(const tensord::engine::Plan& plan) override {
    prepared_steps.push_back(plan.steps.size());
    runs_before_prepare.push_back(live_at_run.size());
  }

  TensorValue upload(const std::vector<float>& data, Ints shape) {
    ir::TensorType type{ir::DType::Float32, std::move(shape)};
    REQUIRE(static_cast<size_t>(type.numel()) == data.size());
    TensorValue v = TensorValue::contiguous(inner().allocate(type.nbytes()), type);
    inner().write(*v.buffer, 0, data.data(), type.nbytes());
    return v;
  }

  TensorValue upload_i64(const std::vector<int64_t>& data) {
    ir::TensorType type{ir::DType::Int64, {static_cast<int64_t>(data.size())}};
    TensorValue v = TensorValue::contiguous(inner().allocate(type.nbytes()), type);
    inner().write(*v.buffer, 0, data.data(), type.nbytes());
    return v;
  }

  std::vector<float> download(const TensorValue& v) {
    REQUIRE(v.type.dtype == ir::DType::Float32);
    REQUIRE(v.is_contiguous());
    std::vector<float> out(static_cast<size_t>(v.type.numel()));
    inner().read(*v.buffer, static_cast<size_t>(v.offset) * sizeof(float), out.data(), v.nbytes());
    return out;
  }

  int allocations = 0;
  int live = 0;
  std::vector<int> live_at_run;  // live buffers when each kernel started
  std::vector<size_t> prepared_steps, runs_before_prepare;
  std::optional<ir::Op> fail_on;
  bool fail_with_std = false;
};

ir::TensorType f32(Ints shape) {
  return ir::TensorType{ir::DType::Float32, std::move(shape)};
}

// Every output must be contiguous, start its buffer and fill it exactly.
void check_owned(const TensorValue& v) {
  CHECK(v.is_contiguous());
  CHECK(v.offset == 0);
  CHECK(v.buffer->bytes() == v.nbytes());
}

// y = relu(a @ w + 1).sum(axis 1), as in the example.
struct Example {
  ir::Graph graph;
  ir::ValueRef y;
  explicit Example(Ints a_shape = {2, 3}, uint32_t line = 7) {
    const uint32_t file = graph.intern_file("example.cpp");
    ir::NodeLocation at{file, line};
    auto a = graph.add_input(0, f32(a_shape), at);
    const int64_t k = a_shape.back();
    auto w = graph.add(ir::Op::full, {},
                       {{ir::Attr::shape, Ints{k, 4}},
                        {ir::Attr::value, 0.5},
                        {ir::Attr::dtype, ir::DType::Float32}},
                       at);
    auto one = graph.add(
        ir::Op::full, {},
        {{ir::Attr::shape, Ints{}}, {ir::Attr::value, 1.0}, {ir::Attr::dtype, ir::DType::Float32}},
        at);
    auto mm = graph.add(ir::Op::matmul, {a, w}, {}, at);
    auto r = graph.add(ir::Op::relu, {graph.add(ir::Op::add, {mm, one}, {}, at)}, {}, at);
    y = graph.add(ir::Op::sum, {r}, {{ir::Attr::axes, Ints{1}}}, at);
  }
};

}  // namespace

TEST_CASE("engine runs a small graph and returns contiguous outputs") {
  WatchedBackend backend;
  Engine engine(backend);
  Example ex;
  const TensorValue a = backend.upload({1, 2, 3, 4, 5, 6}, {2, 3});
  auto out = engine.run(ex.graph, std::vector{a}, std::vector{ex.y});
  REQUIRE(out.size() == 1);
  check_owned(out[0]);
  CHECK(out[0].type == f32({2}));
  CHECK(backend.download(out[0]) == std::vector<float>{16, 34});
  CHECK(backend.download(a) == std::vector<float>{1, 2, 3, 4, 5, 6});  // inputs are never written
}

TEST_CASE("engine runs composites and views, copying only what must be copied") {
  WatchedBackend backend;
  Engine engine(backend);
  ir::Graph g;
  auto x = g.add_input(0, f32({2, 3}));
  auto t = g.add(ir::Op::transpose, {x}, {{ir::Attr::dims, Ints{0, 1}}});  // (3, 2)
  auto flat = g.add(ir::Op::reshape, {t}, {{ir::Attr::shape, Ints{6}}});   // needs a copy
  auto rev = g.add(ir::Op::flip, {flat});                                  // negative stride
  auto sm = g.add(ir::Op::softmax, {x}, {{ir::Attr::axis, int64_t{1}}});
  auto same = g.add(ir::Op::reshape, {x}, {{ir::Attr::shape, Ints{3, 2}}});  // no copy at all
  const TensorValue in = backend.upload({1, 2, 3, 4, 5, 6}, {2, 3});
  auto out = engine.run(g, std::vector{in}, std::vector{t, rev, sm, same});
  REQUIRE(out.size() == 4);
  for (const TensorValue& v : out) check_owned(v);
  CHECK(backend.download(out[0]) == std::vector<float>{1, 4, 2, 5, 3, 6});
  CHECK(backend.download(out[1]) == std::vector<float>{6, 3, 5, 2, 4, 1});
  const std::vector<float> p = backend.download(out[2]);
  CHECK(p[0] + p[1] + p[2] == Approx(1.0f));
  CHECK(p[2] == Approx(0.66524096f));
  CHECK(p[5] == Approx(0.66524096f));
  CHECK(out[3].buffer == in.buffer);  // a whole, contiguous view of an input comes back as is
  CHECK(out[3].type.shape == Ints{3, 2});
}

TEST_CASE("a second identical run hits the plan cache; a new shape misses") {
  WatchedBackend backend;
  Engine engine(backend);
  const TensorValue a = backend.upload({1, 2, 3, 4, 5, 6}, {2, 3});
  Example first;
  engine.run(first.graph, std::vector{a}, std::vector{first.y});
  CHECK(engine.stats().plan_cache_misses == 1);
  CHECK(engine.stats().plan_cache_hits == 0);

  Example again({2, 3}, /*line=*/99);  // source lines are not part of the program
  auto out = engine.run(again.graph, std::vector{a}, std::vector{again.y});
  CHECK(engine.stats().plan_cache_hits == 1);
  CHECK(engine.stats().plan_cache_misses == 1);
  CHECK(backend.download(out[0]) == std::vector<float>{16, 34});

  Example wider({2, 2});
  const TensorValue b = backend.upload({1, 2, 3, 4}, {2, 2});
  out = engine.run(wider.graph, std::vector{b}, std::vector{wider.y});
  CHECK(engine.stats().plan_cache_misses == 2);
  CHECK(engine.stats().runs == 3);
  CHECK(backend.download(out[0]) == std::vector<float>{(1.5f + 1) * 4, (3.5f + 1) * 4});
  // prepare() once per new plan (not on a hit), with its steps, before any of them ran.
  REQUIRE(backend.prepared_steps.size() == 2);
  CHECK(backend.prepared_steps[0] > 0);
  CHECK(backend.runs_before_prepare[0] == 0);
  CHECK(backend.runs_before_prepare[1] == 2 * backend.prepared_steps[0]);
}

TEST_CASE("buffers are reused within a run and freed after it") {
  WatchedBackend backend;
  Engine engine(backend);
  ir::Graph g;
  auto v = g.add_input(0, f32({16}));
  for (int i = 0; i < 100; ++i) v = g.add(i % 2 ? ir::Op::neg : ir::Op::abs, {v});
  const TensorValue x = backend.upload(std::vector<float>(16, -2.0f), {16});
  for (int run = 0; run < 2; ++run) {
    backend.allocations = 0;
    auto out = engine.run(g, std::vector{x}, std::vector{v});
    CHECK(backend.allocations <= 3);
    CHECK(backend.live == 1);  // only the output's buffer is left
    CHECK(backend.download(out[0]) == std::vector<float>(16, -2.0f));
  }
  CHECK(backend.live == 0);
}

TEST_CASE("a buffer is freed during the run once its last reader is done") {
  WatchedBackend backend;
  Engine engine(backend);
  ir::Graph g;
  auto x = g.add_input(0, f32({1000}));
  auto a = g.add(ir::Op::exp, {x});  // read only by b
  auto b = g.add(ir::Op::neg, {a});  // an output
  auto c = g.add(ir::Op::sin, {b});  // an output
  const TensorValue in = backend.upload(std::vector<float>(1000, 0.0f), {1000});
  auto out = engine.run(g, std::vector{in}, std::vector{b, c});
  // exp: its output; neg: a and b; sin: b and c, a is gone.
  CHECK(backend.live_at_run == std::vector<int>{1, 2, 2});
  CHECK(backend.download(out[0]) == std::vector<float>(1000, -1.0f));
}

TEST_CASE("a runtime error names the user's node, op and source line; the engine goes on") {
  WatchedBackend backend;
  Engine engine(backend);
  ir::Graph g;
  const uint32_t file = g.intern_file("train.py");
  auto x = g.add_input(0, f32({5}), {file, 3});
  auto idx = g.add_input(1, ir::TensorType{ir::DType::Int64, {2}}, {file, 4});
  auto e = g.add(ir::Op::exp, {x}, {}, {file, 5});
  auto sel = g.add(ir::Op::index_select, {e, idx}, {{ir::Attr::axis, int64_t{0}}}, {file, 6});
  const TensorValue xs = backend.upload({0, 1, 2, 3, 4}, {5});
  try {
    engine.run(g, std::vector{xs, backend.upload_i64({1, 7})}, std::vector{sel});
    FAIL("expected an out-of-bounds error");
  } catch (const Error& err) {
    CHECK(err.code() == ErrorCode::Shape);
    CHECK(err.node() == sel.node);
    CHECK(err.op() == "index_select");
    CHECK(err.where().file == "train.py");
    CHECK(err.where().line == 6);
  }
  CHECK(backend.live == 0);  // nothing leaked by the failed run
  auto out = engine.run(g, std::vector{xs, backend.upload_i64({4, -5})}, std::vector{sel});
  const std::vector<float> got = backend.download(out[0]);
  CHECK(got[0] == Approx(std::exp(4.0f)));
  CHECK(got[1] == Approx(1.0f));
}

TEST_CASE("an error inside a decomposed composite names the composite the user wrote") {
  WatchedBackend backend;
  Engine engine(backend);
  ir::Graph g;
  const uint32_t file = g.intern_file("model.py");
  auto x = g.add_input(0, f32({2, 3}), {file, 10});
  auto y = g.add(ir::Op::neg, {x}, {}, {file, 11});
  auto sm = g.add(ir::Op::softmax, {y}, {{ir::Attr::axis, int64_t{-1}}}, {file, 42});
  const TensorValue in = backend.upload({1, 2, 3, 4, 5, 6}, {2, 3});

  backend.fail_on = ir::Op::exp;  // exp only exists in softmax's decomposition
  try {
    engine.run(g, std::vector{in}, std::vector{sm});
    FAIL("expected the injected failure");
  } catch (const Error& err) {
    CHECK(err.code() == ErrorCode::Unsupported);
    CHECK(err.node() == sm.node);
    CHECK(err.op() == "softmax");
    CHECK(err.where().line == 42);
  }

  backend.fail_with_std = true;  // a plain C++ exception becomes Internal, still attributed
  try {
    engine.run(g, std::vector{in}, std::vector{sm});  // and this time from a cached plan
    FAIL("expected the injected failure");
  } catch (const Error& err) {
    CHECK(err.code() == ErrorCode::Internal);
    CHECK(err.node() == sm.node);
    CHECK(err.where().file == "model.py");
  }
  CHECK(engine.stats().plan_cache_hits == 1);
  CHECK(backend.live == 0);
}

TEST_CASE("bad graphs and bad inputs fail their own run") {
  WatchedBackend backend;
  Engine engine(backend);
  const TensorValue in = backend.upload({1, 2, 3, 4, 5, 6}, {2, 3});

  ir::Graph g;
  auto x = g.add_input(0, f32({2, 3}));
  auto y = g.add(ir::Op::exp, {x});
  g.nodes[1].inputs[0].node = 5;  // dangling edge, as an untrusted client might send
  CHECK_THROWS_AS(engine.run(g, std::vector{in}, std::vector{y}), Error);

  ir::Graph wrong_type;
  auto z = wrong_type.add_input(0, f32({3, 2}));
  try {
    engine.run(wrong_type, std::vector{in}, std::vector{z});
    FAIL("expected a type mismatch");
  } catch (const Error& err) {
    CHECK(err.code() != ErrorCode::Internal);
  }

  TensorValue strided = in;  // the caller must hand over contiguous tensors
  strided.type.shape = {3, 2};
  strided.strides = {1, 3};
  ir::Graph ok;
  auto w = ok.add_input(0, f32({3, 2}));
  CHECK_THROWS_AS(engine.run(ok, std::vector{strided}, std::vector{w}), Error);

  ir::Graph good;
  auto u = good.add(ir::Op::neg, {good.add_input(0, f32({2, 3}))});
  auto out = engine.run(good, std::vector{in}, std::vector{u});
  CHECK(backend.download(out[0]) == std::vector<float>{-1, -2, -3, -4, -5, -6});
}
