#include "tests/conformance/reference_complex.h"

#include <cmath>
#include <string>

namespace tensord::conformance::complex_table {

using ir::Attr;
using ir::Attrs;
using ir::Op;

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

namespace {

// v as float storage holds it. Through a volatile: GCC 12.2 at -O2/-O3 dropped the double ->
// float -> double round trip of the complex64 branch below (it returned x unrounded, as the
// complex128 branch does) once round_to_dtype was no longer inlined into its callers.
double stored_as_float(double v) {
  volatile float f = static_cast<float>(v);
  return f;
}

}  // namespace

C round_to_dtype(DType t, C x) {
  switch (t) {
    case DType::Complex64:
      return C(stored_as_float(x.real()), stored_as_float(x.imag()));
    case DType::Float32:
      return C(stored_as_float(x.real()), 0);
    case DType::Float64:
    case DType::Complex128:
      return t == DType::Float64 ? C(x.real(), 0) : x;
    case DType::Bool:
      return C(x.real() != 0 ? 1 : 0, 0);
    default:
      return C(std::trunc(x.real()), 0);
  }
}

CTensor make(DType t, Shape s, uint64_t seed, std::vector<C> specials) {
  CTensor x{t, s, {}};
  const int64_t n = numel(s);
  uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) * 0x1p-53 * 4 - 2;
  };
  for (int64_t k = 0; k < n; ++k) {
    C v = k < static_cast<int64_t>(specials.size()) ? specials[k] : C(next(), next());
    if (t == DType::Int32 || t == DType::Int64) v = C(std::round(v.real() * 3) + 0.0, 0);  // no -0
    if (t == DType::Bool) v = C(v.real() > 0 ? 1 : 0, 0);
    x.v.push_back(round_to_dtype(t, v));
  }
  return x;
}

DType ref_promote_c(DType a, DType b) {
  auto wide = [](DType t) { return t == DType::Float64 || t == DType::Complex128; };
  const bool ca = a == DType::Complex64 || a == DType::Complex128;
  const bool cb = b == DType::Complex64 || b == DType::Complex128;
  if (ca || cb) return wide(a) || wide(b) ? DType::Complex128 : DType::Complex64;
  if (a == b) return a;
  if (wide(a) || wide(b)) return DType::Float64;
  return DType::Float32;
}

DType component(DType t) {
  return t == DType::Complex128 ? DType::Float64 : t == DType::Complex64 ? DType::Float32 : t;
}

std::vector<int64_t> unravel_c(int64_t flat, const Shape& s) {
  std::vector<int64_t> idx(s.size());
  for (int64_t d = static_cast<int64_t>(s.size()) - 1; d >= 0; --d) {
    idx[d] = s[d] ? flat % s[d] : 0;
    flat = s[d] ? flat / s[d] : 0;
  }
  return idx;
}

int64_t ravel_c(const std::vector<int64_t>& idx, const Shape& s) {
  int64_t f = 0;
  for (size_t d = 0; d < s.size(); ++d) f = f * s[d] + idx[d];
  return f;
}

C bcast_at(const CTensor& x, const std::vector<int64_t>& idx, const Shape& out) {
  const size_t off = out.size() - x.shape.size();
  int64_t f = 0;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    f = f * x.shape[d] + (x.shape[d] == 1 ? 0 : idx[off + d]);
  }
  return x.v[f];
}

