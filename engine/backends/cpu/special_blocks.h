// erfinv and ndtri a block at a time: the start, one Halley step and its convergence test of
// special::erfinv / special::ndtri with log, erf, erfc and exp through libmvec over the whole
// block, then the scalar function for every element whose step did not converge or that is
// not an ordinary input (0, +-1, NaN, out of the domain). Per element that took 40 ns
// (three libm calls, a loop); NumPy's (SciPy's) erfinv takes 24. Results equal the scalar
// functions' up to libmvec's last ulp or two in float64.
#pragma once

#include <cstdint>

namespace tensord::cpu::special {

// The special functions that are one libm call and arithmetic, a block at a time (m <= kBlock)
// with that call through libmvec: a libm call per element made them 1.6-3.5x slower than
// NumPy's and SciPy's (bench/results/2026-11-30-cpu-stop33). Same edge cases as the scalar
// functions of special_functions.h.
void logit_block(const double* x, double* out, int64_t m);  // log(x / (1 - x))
void ndtr_block(const double* x, double* out, int64_t m);   // erfc(-x / sqrt 2) / 2
void entr_block(const double* x, double* out, int64_t m);   // -x log x
void xlogy_block(const double* x, const double* y, double* out, int64_t m);
void xlog1py_block(const double* x, const double* y, double* out, int64_t m);

// digamma: on (0, 10) the recurrence's ten steps are one fraction taken by every element (one
// division instead of a loop of up to ten that depends on x), then the asymptotic series at
// x + 10 with log through libmvec; zero, negatives and non-finite inputs through the scalar
// special::digamma. 40 ns an element before, NumPy's (SciPy's) 27.
void digamma_block(const double* x, double* out, int64_t m);

// out[0, m) = erfinv(y[0, m)), m <= kBlock (convert.h).
void erfinv_block(const double* y, double* out, int64_t m);
// out[0, m) = ndtri(p[0, m)), m <= kBlock.
void ndtri_block(const double* p, double* out, int64_t m);

}  // namespace tensord::cpu::special
