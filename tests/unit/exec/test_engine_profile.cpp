// Engine::run under a RunProfile on the real CPU backend: spans nest and cover the run, steps
// carry the user's lines, the memory ledger balances, and an OOM error carries the report.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/exec/engine.h"
#include "engine/profiler/chrome.h"
#include "engine/profiler/compact.h"
#include "tests/support/profiler/chrome_check.h"
#include "tests/support/profiler/drain.h"

using tensord::test::drain;

namespace ir = tensord::ir;
namespace profiler = tensord::profiler;
using tensord::engine::CompileMode;
using tensord::engine::Engine;
using tensord::engine::RunProfile;
using tensord::engine::TensorValue;
using Ints = std::vector<int64_t>;

namespace {

ir::Attrs full_attrs(Ints shape, double value) {
  return {{ir::Attr::shape, std::move(shape)},
          {ir::Attr::value, value},
          {ir::Attr::dtype, ir::DType::Float32}};
}

// x + 1 at line 10, relu at 11, matmul with a constant at 12, sum at 13.
struct Program {
  ir::Graph graph;
  ir::ValueRef y;
  Program() {
    uint32_t file = graph.intern_file("model.py");
    auto x = graph.add_input(0, {ir::DType::Float32, {64, 64}}, {file, 9});
    auto one = graph.add(ir::Op::full, {}, full_attrs({}, 1.0), {file, 10});
    auto a = graph.add(ir::Op::add, {x, one}, {}, {file, 10});
    auto r = graph.add(ir::Op::relu, {a}, {}, {file, 11});
    auto w = graph.add(ir::Op::full, {}, full_attrs({64, 64}, 0.5), {file, 12});
    auto m = graph.add(ir::Op::matmul, {r, w}, {}, {file, 12});
    y = graph.add(ir::Op::sum, {m}, {{ir::Attr::axes, Ints{1}}}, {file, 13});
  }
};

bool is(const profiler::Record& r, profiler::Stage s) {
  return r.kind == profiler::RecordKind::Span && static_cast<profiler::Stage>(r.stage) == s;
}

}  // namespace

TEST_CASE("a profiled run traces every stage and step with the user's lines") {
  tensord::cpu::CpuBackend backend(1);
  Engine engine(backend);
  RunProfile profile{std::make_shared<profiler::Profiler>(1),
                     std::make_shared<profiler::MemoryLedger>(), 0};
  profile.profiler->start({.trace = true, .memory = true});
  TensorValue x =
      TensorValue::contiguous(backend.allocate(64 * 64 * 4), {ir::DType::Float32, {64, 64}});
  std::vector<float> ones(64 * 64, 1.0f);
  backend.write(*x.buffer, 0, ones.data(), ones.size() * 4);
  for (uint64_t request = 1; request <= 2; ++request) {
    profile.request = request;
    Program p;
    auto out =
        engine.run(p.graph, std::vector{x}, std::vector{p.y}, CompileMode::Default, &profile);
    REQUIRE(out.size() == 1);
    CHECK(profile.ledger->totals().live_blocks == 1);  // the output only
  }
  CHECK(profile.ledger->totals().live_bytes == 0);  // the outputs went too
  profiler::Trace t = drain(*profile.profiler);

  for (uint64_t request = 1; request <= 2; ++request) {
    const profiler::Record* execute = nullptr;
    std::vector<const profiler::Record*> steps;
    int validate = 0, lookup = 0, build = 0;
    for (const auto& r : t.records) {
      if (r.request != request) continue;
      validate += is(r, profiler::Stage::Validate);
      lookup += is(r, profiler::Stage::PlanLookup);
      build += is(r, profiler::Stage::PlanBuild);
      if (is(r, profiler::Stage::Execute)) execute = &r;
      if (is(r, profiler::Stage::Step)) steps.push_back(&r);
      if (is(r, profiler::Stage::PlanLookup)) {
        CHECK(((r.flags & profiler::kCacheHit) != 0) == (request == 2));
      }
    }
    CHECK(validate == 1);
    CHECK(lookup == 1);
    CHECK(build == (request == 1 ? 1 : 0));
    REQUIRE(execute != nullptr);
    CHECK(execute->value == steps.size());
    REQUIRE(steps.size() >= 4);
    std::vector<std::string> ops;
    for (const auto* s : steps) {
      // Steps nest inside the execute span and name the user's file and line.
      CHECK(s->start_ns >= execute->start_ns);
      CHECK(s->start_ns + s->dur_ns <= execute->start_ns + execute->dur_ns);
      CHECK(t.str(s->file) == "model.py");
      ops.push_back(t.str(s->name));
      if (t.str(s->name) == "matmul") CHECK(s->line == 12);
      if (t.str(s->name) == "relu") CHECK(s->line == 11);
      if (t.str(s->name) == "sum") CHECK(s->line == 13);
    }
    CHECK(std::find(ops.begin(), ops.end(), "matmul") != ops.end());
  }
  // Memory: every block allocated was freed, and allocations name their op and line.
  int64_t balance = 0;
  size_t allocs = 0;
  for (const auto& r : t.records) {
    if (r.kind == profiler::RecordKind::Alloc) {
      allocs++;
      balance += static_cast<int64_t>(r.bytes);
      CHECK(t.str(r.file) == "model.py");
      CHECK(r.line >= 10);
    } else if (r.kind == profiler::RecordKind::Free) {
      balance -= static_cast<int64_t>(r.bytes);
    }
  }
  CHECK(allocs >= 4);
  CHECK(balance == 0);
  auto check = tensord::test::check_chrome_trace(profiler::chrome_trace_json(t));
  CHECK(check.errors == std::vector<std::string>{});
}

