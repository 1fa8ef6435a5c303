// Matmul epilogues (engine/plan/epilogue.h, cpu/epilogue_tuning.h): which chains after a matmul
// the fusion pass takes and why it leaves the others, that oneDNN's post-ops give the unfused
// pair's results, and that the measured decision is kept on disk for the next backend.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <numeric>

#include "engine/backends/cpu/epilogue_tuning.h"
#include "engine/exec/explain.h"
#include "tests/unit/fusion/fusion_support.h"

using namespace tensord;
using namespace tensord::fusion_test;
using engine::CompileMode;
using engine::Plan;
using ir::Attr;
using ir::Op;

namespace {

std::shared_ptr<const Plan> plan_of(engine::Engine& e, const TestGraph& g,
                                    std::vector<ir::ValueRef> outputs,
                                    CompileMode mode = CompileMode::Default) {
  ir::Graph copy = g.graph;
  return e.plan_for(copy, g.types, outputs, mode);
}

// The epilogue of the plan's one matmul group ("" when none).
std::string epilogue_of(const Plan& p) {
  for (const engine::FusedGroup& g : p.groups) {
    if (g.epilogue) return g.epilogue->text();
  }
  return "";
}

// Why the plan's matmul did not take its consumers.
std::string matmul_boundary(const Plan& p) {
  for (size_t n = 0; n < p.nodes.size(); ++n) {
    if (p.nodes[n].op == Op::matmul) return p.boundaries.at(n);
  }
  return "no matmul";
}

size_t total_slot_bytes(const Plan& p) {
  return std::accumulate(p.slot_bytes.begin(), p.slot_bytes.end(), size_t{0});
}

// x [rows, in] and w [out, in], bias [out].
struct Linear {
  TestGraph g;
  ir::ValueRef x, w, b, y;
  Linear(int64_t rows, int64_t in, int64_t out) {
    x = g.input({rows, in});
    w = g.input({out, in}, -0.3f, 0.3f);
    b = g.input({out});
    y = g.add(Op::linear, {x, w, b});
  }
};

// Fused (oneDNN post-ops forced), unfused (forced) and eager agree.
void check_paths(FusedEngine& f, const TestGraph& g, ir::ValueRef out, double tol = 2e-5) {
  cpu::EpilogueTuning& tuning = *f.backend.epilogue_tuning();
  const auto eager = run(f.engine, g, {out}, CompileMode::Eager);
  const auto before = tuning.stats();
  tuning.force(true);
  const auto fused = run(f.engine, g, {out});
  CHECK(tuning.stats().fused_runs == before.fused_runs + 1);  // oneDNN took it
  tuning.force(false);
  const auto unfused = run(f.engine, g, {out});
  CHECK(tuning.stats().unfused_runs == before.unfused_runs + 1);
  tuning.force(std::nullopt);
  CHECK(max_rel_diff(fused[0], eager[0]) <= tol);
  CHECK(max_rel_diff(unfused[0], eager[0]) <= tol);
}

}  // namespace

TEST_CASE("linear with bias and an activation becomes one matmul epilogue group", "[epilogue]") {
  struct Case {
    const char* want;
    std::function<ir::ValueRef(TestGraph&, ir::ValueRef)> act;
  };
  const std::vector<Case> cases = {
      {"bias_row+gelu_erf", [](TestGraph& g, ir::ValueRef y) { return g.add(Op::gelu, {y}); }},
      {"bias_row+gelu_tanh",
       [](TestGraph& g, ir::ValueRef y) {
         return g.add(Op::gelu, {y}, {{Attr::tanh, true}});
       }},
      {"bias_row+relu", [](TestGraph& g, ir::ValueRef y) { return g.add(Op::relu, {y}); }},
      {"bias_row+silu", [](TestGraph& g, ir::ValueRef y) { return g.add(Op::silu, {y}); }},
      {"bias_row+sigmoid", [](TestGraph& g, ir::ValueRef y) { return g.add(Op::sigmoid, {y}); }},
      {"bias_row+tanh", [](TestGraph& g, ir::ValueRef y) { return g.add(Op::tanh, {y}); }},
      {"bias_row+linear(0.125,0)+linear(1,-1)",
       [](TestGraph& g, ir::ValueRef y) {
         return g.add(Op::sub, {g.add(Op::mul, {g.scalar(0.125), y}), g.scalar(1)});
       }},
  };
  FusedEngine f;
  for (const Case& c : cases) {
    INFO(c.want);
    Linear l(37, 64, 48);
    const ir::ValueRef out = c.act(l.g, l.y);
    auto plan = plan_of(f.engine, l.g, {out});
    REQUIRE(plan->groups.size() == 1);
    CHECK(plan->steps.size() == 1);
    CHECK(epilogue_of(*plan) == c.want);
    CHECK(plan->nodes[plan->groups[0].members.front()].op == Op::matmul);
    CHECK(plan_of(f.engine, l.g, {out}, CompileMode::Eager)->groups.empty());
    check_paths(f, l.g, out);
  }
}

