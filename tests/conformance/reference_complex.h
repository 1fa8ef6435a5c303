// Issue 4: the float64 reference of the complex conformance table (cases_complex.cpp), written
// in std::complex<double>: elementwise ops straight from <complex>, sums in complex<double>, and
// every FFT as a direct O(n^2) DFT along each axis (fft_c2r: the Hermitian extension of the
// half spectrum, then the real part of the inverse DFT). The main table's RefTensor holds real
// values only, hence a reference of its own.
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "engine/ir/attrs.h"
#include "engine/ir/graph.h"
#include "engine/ir/op.h"

namespace tensord::conformance::complex_table {

using C = std::complex<double>;
using CVec = std::vector<C>;
using ir::DType;
using ir::Shape;

struct CTensor {
  DType dtype = DType::Complex64;
  Shape shape;
  CVec v;  // row-major; real dtypes use the real part
};

int64_t numel(const Shape& s);
// Rounds a value to what `t` stores.
C round_to_dtype(DType t, C x);
// Deterministic inputs: values in [-2, 2] with both parts, a few specials first when asked.
CTensor make(DType t, Shape s, uint64_t seed, std::vector<C> specials = {});

// The result dtype of a binary op (docs/ops.md's promotion, complex included).
DType ref_promote_c(DType a, DType b);
// The real dtype of a complex one's parts (a real dtype is its own).
DType component(DType t);
std::vector<int64_t> unravel_c(int64_t flat, const Shape& s);
int64_t ravel_c(const std::vector<int64_t>& idx, const Shape& s);
// Element of x broadcast to `out` at output index `idx`.
C bcast_at(const CTensor& x, const std::vector<int64_t>& idx, const Shape& out);
Shape bshape(const Shape& a, const Shape& b);

struct FftSpec {
  std::vector<int64_t> axes;
  std::optional<std::vector<int64_t>> s;
  int64_t norm = 0;
  bool inverse = false;
};

ir::Attrs fft_attrs(const FftSpec& f, bool c2c);
// fft_c2c, fft_r2c or fft_c2r of x as the op's attributes (fft_attrs(f)) ask.
CTensor ref_fft(ir::Op op, const CTensor& x, const FftSpec& f);

CTensor elementwise1(const CTensor& x, DType out, const std::function<C(C)>& f);
CTensor elementwise2(const CTensor& a, const CTensor& b, DType out,
                     const std::function<C(C, C)>& f);

// Complex arithmetic in the compute precision: complex64 rows compute in complex<float>, as
// the kernels do (their special-value results follow C++ <complex> of that precision).
template <typename F>
C in_precision(DType t, C a, C b, F f) {
  if (t == DType::Complex64) {
    using CF = std::complex<float>;
    CF r = f(CF(static_cast<float>(a.real()), static_cast<float>(a.imag())),
             CF(static_cast<float>(b.real()), static_cast<float>(b.imag())));
    return C(r.real(), r.imag());
  }
  return f(a, b);
}

}  // namespace tensord::conformance::complex_table
