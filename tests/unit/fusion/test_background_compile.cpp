// EngineOptions::compile_in_background with the real CPU backend and host compiler: a new fused
// plan's runs go unfused (with eager's results) while its kernels compile, the fused plan takes
// over once they are in, explain waits for them, and a failed compile leaves a reproducer. The
// compiler is the real one behind a gate the test opens, so "still compiling" is a state the
// test holds rather than a race it hopes to win.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "engine/exec/explain.h"
#include "engine/exec/reproducer.h"
#include "engine/profiler/chrome.h"
#include "tests/support/profiler/drain.h"
#include "tests/unit/fusion/fusion_support.h"

using namespace tensord;
using namespace tensord::fusion_test;
using ir::Op;
namespace fs = std::filesystem;

namespace {

// `c++` that waits until the gate file exists before compiling (`--version` answers at once).
class GatedCompiler {
 public:
  explicit GatedCompiler(const std::string& dir)
      : gate_(dir + "/gate"), started_(dir + "/started"), script_(dir + "/gated-c++") {
    std::ofstream(script_) << "#!/bin/sh\n"
                           << "[ \"$1\" = --version ] && exec c++ --version\n"
                           << "touch '" << started_ << "'\n"
                           << "while [ ! -e '" << gate_ << "' ]; do sleep 0.01; done\n"
                           << "exec c++ \"$@\"\n";
    fs::permissions(script_, fs::perms::owner_all);
  }
  const std::string& command() const { return script_; }
  void open() const { std::ofstream(gate_) << "open\n"; }
  bool is_open() const { return fs::exists(gate_); }
  // Waits until a compile has reached the gate.
  void wait_started() const {
    while (!fs::exists(started_)) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

 private:
  std::string gate_;
  std::string started_;
  std::string script_;
};

// A CPU backend with fusion whose compiler is `command`, and an engine compiling in the
// background.
struct BackgroundEngine {
  BackgroundEngine(const std::string& command, size_t max_background = 16)
      : kernels(std::make_shared<cache::KernelCache>(options(command))),
        backend(1, kernels),
        engine(backend, engine_options(max_background)) {}

  static cache::KernelCacheOptions options(const std::string& command) {
    cache::KernelCacheOptions o;
    o.compiler.command = command;
    return o;
  }
  engine::EngineOptions engine_options(size_t max_background) {
    engine::EngineOptions o;
    o.compile_in_background = true;
    o.max_background_compiles = max_background;
    o.on_internal_error = [this](const std::string& r) {
      reproducers.push_back(r);
      return "/reproducers/" + std::to_string(reproducers.size()) + ".json";
    };
    return o;
  }

