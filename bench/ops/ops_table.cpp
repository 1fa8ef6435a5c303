// bench/ops's table: elementwise math and activations on (1000, 1000) float32 inputs, and the
// list of every family's table. numpy_peer.py's peers have the same names.
#include "bench/ops/ops_table.h"

namespace tensord::bench {

std::vector<OpCase> op_cases() {
  std::vector<OpCase> all;
  for (auto family : {math_cases, special_cases, reduction_cases, shape_cases, linalg_cases,
                      nn_cases, complex_cases}) {
    for (OpCase& c : family()) all.push_back(std::move(c));
  }
  return all;
}

std::vector<OpCase> math_cases() {
  using I = const OpInputs&;
  return {
      // elementwise math
      {"exp2", "", [](I in) { return exp2(in.x); }},
      {"expm1", "", [](I in) { return expm1(in.x); }},
      {"log2", "", [](I in) { return log2(in.pos); }},
      {"log10", "", [](I in) { return log10(in.pos); }},
      {"log1p", "", [](I in) { return log1p(in.pos); }},
      {"tan", "", [](I in) { return tan(in.x); }},
      {"asin", "", [](I in) { return asin(in.unit); }},
      {"acos", "", [](I in) { return acos(in.unit); }},
      {"atan", "", [](I in) { return atan(in.x); }},
      {"sinh", "", [](I in) { return sinh(in.x); }},
      {"cosh", "", [](I in) { return cosh(in.x); }},
      {"asinh", "", [](I in) { return asinh(in.x); }},
      {"acosh", "", [](I in) { return acosh(in.pos + 1.0f); }},
      {"atanh", "", [](I in) { return atanh(in.unit); }},
      {"reciprocal", "", [](I in) { return reciprocal(in.pos); }},
      {"square", "", [](I in) { return square(in.x); }},
      // x ** 2 and x ** 3 as clients record them (a scalar exponent), and one pow keeps
      {"pow_2", "", [](I in) { return pow(in.x, 2.0f); }},
      {"pow_3", "", [](I in) { return pow(in.x, 3.0f); }},
      {"pow_1_5", "", [](I in) { return pow(in.pos, 1.5f); }},
      {"trunc", "", [](I in) { return trunc(in.x); }},
      {"frac", "", [](I in) { return frac(in.x); }},
      {"isnan", "", [](I in) { return isnan(in.x); }},
      {"isinf", "", [](I in) { return isinf(in.x); }},
      {"isfinite", "", [](I in) { return isfinite(in.x); }},
      {"signbit", "", [](I in) { return signbit(in.x); }},
      {"nan_to_num", "", [](I in) { return nan_to_num(in.x); }},
      {"bitwise_and", "", [](I in) { return bitwise_and(in.ints, in.shifts); }},
      {"bitwise_or", "", [](I in) { return bitwise_or(in.ints, in.shifts); }},
      {"bitwise_xor", "", [](I in) { return bitwise_xor(in.ints, in.shifts); }},
      {"bitwise_not", "", [](I in) { return bitwise_not(in.ints); }},
      {"bitwise_left_shift", "", [](I in) { return bitwise_left_shift(in.ints, in.shifts); }},
      {"bitwise_right_shift", "", [](I in) { return bitwise_right_shift(in.ints, in.shifts); }},
      {"gcd", "", [](I in) { return gcd(in.ints, in.shifts); }},
      {"lcm", "", [](I in) { return lcm(in.ints, in.shifts); }},
      {"atan2", "", [](I in) { return atan2(in.x, in.y); }},
      {"hypot", "", [](I in) { return hypot(in.x, in.y); }},
      {"logaddexp", "", [](I in) { return logaddexp(in.x, in.y); }},
      {"logaddexp2", "", [](I in) { return logaddexp2(in.x, in.y); }},
      {"copysign", "", [](I in) { return copysign(in.x, in.y); }},
      {"fmod", "", [](I in) { return fmod(in.x, in.pos); }},
      {"remainder", "", [](I in) { return remainder(in.x, in.pos); }},
      {"floor_divide", "", [](I in) { return floor_divide(in.x, in.pos); }},
      {"nextafter", "", [](I in) { return nextafter(in.x, in.y); }},
      {"lerp", "", [](I in) { return lerp(in.x, in.y, 0.3); }},
      {"addcmul", "", [](I in) { return addcmul(in.x, in.y, in.pos, 0.5); }},
      {"addcdiv", "", [](I in) { return addcdiv(in.x, in.y, in.pos, 0.5); }},
      // activations
      {"gelu", "", [](I in) { return gelu(in.x); }},
      {"gelu_tanh", "", [](I in) { return gelu(in.x, true); }},
      {"silu", "", [](I in) { return silu(in.x); }},
      {"elu", "", [](I in) { return elu(in.x); }},
      {"celu", "", [](I in) { return celu(in.x, 2.0); }},
      {"selu", "", [](I in) { return selu(in.x); }},
      {"leaky_relu", "", [](I in) { return leaky_relu(in.x); }},
      {"hardtanh", "", [](I in) { return hardtanh(in.x); }},
      {"hardsigmoid", "", [](I in) { return hardsigmoid(in.x); }},
      {"hardswish", "", [](I in) { return hardswish(in.x); }},
      {"softplus", "", [](I in) { return softplus(in.x); }},
      {"softsign", "", [](I in) { return softsign(in.x); }},
      {"mish", "", [](I in) { return mish(in.x); }},
      {"prelu", "", [](I in) { return prelu(in.x, in.weight); }},
      {"glu", "", [](I in) { return glu(in.x); }},
  };
}

}  // namespace tensord::bench
