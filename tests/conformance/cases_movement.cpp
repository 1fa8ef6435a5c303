// Table rows for data movement: concat, stack, pad, index_select, gather.
#include <cmath>

#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Attrs;
using ir::Op;

namespace {

Case movement(Op op, Attrs attrs, std::vector<InputSpec> inputs,
              std::optional<ErrorCode> error = std::nullopt) {
  Case c;
  c.op = op;
  c.attrs = std::move(attrs);
  c.inputs = std::move(inputs);
  c.error = error;
  return c;
}

Attrs axis(int64_t a) {
  return {{Attr::axis, a}};
}

std::vector<InputSpec> of(DType t, const std::vector<Shape>& shapes,
                          Layout l = Layout::Contiguous) {
  std::vector<InputSpec> out;
  for (const Shape& s : shapes) out.push_back(in(t, s, l));
  return out;
}

void add_concat_stack(std::vector<Case>& out) {
  const auto S = ErrorCode::Shape;
  struct Variant {
    std::vector<Shape> shapes;
    int64_t axis;
    std::optional<ErrorCode> error = std::nullopt;
  };
  const Variant kConcat[] = {
      {{{2, 3}, {4, 3}}, 0},
      {{{2, 3}, {2, 0}, {2, 5}}, 1},
      {{{2, 3}, {2, 5}}, -1},
      {{{5}}, 0},
      {{{0, 3}, {0, 3}}, 1},
      {{{0, 3}, {2, 3}}, 0},
      {{{2, 3, 4}, {2, 1, 4}, {2, 5, 4}}, 1},
      {{big_shape(), {100, 263}}, 0},
      {{{}, {}}, 0, S},
      {{{2, 3}, {2, 3, 1}}, 0, S},
      {{{2, 3}, {3, 3}}, 1, S},
      {{{2, 3}}, 2, S},
  };
  const Variant kStack[] = {
      {{{2, 3}, {2, 3}, {2, 3}}, 0},
      {{{2, 3}, {2, 3}, {2, 3}}, 1},
      {{{2, 3}, {2, 3}}, 2},
      {{{2, 3}, {2, 3}}, -1},
      {{{}, {}}, 0},
      {{{0, 3}, {0, 3}}, 1},
      {{{7}}, 0},
      {{big_shape(), big_shape()}, 2},
      {{{2, 3}, {3, 2}}, 0, S},
      {{{2, 3}, {2, 3}}, 3, S},
      {{{2, 3}, {2, 3}}, -4, S},
  };
  for (DType t : kAllDTypes) {
    for (const Variant& v : kConcat)
      out.push_back(movement(Op::concat, axis(v.axis), of(t, v.shapes), v.error));
    for (const Variant& v : kStack)
      out.push_back(movement(Op::stack, axis(v.axis), of(t, v.shapes), v.error));
  }
  for (Op op : {Op::concat, Op::stack}) {
    for (Layout l : kStridedLayouts) {
      for (int64_t a : {0, 1}) {
        out.push_back(movement(op, axis(a),
                               {in(DType::Float32, {5, 7}, l), in(DType::Float32, {5, 7}),
                                in(DType::Float32, {5, 7}, l)}));
      }
    }
    for (auto [a, b] : {std::pair{DType::Int8, DType::Float16},
                        {DType::Bool, DType::Int32},
                        {DType::UInt8, DType::Int8},
                        {DType::Float16, DType::BFloat16}}) {
      out.push_back(movement(op, axis(0), {in(a, {2, 3}), in(b, {2, 3}), in(a, {2, 3})}));
    }
  }
}

void add_pad(std::vector<Case>& out) {
  using Ints = std::vector<int64_t>;
  auto pads = [](Ints p) { return Attrs{{Attr::pads, std::move(p)}}; };
  auto pads_value = [](Ints p, ir::AttrValue v) {
    return Attrs{{Attr::pads, std::move(p)}, {Attr::value, std::move(v)}};
  };
  struct Variant {
    Shape shape;
    Attrs attrs;
    std::optional<ErrorCode> error = std::nullopt;
  };
  const Variant kPads[] = {
      {{3, 4}, pads({1, 2, 0, 3})},
      {{3, 4}, pads_value({1, 2, 0, 3}, -1.5)},
      {{3, 4}, pads_value({2, 0, 1, 1}, int64_t{300})},  // wraps to 44 in int8 and uint8
      {{3, 4}, pads_value({1, 1, 1, 1}, true)},
      {{3, 4}, pads_value({1, 0, 0, 1}, NAN)},
      {{3, 4}, pads({-1, 0, 0, -2})},
      {{3, 4}, pads({-1, 2, 3, -2})},
      {{3, 4}, pads({-3, 0, 0, 0})},
      {{}, pads({})},
      {{0, 2}, pads_value({1, 1, 0, 0}, 2.0)},
      {{5}, pads({0, 0})},
      {big_shape(), pads_value({1, 1, 2, 2}, 7.0)},
      {{3, 4}, pads({-4, 0, 0, 0}), ErrorCode::Shape},
      {{3, 4}, pads({1, 1}), ErrorCode::Shape},
  };
  for (DType t : kAllDTypes) {
    for (const Variant& v : kPads)
      out.push_back(movement(Op::pad, v.attrs, {in(t, v.shape)}, v.error));
  }
  for (Layout l : kStridedLayouts) {
    out.push_back(
        movement(Op::pad, pads_value({1, 2, -1, 3}, 0.5), {in(DType::Float32, {5, 7}, l)}));
  }
}

void add_index_select(std::vector<Case>& out) {
  const auto S = ErrorCode::Shape;
  for (DType t : kAllDTypes) {
    auto sel = [&](Shape x, int64_t ax, InputSpec index, std::optional<ErrorCode> e = std::nullopt,
                   Layout l = Layout::Contiguous) {
      out.push_back(
          movement(Op::index_select, axis(ax), {in(t, std::move(x), l), std::move(index)}, e));
    };
    sel({5, 4}, 0, in_index(DType::Int64, {7}, 5));
    sel({5, 4}, 1, in_index(DType::Int32, {3}, 4));
    sel({5, 4}, -1, in_index(DType::Int8, {6}, 4));
    sel({5, 4}, 0, in_index(DType::UInt8, {4}, 5));
    sel({5, 4}, 0, in_index(DType::Int16, {5}, 5));
    sel({5, 4}, 0, in_index(DType::Int64, {0}, 5));
    sel({0, 3}, 1, in_index(DType::Int64, {2}, 3));
    sel({6}, 0, in_index(DType::Int32, {9}, 6));
    sel(big_shape(), 1, in_index(DType::Int64, {300}, 263));
    sel({5, 7}, 1, in_index(DType::Int64, {4}, 7), std::nullopt, Layout::Permuted);
    sel({5, 7}, 0, in_index(DType::Int64, {4}, 5), std::nullopt, Layout::Mixed);
    sel({5, 4}, 0, in_values(DType::Int64, {2}, {0, 7}), S);  // at run time
    sel({5, 4}, 0, in_values(DType::Int32, {2}, {1, -6}), S);
    sel({5, 4}, 0, in_values(DType::Bool, {2}, {1, 0}), ErrorCode::DType);
    sel({5, 4}, 0, in_values(DType::Float32, {2}, {1, 0}), ErrorCode::DType);
    sel({5, 4}, 0, in_index(DType::Int64, {2, 2}, 5), S);
    sel({}, 0, in_index(DType::Int64, {2}, 1), S);
    sel({5, 4}, 2, in_index(DType::Int64, {2}, 4), S);
  }
}

void add_gather(std::vector<Case>& out) {
  const auto S = ErrorCode::Shape;
  for (DType t : kAllDTypes) {
    auto gat = [&](Shape x, int64_t ax, InputSpec index, std::optional<ErrorCode> e = std::nullopt,
                   Layout l = Layout::Contiguous) {
      out.push_back(movement(Op::gather, axis(ax), {in(t, std::move(x), l), std::move(index)}, e));
    };
    gat({3, 4}, 1, in_index(DType::Int64, {3, 2}, 4));
    gat({3, 4}, 0, in_index(DType::Int32, {2, 4}, 3));
    gat({3, 4}, 1, in_index(DType::Int8, {2, 3}, 4));  // smaller than x in the other dim
    gat({2, 3, 4}, -1, in_index(DType::Int64, {2, 3, 6}, 4));
    gat({0, 4}, 1, in_index(DType::Int64, {0, 2}, 4));
    gat({7}, 0, in_index(DType::UInt8, {5}, 7));
    gat(big_shape(), 1, in_index(DType::Int64, big_shape(), 263));
    gat({5, 7}, 1, in_index(DType::Int64, {5, 3}, 7), std::nullopt, Layout::Permuted);
    gat({5, 7}, 0, in_index(DType::Int16, {4, 7}, 5), std::nullopt, Layout::Broadcast);
    gat({3, 4}, 1, in_values(DType::Int64, {3, 1}, {0, 4, 1}), S);  // at run time
    gat({3, 4}, 1, in_values(DType::Int64, {3, 1}, {0, -5, 1}), S);
    gat({3, 4}, 1, in_index(DType::Int64, {3}, 4), S);
    gat({}, 0, in_index(DType::Int64, {}, 1), S);
    gat({3, 4}, 1, in_index(DType::Int64, {4, 2}, 4), S);
    gat({3, 4}, 1, in_values(DType::Bool, {3, 1}, {0, 1, 1}), ErrorCode::DType);
  }
}

}  // namespace

void add_movement_cases(std::vector<Case>& out) {
  add_concat_stack(out);
  add_pad(out);
  add_index_select(out);
  add_gather(out);
}

}  // namespace tensord::conformance
