// Complex numbers and FFT (issue 4; docs/ops.md "Complex numbers" and "FFT"). numpy.fft's
// functions recorded as the three FFT primitives (fft_c2c, fft_r2c, fft_c2r) plus conj, roll,
// concat and arange for hfft/ihfft, the shifts and the frequencies.
#include <string>

#include "client/cpp/src/recorder.h"
#include "tensord/ops.h"
#include "tensord/session.h"

namespace tensord {

using detail::record;
using ir::Attr;
using ir::Op;

Tensor real(const Tensor& x, Loc loc) {
  return record(Op::real, {&x}, {}, loc);
}
Tensor imag(const Tensor& x, Loc loc) {
  return record(Op::imag, {&x}, {}, loc);
}
Tensor angle(const Tensor& x, Loc loc) {
  return record(Op::angle, {&x}, {}, loc);
}
Tensor conj(const Tensor& x, Loc loc) {
  return record(Op::conj, {&x}, {}, loc);
}
Tensor complex(const Tensor& re, const Tensor& im, Loc loc) {
  return record(Op::complex, {&re, &im}, {}, loc);
}

namespace fft {
namespace {

int64_t norm_code(Norm n) {
  return n == Norm::Backward ? 0 : n == Norm::Ortho ? 1 : 2;
}
// hfft/ihfft swap the direction of the norm (numpy's _swap_direction).
Norm swapped(Norm n) {
  return n == Norm::Backward ? Norm::Forward : n == Norm::Forward ? Norm::Backward : Norm::Ortho;
}

Tensor transform(Op op, const Tensor& x, const std::vector<int64_t>& axes, const Lengths& s,
                 Norm norm, bool inverse, Loc loc) {
  ir::Attrs attrs{{Attr::axes, axes}, {Attr::fft_norm, norm_code(norm)}};
  if (s) attrs.set(Attr::shape, *s);
  if (op == Op::fft_c2c) attrs.set(Attr::inverse, inverse);
  return record(op, {&x}, std::move(attrs), loc);
}

Lengths one(std::optional<int64_t> n) {
  if (!n) return std::nullopt;
  return std::vector<int64_t>{*n};
}

// numpy's _cook_nd_args: axes default to the last len(s) axes, or to all of them.
std::vector<int64_t> nd_axes(const Tensor& x, const Lengths& s, const Lengths& axes, Loc loc) {
  if (axes) return *axes;
  const auto rank = static_cast<int64_t>(x.shape(loc).size());
  const int64_t k = s ? static_cast<int64_t>(s->size()) : rank;
  std::vector<int64_t> out;
  for (int64_t i = rank - k; i < rank; ++i) out.push_back(i);
  return out;
}

// irfftn's default last length: 2 * (m - 1); its other lengths: the input's.
Tensor shift(const Tensor& x, const Lengths& axes, bool inverse, Loc loc) {
  const ir::Shape& shape = x.shape(loc);
  const auto rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims = axes ? *axes : std::vector<int64_t>{};
  if (!axes) {
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
  }
  std::vector<int64_t> shifts;
  for (int64_t a : dims) {
    const int64_t d = a < 0 ? a + rank : a;
    if (d < 0 || d >= rank) {
      throw Error(ErrorCode::Shape, std::string(inverse ? "ifftshift" : "fftshift") + " axis " +
                                        std::to_string(a) + " is out of range for rank " +
                                        std::to_string(rank));
    }
    shifts.push_back(inverse ? -(shape[d] / 2) : shape[d] / 2);
  }
  if (dims.empty()) return x;
  return roll(x, shifts, dims, loc);
}

void check_n(const char* what, int64_t n, double d) {
  if (n < 1) {
    throw Error(ErrorCode::Shape, std::string(what) + " needs n >= 1, got " + std::to_string(n));
  }
  if (d == 0) throw Error(ErrorCode::Shape, std::string(what) + " needs a nonzero spacing d");
}

}  // namespace

Tensor fft(const Tensor& x, std::optional<int64_t> n, int64_t axis, Norm norm, Loc loc) {
  return transform(Op::fft_c2c, x, {axis}, one(n), norm, false, loc);
}
Tensor ifft(const Tensor& x, std::optional<int64_t> n, int64_t axis, Norm norm, Loc loc) {
  return transform(Op::fft_c2c, x, {axis}, one(n), norm, true, loc);
}
Tensor rfft(const Tensor& x, std::optional<int64_t> n, int64_t axis, Norm norm, Loc loc) {
  return transform(Op::fft_r2c, x, {axis}, one(n), norm, false, loc);
}
Tensor irfft(const Tensor& x, std::optional<int64_t> n, int64_t axis, Norm norm, Loc loc) {
  return transform(Op::fft_c2r, x, {axis}, one(n), norm, true, loc);
}
Tensor hfft(const Tensor& x, std::optional<int64_t> n, int64_t axis, Norm norm, Loc loc) {
  return irfft(conj(x, loc), n, axis, swapped(norm), loc);
}
Tensor ihfft(const Tensor& x, std::optional<int64_t> n, int64_t axis, Norm norm, Loc loc) {
  return conj(rfft(x, n, axis, swapped(norm), loc), loc);
}
Tensor fft2(const Tensor& x, Lengths s, std::vector<int64_t> axes, Norm norm, Loc loc) {
  return fftn(x, std::move(s), std::move(axes), norm, loc);
}
Tensor ifft2(const Tensor& x, Lengths s, std::vector<int64_t> axes, Norm norm, Loc loc) {
  return ifftn(x, std::move(s), std::move(axes), norm, loc);
}
Tensor fftn(const Tensor& x, Lengths s, Lengths axes, Norm norm, Loc loc) {
  return transform(Op::fft_c2c, x, nd_axes(x, s, axes, loc), s, norm, false, loc);
}
Tensor ifftn(const Tensor& x, Lengths s, Lengths axes, Norm norm, Loc loc) {
  return transform(Op::fft_c2c, x, nd_axes(x, s, axes, loc), s, norm, true, loc);
}
Tensor rfftn(const Tensor& x, Lengths s, Lengths axes, Norm norm, Loc loc) {
  return transform(Op::fft_r2c, x, nd_axes(x, s, axes, loc), s, norm, false, loc);
}
Tensor irfftn(const Tensor& x, Lengths s, Lengths axes, Norm norm, Loc loc) {
  return transform(Op::fft_c2r, x, nd_axes(x, s, axes, loc), s, norm, true, loc);
}

Tensor fftfreq(Session& s, int64_t n, double d, ir::DType dtype, Loc loc) {
  check_n("fftfreq", n, d);
  // [0, ..., (n - 1) / 2] then [-(n / 2), ..., -1], scaled by 1 / (d n).
  Tensor pos = s.arange(0, (n - 1) / 2 + 1, 1, dtype, loc);
  Tensor k = n / 2 > 0 ? concat({pos, s.arange(-(n / 2), 0, 1, dtype, loc)}, 0, loc) : pos;
  return mul(k, 1.0 / (d * static_cast<double>(n)), loc);
}
Tensor rfftfreq(Session& s, int64_t n, double d, ir::DType dtype, Loc loc) {
  check_n("rfftfreq", n, d);
  return mul(s.arange(0, n / 2 + 1, 1, dtype, loc), 1.0 / (d * static_cast<double>(n)), loc);
}
Tensor fftshift(const Tensor& x, Lengths axes, Loc loc) {
  return shift(x, axes, false, loc);
}
Tensor ifftshift(const Tensor& x, Lengths axes, Loc loc) {
  return shift(x, axes, true, loc);
}

}  // namespace fft
}  // namespace tensord
