// Table rows for the broadcasting elementwise ops: add ... logical_or and where. Each row runs
// on every dtype paired with itself, on mixed-dtype pairs (promotion), on broadcast and
// non-contiguous shapes, and on shapes that do not broadcast.
#include <tuple>

#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Op;

namespace {

struct BinaryRow {
  Op op;
  bool rejects_two_bools;
  Values values;
  Accuracy accuracy;
};

struct ShapePair {
  Shape a, b;
  Layout la = Layout::Contiguous, lb = Layout::Contiguous;
};

std::vector<ShapePair> binary_shapes() {
  using L = Layout;
  return {
      {{}, {}},
      {{0}, {0}},
      {{7}, {7}},
      {{33}, {33}},
      {{3, 5}, {3, 5}},
      {{3, 1}, {1, 4}},
      {{}, {5}},
      {{5}, {}},
      {{2, 1, 4}, {3, 1}},
      {{4, 1, 6}, {6}},
      {{3, 0}, {3, 1}},
      {{0}, {1}},
      {{2, 3, 4, 5}, {2, 3, 4, 5}},
      {{5, 7}, {5, 7}, L::Permuted, L::Strided},
      {{5, 7}, {5, 7}, L::Reversed, L::Broadcast},
      {{5, 7}, {5, 7}, L::Mixed, L::Contiguous},
      {{5, 7}, {7}, L::Broadcast, L::Reversed},
      {{3, 4, 9}, {3, 4, 9}, L::Strided, L::Mixed},
      {big_shape(), {263}},
      {big_shape(), big_shape(), L::Permuted, L::Strided},
  };
}

// Promotion across kinds and widths (docs/ops.md, engine/ir/dtype.h).
constexpr std::pair<DType, DType> kMixedPairs[] = {
    {DType::Int8, DType::UInt8},      {DType::UInt8, DType::Int16},
    {DType::Int32, DType::Int64},     {DType::Bool, DType::Int8},
    {DType::Bool, DType::Float32},    {DType::Int32, DType::Float32},
    {DType::Int64, DType::Float16},   {DType::Float16, DType::BFloat16},
    {DType::Float16, DType::Float32}, {DType::BFloat16, DType::Float64},
    {DType::Float32, DType::Float64}, {DType::UInt8, DType::BFloat16},
};

Case binary_case(const BinaryRow& row, InputSpec a, InputSpec b) {
  Case c;
  c.op = row.op;
  c.inputs = {std::move(a), std::move(b)};
  c.accuracy = row.accuracy;
  return c;
}

void add_where_cases(std::vector<Case>& out) {
  struct Triple {
    Shape c, a, b;
    Layout lc = Layout::Contiguous, la = Layout::Contiguous, lb = Layout::Contiguous;
  };
  const Triple kShapes[] = {
      {{5}, {5}, {5}},
      {{3, 1}, {1, 4}, {3, 4}},
      {{}, {2, 3}, {3}},
      {{2, 0}, {2, 1}, {1}},
      {{5, 7}, {5, 7}, {5, 7}, Layout::Permuted, Layout::Strided, Layout::Broadcast},
      {{5, 7}, {5, 7}, {7}, Layout::Mixed, Layout::Reversed, Layout::Contiguous},
      {big_shape(), {263}, {}},
  };
  auto where = [](InputSpec c, InputSpec a, InputSpec b) {
    Case w;
    w.op = Op::where;
    w.inputs = {std::move(c), std::move(a), std::move(b)};
    return w;
  };
  for (DType cond : {DType::Bool, DType::Float32, DType::Int8}) {
    for (DType t : kAllDTypes) {
      for (const Triple& s : kShapes) {
        out.push_back(
            where(in(cond, s.c, s.lc, Values::Halves), in(t, s.a, s.la), in(t, s.b, s.lb)));
      }
      out.push_back(where(in(cond, {33}, Layout::Contiguous, Values::Special),
                          in(t, {33}, Layout::Contiguous, Values::Special),
                          in(t, {33}, Layout::Contiguous, Values::Special)));
    }
  }
  for (auto [a, b] : kMixedPairs) {
    out.push_back(where(in(DType::Bool, {3, 1}), in(a, {1, 4}), in(b, {3, 4})));
  }
  Case bad = where(in(DType::Bool, {3}), in(DType::Float32, {4}), in(DType::Float32, {3}));
  bad.error = ErrorCode::Shape;
  out.push_back(std::move(bad));
}

// pow of a constant scalar exponent, as clients record `x ** 2`: exponents 2 and 3 become
// products (engine/ir/decompose_power.cpp), others and promoting ones stay pow.
void add_constant_power_cases(std::vector<Case>& out) {
  const auto pow_case = [](InputSpec x, InputSpec exponent, std::string note) {
    Case c;
    c.op = Op::pow;
    c.inputs = {std::move(x), std::move(exponent)};
    c.accuracy = Accuracy::Transcendental;
    c.note = std::move(note);
    return c;
  };
  for (DType t : kAllDTypes) {
    if (t == DType::Bool) continue;
    for (double p : {2.0, 3.0}) {
      out.push_back(pow_case(in(t, {5, 7}, Layout::Contiguous, Values::Special), in_constant(t, p),
                             "a product"));
      out.push_back(
          pow_case(in(t, {4, 6}, Layout::Permuted, Values::Small), in_constant(t, p), "a product"));
    }
    if (ir::is_floating(t)) {
      out.push_back(pow_case(in(t, {9}, Layout::Contiguous, Values::Positive), in_constant(t, 2.5),
                             "stays pow"));
    }
  }
  // The exponent promotes: float32 ** 2 of an int32 stays pow.
  out.push_back(pow_case(in(DType::Int32, {6}, Layout::Contiguous, Values::Small),
                         in_constant(DType::Float32, 2), "promoted, stays pow"));
}

}  // namespace

