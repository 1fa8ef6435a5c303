// Inference with data-dependent dimensions (engine/ir/dynamic.h): the ops that make them, how
// later ops carry them, and what they refuse.
#include <catch2/catch.hpp>

#include "engine/ir/dynamic.h"
#include "engine/ir/graph.h"

namespace ir = tensord::ir;
using ir::Attr;
using ir::DType;
using ir::kDynamic;
using ir::Op;
using tensord::Error;
using tensord::ErrorCode;
using Ints = std::vector<int64_t>;

namespace {

ir::TensorType T(DType t, Ints shape) {
  return ir::TensorType{t, std::move(shape)};
}

}  // namespace

TEST_CASE("data-dependent ops give a kDynamic dimension", "[infer][dynamic]") {
  ir::Graph g;
  auto x = g.add_input(0, T(DType::Float32, {2, 3}));
  CHECK(g.type(g.add(Op::nonzero, {x})) == T(DType::Int64, {kDynamic, 2}));
  CHECK(g.type(g.add(Op::flatnonzero, {x})) == T(DType::Int64, {kDynamic}));
  // unique: values, first-occurrence indices, inverse indices (static: x's shape), counts
  const ir::ValueRef u = g.add(Op::unique, {x});
  REQUIRE(g.nodes[u.node].outputs.size() == 4);
  CHECK(g.type(u) == T(DType::Float32, {kDynamic}));
  CHECK(g.type({u.node, 1}) == T(DType::Int64, {kDynamic}));
  CHECK(g.type({u.node, 2}) == T(DType::Int64, {2, 3}));
  CHECK(g.type({u.node, 3}) == T(DType::Int64, {kDynamic}));
  auto mask = g.add_input(1, T(DType::Bool, {3}));
  CHECK(g.type(g.add(Op::masked_select, {x, mask})) == T(DType::Float32, {kDynamic}));
  auto reps = g.add_input(2, T(DType::Int64, {3}));
  CHECK(g.type(g.add(Op::repeat_interleave_tensor, {x, reps}, {{Attr::axis, int64_t{1}}})) ==
        T(DType::Float32, {2, kDynamic}));
  auto scalar = g.add_input(3, T(DType::Float32, {}));
  CHECK(g.type(g.add(Op::nonzero, {scalar})) == T(DType::Int64, {kDynamic, 0}));
  CHECK(ir::is_data_dependent(Op::nonzero));
  CHECK(ir::is_data_dependent(Op::unique));
  CHECK_FALSE(ir::is_data_dependent(Op::sort));
}

TEST_CASE("later ops carry a dynamic dimension or refuse clearly", "[infer][dynamic]") {
  ir::Graph g;
  auto x = g.add_input(0, T(DType::Float32, {2, 3}));
  auto nz = g.add(Op::nonzero, {x});  // int64 (n, 2)
  auto w = g.add_input(1, T(DType::Float32, {2}));
  // Broadcasting against a static dim, elementwise with itself, casts, reductions.
  auto f = g.add(Op::cast, {nz}, {{Attr::dtype, DType::Float32}});
  auto y = g.add(Op::mul, {f, w});
  CHECK(g.type(y) == T(DType::Float32, {kDynamic, 2}));
  CHECK(g.type(g.add(Op::add, {y, y})) == T(DType::Float32, {kDynamic, 2}));
  CHECK(g.type(g.add(Op::sum, {y})) == T(DType::Float32, {}));
  CHECK(g.type(g.add(Op::sum, {y}, {{Attr::axes, Ints{1}}})) == T(DType::Float32, {kDynamic}));
  CHECK(g.type(g.add(Op::sum, {y}, {{Attr::axes, Ints{0}}, {Attr::keepdim, true}})) ==
        T(DType::Float32, {1, 2}));
  // matmul keeps n; a data-dependent op on a dynamic input is dynamic again.
  auto m = g.add_input(2, T(DType::Float32, {2, 5}));
  CHECK(g.type(g.add(Op::matmul, {y, m})) == T(DType::Float32, {kDynamic, 5}));
  CHECK(g.type(g.add(Op::unique, {y})) == T(DType::Float32, {kDynamic}));
  // index_select with a dynamic index: the index's length.
  auto flat = g.add(Op::flatnonzero, {x});
  auto rows = g.add_input(3, T(DType::Float32, {6, 4}));
  CHECK(g.type(g.add(Op::index_select, {rows, flat}, {{Attr::axis, int64_t{0}}})) ==
        T(DType::Float32, {kDynamic, 4}));
  // Elementwise, a static size against the dynamic one is taken as that size (the engine
  // checks it at run time); elsewhere a mismatch names the unknown size "?".
  auto three = g.add_input(4, T(DType::Float32, {3, 2}));
  CHECK(g.type(g.add(Op::add, {y, three})) == T(DType::Float32, {3, 2}));
  CHECK(g.type(g.add(Op::where, {g.add(Op::gt, {y, y}), three, y})) == T(DType::Float32, {3, 2}));
  try {
    g.add(Op::matmul, {y, three});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Shape);
    CHECK(std::string(e.what()).find("(?, 2)") != std::string::npos);
  }
  // A dimension computed from it (reshape merging it) is refused as Unsupported.
  try {
    g.add(Op::repeat_interleave, {y}, {{Attr::repeats, int64_t{2}}});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Unsupported);
  }
}

TEST_CASE("a dynamic dimension never comes from an attribute", "[infer][dynamic]") {
  ir::Graph g;
  CHECK_THROWS_AS(g.add_input(0, T(DType::Float32, {kDynamic})), Error);
  CHECK_THROWS_AS(
      g.add(Op::full, {},
            {{Attr::shape, Ints{kDynamic}}, {Attr::value, 1.0}, {Attr::dtype, DType::Float32}}),
      Error);
}
