// Table rows for issue 4's reductions (all ... norm) and scans (cumsum, cumprod,
// logcumsumexp): every dtype over axes sets that cover all axes, one, several, none, keepdim,
// 0-d, empty axes and non-contiguous layouts, plus NaN/inf rows.
#include <cmath>
#include <limits>

#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Attrs;
using ir::Op;

namespace {

using Axes = std::vector<int64_t>;

struct Shaped {
  Shape shape;
  Attrs attrs;
  Layout layout = Layout::Contiguous;
  Values values = Values::Mixed;
};

std::vector<Shaped> reduce_shapes() {
  auto axes = [](Axes a, bool keep = false) {
    Attrs at{{Attr::axes, std::move(a)}};
    if (keep) at.set(Attr::keepdim, true);
    return at;
  };
  std::vector<Shaped> v = {
      {{3, 4, 5}, {}},
      {{3, 4, 5}, axes({1})},
      {{3, 4, 5}, axes({2, 0})},
      {{3, 4, 5}, axes({-1}, true)},
      {{3, 4, 5}, axes({})},
      {{}, {}},
      {{0, 3}, axes({0})},
      {{0, 3}, axes({1})},
      {{0, 3}, {}},
      {{33, 65}, axes({1})},
      {big_shape(), axes({0})},
      {{5, 6, 7}, axes({1}), Layout::Permuted},
      {{5, 6, 7}, {}, Layout::Mixed},
      {{5, 6, 7}, axes({0, 2}), Layout::Reversed},
      {{67}, {}, Layout::Contiguous, Values::Special},
      {{5, 13}, axes({1}), Layout::Contiguous, Values::Special},
  };
  return v;
}

Case make(Op op, DType t, const Shaped& s, Accuracy accuracy) {
  Case c;
  c.op = op;
  c.attrs = s.attrs;
  c.inputs = {in(t, s.shape, s.layout, s.values)};
  c.accuracy = accuracy;
  return c;
}

bool reduces_empty(const Shaped& s) {
  if (s.shape != Shape{0, 3}) return false;
  return !s.attrs.has(Attr::axes) || s.attrs.get_ints(Attr::axes) == Axes{0};
}

struct Row {
  Op op;
  bool float_only;
  Accuracy accuracy;
  Values values;
  std::vector<Attrs> extra = {{}};
};

void add_reduction_rows(std::vector<Case>& out) {
  using A = Accuracy;
  using V = Values;
  const double inf = std::numeric_limits<double>::infinity();
  const Row rows[] = {
      {Op::all, false, A::Exact, V::Halves},
      {Op::any, false, A::Exact, V::Halves},
      {Op::count_nonzero, false, A::Exact, V::Halves},
      {Op::amax, false, A::Exact, V::Halves},
      {Op::amin, false, A::Exact, V::Halves},
      {Op::nansum, false, A::Accumulated, V::Mixed},
      {Op::nanmean, true, A::Accumulated, V::Mixed},
      {Op::std, true, A::Accumulated, V::Mixed, {{}, {{Attr::correction, 1.0}}}},
      {Op::logsumexp, false, A::Accumulated, V::Mixed},
      {Op::norm,
       true,
       A::Accumulated,
       V::Mixed,
       {{},
        {{Attr::ord, 1.0}},
        {{Attr::ord, inf}},
        {{Attr::ord, -inf}},
        {{Attr::ord, 0.0}},
        {{Attr::ord, 3.0}},
        {{Attr::ord, 6.0}},  // integer ords 3..16 multiply instead of calling pow
        {{Attr::ord, -1.5}}}},
  };
  for (const Row& row : rows) {
    for (DType t : kAllDTypes) {
      if (row.float_only && !ir::is_floating(t)) {
        Case c = make(row.op, t, {{3, 4}, {}}, row.accuracy);
        c.error = ErrorCode::DType;
        out.push_back(std::move(c));
        continue;
      }
      for (size_t x = 0; x < row.extra.size(); ++x) {
        for (Shaped s : reduce_shapes()) {
          if (x > 0 && s.shape.size() == 3 && s.layout == Layout::Contiguous &&
              !s.attrs.items().empty()) {
            continue;  // attribute variants: a shorter sweep
          }
          if (s.values == V::Mixed) s.values = row.values;
          if (s.values == V::Special && row.accuracy == A::Accumulated) s.values = V::Edge;
          for (const auto& [a, v] : row.extra[x].items()) s.attrs.set(a, v);
          Case c = make(row.op, t, s, row.accuracy);
          const bool inf_norm = row.op == Op::norm && std::isinf(s.attrs.get_float(Attr::ord, 2));
          if ((row.op == Op::amax || row.op == Op::amin || inf_norm) && reduces_empty(s)) {
            c.error = ErrorCode::Shape;
          }
          out.push_back(std::move(c));
        }
      }
    }
  }
  // NaN rows, NaN-free rows, rows of -inf and +inf (logsumexp must not give NaN there).
  const std::vector<double> rows4 = {NAN, 1.0,  2.0, NAN, -inf, -inf, -inf, -inf,
                                     inf, -inf, 1.0, inf, 3.0,  -2.0, 0.0,  1e-3};
  for (DType t : kFloatDTypes) {
    for (Op op : {Op::nansum, Op::nanmean, Op::logsumexp, Op::all, Op::any, Op::count_nonzero}) {
      Case c = make(op, t, {{4, 4}, {{Attr::axes, Axes{1}}}}, A::Accumulated);
      c.inputs = {in_values(t, {4, 4}, rows4)};
      c.note = "NaN and infinite rows";
      out.push_back(std::move(c));
    }
  }
  Case bad = make(Op::logsumexp, DType::Float32, {{3, 4}, {{Attr::axes, Axes{2}}}}, A::Accumulated);
  bad.error = ErrorCode::Shape;
  out.push_back(std::move(bad));
}

void add_scan_rows(std::vector<Case>& out) {
  struct ScanShape {
    Shape shape;
    int64_t axis;
    Layout layout = Layout::Contiguous;
    Values values = Values::Mixed;
  };
  const ScanShape shapes[] = {
      {{7}, 0},
      {{0}, 0},
      {{1}, 0},
      {{3, 4, 5}, 0},
      {{3, 4, 5}, 1},
      {{3, 4, 5}, -1},
      {{0, 3}, 1},
      {{33, 65}, 1},
      {big_shape(), 0},
      {big_shape(), 1},
      {{5, 6, 7}, 1, Layout::Permuted},
      {{5, 6, 7}, 2, Layout::Mixed},
      {{5, 6, 7}, 0, Layout::Reversed},
      {{67}, 0, Layout::Contiguous, Values::Edge},
  };
  for (Op op : {Op::cumsum, Op::cumprod, Op::logcumsumexp}) {
    const Values family = op == Op::cumprod ? Values::NearOne : Values::Mixed;
    for (DType t : kAllDTypes) {
      for (const ScanShape& s : shapes) {
        Case c;
        c.op = op;
        c.attrs = {{Attr::axis, s.axis}};
        c.inputs = {in(t, s.shape, s.layout, s.values == Values::Mixed ? family : s.values)};
        c.accuracy = Accuracy::Accumulated;
        out.push_back(std::move(c));
      }
    }
    for (auto [shape, axis] : {std::pair<Shape, int64_t>{{}, 0}, {{3, 4}, 2}}) {
      Case c;
      c.op = op;
      c.attrs = {{Attr::axis, axis}};
      c.inputs = {in(DType::Float32, shape)};
      c.error = ErrorCode::Shape;
      out.push_back(std::move(c));
    }
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (DType t : kFloatDTypes) {
    Case c;
    c.op = Op::logcumsumexp;
    c.attrs = {{Attr::axis, int64_t{1}}};
    c.inputs = {
        in_values(t, {3, 4}, {-inf, -inf, 1.0, -inf, inf, 2.0, -inf, inf, NAN, 1.0, 2.0, 3.0})};
    c.accuracy = Accuracy::Accumulated;
    c.note = "infinite and NaN lines";
    out.push_back(std::move(c));
  }
}

}  // namespace

void add_reduce_more_cases(std::vector<Case>& out) {
  add_reduction_rows(out);
  add_scan_rows(out);
}

}  // namespace tensord::conformance