void add_binary_cases(std::vector<Case>& out) {
  using A = Accuracy;
  using V = Values;
  const BinaryRow kRows[] = {
      {Op::add, true, V::Mixed, A::Rounded},        {Op::sub, true, V::Mixed, A::Rounded},
      {Op::mul, true, V::Mixed, A::Rounded},        {Op::div, false, V::Mixed, A::Rounded},
      {Op::pow, true, V::Small, A::Transcendental}, {Op::maximum, false, V::Halves, A::Exact},
      {Op::minimum, false, V::Halves, A::Exact},    {Op::eq, false, V::Halves, A::Exact},
      {Op::ne, false, V::Halves, A::Exact},         {Op::lt, false, V::Halves, A::Exact},
      {Op::le, false, V::Halves, A::Exact},         {Op::gt, false, V::Halves, A::Exact},
      {Op::ge, false, V::Halves, A::Exact},         {Op::logical_and, false, V::Halves, A::Exact},
      {Op::logical_or, false, V::Halves, A::Exact},
  };
  for (const BinaryRow& row : kRows) {
    for (DType t : kAllDTypes) {
      if (t == DType::Bool && row.rejects_two_bools) {
        Case c = binary_case(row, in(t, {3}), in(t, {3}));
        c.error = ErrorCode::DType;
        out.push_back(std::move(c));
        continue;
      }
      for (const ShapePair& s : binary_shapes()) {
        out.push_back(binary_case(row, in(t, s.a, s.la, row.values), in(t, s.b, s.lb, row.values)));
      }
      out.push_back(binary_case(row, in(t, {67}, Layout::Contiguous, V::Special),
                                in(t, {67}, Layout::Contiguous, V::Special)));
      out.push_back(binary_case(row, in(t, {5, 13}, Layout::Contiguous, V::Special),
                                in(t, {13}, Layout::Contiguous, V::Special)));
    }
    for (auto [a, b] : kMixedPairs) {
      for (auto [sa, sb] : {std::pair<Shape, Shape>{{7}, {7}}, {{3, 1}, {1, 4}}, {{}, {5}}}) {
        out.push_back(binary_case(row, in(a, sa, Layout::Contiguous, row.values),
                                  in(b, sb, Layout::Contiguous, row.values)));
        out.push_back(binary_case(row, in(b, sb, Layout::Contiguous, row.values),
                                  in(a, sa, Layout::Contiguous, row.values)));
      }
      out.push_back(binary_case(row, in(a, {33}, Layout::Contiguous, V::Special),
                                in(b, {33}, Layout::Contiguous, V::Special)));
    }
    for (auto [sa, sb] : {std::pair<Shape, Shape>{{3}, {4}}, {{2, 3}, {3, 2}}}) {
      Case c = binary_case(row, in(DType::Float32, sa), in(DType::Float32, sb));
      c.error = ErrorCode::Shape;
      out.push_back(std::move(c));
    }
  }
  // Comparisons happen in the promoted dtype (docs/ops.md): 257 becomes 256 in bfloat16 and
  // 2049 becomes 2048 in float16, so they compare equal to those.
  for (auto [op, t, a, b] : {std::tuple{Op::eq, DType::BFloat16, 257.0, 256.0},
                             std::tuple{Op::le, DType::BFloat16, 257.0, 256.0},
                             std::tuple{Op::eq, DType::Float16, 2049.0, 2048.0},
                             std::tuple{Op::le, DType::Float16, 2049.0, 2048.0}}) {
    Case c;
    c.op = op;
    c.inputs = {in_values(DType::Int32, {2}, {a, -a}), in_values(t, {2}, {b, -b})};
    c.note = "compared in " + std::string(ir::name(t));
    out.push_back(std::move(c));
  }
  add_where_cases(out);
  add_constant_power_cases(out);
}

}  // namespace tensord::conformance
