// tensord-replay --shrink's moves and search (tools/replay/shrink.h), with a failure given as a
// property of the graph (the replay itself runs each candidate: tests/integration/client).
#include "tools/replay/shrink.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

namespace tensord::replay {
namespace {

ir::TensorType f32(std::vector<int64_t> shape) {
  return {ir::DType::Float32, std::move(shape)};
}

// y = neg(tanh(exp(x))) + x * w, nodes: 0 x, 1 exp, 2 tanh, 3 neg, 4 w, 5 mul, 6 add.
engine::Reproducer program() {
  engine::Reproducer r;
  ir::Graph& g = r.graph;
  const ir::ValueRef x = g.add_input(0, f32({4}), {g.intern_file("train.py"), 7});
  const ir::ValueRef e = g.add(ir::Op::exp, {x});
  const ir::ValueRef t = g.add(ir::Op::tanh, {e}, {}, {1, 9});
  const ir::ValueRef n = g.add(ir::Op::neg, {t});
  const ir::ValueRef w = g.add_input(1, f32({4}));
  const ir::ValueRef m = g.add(ir::Op::mul, {x, w});
  r.outputs = {g.add(ir::Op::add, {n, m})};
  r.inputs = {f32({4}), f32({4})};
  r.error = "internal error in tanh";
  return r;
}

bool has(const engine::Reproducer& r, ir::Op op) {
  return std::any_of(r.graph.nodes.begin(), r.graph.nodes.end(),
                     [&](const ir::Node& n) { return n.op == op; });
}

// What a replay needs of a candidate: it validates with its own input types.
void check_valid(engine::Reproducer r) {
  REQUIRE_NOTHROW(ir::validate(r.graph, r.inputs, ir::Limits{}));
  REQUIRE_NOTHROW(ir::validate_outputs(r.graph, r.outputs));
}

TEST_CASE("ending at a node keeps only what it needs") {
  const engine::Reproducer r = program();
  const auto ended = end_at(r, 2);
  REQUIRE(ended);
  check_valid(*ended);
  CHECK(ended->graph.nodes.size() == 3);  // x, exp, tanh: w and the rest are gone
  CHECK(ended->inputs.size() == 1);
  CHECK(ended->outputs == std::vector<ir::ValueRef>{{2, 0}});
  CHECK(ended->graph.nodes[2].loc.line == 9);  // the user's lines stay
  CHECK(ended->graph.files == r.graph.files);
  CHECK(ended->error == r.error);
  CHECK_FALSE(end_at(r, 7));
}

TEST_CASE("the inputs kept keep their bytes; a cut node's value is regenerated") {
  engine::Reproducer r = program();
  const std::vector<std::byte> w(16, std::byte{7});
  r.values = {std::nullopt, w};
  const auto cut = cut_at(r, 3);  // inputs: x, the cut neg, w
  REQUIRE(cut);
  REQUIRE(cut->values.size() == 3);
  CHECK_FALSE(cut->values[0]);
  CHECK_FALSE(cut->values[1]);
  CHECK(cut->values[2] == w);
  const auto ended = end_at(r, 5);  // x * w
  REQUIRE(ended);
  CHECK(ended->values == std::vector<engine::InputBytes>{std::nullopt, w});
}

TEST_CASE("cutting a node makes it an input and drops what only it needed") {
  const engine::Reproducer r = program();
  const auto cut = cut_at(r, 3);  // neg: tanh and exp go, x stays for the mul
  REQUIRE(cut);
  check_valid(*cut);
  CHECK(op_count(*cut) == 2);
  CHECK_FALSE(has(*cut, ir::Op::tanh));
  CHECK_FALSE(has(*cut, ir::Op::exp));
  // Inputs are numbered in node order: x, the cut neg, w.
  REQUIRE(cut->inputs.size() == 3);
  CHECK(cut->graph.nodes[1].attrs.get_int(ir::Attr::index) == 1);
  CHECK(cut->graph.nodes[2].attrs.get_int(ir::Attr::index) == 2);
  CHECK(cut->values.size() == 3);
  CHECK_FALSE(cut_at(r, 0));   // already an input
  CHECK_FALSE(cut_at(r, 99));  // no such node
}

TEST_CASE("shrinking keeps the failing op and as little else as still fails") {
  const engine::Reproducer r = program();
  std::vector<std::string> steps;
  ShrinkOptions options;
  options.progress = [&](const std::string& line) { steps.push_back(line); };
  const Shrunk s = shrink(
      r, [](const engine::Reproducer& c) { return has(c, ir::Op::tanh); }, options);
  check_valid(s.smallest);
  CHECK(op_count(s.smallest) == 1);
  CHECK(has(s.smallest, ir::Op::tanh));
  CHECK(s.smallest.inputs.size() == 1);
  CHECK(s.kept == steps.size());
  REQUIRE_FALSE(steps.empty());
  CHECK(steps.front() == "ended at node 2 (tanh): 2 ops, 1 inputs, 1 output");

  // A failure that needs two ops keeps both.
  const Shrunk both = shrink(
      r, [](const engine::Reproducer& c) { return has(c, ir::Op::tanh) && has(c, ir::Op::mul); });
  check_valid(both.smallest);
  CHECK(has(both.smallest, ir::Op::tanh));
  CHECK(has(both.smallest, ir::Op::mul));
  CHECK(op_count(both.smallest) < op_count(r));
}

TEST_CASE("shrinking stops at its attempts and keeps the graph when nothing smaller fails") {
  const engine::Reproducer r = program();
  size_t runs = 0;
  ShrinkOptions options;
  options.max_attempts = 3;
  const Shrunk s = shrink(
      r,
      [&](const engine::Reproducer&) {
        ++runs;
        return false;
      },
      options);
  CHECK(runs == 3);
  CHECK(s.attempts == 3);
  CHECK(s.kept == 0);
  CHECK(op_count(s.smallest) == op_count(r));
}

}  // namespace
}  // namespace tensord::replay
