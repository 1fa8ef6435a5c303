// Issue 4: the conformance rows of complex64/complex128 and the FFTs, on every backend of
// backends.cpp. The reference is written here in std::complex<double>: elementwise ops straight
// from <complex>, sums in complex<double>, matmul as the triple loop, and every FFT as a direct
// O(n^2) DFT along each axis (fft_c2r: the Hermitian extension of the half spectrum, then the
// real part of the inverse DFT). The main table's RefTensor holds real values only, so these
// rows have their own runner over the same Engine; complex_table_ops() tells the main table's
// coverage checks which ops are covered here.
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/exec/engine.h"
#include "engine/ir/graph.h"
#include "tests/conformance/complex_table.h"
#include "tests/conformance/runner.h"

// Rows are aggregates whose trailing members (expected error, tolerances) are mostly defaulted.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace tensord::conformance {
namespace {

using C = std::complex<double>;
using ir::Attr;
using ir::Attrs;
using ir::Op;
using CVec = std::vector<C>;

const double kNaN = std::nan("");
const double kInf = INFINITY;

struct CTensor {
  DType dtype = DType::Complex64;
  Shape shape;
  CVec v;  // row-major; real dtypes use the real part
};

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// Rounds a value to what `t` stores.
C round_to_dtype(DType t, C x) {
  switch (t) {
    case DType::Complex64:
      return C(static_cast<float>(x.real()), static_cast<float>(x.imag()));
    case DType::Float32:
      return C(static_cast<float>(x.real()), 0);
    case DType::Float64:
    case DType::Complex128:
      return t == DType::Float64 ? C(x.real(), 0) : x;
    case DType::Bool:
      return C(x.real() != 0 ? 1 : 0, 0);
    default:
      return C(std::trunc(x.real()), 0);
  }
}

// Deterministic inputs: values in [-2, 2] with both parts, a few specials first when asked.
CTensor make(DType t, Shape s, uint64_t seed, std::vector<C> specials = {}) {
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

std::vector<std::byte> encode_c(const CTensor& x) {
  const size_t item = ir::itemsize(x.dtype);
  std::vector<std::byte> b(x.v.size() * item);
  for (size_t k = 0; k < x.v.size(); ++k) {
    std::byte* p = b.data() + k * item;
    switch (x.dtype) {
      case DType::Complex64: {
        const float f[2] = {static_cast<float>(x.v[k].real()), static_cast<float>(x.v[k].imag())};
        std::memcpy(p, f, 8);
        break;
      }
      case DType::Complex128: {
        const double d[2] = {x.v[k].real(), x.v[k].imag()};
        std::memcpy(p, d, 16);
        break;
      }
      case DType::Float32: {
        const float f = static_cast<float>(x.v[k].real());
        std::memcpy(p, &f, 4);
        break;
      }
      case DType::Float64: {
        const double d = x.v[k].real();
        std::memcpy(p, &d, 8);
        break;
      }
      case DType::Int32: {
        const auto i = static_cast<int32_t>(x.v[k].real());
        std::memcpy(p, &i, 4);
        break;
      }
      case DType::Int64: {
        const auto i = static_cast<int64_t>(x.v[k].real());
        std::memcpy(p, &i, 8);
        break;
      }
      case DType::Bool:
        *p = std::byte(x.v[k].real() != 0 ? 1 : 0);
        break;
      default:
        throw std::logic_error("table bug: no encoding for " + std::string(ir::name(x.dtype)));
    }
  }
  return b;
}

CVec decode_c(DType t, const std::vector<std::byte>& b, int64_t n) {
  CVec v(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const std::byte* p = b.data() + k * ir::itemsize(t);
    switch (t) {
      case DType::Complex64: {
        float f[2];
        std::memcpy(f, p, 8);
        v[k] = C(f[0], f[1]);
        break;
      }
      case DType::Complex128: {
        double d[2];
        std::memcpy(d, p, 16);
        v[k] = C(d[0], d[1]);
        break;
      }
      case DType::Float32: {
        float f;
        std::memcpy(&f, p, 4);
        v[k] = C(f, 0);
        break;
      }
      case DType::Float64: {
        double d;
        std::memcpy(&d, p, 8);
        v[k] = C(d, 0);
        break;
      }
      case DType::Int32: {
        int32_t i;
        std::memcpy(&i, p, 4);
        v[k] = C(i, 0);
        break;
      }
      case DType::Int64: {
        int64_t i;
        std::memcpy(&i, p, 8);
        v[k] = C(static_cast<double>(i), 0);
        break;
      }
      case DType::Bool:
        v[k] = C(*p != std::byte{0} ? 1 : 0, 0);
        break;
      default:
        throw std::logic_error("no decoding for " + std::string(ir::name(t)));
    }
  }
  return v;
}

// ---- the reference ------------------------------------------------------------------------

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

// Element of x broadcast to `out` at output index `idx`.
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

struct FftSpec {
  std::vector<int64_t> axes;
  std::optional<std::vector<int64_t>> s;
  int64_t norm = 0;
  bool inverse = false;
};

Attrs fft_attrs(const FftSpec& f, bool c2c) {
  Attrs a{{Attr::axes, f.axes}};
  if (f.s) a.set(Attr::shape, *f.s);
  if (f.norm) a.set(Attr::fft_norm, f.norm);
  if (c2c && f.inverse) a.set(Attr::inverse, true);
  return a;
}

double norm_scale(int64_t norm, bool inverse, double n) {
  if (norm == 1) return 1 / std::sqrt(n);
  if ((norm == 0 && inverse) || (norm == 2 && !inverse)) return 1 / n;
  return 1;
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

// ---- rows ---------------------------------------------------------------------------------

struct CCase {
  std::string name;
  Op op;
  Attrs attrs;
  std::vector<CTensor> inputs;
  std::vector<bool> transposed;  // input given as the permute of a contiguous (reversed) base
  std::function<CTensor(const std::vector<CTensor>&)> ref;  // null: error expected
  std::optional<ErrorCode> error;
  double rtol64 = 4e-6, rtol128 = 1e-12;
  bool l2_scale = false;         // FFT/matmul: allowed error grows with the inputs' L2 norm
  std::vector<bool> conjugated;  // input given as conj(base): a conj view (after the permute)
};

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

const std::vector<C> kSpecials = {C(0, 0),    C(-0.0, 0), C(1, -1),    C(kNaN, 0),
                                  C(0, kNaN), C(kInf, 0), C(-kInf, 1), C(1, kInf)};

void add_elementwise(std::vector<CCase>& out) {
  const DType cdt[] = {DType::Complex64, DType::Complex128};
  const Shape shapes[] = {{3, 4}, {}, {0}, {2, 3, 5}};
  uint64_t seed = 1;
  for (DType t : cdt) {
    const DType r = component(t);
    for (const Shape& s : shapes) {
      for (bool tr : {false, true}) {
        if (tr && s.size() < 2) continue;
        const std::string tag =
            std::string(ir::name(t)) + ir::to_string(s) + (tr ? "[transposed]" : "");
        CTensor x = make(t, s, seed++, s.size() >= 2 ? kSpecials : std::vector<C>{});
        auto un = [&](Op op, DType o, std::function<C(C)> f, double rtol64 = 4e-6) {
          CCase c{std::string(ir::name(op)) + " " + tag, op, {}, {x}, {tr}, nullptr};
          c.ref = [o, f](const std::vector<CTensor>& in) { return elementwise1(in[0], o, f); };
          c.rtol64 = rtol64;
          out.push_back(c);
        };
        un(Op::neg, t, [](C v) { return -v; });
        un(Op::conj, t, [](C v) { return std::conj(v); });
        un(Op::real, r, [](C v) { return C(v.real(), 0); });
        un(Op::imag, r, [](C v) { return C(v.imag(), 0); });
        un(Op::abs, r, [](C v) { return C(std::abs(v), 0); });
        un(Op::angle, r, [](C v) { return C(std::arg(v), 0); });
        // exp/log/sqrt: finite inputs (special-value branches of libm differ by precision).
        CTensor fin =
            make(t, s, seed++,
                 s.size() >= 2 ? std::vector<C>{C(0, 0), C(-1, 0), C(0, kNaN)} : std::vector<C>{});
        for (auto [op, f] : std::initializer_list<std::pair<Op, C (*)(const C&)>>{
                 {Op::exp, [](const C& v) { return std::exp(v); }},
                 {Op::log, [](const C& v) { return std::log(v); }},
                 {Op::sqrt, [](const C& v) { return std::sqrt(v); }}}) {
          CCase c{std::string(ir::name(op)) + " " + tag, op, {}, {fin}, {tr}, nullptr};
          c.ref = [t, f](const std::vector<CTensor>& in) { return elementwise1(in[0], t, f); };
          out.push_back(c);
        }
        // sums over axis 0 / all, keepdim; prod of few elements.
        if (!s.empty()) {
          CTensor fx = make(t, s, seed++);
          for (bool keep : {false, true}) {
            for (Op op : {Op::sum, Op::prod, Op::mean}) {
              Attrs a{{Attr::axes, std::vector<int64_t>{0}}, {Attr::keepdim, keep}};
              CCase c{std::string(ir::name(op)) + " axis0 keep=" + (keep ? "1 " : "0 ") + tag,
                      op,
                      a,
                      {fx},
                      {tr},
                      nullptr};
              c.ref = [op, keep, t](const std::vector<CTensor>& in) {
                const CTensor& v = in[0];
                Shape o = v.shape;
                o[0] = 1;
                CTensor y{t, keep ? o : Shape(v.shape.begin() + 1, v.shape.end()), {}};
                const int64_t inner = numel(o), n0 = v.shape[0];
                for (int64_t k = 0; k < inner; ++k) {
                  C acc = op == Op::prod ? C(1, 0) : C(0, 0);
                  for (int64_t i = 0; i < n0; ++i) {
                    acc = op == Op::prod ? acc * v.v[i * inner + k] : acc + v.v[i * inner + k];
                  }
                  if (op == Op::mean) acc /= static_cast<double>(n0);
                  y.v.push_back(round_to_dtype(t, acc));
                }
                return y;
              };
              c.l2_scale = true;
              out.push_back(c);
            }
          }
          Attrs all{{Attr::keepdim, false}};
          CCase c{"sum all " + tag, Op::sum, all, {fx}, {tr}, nullptr};
          c.ref = [t](const std::vector<CTensor>& in) {
            C acc(0, 0);
            for (const C& v : in[0].v) acc += v;
            return CTensor{t, {}, {round_to_dtype(t, acc)}};
          };
          c.l2_scale = true;
          out.push_back(c);
        }
      }
    }
    // Binary ops, with promotion partners and broadcasting.
    const DType partners[] = {t,
                              DType::Complex64,
                              DType::Complex128,
                              DType::Float32,
                              DType::Float64,
                              DType::Int32,
                              DType::Bool};
    for (DType p : partners) {
      for (auto [sa, sb] : std::initializer_list<std::pair<Shape, Shape>>{
               {{2, 5}, {2, 5}}, {{3, 1}, {1, 4}}, {{0, 3}, {3}}, {{}, {2, 2}}}) {
        CTensor a = make(t, sa, seed++, numel(sa) >= 8 ? kSpecials : std::vector<C>{});
        CTensor b = make(p, sb, seed++);
        const DType o = ref_promote_c(t, p == DType::Int32 || p == DType::Bool ? t : p);
        const std::string tag = std::string(ir::name(t)) + ir::to_string(sa) + " " +
                                std::string(ir::name(p)) + ir::to_string(sb);
        for (Op op : {Op::add, Op::sub, Op::mul, Op::div, Op::eq, Op::ne}) {
          if (p == DType::Bool && op != Op::eq && op != Op::ne && op != Op::add) continue;
          const bool cmp = op == Op::eq || op == Op::ne;
          CCase c{std::string(ir::name(op)) + " " + tag, op, {}, {a, b}, {false, false}, nullptr};
          c.ref = [op, o, cmp](const std::vector<CTensor>& in) {
            return elementwise2(in[0], in[1], cmp ? DType::Bool : o, [&](C x, C y) -> C {
              switch (op) {
                case Op::add:
                  return in_precision(o, x, y, [](auto u, auto v) { return u + v; });
                case Op::sub:
                  return in_precision(o, x, y, [](auto u, auto v) { return u - v; });
                case Op::mul:
                  return in_precision(o, x, y, [](auto u, auto v) { return u * v; });
                case Op::div:
                  return in_precision(o, x, y, [](auto u, auto v) { return u / v; });
                case Op::eq:
                  return C(x == y ? 1 : 0, 0);
                default:
                  return C(x != y ? 1 : 0, 0);
              }
            });
          };
          out.push_back(c);
        }
      }
    }
    // where(cond, complex, other)
    {
      CTensor cond = make(DType::Bool, {3, 4}, seed++);
      CTensor a = make(t, {3, 4}, seed++, kSpecials), b = make(DType::Float64, {4}, seed++);
      CCase c{"where bool(3,4) " + std::string(ir::name(t)) + "(3,4) float64(4)",
              Op::where,
              {},
              {cond, a, b},
              {false, true, false},
              nullptr};
      const DType o = ref_promote_c(t, DType::Float64);
      c.ref = [o](const std::vector<CTensor>& in) {
        CTensor y{o, {3, 4}, {}};
        for (int64_t k = 0; k < 12; ++k) {
          const auto idx = unravel_c(k, y.shape);
          y.v.push_back(round_to_dtype(o, bcast_at(in[0], idx, y.shape).real() != 0
                                              ? bcast_at(in[1], idx, y.shape)
                                              : bcast_at(in[2], idx, y.shape)));
        }
        return y;
      };
      out.push_back(c);
    }
    // casts both ways
    for (DType to : {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Bool,
                     DType::Complex64, DType::Complex128}) {
      CTensor x = make(t, {4, 3}, seed++, {C(0, 0), C(0, 1), C(2.5, -1), C(-3.7, 2), C(kNaN, 0)});
      if (to == DType::Int32 || to == DType::Int64) x.v[4] = C(7, 1);  // NaN -> int: not here
      CCase c{"cast " + std::string(ir::name(t)) + "(4,3) to " + std::string(ir::name(to)),
              Op::cast,
              {{Attr::dtype, to}},
              {x},
              {true},
              nullptr};
      c.ref = [to](const std::vector<CTensor>& in) {
        return elementwise1(in[0], to, [to](C v) {
          if (to == DType::Bool) return C(v.real() != 0 || v.imag() != 0 ? 1 : 0, 0);
          return v;
        });
      };
      out.push_back(c);
      CTensor rx = make(to == DType::Complex64 || to == DType::Complex128 ? DType::Float32 : to,
                        {4, 3}, seed++);
      CCase back{"cast " + std::string(ir::name(rx.dtype)) + "(4,3) to " + std::string(ir::name(t)),
                 Op::cast,
                 {{Attr::dtype, t}},
                 {rx},
                 {false},
                 nullptr};
      back.ref = [t](const std::vector<CTensor>& in) {
        return elementwise1(in[0], t, [](C v) { return C(v.real(), 0); });
      };
      out.push_back(back);
    }
    // complex(re, im)
    for (auto [ra, rb] : std::initializer_list<std::pair<DType, DType>>{
             {DType::Float32, DType::Float32}, {DType::Float64, DType::Float32}}) {
      CTensor re = make(ra, {3, 1}, seed++), im = make(rb, {4}, seed++);
      const DType o =
          ref_promote_c(ra, rb) == DType::Float64 ? DType::Complex128 : DType::Complex64;
      CCase c{"complex " + std::string(ir::name(ra)) + "(3,1) " + std::string(ir::name(rb)) + "(4)",
              Op::complex,
              {},
              {re, im},
              {false, false},
              nullptr};
      c.ref = [o](const std::vector<CTensor>& in) {
        return elementwise2(in[0], in[1], o, [](C a, C b) { return C(a.real(), b.real()); });
      };
      out.push_back(c);
    }
    // matmul: small, batched+broadcast, across the kernel's 64 x 64 x 256 tiles, k = 0, mixed.
    for (auto [sa, sb, pb] :
         std::initializer_list<std::tuple<Shape, Shape, DType>>{{{3, 4}, {4, 5}, t},
                                                                {{2, 3, 4}, {4, 2}, t},
                                                                {{70, 300}, {300, 67}, t},
                                                                {{2, 0}, {0, 3}, t},
                                                                {{4}, {4, 3}, DType::Float32},
                                                                {{5, 6}, {6}, DType::Float64}}) {
      CTensor a = make(t, sa, seed++), b = make(pb, sb, seed++);
      const DType o = ref_promote_c(t, pb);
      CCase c{"matmul " + std::string(ir::name(t)) + ir::to_string(sa) + " " +
                  std::string(ir::name(pb)) + ir::to_string(sb),
              Op::matmul,
              {},
              {a, b},
              {false, sa.size() == 2 && sb.size() == 2},
              nullptr};
      c.ref = [o](const std::vector<CTensor>& in) {
        CTensor A = in[0], B = in[1];
        const bool va = A.shape.size() == 1, vb = B.shape.size() == 1;
        if (va) A.shape.insert(A.shape.begin(), 1);
        if (vb) B.shape.push_back(1);
        const int64_t m = A.shape[A.shape.size() - 2], k = A.shape.back(), n = B.shape.back();
        const int64_t ba = numel(A.shape) / std::max<int64_t>(1, m * k);
        const int64_t bb = numel(B.shape) / std::max<int64_t>(1, k * n);
        const int64_t batch = A.shape.size() <= 2 && B.shape.size() <= 2 ? 1 : std::max(ba, bb);
        Shape os;
        if (A.shape.size() > 2)
          os.assign(A.shape.begin(), A.shape.end() - 2);
        else if (B.shape.size() > 2)
          os.assign(B.shape.begin(), B.shape.end() - 2);
        if (!va) os.push_back(m);
        if (!vb) os.push_back(n);
        CTensor y{o, os, {}};
        for (int64_t bi = 0; bi < batch; ++bi) {
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              C acc(0, 0);
              for (int64_t q = 0; q < k; ++q) {
                acc += A.v[(ba > 1 ? bi : 0) * m * k + i * k + q] *
                       B.v[(bb > 1 ? bi : 0) * k * n + q * n + j];
              }
              y.v.push_back(round_to_dtype(o, acc));
            }
          }
        }
        return y;
      };
      c.l2_scale = true;
      out.push_back(c);
    }
    // views and movement ops carry complex values unchanged.
    {
      CTensor x = make(t, {3, 4}, seed++, kSpecials);
      auto same = [](const std::vector<CTensor>& in) { return in[0]; };
      CCase re{"reshape " + std::string(ir::name(t)) + "(3,4)",
               Op::reshape,
               {{Attr::shape, std::vector<int64_t>{4, 3}}},
               {x},
               {true},
               nullptr};
      re.ref = [](const std::vector<CTensor>& in) {
        // in[0] is the logical (3,4) tensor; reshape keeps row-major order.
        CTensor y = in[0];
        y.shape = {4, 3};
        return y;
      };
      out.push_back(re);
      CCase co{"contiguous " + std::string(ir::name(t)) + "(3,4)",
               Op::contiguous,
               {},
               {x},
               {true},
               same};
      out.push_back(co);
      CCase cat{"concat " + std::string(ir::name(t)) + "(3,4) x2",
                Op::concat,
                {{Attr::axis, int64_t{1}}},
                {x, x},
                {true, false},
                nullptr};
      cat.ref = [](const std::vector<CTensor>& in) {
        CTensor y{in[0].dtype, {3, 8}, {}};
        for (int64_t i = 0; i < 3; ++i) {
          for (int64_t j = 0; j < 8; ++j) y.v.push_back(in[j / 4].v[i * 4 + j % 4]);
        }
        return y;
      };
      out.push_back(cat);
      CCase ro{"roll " + std::string(ir::name(t)) + "(3,4)",
               Op::roll,
               {{Attr::shifts, std::vector<int64_t>{2}}, {Attr::dims, std::vector<int64_t>{1}}},
               {x},
               {false},
               nullptr};
      ro.ref = [](const std::vector<CTensor>& in) {
        CTensor y = in[0];
        for (int64_t i = 0; i < 3; ++i) {
          for (int64_t j = 0; j < 4; ++j) y.v[i * 4 + (j + 2) % 4] = in[0].v[i * 4 + j];
        }
        return y;
      };
      out.push_back(ro);
    }
  }
  // angle and conj of real inputs.
  for (DType rt : {DType::Float32, DType::Float64, DType::Int32}) {
    CTensor x = make(rt, {2, 4}, 99, {C(0, 0), C(-0.0, 0), C(-2, 0), C(kNaN, 0)});
    if (rt == DType::Int32) x.v[3] = C(5, 0);
    const DType o = rt == DType::Int32 ? DType::Float32 : rt;
    CCase c{"angle " + std::string(ir::name(rt)) + "(2,4)", Op::angle, {}, {x}, {false}, nullptr};
    c.ref = [o](const std::vector<CTensor>& in) {
      return elementwise1(in[0], o, [](C v) { return C(std::atan2(0.0, v.real()), 0); });
    };
    out.push_back(c);
    CCase cj{"conj " + std::string(ir::name(rt)) + "(2,4)",       Op::conj, {}, {x}, {false},
             [](const std::vector<CTensor>& in) { return in[0]; }};
    out.push_back(cj);
  }
}

void add_fft(std::vector<CCase>& out) {
  uint64_t seed = 1000;
  auto row = [&](Op op, DType t, Shape s, FftSpec f, std::vector<C> specials = {},
                 bool transposed = false) {
    CTensor x = make(t, s, seed++, specials);
    std::string name = std::string(ir::name(op)) + " " + std::string(ir::name(t)) +
                       ir::to_string(s) + (transposed ? "[transposed]" : "") +
                       " axes=" + ir::to_string(f.axes) + (f.s ? " s=" + ir::to_string(*f.s) : "") +
                       " norm=" + std::to_string(f.norm) + (f.inverse ? " inverse" : "");
    CCase c{name, op, fft_attrs(f, op == Op::fft_c2c), {x}, {transposed}, nullptr};
    c.ref = [op, f](const std::vector<CTensor>& in) { return ref_fft(op, in[0], f); };
    c.l2_scale = true;
    c.rtol64 = 2e-6;
    c.rtol128 = 1e-13;
    out.push_back(c);
  };
  const DType cdt[] = {DType::Complex64, DType::Complex128};
  for (DType t : cdt) {
    // lengths 1, 2, odd, prime, composite, a larger prime; both directions; all norms.
    for (int64_t n : {1, 2, 3, 5, 7, 8, 12, 17, 97}) {
      for (int64_t norm : {0, 1, 2}) {
        row(Op::fft_c2c, t, {n}, {{-1}, std::nullopt, norm, false});
        row(Op::fft_c2c, t, {n}, {{0}, std::nullopt, norm, true});
      }
    }
    row(Op::fft_c2c, t, {3, 10}, {{-1}, std::vector<int64_t>{16}, 0, false});  // pad
    row(Op::fft_c2c, t, {3, 10}, {{1}, std::vector<int64_t>{7}, 0, true});     // truncate
    row(Op::fft_c2c, t, {6, 5}, {{0}, std::nullopt, 1, false}, {}, true);      // strided
    row(Op::fft_c2c, t, {4, 6}, {{0, 1}, std::nullopt, 0, false});             // fft2
    row(Op::fft_c2c, t, {4, 6}, {{-2, -1}, std::vector<int64_t>{5, 8}, 2, true});
    row(Op::fft_c2c, t, {3, 4, 5}, {{0, 2}, std::nullopt, 0, false});  // fftn subset
    row(Op::fft_c2c, t, {3, 4, 5}, {{2, 0, 1}, std::nullopt, 1, true});
    row(Op::fft_c2c, t, {0, 8}, {{-1}, std::nullopt, 0, false});            // empty batch
    row(Op::fft_c2c, t, {0}, {{0}, std::vector<int64_t>{4}, 0, false});     // empty, padded
    row(Op::fft_c2c, t, {8}, {{0}, std::nullopt, 0, false}, {C(kNaN, 0)});  // NaN spreads
    // c2r: half spectra of even and odd outputs, explicit n, several axes.
    for (int64_t m : {1, 2, 5, 9}) {
      if (m > 1) row(Op::fft_c2r, t, {2, m}, {{-1}, std::nullopt, 0, true});
      row(Op::fft_c2r, t, {m}, {{0}, std::vector<int64_t>{2 * m - 1}, 1, true});
    }
    row(Op::fft_c2r, t, {3, 4, 5}, {{1, 2}, std::nullopt, 0, true});
    row(Op::fft_c2r, t, {3, 4, 5}, {{0, 2}, std::vector<int64_t>{5, 7}, 2, true});
    row(Op::fft_c2r, t, {5, 3}, {{0}, std::nullopt, 0, true}, {}, true);
  }
  for (DType t : {DType::Float32, DType::Float64}) {
    for (int64_t n : {1, 2, 5, 8, 9, 17}) {
      row(Op::fft_r2c, t, {n}, {{0}, std::nullopt, 0, false});
      row(Op::fft_c2c, t, {n}, {{0}, std::nullopt, 0, false});  // real input of fft
    }
    row(Op::fft_r2c, t, {3, 10}, {{-1}, std::vector<int64_t>{7}, 1, false});
    row(Op::fft_r2c, t, {4, 6}, {{0, 1}, std::nullopt, 2, false});
    row(Op::fft_r2c, t, {3, 4, 5}, {{2, 0}, std::vector<int64_t>{6, 3}, 0, false});
    row(Op::fft_r2c, t, {7, 4}, {{0}, std::nullopt, 0, false}, {}, true);
    row(Op::fft_r2c, t, {6}, {{0}, std::nullopt, 0, false}, {C(kNaN, 0)});
  }
  // Rejected: the reason must be the documented error.
  auto err = [&](std::string name, Op op, Attrs a, CTensor x, ErrorCode code) {
    CCase c{std::move(name), op, std::move(a), {std::move(x)}, {false}, nullptr, code};
    out.push_back(c);
  };
  err("fft_r2c of complex64", Op::fft_r2c, {{Attr::axes, std::vector<int64_t>{0}}},
      make(DType::Complex64, {4}, 1), ErrorCode::DType);
  err("fft_c2c of int32", Op::fft_c2c, {{Attr::axes, std::vector<int64_t>{0}}},
      make(DType::Int32, {4}, 1), ErrorCode::DType);
  err("fft_c2c of an empty axis without n", Op::fft_c2c, {{Attr::axes, std::vector<int64_t>{0}}},
      make(DType::Complex64, {0}, 1), ErrorCode::Shape);
  err("fft_c2r of length 1 without n", Op::fft_c2r, {{Attr::axes, std::vector<int64_t>{0}}},
      make(DType::Complex64, {1}, 1), ErrorCode::Shape);
  err("fft_c2c repeated axis", Op::fft_c2c, {{Attr::axes, std::vector<int64_t>{0, -2}}},
      make(DType::Complex64, {2, 3}, 1), ErrorCode::Shape);
  err("fft_c2c axis out of range", Op::fft_c2c, {{Attr::axes, std::vector<int64_t>{2}}},
      make(DType::Complex64, {2, 3}, 1), ErrorCode::Shape);
  err("fft_c2c n = 0", Op::fft_c2c,
      {{Attr::axes, std::vector<int64_t>{0}}, {Attr::shape, std::vector<int64_t>{0}}},
      make(DType::Complex64, {4}, 1), ErrorCode::Shape);
  err("fft_c2c bad norm", Op::fft_c2c,
      {{Attr::axes, std::vector<int64_t>{0}}, {Attr::fft_norm, int64_t{3}}},
      make(DType::Complex64, {4}, 1), ErrorCode::InvalidGraph);
  err("imag of float32", Op::imag, {}, make(DType::Float32, {4}, 1), ErrorCode::DType);
  err("real of int32", Op::real, {}, make(DType::Int32, {4}, 1), ErrorCode::DType);
  err("sin of complex64", Op::sin, {}, make(DType::Complex64, {4}, 1), ErrorCode::DType);
  err("max of complex128", Op::max, {}, make(DType::Complex128, {4}, 1), ErrorCode::DType);
  err("cumsum of complex64", Op::cumsum, {{Attr::axis, int64_t{0}}}, make(DType::Complex64, {4}, 1),
      ErrorCode::DType);
  CCase cx{"complex of int32",
           Op::complex,
           {},
           {make(DType::Int32, {2}, 1), make(DType::Float32, {2}, 2)},
           {false, false},
           nullptr,
           ErrorCode::DType};
  out.push_back(cx);
  CCase lt{"lt of complex64",
           Op::lt,
           {},
           {make(DType::Complex64, {2}, 1), make(DType::Complex64, {2}, 2)},
           {false, false},
           nullptr,
           ErrorCode::DType};
  out.push_back(lt);
}

// Consumers of conj views: matmul folds the bit, contiguous materialises it, every other op
// gets a copy from the planner; views of views keep the bit, conj of conj clears it.
void add_conj_views(std::vector<CCase>& out) {
  uint64_t seed = 5000;
  for (DType t : {DType::Complex64, DType::Complex128}) {
    const std::string n(ir::name(t));
    auto row = [&](std::string name, Op op, Attrs attrs, std::vector<CTensor> ins,
                   std::vector<bool> tr, std::vector<bool> cj,
                   std::function<CTensor(const std::vector<CTensor>&)> ref, bool l2 = false) {
      CCase c{std::move(name), op, std::move(attrs), std::move(ins), std::move(tr), std::move(ref)};
      c.conjugated = std::move(cj);
      c.l2_scale = l2;
      out.push_back(c);
    };
    const CTensor a = make(t, {3, 4}, seed++, kSpecials), b = make(t, {4, 5}, seed++);
    const CTensor big_a = make(t, {70, 90}, seed++), big_b = make(t, {90, 66}, seed++);
    auto mm = [](const std::vector<CTensor>& in) {
      const CTensor &A = in[0], &B = in[1];
      const int64_t m = A.shape[0], k = A.shape[1], nn = B.shape[1];
      CTensor y{ref_promote_c(A.dtype, B.dtype), {m, nn}, {}};
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < nn; ++j) {
          C acc(0, 0);
          for (int64_t q = 0; q < k; ++q) acc += A.v[i * k + q] * B.v[q * nn + j];
          y.v.push_back(round_to_dtype(y.dtype, acc));
        }
      }
      return y;
    };
    row("matmul conj(" + n + "(3,4)) " + n + "(4,5)", Op::matmul, {}, {a, b}, {false, false},
        {true, false}, mm, true);
    row("matmul " + n + "(70,90) conj(" + n + "(90,66))[transposed]", Op::matmul, {},
        {big_a, big_b}, {false, true}, {false, true}, mm, true);
    row("matmul conj(" + n + "(70,90))[transposed] conj(" + n + "(90,66))", Op::matmul, {},
        {big_a, big_b}, {true, false}, {true, true}, mm, true);
    const DType other = t == DType::Complex64 ? DType::Complex128 : DType::Complex64;
    row("matmul conj(" + n + "(3,4)) " + std::string(ir::name(other)) + "(4,5)", Op::matmul, {},
        {a, make(other, {4, 5}, seed++)}, {false, false}, {true, false}, mm, true);
    row("add conj(" + n + "(3,4))[transposed] " + n + "(3,4)", Op::add, {},
        {a, make(t, {3, 4}, seed++)}, {true, false}, {true, false},
        [t](const std::vector<CTensor>& in) {
          return elementwise2(in[0], in[1], t, [t](C x, C y) {
            return in_precision(t, x, y, [](auto u, auto v) { return u + v; });
          });
        });
    for (Op op : {Op::real, Op::imag, Op::abs}) {
      row(std::string(ir::name(op)) + " conj(" + n + "(3,4))", op, {}, {a}, {false}, {true},
          [op, t](const std::vector<CTensor>& in) {
            return elementwise1(in[0], component(t), [op](C v) {
              return C(op == Op::real ? v.real() : op == Op::imag ? v.imag() : std::abs(v), 0);
            });
          });
    }
    row("conj conj(" + n + "(3,4))[transposed]", Op::conj, {}, {a}, {true}, {true},
        [](const std::vector<CTensor>& in) {
          CTensor y = in[0];
          for (C& v : y.v) v = std::conj(v);
          return y;
        });
    row("reshape conj(" + n + "(3,4))[transposed]", Op::reshape,
        {{Attr::shape, std::vector<int64_t>{12}}}, {a}, {true}, {true},
        [](const std::vector<CTensor>& in) {
          CTensor y = in[0];
          y.shape = {12};
          return y;
        });
    row("permute conj(" + n + "(3,4))", Op::permute, {{Attr::dims, std::vector<int64_t>{1, 0}}},
        {a}, {false}, {true}, [](const std::vector<CTensor>& in) {
          CTensor y{in[0].dtype, {4, 3}, {}};
          for (int64_t j = 0; j < 4; ++j) {
            for (int64_t i = 0; i < 3; ++i) y.v.push_back(in[0].v[i * 4 + j]);
          }
          return y;
        });
    row(
        "sum conj(" + n + "(3,4))", Op::sum, {{Attr::axes, std::vector<int64_t>{1}}},
        {make(t, {3, 4}, seed++)}, {false}, {true},
        [t](const std::vector<CTensor>& in) {
          CTensor y{t, {3}, {}};
          for (int64_t i = 0; i < 3; ++i) {
            C acc(0, 0);
            for (int64_t j = 0; j < 4; ++j) acc += in[0].v[i * 4 + j];
            y.v.push_back(round_to_dtype(t, acc));
          }
          return y;
        },
        true);
    FftSpec f{{-1}, std::nullopt, 0, false};
    row(
        "fft_c2c conj(" + n + "(3,8))", Op::fft_c2c, fft_attrs(f, true), {make(t, {3, 8}, seed++)},
        {false}, {true},
        [f](const std::vector<CTensor>& in) { return ref_fft(Op::fft_c2c, in[0], f); }, true);
  }
}

