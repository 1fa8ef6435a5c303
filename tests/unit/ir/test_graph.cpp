// Graph construction: recording nodes, inference on add, error attribution.
#include "tests/unit/ir/ir_test_util.h"

namespace tensord::ir {
namespace {

using test::F32;
using test::T;
using D = DType;

TEST_CASE("graph records nodes with inferred types", "[graph]") {
  Graph g;
  REQUIRE(g.files.size() == 1);
  CHECK(g.files[0].empty());
  ValueRef a = g.add_input(0, F32({2, 3}));
  ValueRef b = g.add_input(1, T(D::Int32, {3}));
  ValueRef c = g.add(Op::add, {a, b});
  CHECK(c == ValueRef{2, 0});
  CHECK(g.type(c) == F32({2, 3}));
  ValueRef s = g.add(Op::sum, {c}, {{Attr::axes, std::vector<int64_t>{1}}});
  CHECK(g.type(s) == F32({2}));
  CHECK(g.nodes[0].attrs.get_int(Attr::index) == 0);
  CHECK(g.nodes[1].attrs.get_dtype(Attr::dtype) == D::Int32);
}

TEST_CASE("files are interned and locations resolved", "[graph]") {
  Graph g;
  uint32_t f = g.intern_file("train.cpp");
  CHECK(f == 1);
  CHECK(g.intern_file("train.cpp") == 1);
  CHECK(g.intern_file("model.cpp") == 2);
  CHECK(g.intern_file("") == 0);
  g.add_input(0, F32({2}), NodeLocation{f, 12});
  g.add_input(1, F32({2}));
  CHECK(g.location(0).str() == "train.cpp:12");
  CHECK(g.location(1).empty());
  CHECK(g.location(7).empty());
}

TEST_CASE("add throws an error attributed to the new node and leaves the graph as it was",
          "[graph]") {
  Graph g;
  uint32_t f = g.intern_file("train.cpp");
  ValueRef a = g.add_input(0, F32({2, 3}));
  ValueRef b = g.add_input(1, F32({4}));
  tensord::Error e = test::error_of([&] { g.add(Op::add, {a, b}, {}, NodeLocation{f, 12}); });
  CHECK(e.code() == ErrorCode::Shape);
  CHECK(e.node() == 2u);
  CHECK(e.op() == "add");
  CHECK(e.where().str() == "train.cpp:12");
  CHECK(std::string(e.what()) ==
        "shape error in add (node 2) at train.cpp:12: shapes (2, 3) and (4,) do not broadcast");
  CHECK(g.nodes.size() == 2);
  // Recording goes on after the error.
  CHECK(g.add(Op::neg, {b}) == ValueRef{2, 0});
}

TEST_CASE("add refuses references to missing values", "[graph]") {
  Graph g;
  ValueRef a = g.add_input(0, F32({2}));
  REQUIRE_IR_ERROR(g.add(Op::neg, {ValueRef{1, 0}}), ErrorCode::InvalidGraph, "not an earlier");
  REQUIRE_IR_ERROR(g.add(Op::neg, {ValueRef{0, 1}}), ErrorCode::InvalidGraph, "not an earlier");
  // Variadic ops with more inputs than fit on the stack.
  std::vector<ValueRef> many(9, a);
  CHECK(g.type(g.add(Op::concat, many, {{Attr::axis, int64_t{0}}})) == F32({18}));
  many.push_back(ValueRef{5, 0});
  REQUIRE_IR_ERROR(g.add(Op::concat, many, {{Attr::axis, int64_t{0}}}), ErrorCode::InvalidGraph,
                   "input 9 refers to value 5:0");
}

TEST_CASE("fail_at attributes an error to a node", "[graph]") {
  Graph g;
  g.add_input(0, F32({2}), NodeLocation{g.intern_file("x.cpp"), 3});
  tensord::Error e = test::error_of([&] { g.fail_at(0, Error(ErrorCode::Shape, "boom")); });
  CHECK(e.node() == 0u);
  CHECK(e.op() == "input");
  CHECK(e.where().str() == "x.cpp:3");
  // An existing attribution is kept.
  e = test::error_of([&] { g.fail_at(0, Error(ErrorCode::Shape, "boom", 9, "mul")); });
  CHECK(e.node() == 9u);
}

}  // namespace
}  // namespace tensord::ir
