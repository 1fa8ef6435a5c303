// Table rows for the activations: each over the full sweep of every dtype (integers and bool
// give float32), attribute variants on a shorter sweep, and explicit edges around each
// formula's breakpoints (0, +-3, softplus's threshold) with NaN, infinities and -0.0.
#include <cmath>

#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace {

struct ActivationRow {
  Op op;
  Accuracy accuracy;
  std::vector<ir::Attrs> variants = {{}};
};

std::vector<ActivationRow> rows() {
  using A = Accuracy;
  return {
      {Op::elu, A::Transcendental, {{}, {{Attr::alpha, 0.5}}}},
      {Op::celu, A::Transcendental, {{}, {{Attr::alpha, 2.0}}}},
      {Op::selu, A::Transcendental},
      {Op::leaky_relu, A::Transcendental, {{}, {{Attr::negative_slope, 0.2}}}},
      {Op::hardtanh,
       A::Rounded,
       {{}, {{Attr::min, -0.5}, {Attr::max, 2.0}}, {{Attr::min, 2.0}, {Attr::max, int64_t{1}}}}},
      {Op::hardsigmoid, A::Transcendental},
      {Op::hardswish, A::Transcendental},
      {Op::softplus, A::Transcendental, {{}, {{Attr::beta, 2.0}, {Attr::threshold, 5.0}}}},
      {Op::softsign, A::Transcendental},
      {Op::mish, A::Transcendental},
  };
}

Case make(Op op, Accuracy accuracy, std::vector<InputSpec> inputs, ir::Attrs attrs = {}) {
  Case c;
  c.op = op;
  c.accuracy = accuracy;
  c.inputs = std::move(inputs);
  c.attrs = std::move(attrs);
  return c;
}

void add_prelu_cases(std::vector<Case>& out) {
  for (DType t : kAllDTypes) {
    out.push_back(make(Op::prelu, Accuracy::Transcendental, {in(t, {2, 3, 4}), in(t, {3})}));
    out.push_back(make(Op::prelu, Accuracy::Transcendental,
                       {in(t, {4, 3, 5}, Layout::Permuted), in(t, {1})}));
  }
  for (DType t : kFloatDTypes) {
    out.push_back(make(Op::prelu, Accuracy::Transcendental, {in(t, {}), in(t, {})}));
    out.push_back(make(Op::prelu, Accuracy::Transcendental, {in(t, {0, 3}), in(t, {3})}));
    out.push_back(make(Op::prelu, Accuracy::Transcendental, {in(t, {33}), in(t, {1})}));
    out.push_back(make(Op::prelu, Accuracy::Transcendental,
                       {in(t, {67}, Layout::Contiguous, Values::Special), in(t, {})}));
    out.push_back(make(Op::prelu, Accuracy::Transcendental,
                       {in(t, {8, 16, 9}, Layout::Mixed), in(t, {16}, Layout::Reversed)}));
    out.push_back(make(Op::prelu, Accuracy::Transcendental, {in(t, big_shape()), in(t, {263})}));
  }
  out.push_back(make(Op::prelu, Accuracy::Transcendental,
                     {in(DType::Float16, {2, 3}), in(DType::Float32, {3})}));
  for (auto [x, w] : {std::pair<Shape, Shape>{{2, 3}, {4}}, {{5}, {5}}, {{2, 3}, {3, 1}}}) {
    Case c =
        make(Op::prelu, Accuracy::Transcendental, {in(DType::Float32, x), in(DType::Float32, w)});
    c.error = ErrorCode::Shape;
    out.push_back(std::move(c));
  }
}

void add_glu_cases(std::vector<Case>& out) {
  for (DType t : kAllDTypes) {
    out.push_back(make(Op::glu, Accuracy::Transcendental, {in(t, {4, 6})}));
    out.push_back(make(Op::glu, Accuracy::Transcendental, {in(t, {4, 6}, Layout::Permuted)},
                       {{Attr::axis, int64_t{0}}}));
  }
  for (DType t : kFloatDTypes) {
    out.push_back(make(Op::glu, Accuracy::Transcendental, {in(t, {0})}));
    out.push_back(
        make(Op::glu, Accuracy::Transcendental, {in(t, {3, 0, 2})}, {{Attr::axis, int64_t{1}}}));
    out.push_back(make(Op::glu, Accuracy::Transcendental,
                       {in(t, {66}, Layout::Contiguous, Values::Special)}));
    out.push_back(make(Op::glu, Accuracy::Transcendental, {in(t, {3, 4, 10}, Layout::Mixed)},
                       {{Attr::axis, int64_t{-2}}}));
    out.push_back(
        make(Op::glu, Accuracy::Transcendental, {in(t, {262, 257})}, {{Attr::axis, int64_t{0}}}));
  }
  for (auto [shape, axis] : {std::pair<Shape, int64_t>{{5}, 0}, {{}, 0}, {{4, 6}, 2}}) {
    Case c =
        make(Op::glu, Accuracy::Transcendental, {in(DType::Float32, shape)}, {{Attr::axis, axis}});
    c.error = ErrorCode::Shape;
    out.push_back(std::move(c));
  }
}

}  // namespace

void add_activation_cases(std::vector<Case>& out) {
  const std::vector<double> kEdges = {NAN, INFINITY, -INFINITY, 0.0,    -0.0, 1.0,   -1.0,
                                      3.0, -3.0,     2.999,     -3.01,  20.0, 20.5,  -20.0,
                                      5.0, 2.5,      1e-30,     -1e-30, 88.0, -88.0, 0.5};
  for (const ActivationRow& row : rows()) {
    for (DType t : kAllDTypes) {
      for (size_t v = 0; v < row.variants.size(); ++v) {
        auto inputs = v == 0 ? single_input_sweep(t, Values::Mixed) : short_sweep(t, Values::Mixed);
        for (InputSpec& input : inputs)
          out.push_back(make(row.op, row.accuracy, {std::move(input)}, row.variants[v]));
      }
    }
    for (DType t : kFloatDTypes) {
      for (const ir::Attrs& attrs : row.variants) {
        Case c = make(row.op, row.accuracy,
                      {in_values(t, {static_cast<int64_t>(kEdges.size())}, kEdges)}, attrs);
        c.note = "edges";
        out.push_back(std::move(c));
      }
    }
  }
  add_prelu_cases(out);
  add_glu_cases(out);
}

}  // namespace tensord::conformance