TEST_CASE("a residual add, a batched matmul and a plain matmul take epilogues", "[epilogue]") {
  FusedEngine f;
  {
    TestGraph g;
    ir::ValueRef a = g.input({40, 24}), b = g.input({24, 56}), r = g.input({40, 56});
    ir::ValueRef out = g.add(Op::relu, {g.add(Op::add, {r, g.add(Op::matmul, {a, b})})});
    auto plan = plan_of(f.engine, g, {out});
    CHECK(epilogue_of(*plan) == "residual+relu");
    check_paths(f, g, out);
  }
  {
    TestGraph g;
    ir::ValueRef a = g.input({3, 17, 32}), b = g.input({3, 32, 24}), bias = g.input({1, 24});
    ir::ValueRef out = g.add(Op::silu, {g.add(Op::add, {g.add(Op::matmul, {a, b}), bias})});
    auto plan = plan_of(f.engine, g, {out});
    CHECK(epilogue_of(*plan) == "bias_row+silu");
    check_paths(f, g, out);
  }
  {
    // A transposed operand (a view) and a bias that is not the first stage (a binary post-op).
    TestGraph g;
    ir::ValueRef a = g.input({29, 16}), b = g.input({40, 16}), bias = g.input({40});
    ir::ValueRef bt = g.add(Op::permute, {b}, {{Attr::dims, std::vector<int64_t>{1, 0}}});
    ir::ValueRef t = g.add(Op::tanh, {g.add(Op::matmul, {a, bt})});
    ir::ValueRef out = g.add(Op::add, {t, bias});
    auto plan = plan_of(f.engine, g, {out});
    CHECK(epilogue_of(*plan) == "tanh+bias_row");
    check_paths(f, g, out);
  }
}

TEST_CASE("an epilogue oneDNN 2.6 computes wrongly runs unfused", "[epilogue]") {
  // Its brgemm matmul gives a second eltwise_linear post-op the first one's parameters.
  FusedEngine f;
  TestGraph g;
  ir::ValueRef y = g.add(Op::matmul, {g.input({12, 16}), g.input({16, 20})});
  ir::ValueRef t = g.add(Op::tanh, {g.add(Op::mul, {y, g.scalar(2)})});
  ir::ValueRef out = g.add(Op::add, {t, g.scalar(1)});
  CHECK(epilogue_of(*plan_of(f.engine, g, {out})) == "linear(2,0)+tanh+linear(1,1)");
  cpu::EpilogueTuning& tuning = *f.backend.epilogue_tuning();
  tuning.force(true);
  const auto fused = run(f.engine, g, {out});
  CHECK(tuning.stats().fused_runs == 0);
  CHECK(tuning.stats().unfused_runs == 1);
  CHECK(max_rel_diff(fused[0], run(f.engine, g, {out}, CompileMode::Eager)[0]) <= 1e-5);
  // Adjacent linear stages are composed into one post-op, which oneDNN gets right.
  TestGraph h;
  y = h.add(Op::matmul, {h.input({12, 16}), h.input({16, 20})});
  out = h.add(Op::sub, {h.add(Op::mul, {y, h.scalar(0.5)}), h.scalar(3)});
  check_paths(f, h, out);
}

