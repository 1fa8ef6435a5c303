// Runs that pause between steps (engine/exec/preemption.h) on the real CPU backend: the pause
// comes between steps only, the engine runs another graph inside it, and the paused run's
// result, step spans and memory books are as without the pause.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/exec/engine.h"
#include "engine/profiler/compact.h"
#include "tests/support/profiler/drain.h"

using tensord::test::drain;

namespace ir = tensord::ir;
namespace profiler = tensord::profiler;
using tensord::engine::CompileMode;
using tensord::engine::Engine;
using tensord::engine::EngineOptions;
using tensord::engine::Preemption;
using tensord::engine::RunProfile;
using tensord::engine::TensorValue;
using Ints = std::vector<int64_t>;

namespace {

// Pauses at every step boundary while armed, running `in_pause` there; notes each pause's
// interval on the profiler's clock.
class EveryStep final : public Preemption {
 public:
  bool due() noexcept override { return armed && !inside_; }
  void pause() override {
    inside_ = true;
    const int64_t start = clock ? clock->now() : 0;
    if (in_pause) in_pause();
    intervals.emplace_back(start, clock ? clock->now() : 0);
    inside_ = false;
  }

  bool armed = true;
  std::function<void()> in_pause;
  profiler::Profiler* clock = nullptr;
  std::vector<std::pair<int64_t, int64_t>> intervals;

 private:
  bool inside_ = false;
};

// ((x + 1) * 2, relu, then a row sum: four steps in eager mode.
struct Chain {
  ir::Graph graph;
  ir::ValueRef y;
  Chain() {
    const uint32_t file = graph.intern_file("model.py");
    auto x = graph.add_input(0, {ir::DType::Float32, {64, 64}}, {file, 1});
    auto one = graph.add(
        ir::Op::full, {},
        {{ir::Attr::shape, Ints{}}, {ir::Attr::value, 1.0}, {ir::Attr::dtype, ir::DType::Float32}},
        {file, 2});
    auto a = graph.add(ir::Op::add, {x, one}, {}, {file, 2});
    auto m = graph.add(ir::Op::mul, {a, one}, {}, {file, 3});
    auto r =
        graph.add(ir::Op::relu, {graph.add(ir::Op::add, {m, m}, {}, {file, 4})}, {}, {file, 4});
    y = graph.add(ir::Op::sum, {r}, {{ir::Attr::axes, Ints{1}}}, {file, 5});
  }
};

// det of the 96x96 identity times 2 (2^96), with a LAPACK work array: kernel scratch.
double nested_det(Engine& engine) {
  ir::Graph g;
  auto eye =
      g.add(ir::Op::eye, {}, {{ir::Attr::n, int64_t{96}}, {ir::Attr::dtype, ir::DType::Float64}});
  auto two = g.add(
      ir::Op::full, {},
      {{ir::Attr::shape, Ints{}}, {ir::Attr::value, 2.0}, {ir::Attr::dtype, ir::DType::Float64}});
  auto d = g.add(ir::Op::det, {g.add(ir::Op::mul, {eye, two})});
  auto out = engine.run(std::move(g), {}, std::vector{d}, CompileMode::Eager);
  return out.at(0).data<double>()[0];
}

EngineOptions with_preemption(Preemption* preemption) {
  EngineOptions options;
  options.preemption = preemption;
  return options;
}

TensorValue input(tensord::cpu::CpuBackend& backend) {
  TensorValue x =
      TensorValue::contiguous(backend.allocate(64 * 64 * 4), {ir::DType::Float32, {64, 64}});
  std::vector<float> v(64 * 64);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 7) - 3.0f;
  backend.write(*x.buffer, 0, v.data(), v.size() * 4);
  return x;
}

std::vector<float> values(const TensorValue& t) {
  const float* p = t.data<float>();
  return {p, p + t.type.shape.at(0)};
}

}  // namespace

TEST_CASE("a run pauses only between steps, and the engine runs other graphs in the pause") {
  tensord::cpu::CpuBackend backend(1);
  EveryStep preemption;
  Engine engine(backend, with_preemption(&preemption));
  const TensorValue x = input(backend);
  Chain plain;
  preemption.armed = false;
  const std::vector<float> expected =
      values(engine.run(plain.graph, std::vector{x}, std::vector{plain.y}, CompileMode::Eager)[0]);
  CHECK(preemption.intervals.empty());

  preemption.armed = true;
  std::vector<double> nested;
  preemption.in_pause = [&] { nested.push_back(nested_det(engine)); };
  Chain paused;
  auto out = engine.run(paused.graph, std::vector{x}, std::vector{paused.y}, CompileMode::Eager);
  CHECK(values(out[0]) == expected);
  REQUIRE(engine.stats().runs >= 2);
  // A pause after every step but the last; the nested runs did not pause themselves.
  const size_t steps = preemption.intervals.size() + 1;
  CHECK(steps >= 4);
  CHECK(nested == std::vector<double>(steps - 1, std::ldexp(1.0, 96)));
}

TEST_CASE("a paused run's steps exclude the pause, and the pause's work is not booked to it") {
  tensord::cpu::CpuBackend backend(1);
  EveryStep preemption;
  Engine engine(backend, with_preemption(&preemption));
  RunProfile profile{std::make_shared<profiler::Profiler>(1),
                     std::make_shared<profiler::MemoryLedger>(), 7};
  backend.set_memory_ledger(profile.ledger);
  profile.profiler->start({.trace = true, .memory = true});
  preemption.clock = profile.profiler.get();
  preemption.in_pause = [&] {
    nested_det(engine);  // unprofiled: its scratch must not be booked to the paused step
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  };
  const TensorValue x = input(backend);
  Chain c;
  auto out = engine.run(c.graph, std::vector{x}, std::vector{c.y}, CompileMode::Eager, &profile);
  out.clear();
  REQUIRE(preemption.intervals.size() >= 3);
  profile.profiler->stop();
  profiler::Trace t = drain(*profile.profiler);

  std::vector<const profiler::Record*> steps;
  for (const auto& r : t.records) {
    if (r.kind == profiler::RecordKind::Span &&
        static_cast<profiler::Stage>(r.stage) == profiler::Stage::Step) {
      steps.push_back(&r);
    }
    // Only this run's own tensors: no scratch (det's is the nested run's), all freed.
    if (r.kind == profiler::RecordKind::Alloc) {
      CHECK(static_cast<profiler::MemoryCategory>(r.stage) != profiler::MemoryCategory::Scratch);
      CHECK(t.str(r.file) == "model.py");
    }
  }
  CHECK(steps.size() == preemption.intervals.size() + 1);
  for (const auto* s : steps) {
    const int64_t start = s->start_ns, end = s->start_ns + s->dur_ns;
    for (const auto& [p0, p1] : preemption.intervals) {
      CAPTURE(start, end, p0, p1);
      CHECK((end <= p0 || start >= p1));  // no step span covers a pause
    }
  }
  CHECK(profile.ledger->totals().live_bytes == 0);
}
