// Table rows for nextafter, lerp, addcmul and addcdiv: broadcasting over every dtype (those an
// op rejects get an error row), non-contiguous layouts, and explicit edges (zeros, the format's
// extremes, NaN and infinities; lerp's weights 0, 0.5, 1 and outside [0, 1]).
#include <cmath>
#include <limits>

#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace {

Case make(Op op, std::vector<InputSpec> inputs, Accuracy accuracy, ir::Attrs attrs = {}) {
  Case c;
  c.op = op;
  c.inputs = std::move(inputs);
  c.accuracy = accuracy;
  c.attrs = std::move(attrs);
  return c;
}

void add_nextafter_cases(std::vector<Case>& out) {
  const double inf = INFINITY, nan = NAN;
  // Pairs (a[i], b[i]); values that a dtype cannot hold are rounded into it first (1e300 is inf
  // in float32, and 65504 is float16's largest).
  const std::vector<double> a = {0.0,  -0.0, 0.0,  1.0,    1.0,   -1.0, -1.0, 2.0,  2.0,
                                 0.5,  inf,  -inf, nan,    1.0,   1.0,  3.0,  -0.0, 65504.0,
                                 1e38, 1e-5, -7.5, 1e-300, 1e300, inf,  1e-45};
  const std::vector<double> b = {1.0,  -1.0, -0.0, 2.0, 0.0, -2.0, 0.0, 0.0, 3.0,
                                 -1.0, 0.0,  0.0,  1.0, nan, 1.0,  inf, 0.0, inf,
                                 inf,  0.0,  -inf, 0.0, inf, inf,  -1.0};
  const auto n = static_cast<int64_t>(a.size());
  for (DType t : kAllDTypes) {
    if (!ir::is_floating(t)) {
      Case c = make(Op::nextafter, {in(t, {3}), in(t, {3})}, Accuracy::Exact);
      c.error = ErrorCode::DType;
      out.push_back(std::move(c));
      continue;
    }
    for (auto [sa, sb] : {std::pair<Shape, Shape>{{}, {}},
                          {{0}, {0}},
                          {{33}, {33}},
                          {{3, 1}, {1, 4}},
                          {{5}, {}},
                          {big_shape(), {263}}}) {
      out.push_back(make(Op::nextafter, {in(t, sa), in(t, sb)}, Accuracy::Exact));
    }
    out.push_back(make(Op::nextafter,
                       {in(t, {5, 7}, Layout::Permuted), in(t, {7}, Layout::Reversed)},
                       Accuracy::Exact));
    out.push_back(make(Op::nextafter,
                       {in(t, {67}, Layout::Contiguous, Values::Special),
                        in(t, {67}, Layout::Contiguous, Values::Special)},
                       Accuracy::Exact));
    Case c = make(Op::nextafter, {in_values(t, {n}, a), in_values(t, {n}, b)}, Accuracy::Exact);
    c.note = "edges";
    out.push_back(std::move(c));
  }
  out.push_back(
      make(Op::nextafter, {in(DType::Int32, {4}), in(DType::Float32, {4})}, Accuracy::Exact));
  Case bad =
      make(Op::nextafter, {in(DType::Float32, {3}), in(DType::Float32, {4})}, Accuracy::Exact);
  bad.error = ErrorCode::Shape;
  out.push_back(std::move(bad));
}

// Three broadcast operands: equal shapes, 0-d, empty, broadcasting and strided layouts.
struct Triple {
  Shape a, b, c;
  Layout la = Layout::Contiguous, lb = Layout::Contiguous;
};
const Triple kTriples[] = {
    {{}, {}, {}},
    {{0}, {0}, {}},
    {{33}, {33}, {33}},
    {{3, 1}, {1, 4}, {}},
    {{2, 0}, {2, 1}, {1}},
    {{5, 7}, {7}, {5, 1}, Layout::Permuted, Layout::Reversed},
    {{3, 4, 9}, {3, 4, 9}, {9}, Layout::Mixed, Layout::Strided},
    {big_shape(), {263}, {}},
};

void add_three_input_cases(std::vector<Case>& out, Op op, bool ints_ok,
                           const std::vector<ir::Attrs>& variants) {
  for (DType t : kAllDTypes) {
    const bool ok = ir::is_floating(t) || (ints_ok && t != DType::Bool);
    if (!ok) {
      Case c = make(op, {in(t, {3}), in(t, {3}), in(t, {3})}, Accuracy::Accumulated);
      c.error = ErrorCode::DType;
      out.push_back(std::move(c));
      continue;
    }
    // Edge: NaN and infinities without huge values, whose float32 intermediates (b - a) would
    // overflow where float64 does not.
    const Values v = ir::is_floating(t) ? Values::Edge : Values::Small;
    for (size_t k = 0; k < variants.size(); ++k) {
      for (const Triple& s : kTriples) {
        if (k > 0 && s.a.size() > 1 && s.a != big_shape()) continue;  // short sweep
        out.push_back(make(op, {in(t, s.a, s.la, v), in(t, s.b, s.lb, v), in(t, s.c, s.lb, v)},
                           Accuracy::Accumulated, variants[k]));
      }
    }
  }
  // Mixed dtypes promote over all three.
  Case mixed =
      make(op, {in(DType::Float16, {4, 1}), in(DType::BFloat16, {3}), in(DType::Float32, {})},
           Accuracy::Accumulated);
  out.push_back(std::move(mixed));
  Case ints = make(op, {in(DType::Int8, {4}), in(DType::Int32, {4}), in(DType::Int16, {})},
                   Accuracy::Accumulated);
  if (!ints_ok) ints.error = ErrorCode::DType;
  out.push_back(std::move(ints));
  Case bad = make(op, {in(DType::Float32, {3}), in(DType::Float32, {4}), in(DType::Float32, {})},
                  Accuracy::Accumulated);
  bad.error = ErrorCode::Shape;
  out.push_back(std::move(bad));
}

void add_edge_cases(std::vector<Case>& out) {
  const double inf = INFINITY, nan = NAN;
  const std::vector<double> a = {1.0, 1.0, 1.0, 1.0, 1.0, -2.0, 0.0, inf, 1.0, 1.0, nan, 3.0};
  const std::vector<double> b = {3.0, 3.0, 3.0, 3.0, 3.0, 6.0, -0.0, 1.0, inf, 5.0, 1.0, 0.0};
  const std::vector<double> w = {0.0, 1.0, 0.5, -1.0, 2.0, 0.25, 0.5, 0.25, 0.75, nan, 0.5, inf};
  const auto n = static_cast<int64_t>(a.size());
  for (DType t : kFloatDTypes) {
    for (Op op : {Op::lerp, Op::addcmul, Op::addcdiv}) {
      Case c = make(op, {in_values(t, {n}, a), in_values(t, {n}, b), in_values(t, {n}, w)},
                    Accuracy::Accumulated);
      c.note = "edges";
      out.push_back(std::move(c));
    }
  }
}

}  // namespace

void add_pointwise_cases(std::vector<Case>& out) {
  add_nextafter_cases(out);
  add_three_input_cases(out, Op::lerp, false, {{}});
  const std::vector<ir::Attrs> values = {
      {}, {{Attr::value, 0.5}}, {{Attr::value, int64_t{-3}}}, {{Attr::value, true}}};
  add_three_input_cases(out, Op::addcmul, true, values);
  add_three_input_cases(out, Op::addcdiv, false, values);
  add_edge_cases(out);
}

}  // namespace tensord::conformance