std::vector<CCase> complex_cases() {
  std::vector<CCase> out;
  add_elementwise(out);
  add_fft(out);
  add_conj_views(out);
  return out;
}

double l2(const std::vector<CTensor>& in) {
  double s = 0;
  for (const CTensor& t : in) {
    for (const C& v : t.v) {
      if (std::isfinite(v.real()) && std::isfinite(v.imag())) s += std::norm(v);
    }
  }
  return std::sqrt(s);
}

bool is_nan_c(C v) {
  return std::isnan(v.real()) || std::isnan(v.imag());
}

// "" or what is wrong.
std::string run_case(engine::Backend& backend, engine::Engine& engine, const CCase& c) {
  ir::Graph g;
  std::vector<ir::ValueRef> ins;
  std::vector<engine::TensorValue> values;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const CTensor& x = c.inputs[i];
    const bool tr = i < c.transposed.size() && c.transposed[i] && x.shape.size() >= 2;
    // Transposed: the base holds x's transpose (last two axes swapped), and a permute view
    // makes it x again, so the op reads a non-contiguous input.
    CTensor base = x;
    std::vector<int64_t> perm(x.shape.size());
    for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int64_t>(d);
    if (tr) {
      std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
      base.shape = x.shape;
      std::swap(base.shape[base.shape.size() - 1], base.shape[base.shape.size() - 2]);
      for (int64_t k = 0; k < numel(x.shape); ++k) {
        std::vector<int64_t> idx = unravel_c(k, x.shape);
        std::swap(idx[idx.size() - 1], idx[idx.size() - 2]);
        base.v[ravel_c(idx, base.shape)] = x.v[k];
      }
    }
    ir::ValueRef v = g.add_input(static_cast<uint32_t>(i), ir::TensorType{x.dtype, base.shape});
    if (tr) v = g.add(Op::permute, {v}, {{Attr::dims, perm}});
    if (i < c.conjugated.size() && c.conjugated[i]) {
      // The base holds conj(x), so that the conj view reads x.
      for (C& e : base.v) e = std::conj(e);
      v = g.add(Op::conj, {v});
    }
    ins.push_back(v);
    std::vector<std::byte> bytes = encode_c(base);
    auto buf = backend.allocate(bytes.size());
    if (!bytes.empty()) backend.write(*buf, 0, bytes.data(), bytes.size());
    values.push_back(engine::TensorValue::contiguous(buf, ir::TensorType{x.dtype, base.shape}));
  }
  ir::ValueRef out;
  try {
    out = g.add(c.op, ins, c.attrs);
  } catch (const Error& e) {
    if (c.error && e.code() == *c.error) return "";
    return "graph.add threw " + std::string(name(e.code())) + ": " + e.what();
  }
  if (c.error) return "expected a " + std::string(name(*c.error)) + " error, graph.add accepted it";
  const CTensor want = c.ref(c.inputs);
  const ir::TensorType& type = g.type(out);
  if (type.dtype != want.dtype || type.shape != want.shape) {
    return "inferred " + std::string(ir::name(type.dtype)) + ir::to_string(type.shape) +
           ", expected " + std::string(ir::name(want.dtype)) + ir::to_string(want.shape);
  }
  std::vector<engine::TensorValue> result;
  try {
    const ir::ValueRef outs[] = {out};
    result = engine.run(g, values, outs);
  } catch (const Error& e) {
    return "Engine::run threw " + std::string(name(e.code())) + ": " + e.what();
  }
  const engine::TensorValue& r = result.at(0);
  std::vector<std::byte> bytes(r.nbytes());
  if (!bytes.empty()) {
    backend.read(*r.buffer, static_cast<size_t>(r.offset) * ir::itemsize(r.type.dtype),
                 bytes.data(), bytes.size());
  }
  const CVec got = decode_c(r.type.dtype, bytes, numel(r.type.shape));
  const bool single = component(want.dtype) == DType::Float32;
  const double rtol = single ? c.rtol64 : c.rtol128;
  const double scale = c.l2_scale ? l2(c.inputs) : 0;
  const bool exact =
      want.dtype == DType::Bool || want.dtype == DType::Int32 || want.dtype == DType::Int64;
  for (size_t k = 0; k < want.v.size(); ++k) {
    const C w = want.v[k], x = got[k];
    bool ok;
    if (exact) {
      ok = w == x;
    } else if (is_nan_c(w)) {
      ok = is_nan_c(x);
    } else if (!std::isfinite(w.real()) || !std::isfinite(w.imag())) {
      auto part = [](double a, double b) {
        return std::isfinite(b) ? std::isfinite(a) : a == b || (std::isnan(a) && std::isnan(b));
      };
      ok = part(x.real(), w.real()) && part(x.imag(), w.imag());
    } else {
      const double allowed = rtol * (std::abs(w) + scale) + (single ? 1e-6 : 1e-13) * (1 + scale);
      ok = std::abs(x - w) <= allowed;
    }
    if (!ok) {
      char buf[256];
      std::snprintf(buf, sizeof buf, "at flat %zu: got (%.9g, %.9g), expected (%.9g, %.9g)", k,
                    x.real(), x.imag(), w.real(), w.imag());
      return buf;
    }
  }
  return "";
}

}  // namespace

