// Table rows for the reductions: sum, prod, max, min, mean, var (over axes) and argmax,
// argmin (over one axis or the flattened tensor).
#include <cmath>

#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Attrs;
using ir::Op;

namespace {

using Axes = std::vector<int64_t>;

struct ReduceRow {
  Op op;
  bool float_only;
  Values values;
  Accuracy accuracy;
  std::vector<Attrs> extra = {{}};  // attributes every variant also gets (var's correction)
};

struct Variant {
  InputSpec input;  // dtype filled in per case
  Attrs attrs;
  std::optional<ErrorCode> error = std::nullopt;
};

InputSpec shape_only(Shape s, Layout l = Layout::Contiguous, Values v = Values::Mixed) {
  return in(DType::Float32, std::move(s), l, v);
}

std::vector<Variant> axes_variants() {
  const Attrs all = {};
  auto axes = [](Axes a) { return Attrs{{Attr::axes, std::move(a)}}; };
  auto keep = [](Attrs a) {
    a.set(Attr::keepdim, true);
    return a;
  };
  std::vector<Variant> v = {
      {shape_only({3, 4, 5}), all},
      {shape_only({3, 4, 5}), axes({1})},
      {shape_only({3, 4, 5}), axes({0, 2})},
      {shape_only({3, 4, 5}), axes({2, 0})},
      {shape_only({3, 4, 5}), axes({-1})},
      {shape_only({3, 4, 5}), axes({})},  // a listed empty axes reduces nothing
      {shape_only({3, 4, 5}), axes({0, 1, 2})},
      {shape_only({3, 4, 5}), keep(axes({1}))},
      {shape_only({3, 4, 5}), keep(all)},
      {shape_only({}), all},
      {shape_only({}), axes({})},
      {shape_only({0, 3}), axes({0})},
      {shape_only({0, 3}), axes({1})},
      {shape_only({0, 3}), all},
      {shape_only({7}), all},
      {shape_only({33, 65}), axes({1})},
      {shape_only({33, 65}), axes({0})},
      {shape_only({70001}), all},
      {shape_only(big_shape()), axes({0})},
      {shape_only(big_shape(), Layout::Permuted), axes({1})},
      {shape_only({67}, Layout::Contiguous, Values::Special), all},
      {shape_only({5, 13}, Layout::Contiguous, Values::Special), axes({1})},
      {shape_only({3, 4, 5}), axes({3}), ErrorCode::Shape},
      {shape_only({3, 4, 5}), axes({1, -2}), ErrorCode::Shape},
      {shape_only({}), axes({0}), ErrorCode::Shape},
  };
  for (Layout l : kStridedLayouts) {
    v.push_back({shape_only({5, 6, 7}, l), axes({1})});
    v.push_back({shape_only({5, 6, 7}, l), all});
  }
  return v;
}

std::vector<Variant> axis_variants() {
  auto axis = [](int64_t a, bool keepdim = false) {
    Attrs attrs{{Attr::axis, a}};
    if (keepdim) attrs.set(Attr::keepdim, true);
    return attrs;
  };
  const Attrs flat = {}, flat_keep = {{Attr::keepdim, true}};
  std::vector<Variant> v = {
      {shape_only({3, 4, 5}), flat},
      {shape_only({3, 4, 5}), flat_keep},
      {shape_only({3, 4, 5}), axis(0)},
      {shape_only({3, 4, 5}), axis(1)},
      {shape_only({3, 4, 5}), axis(-1)},
      {shape_only({3, 4, 5}), axis(1, true)},
      {shape_only({}), flat},
      {shape_only({7}), flat},
      {shape_only({0, 3}), flat, ErrorCode::Shape},
      {shape_only({0, 3}), axis(0), ErrorCode::Shape},
      {shape_only({0, 3}), axis(1)},  // nothing to reduce per output, and no outputs
      {shape_only({33, 65}), axis(1)},
      {shape_only({70001}), flat},
      {shape_only(big_shape()), axis(0)},
      {shape_only({67}, Layout::Contiguous, Values::Special), flat},
      {shape_only({5, 13}, Layout::Contiguous, Values::Special), axis(1)},
      // Rows past two 64-byte vectors of every dtype (arg_scan.h): NaN, infinities, +-0.
      {shape_only({4, 300}, Layout::Contiguous, Values::Special), axis(1)},
      {shape_only({3, 4, 5}), axis(3), ErrorCode::Shape},
      {shape_only({}), axis(0), ErrorCode::Shape},  // 0-d has no axes
  };
  for (Layout l : kStridedLayouts) {
    v.push_back({shape_only({5, 6, 7}, l), axis(1)});
    v.push_back({shape_only({5, 6, 7}, l), flat});
  }
  return v;
}

// argmax/argmin rows long enough for the vector scan (engine/backends/cpu/arg_scan.h) whose
// answer sits where its blocks end: the extreme in the scalar tail, zeros of both signs tied
// from the first element, the first of two NaNs late in the row.
void add_arg_scan_cases(std::vector<Case>& out) {
  constexpr int64_t n = 261;  // 4 vectors of float32 and 5 elements; 2 vectors and 5 of int8
  for (Op op : {Op::argmax, Op::argmin}) {
    const double extreme = op == Op::argmax ? 5 : -5;
    for (DType t : kAllDTypes) {
      if (t == DType::Bool) continue;
      std::vector<double> tail(n), zeros(n), nans(n);
      for (int64_t i = 0; i < n; ++i) {
        tail[i] = static_cast<double>(i % 7) - 3;
        zeros[i] = i % 2 == 0 ? -0.0 : 0.0;
        nans[i] = static_cast<double>(i % 5) - 2;
      }
      tail[n - 2] = extreme;
      nans[n - 70] = nans[n - 3] = std::nan("");
      std::vector<std::vector<double>> rows = {tail, zeros};
      if (ir::is_floating(t)) rows.push_back(nans);
      for (const std::vector<double>& values : rows) {
        Case c;
        c.op = op;
        c.attrs = {{Attr::axis, int64_t{-1}}};
        c.inputs = {in_values(t, {2, n}, values)};
        out.push_back(std::move(c));
      }
    }
  }
}

// Reductions over the outer axes of an input whose innermost axis is kept but strided
// (x[:, ::2].sum(0)): the kernel copies it in its own order, then reduces columns.
void add_strided_kept_cases(std::vector<Case>& out) {
  for (Op op : {Op::sum, Op::prod, Op::max, Op::min, Op::argmax, Op::argmin}) {
    const bool arg = op == Op::argmax || op == Op::argmin;
    for (DType t : {DType::Float32, DType::Float64, DType::Int32, DType::Float16}) {
      Case c;
      c.op = op;
      c.attrs = arg ? Attrs{{Attr::axis, int64_t{0}}} : Attrs{{Attr::axes, Axes{0, 1}}};
      c.inputs = {in(t, arg ? Shape{40, 9} : Shape{4, 10, 9}, Layout::Strided,
                     op == Op::prod ? Values::NearOne : Values::Halves)};
      c.accuracy = op == Op::sum || op == Op::prod ? Accuracy::Accumulated : Accuracy::Exact;
      out.push_back(std::move(c));
    }
  }
}

}  // namespace