TEST_CASE("an unprofiled run records nothing, a stopped profiler neither") {
  tensord::cpu::CpuBackend backend(1);
  Engine engine(backend);
  RunProfile profile{std::make_shared<profiler::Profiler>(1),
                     std::make_shared<profiler::MemoryLedger>(), 1};
  TensorValue x =
      TensorValue::contiguous(backend.allocate(64 * 64 * 4), {ir::DType::Float32, {64, 64}});
  Program p;
  engine.run(p.graph, std::vector{x}, std::vector{p.y}, CompileMode::Default, &profile);
  profile.profiler->start({.trace = true, .memory = true});
  profile.profiler->stop();
  engine.run(p.graph, std::vector{x}, std::vector{p.y}, CompileMode::Default, &profile);
  CHECK(drain(*profile.profiler).records.empty());
  CHECK(profile.ledger->totals().allocs == 0);
}

TEST_CASE("out of memory carries the report: what is live, top holders by line") {
  tensord::cpu::CpuBackend backend(1);
  tensord::engine::EngineOptions options;
  options.limits.max_tensor_bytes = int64_t{1} << 52;
  Engine engine(backend, options);
  RunProfile profile{std::make_shared<profiler::Profiler>(5),
                     std::make_shared<profiler::MemoryLedger>(), 3};
  profile.profiler->start({.trace = true, .memory = true});
  ir::Graph g;
  uint32_t file = g.intern_file("big.py");
  auto small = g.add(ir::Op::full, {}, full_attrs({1 << 16}, 1.0), {file, 20});
  // 2^46 float32: 256 TiB, which no allocator here can give.
  auto huge =
      g.add(ir::Op::full, {}, full_attrs({int64_t{1} << 23, int64_t{1} << 23}, 2.0), {file, 21});
  try {
    engine.run(g, {}, std::vector{small, huge}, CompileMode::Default, &profile);
    FAIL("a 256 TiB tensor was allocated");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == tensord::ErrorCode::OutOfMemory);
    std::string m = e.message();
    INFO(m);
    CHECK(m.find("requested by big.py:21 (full)") != std::string::npos);
    CHECK(m.find("session 5 262144 B") != std::string::npos);
    CHECK(m.find("big.py:20 (full) 262144 B in 1 block") != std::string::npos);
    CHECK(e.where().str() == "big.py:21");
  }
  CHECK(profile.ledger->totals().live_bytes == 0);
  profiler::Trace t = drain(*profile.profiler);
  size_t ooms = 0;
  for (const auto& r : t.records) ooms += r.kind == profiler::RecordKind::Oom;
  CHECK(ooms == 1);
}

