// Table rows for the one-input elementwise ops, including cast and the composites gelu, silu
// and clamp. Each row runs on every dtype; dtypes the op rejects get one error case.
#include <cmath>

#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace {

struct UnaryRow {
  Op op;
  bool allows_bool;
  Values values;  // the family for the sweep (special values are always added)
  Accuracy accuracy;
  std::vector<ir::Attrs> variants = {{}};
};

std::vector<UnaryRow> make_rows() {
  using A = Accuracy;
  using V = Values;
  return {
      {Op::neg, false, V::Mixed, A::Exact},
      {Op::abs, false, V::Mixed, A::Exact},
      {Op::exp, true, V::Small, A::Transcendental},
      {Op::log, true, V::Positive, A::Transcendental},
      {Op::sqrt, true, V::Positive, A::Rounded},
      {Op::rsqrt, true, V::Positive, A::Transcendental},
      {Op::sin, true, V::Mixed, A::Transcendental},
      {Op::cos, true, V::Mixed, A::Transcendental},
      {Op::tanh, true, V::Mixed, A::Transcendental},
      {Op::sigmoid, true, V::Mixed, A::Transcendental},
      {Op::relu, false, V::Mixed, A::Exact},
      {Op::erf, true, V::Mixed, A::Transcendental},
      {Op::floor, false, V::Mixed, A::Exact},
      {Op::ceil, false, V::Mixed, A::Exact},
      {Op::round, false, V::Mixed, A::Exact},  // the Mixed family has exact halves: ties to even
      {Op::sign, false, V::Mixed, A::Exact},
      {Op::logical_not, true, V::Mixed, A::Exact},
      {Op::gelu,
       true,
       V::Mixed,
       A::Transcendental,
       {{}, {{Attr::tanh, true}}, {{Attr::tanh, false}}}},
      {Op::silu, true, V::Mixed, A::Transcendental},
      {Op::clamp,
       false,
       V::Mixed,
       A::Exact,
       {{{Attr::min, -1.0}, {Attr::max, 2.0}},
        {{Attr::min, int64_t{-1}}},
        {{Attr::max, 2.5}},
        {{Attr::min, 3.0}, {Attr::max, 1.0}},  // min > max gives max
        {{Attr::min, int64_t{-100}}, {Attr::max, int64_t{100}}},
        {{Attr::min, 0.5}},        // an integer x sees min 0 (the cast truncates)
        {{Attr::max, -1000.0}}}},  // saturates to int8's min
  };
}

Case unary_case(const UnaryRow& row, const ir::Attrs& attrs, InputSpec input) {
  Case c;
  c.op = row.op;
  c.attrs = attrs;
  c.inputs = {std::move(input)};
  c.accuracy = row.accuracy;
  return c;
}

void add_cast_cases(std::vector<Case>& out) {
  for (DType from : kAllDTypes) {
    for (DType to : kAllDTypes) {
      std::vector<InputSpec> inputs = {in(from, {}),
                                       in(from, {0}),
                                       in(from, {33}),
                                       in(from, {5, 7}, Layout::Strided),
                                       in(from, {67}, Layout::Contiguous, Values::Special),
                                       in(from, big_shape())};
      for (InputSpec& input : inputs) {
        Case c;
        c.op = Op::cast;
        c.attrs = {{Attr::dtype, to}};
        c.inputs = {std::move(input)};
        out.push_back(std::move(c));
      }
    }
  }
  // Float to integer: truncation toward zero and saturation at both ends.
  for (DType to : {DType::Int8, DType::UInt8, DType::Int32, DType::Int64}) {
    Case c;
    c.op = Op::cast;
    c.attrs = {{Attr::dtype, to}};
    c.inputs = {in_values(DType::Float64, {10},
                          {-2.9, 2.9, -0.5, 1e19, -1e19, 255.9, -129.0, 127.5, 9.2e18, NAN})};
    out.push_back(std::move(c));
  }
  // float64 -> float16/bfloat16 rounds once: 1 + 2^-11 + 2^-40 is just above the float16 tie
  // between 1 and 1 + 2^-10 (so 1 + 2^-10), but rounding through float32 first lands exactly
  // on the tie and goes to even (1). Likewise for bfloat16 at 2^-8.
  for (DType to : {DType::Float16, DType::BFloat16}) {
    const double half_ulp = to == DType::Float16 ? 0x1p-11 : 0x1p-8;
    Case c;
    c.op = Op::cast;
    c.attrs = {{Attr::dtype, to}};
    c.inputs = {in_values(
        DType::Float64, {4},
        {1 + half_ulp + 0x1p-40, -(1 + half_ulp + 0x1p-40), 1 + half_ulp, 1 + 3 * half_ulp})};
    c.note = "single rounding";
    out.push_back(std::move(c));
  }
}

}  // namespace

void add_unary_cases(std::vector<Case>& out) {
  for (const UnaryRow& row : make_rows()) {
    for (DType t : kAllDTypes) {
      if (t == DType::Bool && !row.allows_bool) {
        Case c = unary_case(row, row.variants[0], in(t, {3}));
        c.error = ErrorCode::DType;
        out.push_back(std::move(c));
        continue;
      }
      for (size_t v = 0; v < row.variants.size(); ++v) {
        auto inputs = v == 0 ? single_input_sweep(t, row.values) : short_sweep(t, row.values);
        for (InputSpec& input : inputs)
          out.push_back(unary_case(row, row.variants[v], std::move(input)));
      }
    }
  }
  Case c;
  c.op = Op::clamp;
  c.inputs = {in(DType::Float32, {3})};
  c.error = ErrorCode::InvalidGraph;
  c.note = "neither min nor max";
  out.push_back(std::move(c));
  add_cast_cases(out);
}

}  // namespace tensord::conformance
