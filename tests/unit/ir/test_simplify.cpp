// CSE and DCE: duplicates merged, dead nodes dropped, inputs kept, origins right.
#include "engine/ir/passes.h"
#include "tests/unit/ir/ir_test_util.h"

namespace tensord::ir {
namespace {

using test::F32;
using D = DType;

TEST_CASE("simplify merges equal nodes", "[simplify]") {
  Graph g;
  ValueRef x = g.add_input(0, F32({4}));  // 0
  ValueRef y = g.add_input(1, F32({4}));  // 1
  ValueRef a1 = g.add(Op::add, {x, y});   // 2
  ValueRef a2 = g.add(Op::add, {x, y});   // 3: same as 2
  ValueRef e1 = g.add(Op::exp, {a1});     // 4
  ValueRef e2 = g.add(Op::exp, {a2});     // 5: same as 4 once 3 is 2
  ValueRef b = g.add(Op::add, {y, x});    // 6: operands swapped, kept
  ValueRef m = g.add(Op::mul, {e1, e2});  // 7: mul(4, 4)
  std::vector<ValueRef> outs{m, e2, b};
  Rewritten r = simplify(g, outs);
  CHECK(r.graph.nodes.size() == 6);  // inputs, add, exp, add (swapped), mul
  CHECK(r.origin == std::vector<uint32_t>{0, 1, 2, 4, 6, 7});
  CHECK(r.outputs == std::vector<ValueRef>{{5, 0}, {3, 0}, {4, 0}});
  CHECK(r.graph.nodes[5].inputs == std::vector<ValueRef>{{3, 0}, {3, 0}});
  CHECK(r.graph.nodes[3].inputs == std::vector<ValueRef>{{2, 0}});
  for (size_t i = 0; i < r.graph.nodes.size(); ++i) {
    CHECK(r.graph.nodes[i].outputs == g.nodes[r.origin[i]].outputs);
    CHECK(r.graph.nodes[i].op == g.nodes[r.origin[i]].op);
  }
}

TEST_CASE("simplify only merges nodes with equal attributes", "[simplify]") {
  Graph g;
  auto full = [&](AttrValue v) {
    return g.add(Op::full, {},
                 {{Attr::shape, Shape{2}}, {Attr::value, v}, {Attr::dtype, D::Float32}});
  };
  std::vector<ValueRef> outs{full(0.0), full(-0.0), full(int64_t{0}), full(0.0), full(false)};
  ValueRef x = g.add_input(0, F32({2, 3}));
  outs.push_back(g.add(Op::sum, {x}, {{Attr::axes, std::vector<int64_t>{0}}}));
  outs.push_back(g.add(Op::sum, {x}, {{Attr::axes, std::vector<int64_t>{1}}}));
  outs.push_back(
      g.add(Op::sum, {x}, {{Attr::axes, std::vector<int64_t>{0}}, {Attr::keepdim, false}}));
  outs.push_back(g.add(Op::sum, {x}, {{Attr::axes, std::vector<int64_t>{0}}}));
  Rewritten r = simplify(g, outs);
  // full(0.0) twice and sum(axes=[0]) twice merge; -0.0, int 0, false, keepdim=false differ.
  CHECK(r.graph.nodes.size() == g.nodes.size() - 2);
  CHECK(r.outputs[0] == r.outputs[3]);
  CHECK(r.outputs[1] != r.outputs[0]);
  CHECK(r.outputs[2] != r.outputs[0]);
  CHECK(r.outputs[4] != r.outputs[0]);
  CHECK(r.outputs[5] == r.outputs[8]);
  CHECK(r.outputs[5] != r.outputs[6]);
  CHECK(r.outputs[5] != r.outputs[7]);
}

TEST_CASE("simplify drops dead nodes and keeps every input", "[simplify]") {
  Graph g;
  uint32_t f = g.intern_file("m.cpp");
  ValueRef x = g.add_input(0, F32({4}), NodeLocation{f, 1});
  ValueRef unused = g.add_input(1, F32({4}), NodeLocation{f, 2});
  ValueRef again = g.add_input(0, F32({4}), NodeLocation{f, 3});  // same index: not merged
  g.add(Op::exp, {x}, {}, NodeLocation{f, 4});                    // dead
  ValueRef n = g.add(Op::neg, {x}, {}, NodeLocation{f, 5});
  g.add(Op::add, {n, unused}, {}, NodeLocation{f, 6});  // dead
  ValueRef l = g.add(Op::log, {n}, {}, NodeLocation{f, 7});
  std::vector<ValueRef> outs{l};
  Rewritten r = simplify(g, outs);
  CHECK(r.origin == std::vector<uint32_t>{0, 1, 2, 4, 6});
  CHECK(r.outputs == std::vector<ValueRef>{{4, 0}});
  CHECK(r.graph.files == g.files);
  CHECK(r.graph.location(3).str() == "m.cpp:5");
  CHECK(r.graph.location(4).str() == "m.cpp:7");
  CHECK(r.graph.nodes[2].attrs.get_int(Attr::index) == 0);
  CHECK(r.graph.nodes[1].attrs.get_int(Attr::index) == 1);
  (void)again;

  // No outputs: only the inputs remain.
  r = simplify(g, {});
  CHECK(r.origin == std::vector<uint32_t>{0, 1, 2});
  // An input requested as an output.
  std::vector<ValueRef> just_input{unused};
  r = simplify(g, just_input);
  CHECK(r.outputs == std::vector<ValueRef>{{1, 0}});
}

TEST_CASE("simplify output validates and is idempotent", "[simplify]") {
  Graph g;
  ValueRef x = g.add_input(0, F32({3, 3}));
  ValueRef acc = x;
  for (int i = 0; i < 50; ++i) {
    ValueRef a = g.add(Op::matmul, {x, x});  // the same product every time
    acc = g.add(Op::add, {acc, a});
    g.add(Op::sin, {acc});  // dead
  }
  std::vector<ValueRef> outs{acc};
  Rewritten r = simplify(g, outs);
  CHECK(r.graph.nodes.size() == 52);  // input, one matmul, 50 adds
  Graph copy = r.graph;
  std::vector<TensorType> inputs{F32({3, 3})};
  CHECK_NOTHROW(validate(copy, inputs, Limits{}));
  Rewritten again = simplify(r.graph, r.outputs);
  CHECK(again.graph.nodes.size() == r.graph.nodes.size());
  CHECK(again.outputs == r.outputs);
}

}  // namespace
}  // namespace tensord::ir