TEST_CASE("kernel scratch of planned and data-dependent steps is in the ledger, named and freed") {
  tensord::cpu::CpuBackend backend(1);
  Engine engine(backend);
  RunProfile profile{std::make_shared<profiler::Profiler>(1),
                     std::make_shared<profiler::MemoryLedger>(), 4};
  backend.set_memory_ledger(profile.ledger);
  profile.profiler->start({.trace = false, .memory = true});
  // det of a 96x96 matrix at line 20 (a 72 KiB LAPACK work array), unique of 16384 values at
  // line 21 (a data-dependent node: its sort order, 128 KiB, and a widened copy).
  ir::Graph g;
  uint32_t file = g.intern_file("model.py");
  auto a = g.add_input(0, {ir::DType::Float64, {96, 96}}, {file, 19});
  auto v = g.add_input(1, {ir::DType::Float64, {16384}}, {file, 19});
  auto d = g.add(ir::Op::det, {a}, {}, {file, 20});
  auto u = g.add(ir::Op::unique, {v}, {}, {file, 21});
  std::vector<double> eye(96 * 96, 0.0), vals(16384);
  for (int i = 0; i < 96; ++i) eye[i * 96 + i] = 1.0;
  for (size_t i = 0; i < vals.size(); ++i) vals[i] = static_cast<double>(i % 1000);
  TensorValue at =
      TensorValue::contiguous(backend.allocate(eye.size() * 8), {ir::DType::Float64, {96, 96}});
  TensorValue vt =
      TensorValue::contiguous(backend.allocate(vals.size() * 8), {ir::DType::Float64, {16384}});
  backend.write(*at.buffer, 0, eye.data(), eye.size() * 8);
  backend.write(*vt.buffer, 0, vals.data(), vals.size() * 8);
  auto out = engine.run(g, std::vector{at, vt}, std::vector{d, u}, CompileMode::Default, &profile);
  REQUIRE(out.size() == 2);
  CHECK(out[1].type.shape == ir::Shape{1000});
  constexpr size_t kScratch = static_cast<size_t>(profiler::MemoryCategory::Scratch);
  CHECK(profile.ledger->totals().live_by_category[kScratch] == 0);
  out.clear();
  CHECK(profile.ledger->totals().live_bytes == 0);

  profiler::Trace t = drain(*profile.profiler);
  std::map<std::string, uint64_t> scratch_by_op;
  int64_t balance = 0;
  for (const auto& r : t.records) {
    if (static_cast<profiler::MemoryCategory>(r.stage) != profiler::MemoryCategory::Scratch)
      continue;
    if (r.kind == profiler::RecordKind::Alloc) {
      scratch_by_op[t.str(r.name)] += r.bytes;
      balance += static_cast<int64_t>(r.bytes);
      CHECK(t.str(r.file) == "model.py");
      CHECK(r.line == (t.str(r.name) == "det" ? 20u : 21u));
      CHECK(r.request == 4);
    } else if (r.kind == profiler::RecordKind::Free) {
      balance -= static_cast<int64_t>(r.bytes);
    }
  }
  CHECK(balance == 0);
  CHECK(scratch_by_op["det"] >= 96 * 96 * 8);
  CHECK(scratch_by_op["unique"] >= 16384 * 8);
  // unique's outputs (allocated by its kernel, not by the executor) are the session's tensors,
  // at its line: its values (1000 doubles) and its inverse indices (16384 int64).
  uint64_t unique_tensors = 0;
  for (const auto& r : t.records) {
    if (r.kind == profiler::RecordKind::Alloc && t.str(r.name) == "unique" &&
        static_cast<profiler::MemoryCategory>(r.stage) == profiler::MemoryCategory::Tensor) {
      unique_tensors += r.bytes;
      CHECK(r.line == 21);
    }
  }
  CHECK(unique_tensors >= (1000 + 16384) * 8);

  // The step's site goes with the run: an unprofiled run after it tracks nothing.
  profile.profiler->stop();
  const uint64_t allocs = profile.ledger->totals().allocs;
  engine.run(g, std::vector{at, vt}, std::vector{d, u}, CompileMode::Default, nullptr);
  CHECK(profile.ledger->totals().allocs == allocs);
}

TEST_CASE("the node that sizes a segment is traced as a step at the user's line") {
  tensord::cpu::CpuBackend backend(1);
  Engine engine(backend);
  RunProfile profile{std::make_shared<profiler::Profiler>(1),
                     std::make_shared<profiler::MemoryLedger>(), 7};
  profile.profiler->start({.trace = true, .memory = false});
  ir::Graph g;
  const uint32_t file = g.intern_file("mask.py");
  auto x = g.add_input(0, {ir::DType::Float32, {4, 8}}, {file, 1});
  auto zero = g.add(ir::Op::full, {}, full_attrs({}, 0.0), {file, 2});
  auto mask = g.add(ir::Op::gt, {x, zero}, {}, {file, 2});
  auto where = g.add(ir::Op::flatnonzero, {mask}, {}, {file, 3});
  auto y = g.add(ir::Op::sum, {where}, {}, {file, 4});
  TensorValue in =
      TensorValue::contiguous(backend.allocate(4 * 8 * 4), {ir::DType::Float32, {4, 8}});
  std::vector<float> values(32);
  for (size_t i = 0; i < values.size(); ++i) values[i] = i % 3 == 0 ? 1.0f : -1.0f;
  backend.write(*in.buffer, 0, values.data(), values.size() * 4);
  auto out = engine.run(g, std::vector{in}, std::vector{y}, CompileMode::Default, &profile);
  REQUIRE(out.size() == 1);
  profiler::Trace t = drain(*profile.profiler);
  const profiler::Record* sizing = nullptr;
  for (const auto& r : t.records) {
    if (is(r, profiler::Stage::Step) && t.str(r.name) == "flatnonzero") sizing = &r;
  }
  REQUIRE(sizing != nullptr);
  CHECK(sizing->request == 7);
  CHECK(t.str(sizing->file) == "mask.py");
  CHECK(sizing->line == 3);
  CHECK(sizing->dur_ns >= 0);
  CHECK(sizing->bytes == 32 + 11 * 8);  // the mask in, 11 positions out
  auto check = tensord::test::check_chrome_trace(profiler::chrome_trace_json(t));
  CHECK(check.errors == std::vector<std::string>{});
}
