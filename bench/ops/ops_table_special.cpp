// bench/ops's table: the special functions (torch.special) on (1000, 1000) float32 inputs; their
// peers are scipy.special's (NumPy has only sinc and i0).
#include "bench/ops/ops_table.h"

namespace tensord::bench {

std::vector<OpCase> special_cases() {
  using I = const OpInputs&;
  return {
      {"erfc", "", [](I in) { return erfc(in.x); }},
      {"erfcx", "", [](I in) { return erfcx(in.x); }},
      {"erfinv", "", [](I in) { return erfinv(in.unit); }},
      {"lgamma", "", [](I in) { return lgamma(in.pos); }},
      {"digamma", "", [](I in) { return digamma(in.pos); }},
      {"polygamma1", "", [](I in) { return polygamma(1, in.pos); }},
      {"multigammaln3", "", [](I in) { return multigammaln(in.pos + 1.0f, 3); }},
      {"gammainc", "", [](I in) { return gammainc(in.pos, in.prob); }},
      {"gammaincc", "", [](I in) { return gammaincc(in.pos, in.prob); }},
      {"i0", "", [](I in) { return i0(in.x); }},
      {"i0e", "", [](I in) { return i0e(in.x); }},
      {"i1", "", [](I in) { return i1(in.x); }},
      {"i1e", "", [](I in) { return i1e(in.x); }},
      {"bessel_j0", "", [](I in) { return bessel_j0(in.x); }},
      {"bessel_j1", "", [](I in) { return bessel_j1(in.x); }},
      {"ndtr", "", [](I in) { return ndtr(in.x); }},
      {"ndtri", "", [](I in) { return ndtri(in.prob); }},
      {"log_ndtr", "", [](I in) { return log_ndtr(in.x); }},
      {"logit", "", [](I in) { return logit(in.prob); }},
      {"expit", "", [](I in) { return expit(in.x); }},
      {"xlogy", "", [](I in) { return xlogy(in.x, in.pos); }},
      {"xlog1py", "", [](I in) { return xlog1py(in.x, in.pos); }},
      {"entr", "", [](I in) { return entr(in.pos); }},
      {"sinc", "", [](I in) { return sinc(in.x); }},
      {"zeta", "", [](I in) { return zeta(in.pos + 1.0f, in.pos); }},
      {"softmax", "", [](I in) { return softmax(in.x, 1); }},
      {"log_softmax", "", [](I in) { return log_softmax(in.x, 1); }},
  };
}

}  // namespace tensord::bench
