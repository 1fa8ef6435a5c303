// The planner on hand-built graphs of primitives: views, inserted copies, outputs, buffer reuse.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/plan/plan.h"

namespace ir = tensord::ir;
using tensord::engine::build_plan;
using tensord::engine::is_contiguous;
using tensord::engine::Plan;
using tensord::engine::PlanValue;
using tensord::engine::SlotId;
using tensord::engine::ValueBase;
using tensord::engine::ValueId;
using Ints = std::vector<int64_t>;

namespace {

ir::TensorType f32(Ints shape) {
  return ir::TensorType{ir::DType::Float32, std::move(shape)};
}

ir::ValueRef unary(ir::Graph& g, ir::Op op, ir::ValueRef x) {
  return g.add(op, {x});
}
ir::ValueRef permute(ir::Graph& g, ir::ValueRef x, Ints dims) {
  return g.add(ir::Op::permute, {x}, {{ir::Attr::dims, std::move(dims)}});
}
ir::ValueRef reshape(ir::Graph& g, ir::ValueRef x, Ints shape) {
  return g.add(ir::Op::reshape, {x}, {{ir::Attr::shape, std::move(shape)}});
}
ir::ValueRef expand(ir::Graph& g, ir::ValueRef x, Ints shape) {
  return g.add(ir::Op::expand, {x}, {{ir::Attr::shape, std::move(shape)}});
}
ir::ValueRef slice(ir::Graph& g, ir::ValueRef x, int64_t axis, int64_t start, int64_t stop,
                   int64_t step) {
  return g.add(ir::Op::slice, {x},
               {{ir::Attr::axis, axis},
                {ir::Attr::start, start},
                {ir::Attr::stop, stop},
                {ir::Attr::step, step}});
}

std::vector<ir::Op> kernel_ops(const Plan& plan) {
  std::vector<ir::Op> ops;
  for (const auto& step : plan.steps) ops.push_back(plan.nodes[step.node].op);
  return ops;
}

// What every plan must satisfy, checked by replaying it: a value is only read while its buffer
// still holds it (no later kernel wrote over the slot, the slot was not released), a kernel
// never writes a slot it reads, inputs are never written, and outputs are contiguous, whole,
// in slots that hold nothing else and are never released.
void check_plan(const Plan& plan) {
  const size_t num_slots = plan.slot_bytes.size();
  std::vector<ValueId> occupant(num_slots, UINT32_MAX);
  std::vector<int> occupants(num_slots, 0);
  std::vector<bool> released(num_slots, false);
  for (const auto& step : plan.steps) {
    std::set<SlotId> read;
    for (ValueId v : plan[step.inputs]) {
      const PlanValue& pv = plan.values[v];
      if (pv.base.kind != ValueBase::Kind::Slot) continue;
      REQUIRE(pv.base.index < num_slots);
      CHECK(!released[pv.base.index]);
      CHECK(occupant[pv.base.index] == pv.owner);
      read.insert(pv.base.index);
    }
    for (ValueId v : plan[step.outputs]) {
      const PlanValue& pv = plan.values[v];
      REQUIRE(pv.base.kind == ValueBase::Kind::Slot);
      CHECK(pv.owner == v);
      CHECK(pv.layout.offset == 0);
      CHECK(is_contiguous(pv.type.shape, pv.layout.strides));
      CHECK(!read.count(pv.base.index));
      CHECK(!released[pv.base.index]);
      CHECK(plan.slot_bytes[pv.base.index] >= pv.type.nbytes());
      occupant[pv.base.index] = v;
      ++occupants[pv.base.index];
    }
    for (SlotId s : plan[step.release]) {
      CHECK(!released[s]);
      released[s] = true;
    }
  }
  for (ValueId v : plan.outputs) {
    const PlanValue& pv = plan.values[v];
    CHECK(pv.layout.offset == 0);
    CHECK(is_contiguous(pv.type.shape, pv.layout.strides));
    CHECK(pv.type.nbytes() == plan.values[pv.owner].type.nbytes());
    if (pv.base.kind == ValueBase::Kind::Slot) {
      CHECK(occupant[pv.base.index] == pv.owner);
      CHECK(occupants[pv.base.index] == 1);
      CHECK(!released[pv.base.index]);
    }
  }
}

}  // namespace