void add_reduce_cases(std::vector<Case>& out) {
  add_arg_scan_cases(out);
  add_strided_kept_cases(out);
  using A = Accuracy;
  using V = Values;
  const ReduceRow kRows[] = {
      {Op::sum, false, V::Mixed, A::Accumulated},
      {Op::prod, false, V::NearOne, A::Accumulated},
      {Op::max, false, V::Halves, A::Exact},
      {Op::min, false, V::Halves, A::Exact},
      {Op::argmax, false, V::Halves, A::Exact},  // many ties: the first index must win
      {Op::argmin, false, V::Halves, A::Exact},
      {Op::mean, true, V::Mixed, A::Accumulated},
      {Op::var, true, V::Mixed, A::Accumulated, {{}, {{Attr::correction, 1.0}}}},
  };
  for (const ReduceRow& row : kRows) {
    const bool arg = row.op == Op::argmax || row.op == Op::argmin;
    const std::vector<Variant> variants = arg ? axis_variants() : axes_variants();
    for (DType t : kAllDTypes) {
      if (row.float_only && !ir::is_floating(t)) {
        Case c;
        c.op = row.op;
        c.inputs = {in(t, {3, 4})};
        c.error = ErrorCode::DType;
        out.push_back(std::move(c));
        continue;
      }
      for (const Attrs& extra : row.extra) {
        for (const Variant& v : variants) {
          Case c;
          c.op = row.op;
          c.attrs = v.attrs;
          for (const auto& [a, value] : extra.items()) c.attrs.set(a, value);
          c.inputs = {v.input};
          c.inputs[0].dtype = t;
          if (c.inputs[0].values == V::Mixed) c.inputs[0].values = row.values;
          if (c.inputs[0].values == V::Special && row.accuracy == A::Accumulated) {
            c.inputs[0].values = V::Edge;  // no huge values in sums (see Values::Edge)
          }
          c.accuracy = row.accuracy;
          c.error = v.error;
          // max/min cannot reduce an empty axis (there is no identity).
          const bool reduces_empty_axis =
              c.inputs[0].shape == Shape{0, 3} &&
              (!c.attrs.has(Attr::axes) || c.attrs.get_ints(Attr::axes) == Axes{0});
          if ((row.op == Op::max || row.op == Op::min) && reduces_empty_axis) {
            c.error = ErrorCode::Shape;
          }
          out.push_back(std::move(c));
        }
      }
    }
  }
}

}  // namespace tensord::conformance