Shape bshape(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {

// A direct DFT of x along `axis` (length n: x already padded/truncated), sign -1 forward.
CTensor dft_axis(const CTensor& x, int64_t axis, bool inverse) {
  CTensor y = x;
  const int64_t n = x.shape[axis];
  const int64_t total = numel(x.shape);
  if (total == 0) return y;
  const double sign = inverse ? 1 : -1;
  for (int64_t flat = 0; flat < total; ++flat) {
    std::vector<int64_t> idx = unravel_c(flat, x.shape);
    const int64_t k = idx[axis];
    C acc(0, 0);
    for (int64_t j = 0; j < n; ++j) {
      idx[axis] = j;
      const double ang =
          sign * 2 * M_PI * static_cast<double>((j * k) % n) / static_cast<double>(n);
      acc += x.v[ravel_c(idx, x.shape)] * C(std::cos(ang), std::sin(ang));
    }
    y.v[flat] = acc;
  }
  return y;
}

// x padded with zeros / truncated to `len` along `axis`.
CTensor resize_axis(const CTensor& x, int64_t axis, int64_t len) {
  CTensor y{x.dtype, x.shape, {}};
  y.shape[axis] = len;
  y.v.assign(static_cast<size_t>(numel(y.shape)), C(0, 0));
  for (int64_t flat = 0; flat < numel(y.shape); ++flat) {
    std::vector<int64_t> idx = unravel_c(flat, y.shape);
    if (idx[axis] < x.shape[axis]) y.v[flat] = x.v[ravel_c(idx, x.shape)];
  }
  return y;
}

double norm_scale(int64_t norm, bool inverse, double n) {
  if (norm == 1) return 1 / std::sqrt(n);
  if ((norm == 0 && inverse) || (norm == 2 && !inverse)) return 1 / n;
  return 1;
}

}  // namespace

Attrs fft_attrs(const FftSpec& f, bool c2c) {
  Attrs a{{Attr::axes, f.axes}};
  if (f.s) a.set(Attr::shape, *f.s);
  if (f.norm) a.set(Attr::fft_norm, f.norm);
  if (c2c && f.inverse) a.set(Attr::inverse, true);
  return a;
}

CTensor ref_fft(Op op, const CTensor& x, const FftSpec& f) {
  const auto rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> axes;
  for (int64_t a : f.axes) axes.push_back(a < 0 ? a + rank : a);
  std::vector<int64_t> len;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (f.s) {
      len.push_back((*f.s)[i]);
    } else {
      const int64_t m = x.shape[axes[i]];
      len.push_back(op == Op::fft_c2r && i + 1 == axes.size() ? 2 * (m - 1) : m);
    }
  }
  const DType out_c = x.dtype == DType::Float64 || x.dtype == DType::Complex128 ? DType::Complex128
                                                                                : DType::Complex64;
  CTensor y = x;
  y.dtype = out_c;
  double n_total = 1;
  for (int64_t n : len) n_total *= static_cast<double>(n);
  const bool inverse = op == Op::fft_c2r || f.inverse;
  const double scale = norm_scale(f.norm, inverse, n_total);
  if (op == Op::fft_c2r) {
    for (size_t i = 0; i + 1 < axes.size(); ++i)
      y = dft_axis(resize_axis(y, axes[i], len[i]), axes[i], true);
    const int64_t last = axes.back(), n = len.back();
    y = resize_axis(y, last, n / 2 + 1);
    // Hermitian extension along the last axis to length n.
    CTensor full{out_c, y.shape, {}};
    full.shape[last] = n;
    full.v.assign(static_cast<size_t>(numel(full.shape)), C(0, 0));
    for (int64_t flat = 0; flat < numel(full.shape); ++flat) {
      std::vector<int64_t> idx = unravel_c(flat, full.shape);
      const int64_t k = idx[last];
      if (k <= n / 2) {
        full.v[flat] = y.v[ravel_c(idx, y.shape)];
      } else {
        idx[last] = n - k;
        full.v[flat] = std::conj(y.v[ravel_c(idx, y.shape)]);
      }
    }
    // FFTW (like numpy) ignores the imaginary parts of bins 0 and n/2 (even n).
    for (int64_t flat = 0; flat < numel(full.shape); ++flat) {
      std::vector<int64_t> idx = unravel_c(flat, full.shape);
      if (idx[last] == 0 || (n % 2 == 0 && idx[last] == n / 2))
        full.v[flat] = C(full.v[flat].real(), 0);
    }
    y = dft_axis(full, last, true);
    y.dtype = component(out_c);
    for (C& v : y.v) v = C(v.real() * scale, 0);
    return y;
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    y = dft_axis(resize_axis(y, axes[i], len[i]), axes[i], inverse);
  }
  if (op == Op::fft_r2c) y = resize_axis(y, axes.back(), len.back() / 2 + 1);
  for (C& v : y.v) v *= scale;
  return y;
}

CTensor elementwise1(const CTensor& x, DType out, const std::function<C(C)>& f) {
  CTensor y{out, x.shape, {}};
  for (const C& v : x.v) y.v.push_back(round_to_dtype(out, f(v)));
  return y;
}

CTensor elementwise2(const CTensor& a, const CTensor& b, DType out,
                     const std::function<C(C, C)>& f) {
  CTensor y{out, bshape(a.shape, b.shape), {}};
  for (int64_t k = 0; k < numel(y.shape); ++k) {
    const auto idx = unravel_c(k, y.shape);
    y.v.push_back(round_to_dtype(out, f(bcast_at(a, idx, y.shape), bcast_at(b, idx, y.shape))));
  }
  return y;
}

}  // namespace tensord::conformance::complex_table
