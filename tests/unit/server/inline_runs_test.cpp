// Which runs the event loop may run itself (server/inline_runs.h): few nodes, ops whose work is
// linear in their elements, and few elements in all once the graph's types are known.
#include "server/inline_runs.h"

#include <catch2/catch.hpp>

#include <vector>

#include "engine/ir/graph.h"

namespace tensord::server {
namespace {

using Ints = std::vector<int64_t>;

ir::TensorType f32(Ints shape) {
  return ir::TensorType{ir::DType::Float32, std::move(shape)};
}

// x + x for an input x of `shape`, the way a graph arrives: not validated yet.
ir::Graph doubled(const Ints& shape) {
  ir::Graph graph;
  auto x = graph.add_input(0, f32(shape));
  graph.add(ir::Op::add, {x, x});
  for (ir::Node& node : graph.nodes) node.outputs.clear();
  return graph;
}

TEST_CASE("elementwise, reductions, views and scans are linear in their elements") {
  for (ir::Op op : {ir::Op::add, ir::Op::exp, ir::Op::where, ir::Op::sum, ir::Op::reshape,
                    ir::Op::cumsum, ir::Op::gather, ir::Op::softmax, ir::Op::full}) {
    CAPTURE(ir::name(op));
    CHECK(linear_in_elements(op));
  }
  for (ir::Op op : {ir::Op::matmul, ir::Op::linear, ir::Op::conv2d, ir::Op::sort, ir::Op::svd,
                    ir::Op::fft_c2c, ir::Op::scaled_dot_product_attention, ir::Op::max_pool2d,
                    ir::Op::nonzero, ir::Op::unique}) {
    CAPTURE(ir::name(op));
    CHECK_FALSE(linear_in_elements(op));
  }
}

TEST_CASE("a small elementwise graph runs inline") {
  ir::Graph graph = doubled({100});
  REQUIRE(few_linear_nodes(graph));
  std::vector<ir::TensorType> types{f32({100})};
  CHECK(small_enough_to_run_inline(graph, types, ir::Limits{}));
  CHECK(graph.nodes.back().outputs.at(0).shape == Ints{100});  // validated in place
}

TEST_CASE("too many elements, nodes or the wrong ops keep a run on the worker") {
  ir::Graph big = doubled({kInlineRunMaxElements});
  std::vector<ir::TensorType> big_types{f32({kInlineRunMaxElements})};
  CHECK(few_linear_nodes(big));
  CHECK_FALSE(small_enough_to_run_inline(big, big_types, ir::Limits{}));

  // Broadcasting makes a large output of small inputs.
  ir::Graph outer;
  auto col = outer.add_input(0, f32({200, 1}));
  auto row = outer.add_input(1, f32({1, 200}));
  outer.add(ir::Op::mul, {col, row});
  std::vector<ir::TensorType> outer_types{f32({200, 1}), f32({1, 200})};
  CHECK_FALSE(small_enough_to_run_inline(outer, outer_types, ir::Limits{}));

  ir::Graph chain;
  auto x = chain.add_input(0, f32({2}));
  for (size_t i = 0; i < kInlineRunMaxNodes; ++i) x = chain.add(ir::Op::neg, {x});
  CHECK_FALSE(few_linear_nodes(chain));

  ir::Graph product;
  auto a = product.add_input(0, f32({2, 2}));
  product.add(ir::Op::matmul, {a, a});
  CHECK_FALSE(few_linear_nodes(product));
}

TEST_CASE("a graph that does not validate is not small: the worker reports its error") {
  ir::Graph graph = doubled({4});
  std::vector<ir::TensorType> wrong{f32({5})};  // the input node says 4
  CHECK_FALSE(small_enough_to_run_inline(graph, wrong, ir::Limits{}));
  std::vector<ir::TensorType> none;
  CHECK_FALSE(small_enough_to_run_inline(graph, none, ir::Limits{}));
}

TEST_CASE("a function's graph, validated when it was defined, is judged as a run's") {
  auto validated = [](ir::Graph graph, std::vector<ir::TensorType> types) {
    ir::validate(graph, types, ir::Limits{});
    return graph;
  };
  CHECK(small_function(validated(doubled({100}), {f32({100})})));
  CHECK_FALSE(
      small_function(validated(doubled({kInlineRunMaxElements}), {f32({kInlineRunMaxElements})})));

  ir::Graph product;
  auto a = product.add_input(0, f32({2, 2}));
  product.add(ir::Op::matmul, {a, a});
  CHECK_FALSE(small_function(validated(std::move(product), {f32({2, 2})})));
}

}  // namespace
}  // namespace tensord::server
