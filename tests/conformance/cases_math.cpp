// Table rows for the elementwise math ops of issue 4: the one-input functions (exp2 ...
// signbit) over the full sweep of every dtype, plus explicit domain edges (log1p(-1),
// acosh(<1), atanh(+-1), reciprocal(-0.0), ...) in float32 and float64.
#include <cmath>

#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Op;

namespace {

struct MathRow {
  Op op;
  bool allows_bool;
  Values values;  // the family for the sweep (special values are always added)
  Accuracy accuracy;
  std::vector<double> edges;  // explicit inputs: domain edges, NaN, infinities, -0.0
};

std::vector<MathRow> unary_rows() {
  using A = Accuracy;
  using V = Values;
  const double inf = INFINITY, nan = NAN;
  const std::vector<double> kCommon = {nan, inf, -inf, 0.0, -0.0, 1.0, -1.0};
  auto with = [&](std::vector<double> extra) {
    extra.insert(extra.end(), kCommon.begin(), kCommon.end());
    return extra;
  };
  return {
      {Op::exp2, true, V::Small, A::Transcendental, with({-1074.0, 127.5, 1024.0, -150.0})},
      {Op::expm1, true, V::Small, A::Transcendental, with({1e-10, -1e-10, 1e-300, 709.0, -50.0})},
      {Op::log2, true, V::Positive, A::Transcendental, with({0.5, 1024.0, 1e-300, -2.0})},
      {Op::log10, true, V::Positive, A::Transcendental, with({0.1, 1000.0, 1e-300, -2.0})},
      {Op::log1p, true, V::Mixed, A::Transcendental, with({-0.5, -2.0, 1e-10, -1e-10, 1e300})},
      {Op::tan, true, V::Mixed, A::Transcendental, with({1.5707963267948966, 3.0, 1e-8, 1e20})},
      {Op::asin, true, V::NearOne, A::Transcendental, with({0.5, 1.0000001, -1.5, 1e-9})},
      {Op::acos, true, V::NearOne, A::Transcendental, with({0.5, 1.0000001, -1.5, 1e-9})},
      {Op::atan, true, V::Mixed, A::Transcendental, with({1e300, -1e300, 1e-9, 0.5})},
      {Op::sinh, true, V::Small, A::Transcendental, with({1e-9, 89.0, 710.0, -710.0, 0.5})},
      {Op::cosh, true, V::Small, A::Transcendental, with({1e-9, 89.0, 710.0, -710.0, 0.5})},
      {Op::asinh, true, V::Mixed, A::Transcendental, with({1e-9, 1e300, -1e300, 0.5})},
      {Op::acosh, true, V::Positive, A::Transcendental, with({0.5, 1.0000001, 1e300, -2.0})},
      {Op::atanh, true, V::NearOne, A::Transcendental, with({0.5, 0.9999999, 1.5, -1e-9})},
      {Op::erfc, true, V::Mixed, A::Transcendental, with({0.5, 5.0, 10.0, 27.0, -6.0, 1e-9})},
      {Op::reciprocal, true, V::Mixed, A::Rounded, with({3.0, 1e-300, 1e300, -7.0})},
      {Op::square, false, V::Mixed, A::Rounded, with({3.0, 1e200, -1e-200, 1.5})},
      {Op::trunc, false, V::Mixed, A::Exact, with({-0.5, 0.5, 2.7, -2.7, 4503599627370497.0})},
      {Op::isnan, true, V::Mixed, A::Exact, with({1e300})},
      {Op::isinf, true, V::Mixed, A::Exact, with({1e300})},
      {Op::isfinite, true, V::Mixed, A::Exact, with({1e300})},
      {Op::signbit, true, V::Mixed, A::Exact, with({-1e-300, 2.0})},
      {Op::bitwise_not, true, V::Mixed, A::Exact, {}},  // float -> DType error
      {Op::frac, false, V::Mixed, A::Exact, with({-2.5, 2.75, 1e300, -1e-300})},  // floats only
  };
}

Case math_case(Op op, Accuracy accuracy, InputSpec input) {
  Case c;
  c.op = op;
  c.inputs = {std::move(input)};
  c.accuracy = accuracy;
  return c;
}

struct BinaryMathRow {
  Op op;
  Accuracy accuracy;
  bool float_ok, bool_ok;  // two float (two bool) inputs are allowed
  Values values;
};

Case binary_math_case(const BinaryMathRow& row, InputSpec a, InputSpec b) {
  Case c;
  c.op = row.op;
  c.inputs = {std::move(a), std::move(b)};
  c.accuracy = row.accuracy;
  return c;
}

// Pairs of explicit values (a[i], b[i]): signs, zeros, NaN, infinities, exact multiples.
const std::vector<double> kEdgeA = {5.0,      -5.0, 5.0,  -5.0,  7.5, -7.5, 0.0,      -0.0,
                                    1.0,      -1.0, 3.0,  -3.0,  NAN, 1.0,  INFINITY, -INFINITY,
                                    INFINITY, 2.0,  -2.0, 1e300, 6.0, -6.0, 0.0,      1e-300};
const std::vector<double> kEdgeB = {
    3.0, 3.0, -3.0, -3.0,      2.5,      2.5,      3.0,      -3.0,   0.0, 0.0,  -0.0, -0.0,
    1.0, NAN, 2.0,  -INFINITY, INFINITY, INFINITY, INFINITY, 1e-300, 3.0, -3.0, -0.0, 1e300};
// Integers: signs, division by zero and by -1 at the type's minimum, shifts up to and past the
// bit width (the values are cast into each dtype: they wrap).
const std::vector<double> kIntA = {7,   -7, 7,  -7,  0,    5, -128, -2147483648.0,
                                   127, 1,  -1, 100, -100, 1, -1,   3};
const std::vector<double> kIntB = {2, 2, -2, -2, 3, 0, -1, -1, 0, 7, 7, 8, 8, 15, 16, 31};
const std::vector<double> kShiftB = {0, 1, 3, 7, 8, 9, 15, 16, 31, 32, 63, 64, 65, -1, 2, 100};

void add_binary_math_cases(std::vector<Case>& out) {
  using A = Accuracy;
  using V = Values;
  const BinaryMathRow kRows[] = {
      {Op::atan2, A::Transcendental, true, true, V::Mixed},
      {Op::hypot, A::Transcendental, true, true, V::Mixed},
      {Op::logaddexp, A::Transcendental, true, true, V::Mixed},
      {Op::logaddexp2, A::Transcendental, true, true, V::Mixed},
      {Op::copysign, A::Exact, true, true, V::Mixed},
      {Op::fmod, A::Exact, true, false, V::Halves},
      {Op::remainder, A::Exact, true, false, V::Halves},
      {Op::floor_divide, A::Exact, true, false, V::Halves},
      {Op::bitwise_and, A::Exact, false, true, V::Mixed},
      {Op::bitwise_or, A::Exact, false, true, V::Mixed},
      {Op::bitwise_xor, A::Exact, false, true, V::Mixed},
      {Op::bitwise_left_shift, A::Exact, false, false, V::Small},
      {Op::bitwise_right_shift, A::Exact, false, false, V::Small},
      {Op::gcd, A::Exact, false, false, V::Mixed},
      {Op::lcm, A::Exact, false, false, V::Mixed},
  };
  struct Pair {
    Shape a, b;
    Layout la = Layout::Contiguous, lb = Layout::Contiguous;
  };
  const Pair kShapes[] = {
      {{}, {}},
      {{0}, {0}},
      {{33}, {33}},
      {{3, 1}, {1, 4}},
      {{5}, {}},
      {{2, 0}, {2, 1}},
      {{5, 7}, {5, 7}, Layout::Permuted, Layout::Strided},
      {{5, 7}, {7}, Layout::Mixed, Layout::Reversed},
      {big_shape(), {263}},
  };
  for (const BinaryMathRow& row : kRows) {
    for (DType t : kAllDTypes) {
      const bool ok = t == DType::Bool ? row.bool_ok : ir::is_floating(t) ? row.float_ok : true;
      if (!ok) {
        Case c = binary_math_case(row, in(t, {3}), in(t, {3}));
        c.error = ErrorCode::DType;
        out.push_back(std::move(c));
        continue;
      }
      for (const Pair& s : kShapes) {
        out.push_back(
            binary_math_case(row, in(t, s.a, s.la, row.values), in(t, s.b, s.lb, row.values)));
      }
      out.push_back(binary_math_case(row, in(t, {67}, Layout::Contiguous, V::Special),
                                     in(t, {67}, Layout::Contiguous, V::Special)));
      if (ir::is_floating(t)) {
        const auto n = static_cast<int64_t>(kEdgeA.size());
        out.push_back(binary_math_case(row, in_values(t, {n}, kEdgeA), in_values(t, {n}, kEdgeB)));
      } else if (t != DType::Bool) {
        const bool shift = row.op == Op::bitwise_left_shift || row.op == Op::bitwise_right_shift;
        const auto n = static_cast<int64_t>(kIntA.size());
        out.push_back(binary_math_case(row, in_values(t, {n}, kIntA),
                                       in_values(t, {n}, shift ? kShiftB : kIntB)));
      }
    }
    // Mixed dtypes promote first (int8 and uint8 meet in int16, int and float in the float).
    for (auto [a, b] :
         {std::pair{DType::Int8, DType::UInt8}, std::pair{DType::Bool, DType::Int32},
          std::pair{DType::Int64, DType::Float32}, std::pair{DType::Float16, DType::BFloat16}}) {
      Case c = binary_math_case(row, in(a, {4, 1}), in(b, {3}));
      bool floats = ir::is_floating(a) || ir::is_floating(b);
      bool bools = a == DType::Bool && b == DType::Bool;
      if ((floats && !row.float_ok) || (bools && !row.bool_ok)) c.error = ErrorCode::DType;
      out.push_back(std::move(c));
    }
    Case bad = binary_math_case(row, in(DType::Int32, {3}), in(DType::Int32, {4}));
    bad.error = ErrorCode::Shape;
    out.push_back(std::move(bad));
  }
}

void add_unary_math_cases(std::vector<Case>& out) {
  for (const MathRow& row : unary_rows()) {
    const bool integer_only = row.op == Op::bitwise_not, float_only = row.op == Op::frac;
    for (DType t : kAllDTypes) {
      if ((t == DType::Bool && !row.allows_bool) || (integer_only && ir::is_floating(t)) ||
          (float_only && !ir::is_floating(t))) {
        Case c = math_case(row.op, row.accuracy, in(t, {3}));
        c.error = ErrorCode::DType;
        out.push_back(std::move(c));
        continue;
      }
      for (InputSpec& input : single_input_sweep(t, row.values))
        out.push_back(math_case(row.op, row.accuracy, std::move(input)));
    }
    if (integer_only) continue;
    for (DType t : {DType::Float32, DType::Float64, DType::Float16}) {
      const auto n = static_cast<int64_t>(row.edges.size());
      Case c = math_case(row.op, row.accuracy, in_values(t, {n}, row.edges));
      c.note = "domain edges";
      out.push_back(std::move(c));
    }
    if (float_only) continue;
    // Integer extremes through the float functions (converted to float32 first).
    const double kIntEdges[] = {-2147483648.0, 2147483647.0, 0, -1, 1};
    out.push_back(
        math_case(row.op, row.accuracy,
                  in_values(DType::Int32, {5}, {std::begin(kIntEdges), std::end(kIntEdges)})));
  }
}

// nan_to_num on every dtype (the identity on integers and bool), with default and given
// replacements; 1e300 does not fit float32 and becomes inf, as the cast rules say.
void add_nan_to_num_cases(std::vector<Case>& out) {
  using ir::Attr;
  const ir::Attrs kVariants[] = {{},
                                 {{Attr::value, 1.5}, {Attr::max, 100.0}, {Attr::min, -100.0}},
                                 {{Attr::value, int64_t{-7}}},
                                 {{Attr::max, 1e300}, {Attr::min, int64_t{3}}}};
  for (DType t : kAllDTypes) {
    for (size_t v = 0; v < std::size(kVariants); ++v) {
      auto inputs =
          v == 0 ? single_input_sweep(t, Values::Special) : short_sweep(t, Values::Special);
      for (InputSpec& input : inputs) {
        Case c = math_case(Op::nan_to_num, Accuracy::Exact, std::move(input));
        c.attrs = kVariants[v];
        out.push_back(std::move(c));
      }
    }
  }
  for (DType t : kFloatDTypes) {
    Case c = math_case(Op::nan_to_num, Accuracy::Exact,
                       in_values(t, {6}, {NAN, INFINITY, -INFINITY, -0.0, 1.0, -2.5}));
    c.note = "domain edges";
    out.push_back(std::move(c));
  }
}

}  // namespace

void add_math_cases(std::vector<Case>& out) {
  add_unary_math_cases(out);
  add_nan_to_num_cases(out);
  add_binary_math_cases(out);
}

}  // namespace tensord::conformance