TEST_CASE("a chain of viewable views needs no kernel and returns the input as is") {
  ir::Graph g;
  auto x = g.add_input(0, f32({2, 3, 4}));
  auto v = reshape(g, x, {6, 4});
  v = reshape(g, v, {24});
  v = reshape(g, v, {2, 12});
  auto t = permute(g, v, {1, 0});
  auto back = permute(g, t, {1, 0});
  Plan plan = build_plan(g, std::vector{back});
  check_plan(plan);
  CHECK(plan.steps.empty());
  CHECK(plan.slot_bytes.empty());
  const PlanValue& out = plan.values[plan.outputs[0]];
  CHECK(out.base.kind == ValueBase::Kind::Input);
  CHECK(out.type.shape == Ints{2, 12});
}

TEST_CASE("views into a kernel read strided inputs without copies") {
  ir::Graph g;
  auto x = g.add_input(0, f32({4, 3}));
  auto row = g.add_input(1, f32({1, 3}));
  auto t = permute(g, x, {1, 0});                         // (3, 4)
  auto s = slice(g, t, 1, 3, -100, -2);                   // (3, 2), negative stride
  auto e = expand(g, slice(g, row, 1, 0, 2, 1), {3, 2});  // stride 0 rows
  auto sum = g.add(ir::Op::add, {s, e});
  Plan plan = build_plan(g, std::vector{sum});
  check_plan(plan);
  CHECK(kernel_ops(plan) == std::vector{ir::Op::add});
  const auto inputs = plan[plan.steps[0].inputs];
  const PlanValue& a = plan.values[inputs[0]];
  CHECK(a.layout.strides == Ints{1, -6});
  CHECK(a.layout.offset == 9);
  const PlanValue& b = plan.values[inputs[1]];
  CHECK(b.layout.strides == Ints{0, 1});
}

TEST_CASE("reshape of a transposed value inserts a contiguous copy attributed to the reshape") {
  ir::Graph g;
  auto x = g.add_input(0, f32({2, 3}));
  auto t = permute(g, x, {1, 0});
  auto r = reshape(g, t, {6});
  auto y = unary(g, ir::Op::exp, r);
  Plan plan = build_plan(g, std::vector{y});
  check_plan(plan);
  REQUIRE(kernel_ops(plan) == std::vector{ir::Op::contiguous, ir::Op::exp});
  CHECK(plan.origin[plan.steps[0].node] == r.node);
  // The copy reads the transposed input and writes (3, 2) row-major; exp reads the view of it.
  const PlanValue& copy_in = plan.values[plan[plan.steps[0].inputs][0]];
  CHECK(copy_in.layout.strides == Ints{1, 3});
  const PlanValue& exp_in = plan.values[plan[plan.steps[1].inputs][0]];
  CHECK(exp_in.type.shape == Ints{6});
  CHECK(exp_in.base.index == plan.values[plan[plan.steps[0].outputs][0]].base.index);
}

