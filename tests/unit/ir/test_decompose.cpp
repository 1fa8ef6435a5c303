// Decomposition of composites: the result has only primitives, types equal the composite's
// inferred types, every node keeps its source location and origin. Nothing is evaluated.
#include <algorithm>

#include "engine/ir/passes.h"
#include "tests/unit/ir/ir_test_util.h"

namespace tensord::ir {
namespace {

using test::F32;
using test::T;
using D = DType;
using Ints = std::vector<int64_t>;

// A graph of inputs of the given types, then one node of `op` over all of them.
struct OneOp {
  Graph g;
  std::vector<TensorType> input_types;
  ValueRef out;
  uint32_t file;

  OneOp(Op op, std::vector<TensorType> inputs, Attrs attrs = {}) : input_types(std::move(inputs)) {
    file = g.intern_file("model.cpp");
    std::vector<ValueRef> refs;
    for (size_t i = 0; i < input_types.size(); ++i) {
      refs.push_back(g.add_input(static_cast<uint32_t>(i), input_types[i], NodeLocation{file, 1}));
    }
    out = g.add(op, refs, std::move(attrs), NodeLocation{file, 7});
  }
};

// Decomposes and checks the invariants every decomposition must keep.
Rewritten decompose_checked(const OneOp& t) {
  std::vector<ValueRef> outs{t.out};
  Rewritten r = decompose(t.g, outs);
  REQUIRE(r.outputs.size() == 1);
  REQUIRE(r.origin.size() == r.graph.nodes.size());
  CHECK(r.graph.files == t.g.files);
  CHECK(r.graph.type(r.outputs[0]) == t.g.type(t.out));
  for (uint32_t i = 0; i < r.graph.nodes.size(); ++i) {
    const Node& n = r.graph.nodes[i];
    INFO("node " << i << " " << name(n.op));
    CHECK(op_info(n.op).kind != OpKind::Composite);
    REQUIRE(r.origin[i] < t.g.nodes.size());
    CHECK(n.loc.line == t.g.nodes[r.origin[i]].loc.line);
    CHECK(n.loc.file == t.g.nodes[r.origin[i]].loc.file);
    if (n.op == Op::input) CHECK(t.g.nodes[r.origin[i]].op == Op::input);
  }
  // The rewritten graph is valid on its own and every type re-infers the same.
  Graph copy = r.graph;
  validate(copy, t.input_types, Limits{});
  for (size_t i = 0; i < copy.nodes.size(); ++i)
    CHECK(copy.nodes[i].outputs == r.graph.nodes[i].outputs);
  return r;
}

size_t count_ops(const Graph& g, Op op) {
  return static_cast<size_t>(
      std::count_if(g.nodes.begin(), g.nodes.end(), [op](const Node& n) { return n.op == op; }));
}

constexpr D kFloats[] = {D::Float16, D::BFloat16, D::Float32, D::Float64};
constexpr D kAll[] = {D::Bool,  D::Int8,    D::UInt8,    D::Int16,   D::Int32,
                      D::Int64, D::Float16, D::BFloat16, D::Float32, D::Float64};

TEST_CASE("decompose: creation composites", "[decompose]") {
  for (D t : kAll) {
    for (Op op : {Op::zeros, Op::ones}) {
      OneOp g(op, {}, {{Attr::shape, Shape{2, 0, 3}}, {Attr::dtype, t}});
      Rewritten r = decompose_checked(g);
      const Node& full = r.graph.nodes[r.outputs[0].node];
      CHECK(full.op == Op::full);
      CHECK(full.attrs.get_float(Attr::value) == (op == Op::ones ? 1.0 : 0.0));
      CHECK(r.origin[r.outputs[0].node] == 0);
    }
  }
}

TEST_CASE("decompose: elementwise composites in every dtype", "[decompose]") {
  for (D t : kAll) {
    INFO(name(t));
    const TensorType x = T(t, {2, 3});
    decompose_checked(OneOp(Op::gelu, {x}));
    decompose_checked(OneOp(Op::gelu, {T(t, {})}, {{Attr::tanh, true}}));
    decompose_checked(OneOp(Op::silu, {T(t, {0, 4})}));
    if (t != D::Bool) {
      decompose_checked(OneOp(Op::clamp, {x}, {{Attr::min, -1.5}, {Attr::max, int64_t{2}}}));
      Rewritten r = decompose_checked(OneOp(Op::clamp, {x}, {{Attr::max, true}}));
      CHECK(count_ops(r.graph, Op::maximum) == 0);
      CHECK(count_ops(r.graph, Op::minimum) == 1);
    }
  }
  // float16 computes in float32 and casts back once.
  Rewritten r = decompose_checked(OneOp(Op::gelu, {T(D::Float16, {4})}));
  CHECK(count_ops(r.graph, Op::cast) == 2);
  CHECK(r.graph.nodes[r.outputs[0].node].op == Op::cast);
  for (const Node& n : r.graph.nodes) {
    if (n.op == Op::erf) CHECK(n.outputs[0].dtype == D::Float32);
    if (n.op == Op::full) CHECK(n.attrs.get_dtype(Attr::dtype) == D::Float32);
  }
  // An integer input becomes float32 (like exp) and stays there.
  r = decompose_checked(OneOp(Op::silu, {T(D::Int32, {4})}));
  CHECK(count_ops(r.graph, Op::cast) == 1);
  // float32 needs no cast at all.
  r = decompose_checked(OneOp(Op::gelu, {F32({4})}, {{Attr::tanh, true}}));
  CHECK(count_ops(r.graph, Op::cast) == 0);
  CHECK(count_ops(r.graph, Op::tanh) == 1);
  // clamp's scalars take the input's dtype.
  r = decompose_checked(OneOp(Op::clamp, {T(D::Int8, {4})}, {{Attr::min, 2.5}}));
  for (const Node& n : r.graph.nodes) {
    if (n.op == Op::full) {
      CHECK(n.outputs[0] == T(D::Int8, {}));
      CHECK(n.attrs.get_float(Attr::value) == 2.5);
    }
  }
}

TEST_CASE("decompose: mean and var", "[decompose]") {
  for (D t : kFloats) {
    INFO(name(t));
    const TensorType x = T(t, {2, 3, 4});
    decompose_checked(OneOp(Op::mean, {x}));
    decompose_checked(OneOp(Op::mean, {x}, {{Attr::axes, Ints{0, -1}}, {Attr::keepdim, true}}));
    decompose_checked(OneOp(Op::mean, {x}, {{Attr::axes, Ints{}}}));
    decompose_checked(OneOp(Op::mean, {T(t, {0, 3})}, {{Attr::axes, Ints{0}}}));
    decompose_checked(OneOp(Op::var, {x}));
    decompose_checked(OneOp(Op::var, {x}, {{Attr::axes, Ints{1}}, {Attr::correction, int64_t{1}}}));
    decompose_checked(OneOp(Op::var, {T(t, {})}, {{Attr::keepdim, true}}));
  }
  // The count divides the sum: 3 * 4 elements per output element.
  Rewritten r = decompose_checked(OneOp(Op::mean, {F32({2, 3, 4})}, {{Attr::axes, Ints{1, 2}}}));
  bool found = false;
  for (const Node& n : r.graph.nodes)
    found |= n.op == Op::full && n.attrs.get_float(Attr::value) == 12.0;
  CHECK(found);
  // var divides by N - correction.
  r = decompose_checked(OneOp(Op::var, {F32({5})}, {{Attr::correction, 1.0}}));
  found = false;
  for (const Node& n : r.graph.nodes)
    found |= n.op == Op::full && n.attrs.get_float(Attr::value) == 4.0;
  CHECK(found);
}

// The sum nodes of a graph: (input shape, axes).
std::vector<std::pair<Shape, Ints>> sums_of(const Graph& g) {
  std::vector<std::pair<Shape, Ints>> sums;
  for (const Node& n : g.nodes) {
    if (n.op == Op::sum) sums.emplace_back(g.type(n.inputs[0]).shape, n.attrs.get_ints(Attr::axes));
  }
  return sums;
}

TEST_CASE("decompose: a sum over trailing and leading axes takes the trailing ones first",
          "[decompose]") {
  using Sums = std::vector<std::pair<Shape, Ints>>;
  for (bool keepdim : {false, true}) {
    INFO("keepdim " << keepdim);
    const Attrs nchw{{Attr::axes, Ints{0, 2, -1}}, {Attr::keepdim, keepdim}};
    Rewritten r = decompose_checked(OneOp(Op::mean, {F32({8, 3, 4, 4})}, nchw));
    CHECK(sums_of(r.graph) == Sums{{{8, 3, 4, 4}, {2, 3}}, {{8, 3, 1, 1}, {0}}});
    r = decompose_checked(OneOp(Op::var, {F32({8, 3, 4, 4})}, nchw));
    CHECK(sums_of(r.graph) == Sums{{{8, 3, 4, 4}, {2, 3}},
                                   {{8, 3, 1, 1}, {0}},
                                   {{8, 3, 4, 4}, {2, 3}},
                                   {{8, 3, 1, 1}, {0}}});
    // A trailing extent under 16 leaves little to gain: one step.
    r = decompose_checked(OneOp(Op::var, {F32({8, 3, 2, 2})}, nchw));
    CHECK(sums_of(r.graph) == Sums{{{8, 3, 2, 2}, {0, 2, 3}}, {{8, 3, 2, 2}, {0, 2, 3}}});
  }
  // A user's sum too, in float32 and float64; not in float16, whose partial sums would round.
  for (D t : {D::Float32, D::Float64}) {
    Rewritten r =
        decompose_checked(OneOp(Op::sum, {T(t, {8, 3, 4, 4})}, {{Attr::axes, Ints{0, 2, 3}}}));
    CHECK(sums_of(r.graph) == Sums{{{8, 3, 4, 4}, {2, 3}}, {{8, 3, 1, 1}, {0}}});
  }
  Rewritten half = decompose_checked(
      OneOp(Op::sum, {T(D::Float16, {8, 3, 4, 4})}, {{Attr::axes, Ints{0, 2, 3}}}));
  CHECK(sums_of(half.graph) == Sums{{{8, 3, 4, 4}, {0, 2, 3}}});
  // Trailing axes only, or leading ones only: one step.
  Rewritten r = decompose_checked(OneOp(Op::mean, {F32({8, 3, 4, 4})}, {{Attr::axes, Ints{2, 3}}}));
  CHECK(sums_of(r.graph) == Sums{{{8, 3, 4, 4}, {2, 3}}});
  r = decompose_checked(OneOp(Op::mean, {F32({8, 3, 4, 4})}, {{Attr::axes, Ints{0, 1}}}));
  CHECK(sums_of(r.graph) == Sums{{{8, 3, 4, 4}, {0, 1}}});
}

TEST_CASE("decompose: batch_norm's statistics and PyTorch's running update share their sums",
          "[decompose]") {
  // What the clients record for a training batch_norm with momentum: the op, then the batch's
  // mean and unbiased variance for the running statistics, their axes kept (then reshaped) so
  // that they are batch_norm's own sums.
  // 4 x 4 is split into two steps (Expansion::sum), 2 x 2 is not.
  for (const Shape& shape : {Shape{8, 3, 4, 4}, Shape{8, 3, 2, 2}}) {
    Graph g;
    const NodeLocation at{g.intern_file("model.py"), 3};
    const TensorType x = F32(shape), c = F32({3});
    std::vector<ValueRef> in;
    for (uint32_t i = 0; i < 5; ++i) in.push_back(g.add_input(i, i == 0 ? x : c, at));
    const ValueRef y = g.add(Op::batch_norm, in, {{Attr::training, true}, {Attr::eps, 1e-5}}, at);
    const Attrs stats{{Attr::axes, Ints{0, 2, 3}}, {Attr::keepdim, true}};
    const ValueRef mean = g.add(Op::mean, {in[0]}, stats, at);
    Attrs unbiased = stats;
    unbiased.set(Attr::correction, int64_t{1});
    const ValueRef var = g.add(Op::var, {in[0]}, unbiased, at);
    const std::vector<ValueRef> outs{y, mean, var};
    Rewritten d = decompose(g, outs);
    Rewritten s = simplify(d.graph, d.outputs);
    // One pass over x for its sum and one for the squared deviations.
    size_t over_x = 0;
    for (const auto& [in_shape, axes] : sums_of(s.graph)) over_x += in_shape == shape;
    CHECK(over_x == 2);
  }
}

TEST_CASE("decompose: shape composites", "[decompose]") {
  const TensorType x = T(D::Int16, {1, 3, 1, 2});
  Rewritten r = decompose_checked(OneOp(Op::transpose, {x}, {{Attr::dims, Ints{1, -1}}}));
  CHECK(r.graph.nodes[r.outputs[0].node].attrs.get_ints(Attr::dims) == Ints{0, 3, 2, 1});
  decompose_checked(OneOp(Op::transpose, {T(D::Bool, {5})}, {{Attr::dims, Ints{0, 0}}}));
  decompose_checked(OneOp(Op::squeeze, {x}));
  decompose_checked(OneOp(Op::squeeze, {x}, {{Attr::axes, Ints{2}}}));
  decompose_checked(OneOp(Op::unsqueeze, {x}, {{Attr::axes, Ints{0, -1}}}));
  decompose_checked(OneOp(Op::unsqueeze, {T(D::Int8, {})}, {{Attr::axes, Ints{0}}}));

  r = decompose_checked(OneOp(Op::flip, {x}));
  CHECK(count_ops(r.graph, Op::slice) == 4);
  r = decompose_checked(OneOp(Op::flip, {x}, {{Attr::axes, Ints{-1}}}));
  REQUIRE(count_ops(r.graph, Op::slice) == 1);
  const Node& s = r.graph.nodes[r.outputs[0].node];
  CHECK(s.attrs.get_int(Attr::axis) == 3);
  CHECK(s.attrs.get_int(Attr::step) == -1);
  // Flipping no axis is the input itself.
  r = decompose_checked(OneOp(Op::flip, {T(D::Float32, {})}));
  CHECK(r.outputs[0] == ValueRef{0, 0});

  decompose_checked(OneOp(Op::stack, {F32({2, 3})}, {{Attr::axis, int64_t{0}}}));
  r = decompose_checked(OneOp(Op::stack, {F32({2, 3}), T(D::Int64, {2, 3}), T(D::Float64, {2, 3})},
                              {{Attr::axis, int64_t{-1}}}));
  CHECK(count_ops(r.graph, Op::concat) == 1);
  CHECK(count_ops(r.graph, Op::reshape) == 3);
  decompose_checked(OneOp(Op::stack, {F32({}), F32({})}, {{Attr::axis, int64_t{0}}}));
  decompose_checked(OneOp(Op::stack, {F32({0, 2}), F32({0, 2})}, {{Attr::axis, int64_t{1}}}));
}

TEST_CASE("decompose: softmax, log_softmax, layer_norm", "[decompose]") {
  for (D t : kFloats) {
    INFO(name(t));
    for (Op op : {Op::softmax, Op::log_softmax}) {
      Rewritten r = decompose_checked(OneOp(op, {T(t, {2, 5})}, {{Attr::axis, int64_t{-1}}}));
      CHECK(count_ops(r.graph, Op::max) == 1);
      CHECK(count_ops(r.graph, Op::exp) == 1);
      CHECK(count_ops(r.graph, Op::log) == (op == Op::log_softmax ? 1u : 0u));
      CHECK(count_ops(r.graph, Op::cast) == (itemsize(t) == 2 ? 2u : 0u));
      decompose_checked(OneOp(op, {T(t, {0, 5})}, {{Attr::axis, int64_t{1}}}));
      // A size-0 axis: no max over nothing, just an empty result.
      r = decompose_checked(OneOp(op, {T(t, {3, 0})}, {{Attr::axis, int64_t{1}}}));
      CHECK(r.graph.nodes[r.outputs[0].node].op == Op::full);
      CHECK(count_ops(r.graph, Op::max) == 0);
    }
    const Attrs nd1{{Attr::normalized_ndim, int64_t{1}}};
    decompose_checked(OneOp(Op::layer_norm, {T(t, {4, 3})}, nd1));
    decompose_checked(OneOp(Op::layer_norm, {T(t, {4, 3}), T(t, {3})}, nd1));
    decompose_checked(OneOp(Op::layer_norm, {T(t, {4, 2, 3}), T(t, {2, 3}), F32({2, 3})},
                            {{Attr::normalized_ndim, int64_t{2}}, {Attr::eps, 1e-6}}));
    decompose_checked(OneOp(Op::layer_norm, {T(t, {0, 3})}, nd1));
  }
}

TEST_CASE("decompose copies primitives unchanged and remaps references", "[decompose]") {
  Graph g;
  uint32_t f = g.intern_file("a.cpp");
  ValueRef x = g.add_input(0, T(D::Float16, {2, 3}), NodeLocation{f, 1});
  ValueRef s = g.add(Op::softmax, {x}, {{Attr::axis, int64_t{1}}}, NodeLocation{f, 2});
  ValueRef y = g.add(Op::add, {s, x}, {}, NodeLocation{f, 3});
  ValueRef z = g.add(Op::transpose, {y}, {{Attr::dims, Ints{0, 1}}}, NodeLocation{f, 4});
  std::vector<ValueRef> outs{z, s, x};
  Rewritten r = decompose(g, outs);
  REQUIRE(r.outputs.size() == 3);
  CHECK(r.graph.type(r.outputs[0]) == g.type(z));
  CHECK(r.graph.type(r.outputs[1]) == g.type(s));
  CHECK(r.outputs[2] == ValueRef{0, 0});
  CHECK(r.origin[r.outputs[0].node] == z.node);
  CHECK(r.origin[r.outputs[1].node] == s.node);
  // The add is the primitive copied as is, now reading the softmax's last node.
  const auto add_it = std::find_if(r.graph.nodes.begin(), r.graph.nodes.end(), [](const Node& n) {
    return n.op == Op::add && n.loc.line == 3;
  });
  REQUIRE(add_it != r.graph.nodes.end());
  CHECK(add_it->inputs[0] == r.outputs[1]);
  CHECK(add_it->inputs[1] == ValueRef{0, 0});
  CHECK(r.origin[static_cast<size_t>(add_it - r.graph.nodes.begin())] == y.node);
  for (size_t i = 0; i < r.graph.nodes.size(); ++i) {
    CHECK(r.graph.location(static_cast<uint32_t>(i)).str() ==
          "a.cpp:" + std::to_string(r.origin[i] + 1));
  }
}

// x ** c as a client records it: an input, a 0-d `full` of the exponent, pow.
Rewritten decomposed_power(TensorType x, TensorType exponent, AttrValue c) {
  Graph g;
  const uint32_t file = g.intern_file("model.py");
  const ValueRef in = g.add_input(0, x, NodeLocation{file, 1});
  const ValueRef p =
      g.add(Op::full, {},
            {{Attr::shape, exponent.shape}, {Attr::value, c}, {Attr::dtype, exponent.dtype}},
            NodeLocation{file, 2});
  const ValueRef y = g.add(Op::pow, {in, p}, {}, NodeLocation{file, 3});
  std::vector<ValueRef> outs{y};
  Rewritten r = decompose(g, outs);
  CHECK(r.graph.type(r.outputs[0]) == g.type(y));
  for (size_t i = 0; i < r.graph.nodes.size(); ++i) {
    if (r.graph.nodes[i].op == Op::mul) CHECK(r.graph.nodes[i].loc.line == 3);
  }
  return r;
}

TEST_CASE("decompose: pow by a constant 2 or 3 multiplies", "[decompose]") {
  for (D t : {D::Int8, D::UInt8, D::Int32, D::Int64, D::Float32, D::Float64, D::Complex64,
              D::Complex128}) {
    INFO(name(t));
    const TensorType x = T(t, {2, 3});
    for (AttrValue two : {AttrValue{int64_t{2}}, AttrValue{2.0}}) {
      Rewritten r = decomposed_power(x, T(t, {}), two);
      CHECK(count_ops(r.graph, Op::pow) == 0);
      CHECK(count_ops(r.graph, Op::mul) == 1);
      CHECK(count_ops(r.graph, Op::cast) == 0);
      const Node& mul = r.graph.nodes[r.outputs[0].node];
      REQUIRE(mul.op == Op::mul);
      CHECK(mul.inputs[0] == ValueRef{0, 0});
      CHECK(mul.inputs[1] == ValueRef{0, 0});
    }
    Rewritten r = decomposed_power(x, T(t, {}), int64_t{3});
    CHECK(count_ops(r.graph, Op::pow) == 0);
    CHECK(count_ops(r.graph, Op::mul) == 2);
  }
  // 16-bit floats multiply in float32 and round once.
  for (D t : {D::Float16, D::BFloat16}) {
    Rewritten r = decomposed_power(T(t, {4}), T(t, {}), 3.0);
    CHECK(count_ops(r.graph, Op::pow) == 0);
    CHECK(count_ops(r.graph, Op::cast) == 2);
    for (const Node& n : r.graph.nodes) {
      if (n.op == Op::mul) CHECK(n.outputs[0].dtype == D::Float32);
    }
  }
}

TEST_CASE("decompose: complex scans reach the backends as one scan", "[decompose][complex]") {
  for (Op op : {Op::cumsum, Op::cumprod}) {
    Graph g;
    const ValueRef x = g.add_input(0, T(D::Complex64, {3, 4}));
    const ValueRef y = g.add(op, {x}, {{Attr::axis, int64_t{1}}});
    std::vector<ValueRef> outs{y};
    const Rewritten r = decompose(g, outs);
    CHECK(count_ops(r.graph, op) == 1);
    CHECK(r.graph.nodes[r.outputs[0].node].op == op);
    CHECK(r.graph.type(r.outputs[0]) == T(D::Complex64, {3, 4}));
  }
}

TEST_CASE("decompose: other pows stay pow", "[decompose]") {
  const auto kept = [](const Rewritten& r) { return count_ops(r.graph, Op::pow) == 1; };
  CHECK(kept(decomposed_power(F32({3}), F32({}), 2.5)));
  CHECK(kept(decomposed_power(F32({3}), F32({}), 4.0)));
  CHECK(kept(decomposed_power(F32({3}), F32({}), -1.0)));
  // The exponent broadcasts x, or promotes it.
  CHECK(kept(decomposed_power(F32({3}), F32({2, 3}), 2.0)));
  CHECK(kept(decomposed_power(T(D::Int32, {3}), F32({}), 2.0)));
  CHECK(kept(decomposed_power(F32({3}), T(D::Float64, {}), 2.0)));
  CHECK(kept(decomposed_power(T(D::Complex64, {3}), F32({}), 4.0)));
  CHECK(kept(decomposed_power(F32({3}), T(D::Complex64, {}), 2.0)));
  // An exponent that is not a constant.
  Graph g;
  const ValueRef x = g.add_input(0, F32({3}));
  const ValueRef y = g.add(Op::pow, {x, g.add_input(1, F32({}))});
  std::vector<ValueRef> outs{y};
  CHECK(count_ops(decompose(g, outs).graph, Op::pow) == 1);
}

}  // namespace
}  // namespace tensord::ir
