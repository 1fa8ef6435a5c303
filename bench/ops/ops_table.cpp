// The op list of bench/ops; numpy_peer.py has the same names in the same order.
#include "bench/ops/ops_table.h"

#include <limits>

namespace tensord::bench {

std::vector<OpCase> op_cases() {
  using I = const OpInputs&;
  const double inf = std::numeric_limits<double>::infinity();
  const Axes rows{1};
  return {
      // elementwise math
      {"exp2", [](I in) { return exp2(in.x); }},
      {"expm1", [](I in) { return expm1(in.x); }},
      {"log2", [](I in) { return log2(in.pos); }},
      {"log10", [](I in) { return log10(in.pos); }},
      {"log1p", [](I in) { return log1p(in.pos); }},
      {"tan", [](I in) { return tan(in.x); }},
      {"asin", [](I in) { return asin(in.unit); }},
      {"acos", [](I in) { return acos(in.unit); }},
      {"atan", [](I in) { return atan(in.x); }},
      {"sinh", [](I in) { return sinh(in.x); }},
      {"cosh", [](I in) { return cosh(in.x); }},
      {"asinh", [](I in) { return asinh(in.x); }},
      {"acosh", [](I in) { return acosh(in.pos + 1.0f); }},
      {"atanh", [](I in) { return atanh(in.unit); }},
      {"reciprocal", [](I in) { return reciprocal(in.pos); }},
      {"square", [](I in) { return square(in.x); }},
      {"trunc", [](I in) { return trunc(in.x); }},
      {"frac", [](I in) { return frac(in.x); }},
      {"isnan", [](I in) { return isnan(in.x); }},
      {"isfinite", [](I in) { return isfinite(in.x); }},
      {"signbit", [](I in) { return signbit(in.x); }},
      {"nan_to_num", [](I in) { return nan_to_num(in.x); }},
      {"bitwise_xor", [](I in) { return bitwise_xor(in.ints, in.shifts); }},
      {"bitwise_left_shift", [](I in) { return bitwise_left_shift(in.ints, in.shifts); }},
      {"atan2", [](I in) { return atan2(in.x, in.y); }},
      {"hypot", [](I in) { return hypot(in.x, in.y); }},
      {"logaddexp", [](I in) { return logaddexp(in.x, in.y); }},
      {"logaddexp2", [](I in) { return logaddexp2(in.x, in.y); }},
      {"copysign", [](I in) { return copysign(in.x, in.y); }},
      {"fmod", [](I in) { return fmod(in.x, in.pos); }},
      {"remainder", [](I in) { return remainder(in.x, in.pos); }},
      {"floor_divide", [](I in) { return floor_divide(in.x, in.pos); }},
      {"nextafter", [](I in) { return nextafter(in.x, in.y); }},
      {"lerp", [](I in) { return lerp(in.x, in.y, 0.3); }},
      {"addcmul", [](I in) { return addcmul(in.x, in.y, in.pos, 0.5); }},
      {"addcdiv", [](I in) { return addcdiv(in.x, in.y, in.pos, 0.5); }},
      // activations
      {"gelu_tanh", [](I in) { return gelu(in.x, true); }},
      {"silu", [](I in) { return silu(in.x); }},
      {"elu", [](I in) { return elu(in.x); }},
      {"celu", [](I in) { return celu(in.x, 2.0); }},
      {"selu", [](I in) { return selu(in.x); }},
      {"leaky_relu", [](I in) { return leaky_relu(in.x); }},
      {"hardtanh", [](I in) { return hardtanh(in.x); }},
      {"hardsigmoid", [](I in) { return hardsigmoid(in.x); }},
      {"hardswish", [](I in) { return hardswish(in.x); }},
      {"softplus", [](I in) { return softplus(in.x); }},
      {"softsign", [](I in) { return softsign(in.x); }},
      {"mish", [](I in) { return mish(in.x); }},
      {"prelu", [](I in) { return prelu(in.x, in.weight); }},
      {"glu", [](I in) { return glu(in.x); }},
      // reductions over rows of (1000, 1000), and scans along them
      {"all", [rows](I in) { return all(in.x, rows); }},
      {"any", [rows](I in) { return any(in.x, rows); }},
      {"count_nonzero", [rows](I in) { return count_nonzero(in.x, rows); }},
      {"amax", [rows](I in) { return amax(in.x, rows); }},
      {"nansum", [rows](I in) { return nansum(in.x, rows); }},
      {"nanmean", [rows](I in) { return nanmean(in.x, rows); }},
      {"std", [rows](I in) { return std_dev(in.x, rows); }},
      {"logsumexp", [rows](I in) { return logsumexp(in.x, rows); }},
      {"norm2", [rows](I in) { return norm(in.x, 2, rows); }},
      {"norm_inf", [rows, inf](I in) { return norm(in.x, inf, rows); }},
      {"norm3", [rows](I in) { return norm(in.x, 3, rows); }},
      {"cumsum", [](I in) { return cumsum(in.x, 1); }},
      {"cumprod", [](I in) { return cumprod(in.prob, 1); }},
      {"logcumsumexp", [](I in) { return logcumsumexp(in.x, 1); }},
      // losses, mean-reduced; classification over 1000 rows of 1000 classes
      {"mse_loss", [](I in) { return mse_loss(in.x, in.y); }},
      {"l1_loss", [](I in) { return l1_loss(in.x, in.y); }},
      {"smooth_l1_loss", [](I in) { return smooth_l1_loss(in.x, in.y); }},
      {"huber_loss", [](I in) { return huber_loss(in.x, in.y); }},
      {"binary_cross_entropy", [](I in) { return binary_cross_entropy(in.prob, in.prob); }},
      {"bce_with_logits", [](I in) { return binary_cross_entropy_with_logits(in.x, in.prob); }},
      {"kl_div", [](I in) { return kl_div(in.x, in.prob); }},
      {"cross_entropy", [](I in) { return cross_entropy(in.x, in.classes); }},
      {"nll_loss", [](I in) { return nll_loss(in.x, in.classes); }},
      {"cosine_similarity", [](I in) { return cosine_similarity(in.x, in.y); }},
  };
}

}  // namespace tensord::bench