TEST_CASE("outputs come back contiguous, at offset 0 and whole") {
  ir::Graph g;
  auto x = g.add_input(0, f32({4, 3}));
  auto t = permute(g, x, {1, 0});       // not contiguous
  auto tail = slice(g, x, 0, 1, 4, 1);  // contiguous, offset 3
  auto head = slice(g, x, 0, 0, 2, 1);  // contiguous, offset 0, not the whole buffer
  auto same = reshape(g, x, {12});      // the whole input: returned as is
  auto y = unary(g, ir::Op::neg, x);
  auto y_view = reshape(g, y, {2, 6});                  // a whole kernel output: no copy
  auto e = expand(g, reshape(g, y, {1, 12}), {2, 12});  // stride 0
  auto c = g.add(ir::Op::contiguous, {x});              // contiguous of contiguous: shared
  Plan plan = build_plan(g, std::vector{t, tail, head, same, y_view, e, c, t});
  check_plan(plan);
  CHECK(kernel_ops(plan) == std::vector{ir::Op::neg, ir::Op::contiguous, ir::Op::contiguous,
                                        ir::Op::contiguous, ir::Op::contiguous});
  CHECK(plan.values[plan.outputs[3]].base.kind == ValueBase::Kind::Input);
  CHECK(plan.values[plan.outputs[6]].base.kind == ValueBase::Kind::Input);
  CHECK(plan.outputs[0] == plan.outputs[7]);  // one copy for a value requested twice
  CHECK(plan.values[plan.outputs[4]].owner == plan.values[plan[plan.steps[0].outputs][0]].owner);
  // Each copy is attributed to the node whose value was requested.
  CHECK(plan.origin[plan.steps[1].node] == t.node);
  CHECK(plan.origin[plan.steps[4].node] == e.node);
}

TEST_CASE("a chain of 100 elementwise ops uses at most 3 buffer slots") {
  ir::Graph g;
  auto v = g.add_input(0, f32({16}));
  for (int i = 0; i < 100; ++i) v = unary(g, i % 2 ? ir::Op::neg : ir::Op::exp, v);
  Plan plan = build_plan(g, std::vector{v});
  check_plan(plan);
  CHECK(plan.steps.size() == 100);
  CHECK(plan.slot_bytes.size() <= 3);
  for (size_t bytes : plan.slot_bytes) CHECK(bytes == 64);
}

TEST_CASE("outputs keep slots of their own, even in the middle of a chain") {
  ir::Graph g;
  auto v = g.add_input(0, f32({8}));
  std::vector<ir::ValueRef> outs;
  for (int i = 0; i < 30; ++i) {
    v = unary(g, ir::Op::exp, v);
    if (i % 10 == 3) outs.push_back(v);
  }
  outs.push_back(v);
  Plan plan = build_plan(g, outs);
  check_plan(plan);  // includes: an output's slot holds nothing else and is never released
  std::set<SlotId> out_slots;
  for (ValueId o : plan.outputs) out_slots.insert(plan.values[o].base.index);
  CHECK(out_slots.size() == outs.size());
  CHECK(plan.slot_bytes.size() <= outs.size() + 2);
}

TEST_CASE("a value used late keeps its buffer alive, and its views do too") {
  ir::Graph g;
  auto x = g.add_input(0, f32({4, 4}));
  auto a = unary(g, ir::Op::exp, x);
  auto a_t = permute(g, a, {1, 0});  // the late use goes through a view of a
  auto v = a;
  for (int i = 0; i < 10; ++i) v = unary(g, ir::Op::neg, v);
  auto y = g.add(ir::Op::add, {v, a_t});
  Plan plan = build_plan(g, std::vector{y});
  check_plan(plan);
  const SlotId a_slot = plan.values[plan[plan.steps[0].outputs][0]].base.index;
  for (size_t i = 1; i + 1 < plan.steps.size(); ++i) {
    CHECK(plan.values[plan[plan.steps[i].outputs][0]].base.index != a_slot);
  }
  // a's slot is released after the add reads it, not before.
  for (size_t i = 0; i + 1 < plan.steps.size(); ++i) {
    for (SlotId s : plan[plan.steps[i].release]) CHECK(s != a_slot);
  }
  CHECK(plan.slot_bytes.size() == 4);  // a, two for the chain, the output
}

