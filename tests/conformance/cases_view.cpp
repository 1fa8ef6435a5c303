// Table rows for the view ops (reshape, permute, expand, slice, transpose, squeeze, unsqueeze,
// flip) and contiguous. Every variant runs on every dtype; valid variants also run on each
// non-contiguous layout, so views of views are covered.
#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Attrs;
using ir::Op;

namespace {

using Ints = std::vector<int64_t>;

struct ViewVariant {
  Shape shape;
  Attrs attrs;
  std::optional<ErrorCode> error = std::nullopt;
};

struct ViewRow {
  Op op;
  std::vector<ViewVariant> variants;
};

Attrs slice_attrs(int64_t axis, std::optional<int64_t> start, std::optional<int64_t> stop,
                  std::optional<int64_t> step) {
  Attrs a{{Attr::axis, axis}};
  if (start) a.set(Attr::start, *start);
  if (stop) a.set(Attr::stop, *stop);
  if (step) a.set(Attr::step, *step);
  return a;
}

std::vector<ViewRow> view_rows() {
  const auto S = ErrorCode::Shape;
  auto shape = [](Shape s) { return Attrs{{Attr::shape, std::move(s)}}; };
  auto dims = [](Ints d) { return Attrs{{Attr::dims, std::move(d)}}; };
  auto axes = [](Ints a) { return Attrs{{Attr::axes, std::move(a)}}; };
  const std::nullopt_t none = std::nullopt;
  return {
      {Op::reshape,
       {{{2, 3, 4}, shape({6, 4})},
        {{2, 3, 4}, shape({24})},
        {{2, 3, 4}, shape({4, -1})},
        {{2, 3, 4}, shape({-1})},
        {{2, 3, 4}, shape({2, 3, 4, 1})},
        {{2, 3, 4}, shape({1, 24, 1})},
        {{0, 3}, shape({3, 0})},
        {{0, 3}, shape({-1, 3})},
        {{0, 3}, shape({0})},
        {{}, shape({1, 1})},
        {{1}, shape({})},
        {{1, 1}, shape({})},
        {big_shape(), shape({263, 257})},
        {{2, 3}, shape({7}), S},
        {{2, 3}, shape({-1, -1}), S},
        {{2, 3}, shape({-2, 3}), S},
        {{0, 3}, shape({-1, 0}), S}}},
      {Op::permute,
       {{{2, 3, 4}, dims({2, 0, 1})},
        {{2, 3, 4}, dims({-1, 0, 1})},
        {{2, 3, 4}, dims({0, 1, 2})},
        {{2, 3, 4}, dims({1, 0, 2})},
        {{}, dims({})},
        {{0, 3, 2}, dims({1, 2, 0})},
        {big_shape(), dims({1, 0})},
        {{2, 3, 4}, dims({0, 0, 1}), S},
        {{2, 3, 4}, dims({0, 1}), S},
        {{2, 3, 4}, dims({0, 1, 3}), S}}},
      {Op::expand,
       {{{3, 1}, shape({3, 4})},
        {{1}, shape({2, 3, 5})},
        {{3, 1}, shape({-1, 4})},
        {{}, shape({2, 2})},
        {{1, 3}, shape({0, 3})},
        {{3, 1}, shape({2, 3, 0})},
        {{1, 263}, shape({257, 263})},
        {{3, 2}, shape({3, 4}), S},
        {{3, 1}, shape({4}), S},
        {{3, 1}, shape({-1, 3, 4}), S}}},
      {Op::slice,
       {{{10}, slice_attrs(0, 2, 8, none)},       {{10}, slice_attrs(0, none, none, 2)},
        {{10}, slice_attrs(0, -3, none, none)},   {{10}, slice_attrs(0, none, none, -1)},
        {{10}, slice_attrs(0, 8, 2, -2)},         {{10}, slice_attrs(0, 100, none, none)},
        {{10}, slice_attrs(0, -100, 3, none)},    {{10}, slice_attrs(0, none, none, -3)},
        {{10}, slice_attrs(0, 5, 5, none)},       {{10}, slice_attrs(0, 7, -100, -1)},
        {{10}, slice_attrs(0, none, -1, none)},   {{10}, slice_attrs(0, -1, none, -1)},
        {{10}, slice_attrs(0, 100, none, -2)},    {{4, 9}, slice_attrs(-1, 1, 8, 3)},
        {{4, 9}, slice_attrs(0, none, none, 2)},  {{0, 5}, slice_attrs(0, none, none, none)},
        {{4, 0}, slice_attrs(1, 1, none, -1)},    {big_shape(), slice_attrs(1, 3, none, 2)},
        {{10}, slice_attrs(0, none, none, 0), S}, {{4, 9}, slice_attrs(2, 1, none, none), S},
        {{}, slice_attrs(0, none, none, none), S}}},
      {Op::transpose,
       {{{2, 3, 4}, dims({0, 2})},
        {{2, 3, 4}, dims({-1, 0})},
        {{2, 3, 4}, dims({1, 0})},
        {{3, 0}, dims({0, 1})},
        {big_shape(), dims({0, 1})},
        {{2, 3, 4}, dims({1, -2})},
        {{2, 3, 4}, dims({0}), S},
        {{2, 3, 4}, dims({0, 3}), S}}},
      {Op::squeeze,
       {{{1, 3, 1, 4}, {}},
        {{1, 3, 1, 4}, axes({0})},
        {{1, 3, 1, 4}, axes({-2})},
        {{1, 3, 1, 4}, axes({0, 2})},
        {{}, {}},
        {{1}, {}},
        {{0, 1}, {}},
        {{1, 3, 1, 4}, axes({1}), S},
        {{1, 3, 1, 4}, axes({0, -4}), S}}},
      {Op::unsqueeze,
       {{{3, 4}, axes({0})},
        {{3, 4}, axes({2})},
        {{3, 4}, axes({-1})},
        {{3, 4}, axes({0, 3})},
        {{3, 4}, axes({3, 0})},
        {{}, axes({0})},
        {{}, axes({0, 1})},
        {{0, 2}, axes({1})},
        {{3, 4}, axes({1, 1}), S},
        {{3, 4}, axes({4}), S}}},
      {Op::flip,
       {{{3, 4, 5}, {}},
        {{3, 4, 5}, axes({1})},
        {{3, 4, 5}, axes({0, -1})},
        {{}, {}},
        {{0, 3}, {}},
        {big_shape(), axes({0})},
        {{3, 4}, axes({2}), S},
        {{3, 4}, axes({1, -1}), S}}},
  };
}

Case view_case(Op op, const ViewVariant& v, DType t, Layout l) {
  Case c;
  c.op = op;
  c.attrs = v.attrs;
  c.inputs = {in(t, v.shape, l)};
  c.error = v.error;
  return c;
}

}  // namespace

void add_view_cases(std::vector<Case>& out) {
  for (const ViewRow& row : view_rows()) {
    for (const ViewVariant& v : row.variants) {
      for (DType t : kAllDTypes) out.push_back(view_case(row.op, v, t, Layout::Contiguous));
      if (v.error) continue;
      for (Layout l : kStridedLayouts) {
        if (plan_layout(l, v.shape)) out.push_back(view_case(row.op, v, DType::Float32, l));
      }
    }
  }
  for (DType t : kAllDTypes) {
    for (InputSpec& input : single_input_sweep(t, Values::Mixed)) {
      Case c;
      c.op = Op::contiguous;
      c.inputs = {std::move(input)};
      out.push_back(std::move(c));
    }
  }
}

}  // namespace tensord::conformance