  std::vector<std::string> reproducers;
  std::shared_ptr<cache::KernelCache> kernels;
  cpu::CpuBackend backend;
  engine::Engine engine;
};

// exp(x) * 2 - x: one fused group.
TestGraph chain(ir::ValueRef* y, int64_t n = 1000) {
  TestGraph g;
  ir::ValueRef x = g.input({n});
  *y = g.add(Op::sub, {g.add(Op::mul, {g.add(Op::exp, {x}), g.scalar(2)}), x});
  return g;
}

// `g`'s first input as a tensor of `backend`'s.
engine::TensorValue first_input(engine::Backend& backend, const TestGraph& g) {
  engine::TensorValue x =
      engine::TensorValue::contiguous(backend.allocate(g.types[0].nbytes()), g.types[0]);
  std::copy(g.values[0].begin(), g.values[0].end(), x.data<float>());
  return x;
}

// The plan a run would use now, and whether it is the stand-in.
std::shared_ptr<const engine::Plan> plan_now(engine::Engine& e, TestGraph& g, ir::ValueRef y,
                                             engine::PlanInfo* info) {
  const std::vector<ir::ValueRef> outputs{y};
  return e.plan_for(g.graph, g.types, outputs, engine::CompileMode::Default, info);
}

}  // namespace

TEST_CASE("a new plan runs unfused while its kernels compile, then fused", "[background]") {
  TempDir dir;
  GatedCompiler compiler(dir.path());
  BackgroundEngine b(compiler.command());
  ir::ValueRef y;
  TestGraph g = chain(&y);
  const std::vector<float> eager = run(b.engine, g, {y}, engine::CompileMode::Eager)[0];

  for (int round = 0; round < 3; ++round) {  // the gate holds the compiler: all stand-in runs
    CHECK(run(b.engine, g, {y})[0] == eager);
  }
  CHECK(b.engine.stats().background_compiles == 1);
  CHECK(b.engine.stats().fused_groups == 0);
  engine::PlanInfo info;
  CHECK(plan_now(b.engine, g, y, &info)->groups.empty());
  CHECK(info.compiling);
  CHECK(b.kernels->stats().compiles == 0);

  compiler.open();
  // explain shows the plan later runs use: it waits for the kernels.
  const std::vector<ir::ValueRef> outputs{y};
  const engine::Explanation e =
      engine::explain(b.engine, g.graph, g.types, outputs, engine::CompileMode::Default);
  CHECK(e.groups.size() == 1);
  CHECK_FALSE(e.kernels_cached);  // they were compiling when it asked
  CHECK(b.kernels->stats().compiles == 1);
  CHECK(b.engine.stats().fused_groups == 1);

  CHECK(plan_now(b.engine, g, y, &info)->groups.size() == 1);
  CHECK_FALSE(info.compiling);
  CHECK(max_rel_diff(run(b.engine, g, {y})[0], eager) < 1e-6);
  CHECK(b.engine.stats().background_compiles == 1);  // nothing compiled twice
  CHECK(b.kernels->stats().compiles == 1);
}

TEST_CASE("a trace says which runs were unfused stand-ins", "[background]") {
  TempDir dir;
  GatedCompiler compiler(dir.path());
  BackgroundEngine b(compiler.command());
  ir::ValueRef y;
  TestGraph g = chain(&y, 64);
  engine::RunProfile profile{std::make_shared<profiler::Profiler>(1),
                             std::make_shared<profiler::MemoryLedger>(), 0};
  profile.profiler->start({.trace = true});
  const std::vector<engine::TensorValue> inputs{first_input(b.backend, g)};
  const std::vector<ir::ValueRef> outputs{y};
  auto traced_run = [&](uint64_t request) {
    profile.request = request;
    b.engine.run(g.graph, inputs, outputs, engine::CompileMode::Default, &profile);
  };
  traced_run(1);  // a miss: the stand-in is built
  traced_run(2);  // a hit on the stand-in
  compiler.open();
  engine::explain(b.engine, g.graph, g.types, outputs, engine::CompileMode::Default);
  traced_run(3);  // the fused plan
  const profiler::Trace t = test::drain(*profile.profiler);
  std::map<uint64_t, uint8_t> plan_flags;  // request -> flags of its PlanLookup or PlanBuild
  for (const profiler::Record& r : t.records) {
    const auto stage = static_cast<profiler::Stage>(r.stage);
    if (r.kind == profiler::RecordKind::Span &&
        (stage == profiler::Stage::PlanLookup || stage == profiler::Stage::PlanBuild)) {
      plan_flags[r.request] |= r.flags;
    }
  }
  CHECK((plan_flags[1] & profiler::kStandIn) != 0);
  CHECK((plan_flags[2] & profiler::kStandIn) != 0);
  CHECK((plan_flags[3] & profiler::kStandIn) == 0);
  const std::string json = profiler::chrome_trace_json(t);
  CHECK(json.find("\"unfused_while_compiling\":true") != std::string::npos);
}

TEST_CASE("the fused plan takes over without explain once the compiler is done", "[background]") {
  TempDir dir;
  GatedCompiler compiler(dir.path());
  compiler.open();
  BackgroundEngine b(compiler.command());
  ir::ValueRef y;
  TestGraph g = chain(&y);
  const std::vector<float> eager = run(b.engine, g, {y}, engine::CompileMode::Eager)[0];
  CHECK(run(b.engine, g, {y})[0] == eager);
  CHECK(b.engine.stats().background_compiles == 1);
  // Runs keep going meanwhile; within a minute one of them finds the kernels in.
  engine::PlanInfo info;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (plan_now(b.engine, g, y, &info)->groups.empty() &&
         std::chrono::steady_clock::now() < deadline) {
    CHECK(run(b.engine, g, {y})[0] == eager);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK_FALSE(info.compiling);
  CHECK(b.engine.stats().fused_groups == 1);
  CHECK(max_rel_diff(run(b.engine, g, {y})[0], eager) < 1e-6);
}

TEST_CASE("a prepared graph moves from its stand-in to the fused plan", "[background]") {
  TempDir dir;
  GatedCompiler compiler(dir.path());
  BackgroundEngine b(compiler.command());
  ir::ValueRef y;
  TestGraph g = chain(&y, 64);
  const std::vector<float> eager = run(b.engine, g, {y}, engine::CompileMode::Eager)[0];
  engine::PreparedGraph prepared = b.engine.prepare(g.graph, g.types, {y});
  const std::vector<engine::TensorValue> inputs{first_input(b.backend, g)};
  auto values = [](const engine::TensorValue& t) {
    return std::vector<float>(t.data<float>(), t.data<float>() + t.type.numel());
  };
  CHECK(values(b.engine.run_prepared(prepared, inputs)[0]) == eager);
  CHECK(prepared.plan_info().compiling);
  const uint64_t builds = b.engine.stats().plan_cache_misses;

  compiler.open();
  const std::vector<ir::ValueRef> outputs{y};
  engine::explain(b.engine, g.graph, g.types, outputs, engine::CompileMode::Default);
  REQUIRE(b.engine.stats().fused_groups == 1);
  // The prepared graph looks its plan up again (a hit: the fused plan), and keeps it after.
  const std::vector<float> fused = values(b.engine.run_prepared(prepared, inputs)[0]);
  CHECK(max_rel_diff(fused, eager) < 1e-6);
  CHECK_FALSE(prepared.plan_info().compiling);
  CHECK(b.engine.stats().plan_cache_misses == builds);
  CHECK(values(b.engine.run_prepared(prepared, inputs)[0]) == fused);
}

TEST_CASE("a failed background compile leaves a reproducer and the unfused plan", "[background]") {
  BackgroundEngine b("false");  // runs, and fails every compile
  ir::ValueRef y;
  TestGraph g = chain(&y);
  const std::vector<float> eager = run(b.engine, g, {y}, engine::CompileMode::Eager)[0];
  CHECK(run(b.engine, g, {y})[0] == eager);
  const std::vector<ir::ValueRef> outputs{y};
  const engine::Explanation e =
      engine::explain(b.engine, g.graph, g.types, outputs, engine::CompileMode::Default);
  CHECK(e.groups.empty());
  INFO(e.text());
  CHECK(e.text().find("runs unfused: its fused kernels did not compile") != std::string::npos);
  CHECK(e.text().find("(reproducer: /reproducers/1.json)") != std::string::npos);
  REQUIRE(b.reproducers.size() == 1);
  CHECK(engine::parse_reproducer(b.reproducers[0]).mode == engine::CompileMode::Default);
  CHECK(b.engine.stats().unfused_after_compile_error == 1);
  CHECK(run(b.engine, g, {y})[0] == eager);
  CHECK(b.engine.stats().background_compiles == 1);  // not tried again
}

TEST_CASE("a compile in the background does not hold up the next new plan", "[background]") {
  TempDir dir;
  GatedCompiler compiler(dir.path());
  BackgroundEngine b(compiler.command());
  ir::ValueRef y1, y2;
  TestGraph g1 = chain(&y1, 100);
  TestGraph g2 = chain(&y2, 200);
  run(b.engine, g1, {y1});
  compiler.wait_started();  // g1's compiler runs, held at the gate
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    compiler.open();
  });
  // Planning g2 asks the kernel cache whether its kernels are in: an answer, not a wait for
  // g1's compiler (which holds no lock of the cache's while it runs).
  run(b.engine, g2, {y2});
  CHECK_FALSE(compiler.is_open());
  CHECK(b.engine.stats().background_compiles == 2);
  opener.join();
}

