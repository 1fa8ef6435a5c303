// Table rows for the special functions: every dtype over the sweep shapes (no 67K-element
// tensors: the reference integrates and bisects per element), strided layouts, the special
// values, and explicit edges per function (poles, the ends of the domain, where series switch).
#include <cmath>

#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Op;

namespace {

struct SpecialRow {
  Op op;
  Values values;
  std::vector<double> edges;
};

std::vector<SpecialRow> rows() {
  const double inf = INFINITY, nan = NAN;
  using V = Values;
  const std::vector<double> bessel = {0.0,   -0.0,  1.0,   -1.0,   5.0, 29.9, 30.1, 50.0,
                                      100.0, 700.0, 710.0, -710.0, 1e5, inf,  -inf, nan};
  return {
      {Op::lgamma,
       V::Mixed,
       {1, 2, 0.5, -0.5, -1, 0.0, -0.0, 1e-300, 171.5, 1e306, -2.5, 3.5, -1e-10, nan, inf, -inf}},
      {Op::digamma,
       V::Mixed,
       {1, 0.5, -0.5, 0.0, -0.0, -1, -2, 1e-300, -1e-300, 100, 1e10, inf, -inf, nan, -2.5, 7.25,
        1.4616321449683622}},
      {Op::erfinv,
       V::NearOne,
       {0.0, -0.0, 0.5, -0.5, 0.9, 0.99999, -0.999999999, 1, -1, 1.5, 1e-300, 1e-10, nan, 0.25}},
      {Op::erfcx,
       V::Mixed,
       {0.0, 1, -1, 5, 25, 26, 27, 30, 100, 1e10, -5, -26, -27, inf, -inf, nan}},
      {Op::i0, V::Mixed, bessel},
      {Op::i0e, V::Mixed, bessel},
      {Op::i1, V::Mixed, bessel},
      {Op::i1e, V::Mixed, bessel},
      {Op::ndtr, V::Mixed, {0.0, 1, -1, 5, -5, -10, -38, -40, 40, inf, -inf, nan}},
      {Op::ndtri,
       V::NearOne,
       {0.5, 0.25, 0.75, 0.975, 0.025, 1e-10, 1e-300, 1 - 1e-10, 0.0, 1, -0.5, 1.5, nan}},
      {Op::log_ndtr,
       V::Mixed,
       {0.0, 1, -1, -0.99, -1.01, 5, 10, 40, -10, -40, -100, -200, -1e5, inf, -inf, nan}},
      {Op::sinc, V::Mixed, {0.0, -0.0, 1, -1, 0.5, 1e-10, 2.5, 100.5, 1e20, inf, -inf, nan}},
      {Op::entr, V::Positive, {0.0, -0.0, 1, 0.5, 2, -1, 1e-300, inf, -inf, nan}},
      {Op::logit, V::NearOne, {0.5, 0.25, 0.0, 1, -0.5, 1.5, 1e-10, nan}},
      {Op::expit, V::Mixed, {0.0, 1, -1, 50, -50, 800, -800, inf, -inf, nan}},
  };
}

Case make(Op op, std::vector<InputSpec> inputs) {
  Case c;
  c.op = op;
  c.inputs = std::move(inputs);
  c.accuracy = Accuracy::Transcendental;
  return c;
}

}  // namespace

void add_special_cases(std::vector<Case>& out) {
  for (const SpecialRow& row : rows()) {
    for (DType t : kAllDTypes) {
      for (const Shape& s : sweep_shapes())
        out.push_back(make(row.op, {in(t, s, Layout::Contiguous, row.values)}));
      for (Layout l : kStridedLayouts) out.push_back(make(row.op, {in(t, {5, 7}, l, row.values)}));
      out.push_back(make(row.op, {in(t, {67}, Layout::Contiguous, Values::Special)}));
    }
    for (DType t : kFloatDTypes) {
      Case c = make(row.op, {in_values(t, {static_cast<int64_t>(row.edges.size())}, row.edges)});
      c.note = "edges";
      out.push_back(std::move(c));
    }
  }
  const std::vector<double> x = {0.0, 0.0, 0.0, 1.0, 2.0, -1.0, NAN, 0.5, 3.0};
  const std::vector<double> y = {0.0, -1.0, NAN, 0.0, 3.0, -0.5, 1.0, INFINITY, 1e-300};
  for (Op op : {Op::xlogy, Op::xlog1py}) {
    for (DType t : kAllDTypes) {
      out.push_back(make(op, {in(t, {3, 1}, Layout::Contiguous, Values::Positive), in(t, {4})}));
      out.push_back(make(op, {in(t, {}), in(t, {})}));
      out.push_back(make(
          op, {in(t, {5, 7}, Layout::Permuted), in(t, {5, 7}, Layout::Strided, Values::Positive)}));
      out.push_back(make(op, {in(t, {0, 3}), in(t, {3})}));
    }
    for (DType t : kFloatDTypes) {
      Case c = make(op, {in_values(t, {9}, x), in_values(t, {9}, y)});
      c.note = "edges";
      out.push_back(std::move(c));
    }
  }
}

}  // namespace tensord::conformance
