// Random graphs over every op of the op table, most of them malformed: wrong arities, dangling
// and forward references, attributes of the wrong kind, odd shapes and dtypes. Shared by the
// validation test (tests/unit/ir/test_random_graphs.cpp) and the execution test
// (tests/unit/exec/test_run_random.cpp).
#pragma once

#include <random>
#include <vector>

#include "engine/ir/error.h"
#include "engine/ir/graph.h"
#include "engine/ir/op.h"

namespace tensord::ir::test {

class RandomGraphs {
 public:
  explicit RandomGraphs(uint64_t seed) : rng_(seed) {}

  int64_t small_int() { return std::uniform_int_distribution<int64_t>(-3, 4)(rng_); }
  size_t below(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  bool coin() { return below(2) == 0; }

  std::vector<int64_t> ints() {
    std::vector<int64_t> v(below(4));
    for (int64_t& x : v) x = small_int();
    return v;
  }
  Shape shape() {
    Shape s(below(4));
    for (int64_t& d : s) d = static_cast<int64_t>(below(max_extent + 1));
    return s;
  }
  // Dims are 0..max_extent: 3 keeps graphs tiny; larger sizes reach kernels' vector blocks,
  // tails and threads.
  int max_extent = 3;
  DType dtype() { return static_cast<DType>(below(kNumDTypes)); }

  AttrValue value_for(AttrKind kind) {
    // Now and then the wrong kind, to exercise the schema checks.
    if (below(20) == 0) kind = static_cast<AttrKind>(below(7));
    switch (kind) {
      case AttrKind::Int:
        return small_int();
      case AttrKind::Float:
        return 0.25 * static_cast<double>(small_int());
      case AttrKind::Bool:
        return coin();
      case AttrKind::Ints:
        return ints();
      case AttrKind::DType:
        return dtype();
      case AttrKind::Scalar:
        return coin() ? AttrValue{small_int()} : AttrValue{0.5};
      case AttrKind::Floats:
        return std::vector<double>{0.5 * static_cast<double>(small_int()), 1.5};
    }
    return int64_t{0};
  }

  // Up to three graph inputs of random types, and a graph over them.
  struct Drawn {
    std::vector<TensorType> types;
    Graph graph;
  };
  Drawn draw() {
    Drawn d;
    for (size_t k = below(4); k > 0; --k) d.types.push_back(TensorType{dtype(), shape()});
    d.graph = graph(d.types);
    return d;
  }

  // Whether validation accepts `d` (checked on a copy: validate() fills in the types, and the
  // tests run the graph as drawn).
  static bool accepted(const Drawn& d) {
    Graph copy = d.graph;
    try {
      validate(copy, d.types, Limits{});
    } catch (const Error&) {
      return false;
    }
    return true;
  }

  Graph graph(const std::vector<TensorType>& input_types) {
    Graph g;
    const size_t n = 1 + below(12);
    for (uint32_t i = 0; i < n; ++i) {
      Node node;
      if (i < input_types.size() && coin()) {
        node.op = Op::input;
        node.attrs = {{Attr::index, int64_t{i}},
                      {Attr::dtype, input_types[i].dtype},
                      {Attr::shape, input_types[i].shape}};
      } else {
        const OpInfo& info = all_ops()[below(all_ops().size())];
        node.op = info.op;
        for (const AttrSpec& spec : info.attrs) {
          if (spec.required || coin()) node.attrs.set(spec.attr, value_for(spec.kind));
        }
        int arity =
            info.min_inputs + (info.max_inputs != info.min_inputs ? static_cast<int>(below(3)) : 0);
        if (below(20) == 0) arity += 1;
        for (int k = 0; k < arity; ++k) {
          // Mostly earlier nodes; now and then a forward, self or dangling reference.
          uint32_t ref = i > 0 && below(15) != 0 ? static_cast<uint32_t>(below(i))
                                                 : static_cast<uint32_t>(below(n + 2));
          node.inputs.push_back(ValueRef{ref, below(30) == 0 ? 1u : 0u});
        }
      }
      node.loc = NodeLocation{below(40) == 0 ? 5u : 1u, i + 1};
      g.nodes.push_back(std::move(node));
    }
    g.files.push_back("random.cpp");
    return g;
  }

 private:
  std::mt19937_64 rng_;
};

}  // namespace tensord::ir::test