TEST_CASE("past the background limit a new plan runs unfused and is planned again",
          "[background]") {
  TempDir dir;
  GatedCompiler compiler(dir.path());
  BackgroundEngine b(compiler.command(), /*max_background=*/1);
  ir::ValueRef y1, y2;
  TestGraph g1 = chain(&y1, 100);
  TestGraph g2 = chain(&y2, 200);
  run(b.engine, g1, {y1});  // in the background, held at the gate
  CHECK(b.engine.stats().background_compiles == 1);
  const std::vector<float> eager = run(b.engine, g2, {y2}, engine::CompileMode::Eager)[0];
  // The queue is full: g2 runs unfused (the worker does not wait for a compiler) and stays
  // out of the plan cache.
  const uint64_t misses = b.engine.stats().plan_cache_misses;
  CHECK(run(b.engine, g2, {y2})[0] == eager);
  CHECK(run(b.engine, g2, {y2})[0] == eager);
  CHECK(b.engine.stats().plan_cache_misses == misses + 2);
  CHECK(b.engine.stats().background_compiles_deferred == 2);
  CHECK(b.engine.stats().background_compiles == 1);
  CHECK(b.kernels->stats().compiles == 0);

  compiler.open();
  const std::vector<ir::ValueRef> outputs{y1};
  engine::explain(b.engine, g1.graph, g1.types, outputs, engine::CompileMode::Default);
  // g2's next run plans again and finds its kernel in: g1's, since sizes are arguments.
  engine::PlanInfo info;
  CHECK(plan_now(b.engine, g2, y2, &info)->groups.size() == 1);
  CHECK_FALSE(info.compiling);
  CHECK(b.engine.stats().background_compiles == 1);
  CHECK(b.kernels->stats().compiles == 1);
}

TEST_CASE("an engine destroyed while kernels compile waits for the running compile",
          "[background]") {
  TempDir dir;
  GatedCompiler compiler(dir.path());
  std::thread opener;
  {
    BackgroundEngine b(compiler.command());
    ir::ValueRef y1, y2;
    TestGraph g1 = chain(&y1, 100);
    TestGraph g2 = chain(&y2, 200);
    run(b.engine, g1, {y1});
    run(b.engine, g2, {y2});  // queued behind the first
    CHECK(b.engine.stats().background_compiles == 2);
    opener = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      compiler.open();
    });
  }  // the first compile finishes; the second is dropped
  opener.join();
}