std::vector<ir::Op> complex_table_ops() {
  return {Op::real,    Op::imag,    Op::angle,   Op::conj,
          Op::complex, Op::fft_c2c, Op::fft_r2c, Op::fft_c2r};
}

TEST_CASE("complex dtypes and FFT conform to docs/ops.md on every backend", "[conformance]") {
  const std::vector<CCase> cases = complex_cases();
  const char* filter = std::getenv("TENSORD_CONFORMANCE_FILTER");
  // As the main table: TENSORD_CONFORMANCE_BACKEND picks one backend; of several shards
  // (TENSORD_CONFORMANCE_SHARD=k/n) the first runs this table.
  const char* only = std::getenv("TENSORD_CONFORMANCE_BACKEND");
  const char* shard = std::getenv("TENSORD_CONFORMANCE_SHARD");
  if (shard && *shard && shard[0] != '0') return;
  for (const BackendUnderTest& b : backends_under_test()) {
    if (only && *only && b.name != only) continue;
    std::string why;
    std::unique_ptr<engine::Backend> backend = b.open(why);
    if (!backend) {
      WARN("complex conformance " << b.name << " skipped: " << why);
      continue;
    }
    engine::Engine engine(*backend);
    int ran = 0, failed = 0;
    std::map<Op, int> values;
    for (const CCase& c : cases) {
      if (filter && *filter && c.name.find(filter) == std::string::npos) continue;
      ++ran;
      std::string bad;
      try {
        bad = run_case(*backend, engine, c);
      } catch (const std::exception& e) {
        bad = std::string("exception: ") + e.what();
      }
      if (!bad.empty()) {
        if (++failed <= 40)
          std::cout << "FAIL [" << b.name << "] " << c.name << ": " << bad << "\n";
      } else if (!c.error) {
        ++values[c.op];
      }
    }
    std::cout << "complex conformance " << b.name << ": " << ran << " cases, " << failed
              << " failed" << std::endl;
    CHECK(failed == 0);
    if (!filter || !*filter) {
      for (Op op : complex_table_ops()) {
        INFO("op " << ir::name(op) << " has no passing complex value case on " << b.name);
        CHECK(values[op] > 0);
      }
    }
  }
}

}  // namespace tensord::conformance
