// erfinv and ndtri a block at a time: the start, one Halley step and its convergence test of
// special::erfinv / special::ndtri with log, erf, erfc and exp through libmvec over the whole
// block, then the scalar function for every element whose step did not converge or that is
// not an ordinary input (0, +-1, NaN, out of the domain). Per element that took 40 ns
// (three libm calls, a loop); NumPy's (SciPy's) erfinv takes 24. Results equal the scalar
// functions' up to libmvec's last ulp or two in float64.
#pragma once

#include <cstdint>

namespace tensord::cpu::special {

// out[0, m) = erfinv(y[0, m)), m <= kBlock (convert.h).
void erfinv_block(const double* y, double* out, int64_t m);
// out[0, m) = ndtri(p[0, m)), m <= kBlock.
void ndtri_block(const double* p, double* out, int64_t m);

}  // namespace tensord::cpu::special