TEST_CASE("matmuls whose consumers are no epilogue are left alone, with the reason", "[epilogue]") {
  FusedEngine f;
  SECTION("a second consumer of the product") {
    TestGraph g;
    ir::ValueRef y = g.add(Op::matmul, {g.input({8, 16}), g.input({16, 8})});
    ir::ValueRef r = g.add(Op::relu, {y}), e = g.add(Op::exp, {y});
    auto plan = plan_of(f.engine, g, {r, e});
    CHECK(epilogue_of(*plan).empty());
    CHECK_THAT(matmul_boundary(*plan), Catch::Contains("2 consumers"));
  }
  SECTION("the product is an output") {
    TestGraph g;
    ir::ValueRef y = g.add(Op::matmul, {g.input({8, 16}), g.input({16, 8})});
    auto plan = plan_of(f.engine, g, {y, g.add(Op::relu, {y})});
    CHECK(epilogue_of(*plan).empty());
    CHECK_THAT(matmul_boundary(*plan), Catch::Contains("output of the graph"));
  }
  SECTION("a bias that is not a row") {
    TestGraph g;
    ir::ValueRef y = g.add(Op::matmul, {g.input({8, 16}), g.input({16, 8})});
    auto plan = plan_of(f.engine, g, {g.add(Op::add, {y, g.input({8, 1})})});
    CHECK(epilogue_of(*plan).empty());
    CHECK_THAT(matmul_boundary(*plan), Catch::Contains("neither a bias row [8]"));
  }
  SECTION("an op no epilogue has") {
    TestGraph g;
    ir::ValueRef y = g.add(Op::matmul, {g.input({8, 16}), g.input({16, 8})});
    auto plan = plan_of(f.engine, g, {g.add(Op::exp, {y})});
    CHECK(epilogue_of(*plan).empty());
    CHECK_THAT(matmul_boundary(*plan), Catch::Contains("exp is not an epilogue op"));
  }
  SECTION("float64") {
    TestGraph g;
    const ir::Attrs f64 = {{Attr::dtype, ir::DType::Float64}};
    ir::ValueRef a = g.add(Op::cast, {g.input({8, 16})}, f64);
    ir::ValueRef b = g.add(Op::cast, {g.input({16, 8})}, f64);
    auto plan = plan_of(f.engine, g, {g.add(Op::relu, {g.add(Op::matmul, {a, b})})});
    CHECK(epilogue_of(*plan).empty());
    CHECK_THAT(matmul_boundary(*plan), Catch::Contains("float64: epilogues fuse for float32 only"));
  }
  SECTION("the chain shares a kernel with other ops") {
    // relu(x @ w) + exp(z): the add joins z's chain, so the relu would have to leave it.
    TestGraph g;
    ir::ValueRef y = g.add(Op::matmul, {g.input({8, 16}), g.input({16, 8})});
    ir::ValueRef z = g.add(Op::exp, {g.add(Op::neg, {g.input({8, 8})})});
    ir::ValueRef out = g.add(Op::mul, {g.add(Op::relu, {y}), z});
    auto plan = plan_of(f.engine, g, {out});
    CHECK(epilogue_of(*plan).empty());
    CHECK_THAT(matmul_boundary(*plan), Catch::Contains("share a generated kernel"));
  }
}

TEST_CASE("explain shows a matmul's epilogue", "[epilogue]") {
  FusedEngine f;
  Linear l(16, 32, 8);
  const ir::ValueRef out = l.g.add(Op::gelu, {l.y});
  ir::Graph copy = l.g.graph;
  const ir::ValueRef outs[] = {out};
  const engine::Explanation e =
      engine::explain(f.engine, copy, l.g.types, outs, CompileMode::Default);
  CHECK_THAT(e.text(), Catch::Contains("matmul epilogue bias_row+gelu_erf"));
  REQUIRE(e.groups.size() == 1);
  CHECK(e.groups[0].ops.front() == "matmul");
}

TEST_CASE("an epilogue never holds more memory than the unfused plan", "[epilogue]") {
  FusedEngine f;
  Linear l(64, 32, 96);
  const ir::ValueRef out = l.g.add(Op::gelu, {l.y});
  auto fused = plan_of(f.engine, l.g, {out});
  auto eager = plan_of(f.engine, l.g, {out}, CompileMode::Eager);
  REQUIRE(!epilogue_of(*fused).empty());
  // The fused step writes its output only; the unfused pair's product is a temporary of that
  // step alone, which the eager plan holds in a slot too.
  CHECK(total_slot_bytes(*fused) == 64 * 96 * sizeof(float));
  CHECK(total_slot_bytes(*fused) + 64 * 96 * sizeof(float) <= total_slot_bytes(*eager));
}

TEST_CASE("the measured decision is kept on disk and read by the next backend", "[epilogue]") {
  TempDir dir;
  Linear l(48, 64, 80);
  const ir::ValueRef out = l.g.add(Op::relu, {l.y});
  std::vector<std::vector<float>> first;
  {
    FusedEngine f(dir.path());
    first = run(f.engine, l.g, {out});
    const auto eager = run(f.engine, l.g, {out}, CompileMode::Eager);
    CHECK(max_rel_diff(first[0], eager[0]) <= 1e-5);
    CHECK(f.backend.epilogue_tuning()->stats().measured == 1);
    run(f.engine, l.g, {out});
    CHECK(f.backend.epilogue_tuning()->stats().measured == 1);  // decided once per problem
    const auto s = f.backend.epilogue_tuning()->stats();
    CHECK(s.fused_runs + s.unfused_runs == 2);
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir.path() + "/tune")) {
    if (e.path().filename().string().starts_with("matmul-epilogue-")) files.push_back(e.path());
  }
  REQUIRE(files.size() == 1);
  {
    FusedEngine again(dir.path());
    CHECK(max_rel_diff(run(again.engine, l.g, {out})[0], first[0]) <= 1e-5);
    CHECK(again.backend.epilogue_tuning()->stats().measured == 0);
    CHECK(again.backend.epilogue_tuning()->stats().from_disk == 1);
  }
  std::ofstream(files[0]) << "garbage\n";
  {
    FusedEngine corrupt(dir.path());
    run(corrupt.engine, l.g, {out});
    CHECK(corrupt.backend.epilogue_tuning()->stats().measured == 1);  // measured again
  }
  std::ifstream in(files[0]);
  std::string word;
  in >> word;
  CHECK(word == "fused");
}