TEST_CASE("slots are sized for the largest value they hold") {
  ir::Graph g;
  auto x = g.add_input(0, f32({4}));
  auto big = expand(g, reshape(g, x, {1, 4}), {256, 4});
  auto y = unary(g, ir::Op::exp, big);                            // 4 KiB
  auto s = g.add(ir::Op::sum, {y}, {{ir::Attr::axes, Ints{0}}});  // 16 B
  auto z = unary(g, ir::Op::exp, s);
  auto w = g.add(ir::Op::add, {z, g.add(ir::Op::neg, {x})});
  Plan plan = build_plan(g, std::vector{w});
  check_plan(plan);
  size_t total = 0;
  for (size_t bytes : plan.slot_bytes) total += bytes;
  CHECK(total <= 4096 + 16 + 16);  // reuse: the 4 KiB slot also holds the later 16 B values
}

TEST_CASE("nodes no output depends on are not planned") {
  ir::Graph g;
  auto x = g.add_input(0, f32({3}));
  auto unused = g.add_input(1, f32({3}));
  unary(g, ir::Op::exp, unused);
  auto y = unary(g, ir::Op::neg, x);
  unary(g, ir::Op::sin, y);
  Plan plan = build_plan(g, std::vector{y});
  check_plan(plan);
  CHECK(kernel_ops(plan) == std::vector{ir::Op::neg});
}

TEST_CASE("empty slices get a contiguous layout and a zero-byte copy when returned") {
  ir::Graph g;
  auto x = g.add_input(0, f32({5}));
  auto empty = slice(g, x, 0, 4, 4, -1);
  auto y = unary(g, ir::Op::exp, empty);
  Plan plan = build_plan(g, std::vector{empty, y});
  check_plan(plan);
  const PlanValue& e = plan.values[plan[plan.steps[0].inputs][0]];
  CHECK(e.layout.offset == 0);
  CHECK(e.type.shape == Ints{0});
}

TEST_CASE("composites must be decomposed before planning") {
  ir::Graph g;
  auto x = g.add_input(0, f32({3}));
  auto y = g.add(ir::Op::silu, {x});
  CHECK_THROWS_AS(build_plan(g, std::vector{y}), tensord::Error);
}

// Issue 4: conj is a view with a conjugate bit; matmul reads it, other kernels get a copy.
TEST_CASE("conj views: no copy into matmul, a copy into other kernels and outputs") {
  const ir::TensorType c64{ir::DType::Complex64, {3, 3}};
  ir::Graph g;
  auto a = g.add_input(0, c64);
  auto b = g.add_input(1, c64);
  auto ca = g.add(ir::Op::conj, {a});
  auto cat = permute(g, ca, {1, 0});  // a view of a conj view keeps the bit
  auto mm = g.add(ir::Op::matmul, {cat, b});
  Plan plan = build_plan(g, std::vector{mm});
  check_plan(plan);
  REQUIRE(plan.steps.size() == 1);  // the matmul alone
  CHECK(plan.nodes[plan.steps[0].node].op == ir::Op::matmul);
  CHECK(plan.values[plan[plan.steps[0].inputs][0]].layout.conj);

  auto sum = g.add(ir::Op::add, {ca, b});
  auto twice = g.add(ir::Op::conj, {ca});  // conj(conj(a)) is a again
  Plan p2 = build_plan(g, std::vector{sum, twice, ca});
  check_plan(p2);
  int copies = 0;
  for (const auto& step : p2.steps) copies += p2.nodes[step.node].op == ir::Op::contiguous;
  CHECK(copies == 2);  // one for add's input, one for the output ca; none for twice
  CHECK_FALSE(p2.values[p2.outputs[1]].layout.conj);
  CHECK(p2.values[p2.outputs[1]].base.kind == ValueBase::Kind::Input);
  for (ValueId v : p2.outputs) CHECK_FALSE(p2.values[v].layout.conj);

  // conj of a real value is the value itself.
  ir::Graph r;
  auto x = r.add_input(0, f32({2, 2}));
  auto cx = r.add(ir::Op::conj, {x});
  Plan p3 = build_plan(r, std::vector{cx});
  CHECK(p3.steps.empty());
}
