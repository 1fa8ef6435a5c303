// bench/ops's table: complex64 (1000, 1000) values in the unit square (in.z): NumPy's complex
// ufuncs, arithmetic, the reductions that take complex values and the indexing ops.
#include "bench/ops/ops_table.h"

namespace tensord::bench {

std::vector<OpCase> complex_cases() {
  using I = const OpInputs&;
  const std::string c = "complex64(1000,1000)";
  return {
      {"complex_mul", c, [](I in) { return in.z * in.w; }},
      {"complex_div", c, [](I in) { return in.z / in.w; }},
      {"complex_abs", c, [](I in) { return abs(in.z); }},
      {"complex_exp", c, [](I in) { return exp(in.z); }},
      {"complex_log", c, [](I in) { return log(in.z); }},
      {"complex_sqrt", c, [](I in) { return sqrt(in.z); }},
      {"complex_sin", c, [](I in) { return sin(in.z); }},
      {"complex_tanh", c, [](I in) { return tanh(in.z); }},
      {"complex_asinh", c, [](I in) { return asinh(in.z); }},
      {"complex_expm1", c, [](I in) { return expm1(in.z); }},
      {"complex_pow", c, [](I in) { return pow(in.z, in.w); }},
      {"complex_pow_2", c, [](I in) { return pow(in.z, 2.0f); }},
      {"complex_sum", c, [](I in) { return sum(in.z); }},
      {"complex_sum_rows", c, [](I in) { return sum(in.z, {1}); }},
      {"complex_var_rows", c, [](I in) { return var(in.z, {1}); }},
      {"complex_cumsum_rows", c, [](I in) { return cumsum(in.z, 1); }},
      {"complex_cumprod_rows", c, [](I in) { return cumprod(in.z, 1); }},
      {"complex_take", c, [](I in) { return take(in.z, in.flat_index); }},
      {"complex_take_along_dim", c, [](I in) { return take_along_dim(in.z, in.index, 1); }},
      {"complex_tril", c, [](I in) { return tril(in.z); }},
      {"complex_pad", c, [](I in) { return pad(in.z, {2, 2, 3, 3}); }},
      {"complex_masked_fill", c, [](I in) { return masked_fill(in.z, in.mask, 0.0); }},
  };
}

}  // namespace tensord::bench
