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

// issue 4: polygamma, multigammaln, bessel_j0/j1, gammainc, gammaincc, zeta, logit's eps.
void add_special_more_cases(std::vector<Case>& out) {
  const double inf = INFINITY, nan = NAN;
  auto attrs_case = [](Op op, ir::Attrs attrs, std::vector<InputSpec> inputs) {
    Case c = make(op, std::move(inputs));
    c.attrs = std::move(attrs);
    return c;
  };
  struct Row {
    Op op;
    ir::Attrs attrs;
    Values values;
    std::vector<double> edges;
  };
  const std::vector<double> poly_edges = {1,    0.5, -0.5, 0.0, -0.0, -1,   -2,    1e-300, 100,
                                          1e10, inf, -inf, nan, -2.5, 7.25, -60.5, 30.5,   1e-5};
  const std::vector<double> bessel = {0.0,
                                      -0.0,
                                      1,
                                      -1,
                                      2.404825557695773,
                                      3.8317059702075125,
                                      4,
                                      4.1,
                                      -7.5,
                                      10,
                                      24.9,
                                      25.1,
                                      30,
                                      -100,
                                      1e3,
                                      2e4,
                                      -1e5,
                                      1e10,
                                      inf,
                                      -inf,
                                      nan};
  const std::vector<Row> rows = {
      {Op::polygamma, {{ir::Attr::n, int64_t{1}}}, Values::Mixed, poly_edges},
      {Op::polygamma, {{ir::Attr::n, int64_t{0}}}, Values::Mixed, poly_edges},
      {Op::polygamma, {{ir::Attr::n, int64_t{2}}}, Values::Mixed, poly_edges},
      {Op::polygamma, {{ir::Attr::n, int64_t{3}}}, Values::Mixed, poly_edges},
      {Op::polygamma, {{ir::Attr::n, int64_t{7}}}, Values::Positive, poly_edges},
      {Op::multigammaln,
       {{ir::Attr::p, int64_t{1}}},
       Values::Positive,
       {0.5, 1, 2, 10, 1e5, 1e-300, 0.0, -1, inf, nan}},
      {Op::multigammaln,
       {{ir::Attr::p, int64_t{4}}},
       Values::Positive,
       {1.5, 1.50001, 1.6, 2, 10, 1e5, 1, 0.0, -1, inf, nan}},
      {Op::bessel_j0, {}, Values::Mixed, bessel},
      {Op::bessel_j1, {}, Values::Mixed, bessel},
      {Op::logit,
       {{ir::Attr::eps, 1e-6}},
       Values::NearOne,
       {0.5, 0.25, 0.0, 1, -0.5, 1.5, 1e-10, 1 - 1e-10, 1e-6, nan}},
      {Op::logit, {{ir::Attr::eps, 0.25}}, Values::Mixed, {0.5, 0.1, 0.9, 0.25, 0.75, -inf, nan}},
      {Op::logit, {{ir::Attr::eps, 0.0}}, Values::NearOne, {0.5, 0.0, 1, -0.5, 1.5, nan}},
      {Op::logit, {{ir::Attr::eps, nan}}, Values::NearOne, {0.5, 0.0, 1, -0.5, 1.5, nan}},
  };
  for (const Row& row : rows) {
    const bool first = &row == &rows.front() || row.op != (&row - 1)->op;
    for (DType t : kAllDTypes) {
      if (first) {
        for (const Shape& s : sweep_shapes())
          out.push_back(attrs_case(row.op, row.attrs, {in(t, s, Layout::Contiguous, row.values)}));
        for (Layout l : kStridedLayouts)
          out.push_back(attrs_case(row.op, row.attrs, {in(t, {5, 7}, l, row.values)}));
      } else {
        out.push_back(attrs_case(row.op, row.attrs, {in(t, {33}, Layout::Contiguous, row.values)}));
        out.push_back(attrs_case(row.op, row.attrs, {in(t, {5, 7}, Layout::Permuted, row.values)}));
      }
      out.push_back(
          attrs_case(row.op, row.attrs, {in(t, {67}, Layout::Contiguous, Values::Special)}));
    }
    for (DType t : kFloatDTypes) {
      Case c = attrs_case(row.op, row.attrs,
                          {in_values(t, {static_cast<int64_t>(row.edges.size())}, row.edges)});
      c.note = "edges";
      out.push_back(std::move(c));
    }
  }
  // Bad attributes.
  Case neg = attrs_case(Op::polygamma, {{ir::Attr::n, int64_t{-1}}}, {in(DType::Float32, {3})});
  neg.error = ErrorCode::Shape;
  out.push_back(std::move(neg));
  Case p0 = attrs_case(Op::multigammaln, {{ir::Attr::p, int64_t{0}}}, {in(DType::Float32, {3})});
  p0.error = ErrorCode::Shape;
  out.push_back(std::move(p0));
  Case missing = attrs_case(Op::polygamma, {}, {in(DType::Float32, {3})});
  missing.error = ErrorCode::InvalidGraph;
  out.push_back(std::move(missing));

  // Two arguments: (a, x) for gammainc/gammaincc, (x, q) for zeta.
  const std::vector<double> ga = {0,   0, 1,   1,  0.5, 2, 10,   100,   1000, 1e-3, 0.05, 3,   inf,
                                  inf, 1, nan, -1, 1,   5, 0.25, 1e-10, 30,   30,   20.5, 1e4, 1e4};
  const std::vector<double> gx = {0,   1,  0, inf, 0.5, 2,   11,  100, 1050, 0.5, 0.9, 0.1,  1,
                                  inf, -1, 1, 1,   nan, 4.9, 1.0, 0.3, 25,   35,  1.5, 9900, 1e4};
  const std::vector<double> zx = {2, 2, 3,   3,   1, 0.5, 2,   2, 4,      50, inf, inf,
                                  2, 2, 1.5, 2.5, 3, 2,   nan, 2, 1.0001, 7,  3};
  const std::vector<double> zq = {1,        0.5,    -0.5, -3.5, 1,   1,     0,    -2,
                                  1e-3,     0.5,    2,    0.5,  inf, 1e10,  -1.5, -1.5,
                                  -99999.5, -60.25, 1,    nan,  1,   -3.25, 1e-3};
  for (Op op : {Op::gammainc, Op::gammaincc, Op::zeta}) {
    const Values v = op == Op::zeta ? Values::Mixed : Values::Positive;
    for (DType t : kAllDTypes) {
      out.push_back(
          make(op, {in(t, {3, 1}, Layout::Contiguous, v), in(t, {4}, Layout::Contiguous, v)}));
      out.push_back(make(op, {in(t, {}, Layout::Contiguous, v), in(t, {}, Layout::Contiguous, v)}));
      out.push_back(
          make(op, {in(t, {5, 7}, Layout::Permuted, v), in(t, {5, 7}, Layout::Strided, v)}));
      out.push_back(make(op, {in(t, {33}, Layout::Contiguous, v),
                              in(t, {33}, Layout::Contiguous, Values::Mixed)}));
      out.push_back(make(op, {in(t, {0, 3}), in(t, {3})}));
      out.push_back(make(op, {in(t, {67}, Layout::Contiguous, Values::Special),
                              in(t, {67}, Layout::Contiguous, v)}));
    }
    out.push_back(
        make(op, {in(DType::Int32, {4}, Layout::Contiguous, v), in(DType::Float64, {4})}));
    for (DType t : kFloatDTypes) {
      const auto& a = op == Op::zeta ? zx : ga;
      const auto& b = op == Op::zeta ? zq : gx;
      Case c = make(op, {in_values(t, {static_cast<int64_t>(a.size())}, a),
                         in_values(t, {static_cast<int64_t>(b.size())}, b)});
      c.note = "edges";
      out.push_back(std::move(c));
    }
  }
}

}  // namespace tensord::conformance
