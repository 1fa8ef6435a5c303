// The neural-network ops of issue 4 (docs/ops.md "Neural-network ops") in float64, written
// from PyTorch's definitions as direct loops: convolutions (a transposed one in scatter form,
// unlike the kernel's gather form), pooling, adaptive pooling, interpolation, and the
// composites (linear, embedding, the norms, attention, dropout, pixel shuffle). Independent of
// engine/ir/nn_geometry.h: attributes are read and checked here again.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void need_float(const RefTensor& t) {
  if (!t.floating()) reject(ErrorCode::DType, "floating-point input required");
}

void need_same(const RefTensor& a, const RefTensor& b) {
  if (a.dtype != b.dtype) reject(ErrorCode::DType, "dtypes differ");
}

void need_rank(const RefTensor& t, size_t lo, size_t hi) {
  if (t.shape.size() < lo || t.shape.size() > hi) reject(ErrorCode::Shape, "rank");
}

std::vector<int64_t> spatial(const ir::Attrs& attrs, Attr a, int nd, int64_t fallback, int64_t lo) {
  std::vector<int64_t> v(static_cast<size_t>(nd), fallback);
  if (attrs.has(a)) {
    const std::vector<int64_t>& list = attrs.get_ints(a);
    if (list.size() != 1 && list.size() != static_cast<size_t>(nd)) {
      reject(ErrorCode::InvalidGraph, "spatial attribute length");
    }
    for (int d = 0; d < nd; ++d) v[d] = list.size() == 1 ? list[0] : list[d];
  }
  for (int64_t x : v) {
    if (x < lo) reject(ErrorCode::InvalidGraph, "spatial attribute range");
  }
  return v;
}

int64_t product(const Shape& s, size_t from = 0) {
  int64_t n = 1;
  for (size_t d = from; d < s.size(); ++d) n *= s[d];
  return n;
}

// ---- convolution ------------------------------------------------------------------------

Expected conv(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  const RefTensor& x = in[0];
  const RefTensor& w = in[1];
  const bool transposed = op == Op::conv_transpose2d;
  const int nd = op == Op::conv1d ? 1 : op == Op::conv3d ? 3 : 2;
  need_rank(x, nd + 2, nd + 2);
  need_rank(w, nd + 2, nd + 2);
  need_float(x);
  need_same(x, w);
  const auto stride = spatial(attrs, Attr::stride, nd, 1, 1);
  const auto pad = spatial(attrs, Attr::padding, nd, 0, 0);
  const auto dil = spatial(attrs, Attr::dilation, nd, 1, 1);
  const auto opad =
      transposed ? spatial(attrs, Attr::output_padding, nd, 0, 0) : std::vector<int64_t>(nd, 0);
  const int64_t groups = attrs.get_int(Attr::groups, 1);
  if (groups < 1) reject(ErrorCode::InvalidGraph, "groups");
  const int64_t n = x.shape[0], cin = x.shape[1];
  int64_t cout;
  if (transposed) {
    if (cin % groups != 0) reject(ErrorCode::Shape, "groups do not divide the channels");
    if (w.shape[0] != cin) reject(ErrorCode::Shape, "channel mismatch");
    cout = w.shape[1] * groups;
  } else {
    if (cin % groups != 0 || w.shape[0] % groups != 0) {
      reject(ErrorCode::Shape, "groups do not divide the channels");
    }
    if (w.shape[1] * groups != cin) reject(ErrorCode::Shape, "channel mismatch");
    cout = w.shape[0];
  }
  if (in.size() > 2) {
    need_same(x, in[2]);
    if (in[2].shape != Shape{cout}) reject(ErrorCode::Shape, "bias shape");
  }
  Shape out_shape{n, cout};
  for (int d = 0; d < nd; ++d) {
    const int64_t size = x.shape[2 + d], k = w.shape[2 + d];
    if (size < 1 || k < 1) reject(ErrorCode::Shape, "empty spatial axis");
    int64_t o;
    if (transposed) {
      if (opad[d] >= stride[d] && opad[d] >= dil[d]) reject(ErrorCode::InvalidGraph, "opad");
      o = (size - 1) * stride[d] - 2 * pad[d] + dil[d] * (k - 1) + opad[d] + 1;
    } else {
      const int64_t span = size + 2 * pad[d] - dil[d] * (k - 1) - 1;
      o = span < 0 ? 0 : span / stride[d] + 1;
    }
    if (o < 1) reject(ErrorCode::Shape, "empty output");
    out_shape.push_back(o);
  }
  const int64_t cin_g = cin / groups, cout_g = cout / groups;
  const Shape xs(x.shape.begin() + 2, x.shape.end()), ks(w.shape.begin() + 2, w.shape.end()),
      os(out_shape.begin() + 2, out_shape.end());
  const int64_t x_sp = product(xs), k_sp = product(ks), o_sp = product(os);
  Expected e{RefTensor(x.dtype, out_shape)};
  std::vector<double> acc(static_cast<size_t>(e.value.numel()), 0.0),
      scale(static_cast<size_t>(e.value.numel()), 0.0);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ci = 0; ci < cin; ++ci) {
      const int64_t g = ci / cin_g;
      for (int64_t p = 0; p < x_sp; ++p) {
        const std::vector<int64_t> ip = unravel(p, xs);
        const double xv = x.f[(b * cin + ci) * x_sp + p];
        for (int64_t kk = 0; kk < k_sp; ++kk) {
          const std::vector<int64_t> kp = unravel(kk, ks);
          for (int64_t col = 0; col < cout_g; ++col) {
            const int64_t co = g * cout_g + col;
            // The output position this (input, kernel) pair feeds, if any.
            std::vector<int64_t> op_(static_cast<size_t>(nd));
            bool hit = true;
            for (int d = 0; d < nd && hit; ++d) {
              if (transposed) {
                op_[d] = ip[d] * stride[d] - pad[d] + kp[d] * dil[d];
                hit = op_[d] >= 0 && op_[d] < os[d];
              } else {
                const int64_t t = ip[d] + pad[d] - kp[d] * dil[d];
                hit = t >= 0 && t % stride[d] == 0 && t / stride[d] < os[d];
                op_[d] = t / stride[d];
              }
            }
            if (!hit) continue;
            const double wv = transposed ? w.f[(ci * cout_g + col) * k_sp + kk]
                                         : w.f[(co * cin_g + (ci - g * cin_g)) * k_sp + kk];
            const int64_t o = (b * cout + co) * o_sp + ravel(op_, os);
            acc[o] += xv * wv;
            if (std::isfinite(xv * wv)) scale[o] = std::max(scale[o], std::fabs(xv * wv));
          }
        }
      }
    }
  }
  for (int64_t o = 0; o < e.value.numel(); ++o) {
    const int64_t co = o / o_sp % std::max<int64_t>(cout, 1);
    if (in.size() > 2) {
      acc[o] += in[2].f[co];
      scale[o] = std::max(scale[o], std::fabs(in[2].f[co]));
    }
    e.value.put(o, Num::of_float(acc[o]));
  }
  e.scale = std::move(scale);
  e.terms = std::max<int64_t>(1, cin_g * k_sp);
  return e;
}

// ---- pooling ------------------------------------------------------------------------------

int64_t pool_out(int64_t size, int64_t k, int64_t p, int64_t s, int64_t d, bool ceil_mode) {
  // PyTorch's pooling_output_shape, with Python's floor division.
  const int64_t num = size + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t q = num / s;
  if (num % s != 0 && num < 0) --q;
  int64_t out = q + 1;
  if (ceil_mode && (out - 1) * s >= size + p) --out;
  return out;
}

Expected pool(Op op, const RefTensor& x, const ir::Attrs& attrs) {
  const bool is_max = op == Op::max_pool1d || op == Op::max_pool2d;
  const int nd = op == Op::max_pool1d || op == Op::avg_pool1d ? 1 : 2;
  const auto k = spatial(attrs, Attr::kernel, nd, 1, 1);
  const auto s = attrs.has(Attr::stride) ? spatial(attrs, Attr::stride, nd, 1, 1) : k;
  const auto p = spatial(attrs, Attr::padding, nd, 0, 0);
  const auto d = is_max ? spatial(attrs, Attr::dilation, nd, 1, 1) : std::vector<int64_t>(nd, 1);
  for (int i = 0; i < nd; ++i) {
    if (2 * p[i] > k[i]) reject(ErrorCode::InvalidGraph, "padding above half the kernel");
  }
  need_rank(x, nd + 1, nd + 2);
  need_float(x);
  const bool ceil_mode = attrs.get_bool(Attr::ceil_mode, false);
  const bool include_pad = attrs.get_bool(Attr::count_include_pad, true);
  Shape out_shape = x.shape;
  const size_t first = x.shape.size() - nd;
  for (int i = 0; i < nd; ++i) {
    const int64_t o = pool_out(x.shape[first + i], k[i], p[i], s[i], d[i], ceil_mode);
    if (x.shape[first + i] < 1 || o < 1) reject(ErrorCode::Shape, "input too small");
    out_shape[first + i] = o;
  }
  // As 2-D with height 1 for 1-D ops.
  const int64_t ih = nd == 2 ? x.shape[first] : 1, iw = x.shape.back();
  const int64_t oh = nd == 2 ? out_shape[first] : 1, ow = out_shape.back();
  const int64_t kh = nd == 2 ? k[0] : 1, kw = k[nd - 1], sh = nd == 2 ? s[0] : 1, sw = s[nd - 1];
  const int64_t ph = nd == 2 ? p[0] : 0, pw = p[nd - 1], dh = nd == 2 ? d[0] : 1, dw = d[nd - 1];
  const int64_t planes = product(Shape(x.shape.begin(), x.shape.begin() + first));
  Expected e{RefTensor(x.dtype, out_shape)};
  e.scale.assign(static_cast<size_t>(e.value.numel()), 0.0);
  e.terms = kh * kw;
  for (int64_t pl = 0; pl < planes; ++pl) {
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        const int64_t o = (pl * oh + oy) * ow + ox;
        double m = -kInf, sum = 0, big = 0;
        bool nan = false;
        int64_t inside = 0;
        for (int64_t i = 0; i < kh; ++i) {
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t yy = oy * sh - ph + i * dh, xx = ox * sw - pw + j * dw;
            if (yy < 0 || yy >= ih || xx < 0 || xx >= iw) continue;
            const double v = x.f[(pl * ih + yy) * iw + xx];
            nan |= std::isnan(v);
            m = std::max(m, v);
            sum += v;
            if (std::isfinite(v)) big = std::max(big, std::fabs(v));
            ++inside;
          }
        }
        double y;
        if (is_max) {
          y = nan ? NAN : m;
        } else {
          // The window clipped to the padded input (count_include_pad) or to the input.
          const int64_t y0 = oy * sh - ph, x0 = ox * sw - pw;
          const int64_t padded =
              (std::min(y0 + kh, ih + ph) - y0) * (std::min(x0 + kw, iw + pw) - x0);
          y = sum / static_cast<double>(include_pad ? padded : inside);
          e.scale[o] = big;
        }
        e.value.put(o, Num::of_float(y));
      }
    }
  }
  return e;
}

Expected adaptive_pool(const RefTensor& x, const ir::Attrs& attrs) {
  need_rank(x, 3, 4);
  need_float(x);
  const std::vector<int64_t>& size = attrs.get_ints(Attr::shape);
  if (size.size() != 2 || size[0] < 1 || size[1] < 1) reject(ErrorCode::InvalidGraph, "size");
  const size_t r = x.shape.size();
  const int64_t ih = x.shape[r - 2], iw = x.shape[r - 1], oh = size[0], ow = size[1];
  if (ih < 1 || iw < 1) reject(ErrorCode::Shape, "empty spatial axis");
  Shape out_shape = x.shape;
  out_shape[r - 2] = oh, out_shape[r - 1] = ow;
  const int64_t planes = product(Shape(x.shape.begin(), x.shape.end() - 2));
  Expected e{RefTensor(x.dtype, out_shape)};
  e.scale.assign(static_cast<size_t>(e.value.numel()), 0.0);
  e.terms = 1;
  for (int64_t pl = 0; pl < planes; ++pl) {
    for (int64_t oy = 0; oy < oh; ++oy) {
      const int64_t y0 = static_cast<int64_t>(std::floor(double(oy * ih) / double(oh)));
      const int64_t y1 = static_cast<int64_t>(std::ceil(double((oy + 1) * ih) / double(oh)));
      for (int64_t ox = 0; ox < ow; ++ox) {
        const int64_t x0 = static_cast<int64_t>(std::floor(double(ox * iw) / double(ow)));
        const int64_t x1 = static_cast<int64_t>(std::ceil(double((ox + 1) * iw) / double(ow)));
        double sum = 0, big = 0;
        for (int64_t yy = y0; yy < y1; ++yy) {
          for (int64_t xx = x0; xx < x1; ++xx) {
            const double v = x.f[(pl * ih + yy) * iw + xx];
            sum += v;
            if (std::isfinite(v)) big = std::max(big, std::fabs(v));
          }
        }
        const int64_t o = (pl * oh + oy) * ow + ox;
        e.value.put(o, Num::of_float(sum / double((y1 - y0) * (x1 - x0))));
        e.scale[o] = big;
        e.terms = std::max(e.terms, (y1 - y0) * (x1 - x0));
      }
    }
  }
  return e;
}

// ---- interpolation ------------------------------------------------------------------------

Expected interpolate(const RefTensor& x, const ir::Attrs& attrs) {
  need_rank(x, 3, 4);
  need_float(x);
  const int64_t mode = attrs.get_int(Attr::mode, 0);
  if (mode != 0 && mode != 1) reject(ErrorCode::InvalidGraph, "mode");
  if (mode == 0 && attrs.has(Attr::align_corners)) reject(ErrorCode::InvalidGraph, "corners");
  const bool corners = attrs.get_bool(Attr::align_corners, false);
  const std::vector<int64_t>& size = attrs.get_ints(Attr::shape);
  const size_t nd = x.shape.size() - 2;
  if (size.size() != nd) reject(ErrorCode::InvalidGraph, "size length");
  Shape out_shape = x.shape;
  for (size_t d = 0; d < nd; ++d) {
    if (size[d] < 1) reject(ErrorCode::InvalidGraph, "size");
    if (x.shape[2 + d] < 1) reject(ErrorCode::Shape, "empty spatial axis");
    out_shape[2 + d] = size[d];
  }
  // Per axis: source taps (i0, i1) and weights; nearest uses PyTorch's float32 scale.
  struct Tap {
    int64_t i0, i1;
    double l0, l1;
  };
  auto taps = [&](int64_t in, int64_t out) {
    std::vector<Tap> t;
    for (int64_t o = 0; o < out; ++o) {
      if (mode == 0) {
        int64_t i;
        if (out == in) {
          i = o;
        } else if (out == 2 * in) {
          i = o / 2;
        } else {
          const float sc = static_cast<float>(in) / static_cast<float>(out);
          i = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * sc)), in - 1);
        }
        t.push_back({i, i, 1.0, 0.0});
        continue;
      }
      double src;
      if (corners) {
        src = out > 1 ? double(o) * double(in - 1) / double(out - 1) : 0.0;
      } else {
        src = std::max((double(o) + 0.5) * double(in) / double(out) - 0.5, 0.0);
      }
      const int64_t i0 = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
      const int64_t i1 = std::min(i0 + 1, in - 1);
      const double l1 = std::min(src - double(i0), 1.0);
      t.push_back({i0, i1, 1.0 - l1, l1});
    }
    return t;
  };
  const int64_t ih = nd == 2 ? x.shape[2] : 1, iw = x.shape.back();
  const int64_t oh = nd == 2 ? out_shape[2] : 1, ow = out_shape.back();
  const std::vector<Tap> ty = taps(ih, oh), tx = taps(iw, ow);
  const int64_t planes = x.shape[0] * x.shape[1];
  Expected e{RefTensor(x.dtype, out_shape)};
  e.scale.assign(static_cast<size_t>(e.value.numel()), 0.0);
  e.terms = 4;
  for (int64_t pl = 0; pl < planes; ++pl) {
    auto at = [&](int64_t yy, int64_t xx) { return x.f[(pl * ih + yy) * iw + xx]; };
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        const Tap& a = ty[oy];
        const Tap& b = tx[ox];
        const int64_t o = (pl * oh + oy) * ow + ox;
        if (mode == 0) {
          e.value.put(o, Num::of_float(at(a.i0, b.i0)));
          continue;
        }
        // Zero weights are skipped so an inf or NaN neighbour with weight 0 does not leak in.
        double v = 0, big = 0;
        for (auto [yy, wy] : {std::pair{a.i0, a.l0}, std::pair{a.i1, a.l1}}) {
          for (auto [xx, wx] : {std::pair{b.i0, b.l0}, std::pair{b.i1, b.l1}}) {
            if (wy * wx == 0) continue;
            v += wy * wx * at(yy, xx);
            if (std::isfinite(at(yy, xx))) big = std::max(big, std::fabs(at(yy, xx)));
          }
        }
        e.value.put(o, Num::of_float(v));
        e.scale[o] = 2 * big;
      }
    }
  }
  return e;
}

// ---- composites ---------------------------------------------------------------------------

Expected linear(std::span<const RefTensor> in) {
  const RefTensor& x = in[0];
  const RefTensor& w = in[1];
  need_float(x);
  need_same(x, w);
  need_rank(x, 1, 16);
  need_rank(w, 2, 2);
  const int64_t k = x.shape.back(), m = w.shape[0];
  if (w.shape[1] != k) reject(ErrorCode::Shape, "features");
  if (in.size() > 2) {
    need_same(x, in[2]);
    if (in[2].shape != Shape{m}) reject(ErrorCode::Shape, "bias");
  }
  Shape out_shape = x.shape;
  out_shape.back() = m;
  const int64_t rows = k == 0 ? product(Shape(x.shape.begin(), x.shape.end() - 1)) : x.numel() / k;
  Expected e{RefTensor(x.dtype, out_shape)};
  e.scale.assign(static_cast<size_t>(e.value.numel()), 0.0);
  e.terms = std::max<int64_t>(1, k);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < m; ++j) {
      double acc = in.size() > 2 ? in[2].f[j] : 0.0, big = std::fabs(acc);
      for (int64_t i = 0; i < k; ++i) {
        const double t = x.f[r * k + i] * w.f[j * k + i];
        acc += t;
        if (std::isfinite(t)) big = std::max(big, std::fabs(t));
      }
      e.value.put(r * m + j, Num::of_float(acc));
      e.scale[r * m + j] = big;
    }
  }
  return e;
}

Expected embedding(std::span<const RefTensor> in) {
  const RefTensor& idx = in[0];
  const RefTensor& w = in[1];
  if (idx.floating() || idx.dtype == DType::Bool) reject(ErrorCode::DType, "indices");
  need_rank(w, 2, 2);
  const int64_t rows = w.shape[0], dim = w.shape[1];
  Shape out_shape = idx.shape;
  out_shape.push_back(dim);
  Expected e{RefTensor(w.dtype, out_shape)};
  for (int64_t k = 0; k < idx.numel(); ++k) {
    int64_t i = idx.i[k];
    if (i < -rows || i >= rows) reject(ErrorCode::Shape, "index out of range", true);
    if (i < 0) i += rows;  // wraps once, as index_select does
    for (int64_t j = 0; j < dim; ++j) e.value.put(k * dim + j, w.at(i * dim + j));
  }
  return e;
}

// Standardizes groups of `n` consecutive elements (group g covers [g n, g n + n)), then applies
// the per-element affine `wb(element index) -> (weight, bias)`. `stats(g)` overrides the group's
// (mean, variance) when given (batch_norm inference).
template <typename Affine, typename Stats>
Expected standardize(const RefTensor& x, int64_t n, double eps, Affine&& wb, Stats&& stats) {
  Expected e{RefTensor(x.dtype, x.shape)};
  e.scale.assign(static_cast<size_t>(x.numel()), 0.0);
  e.terms = std::max<int64_t>(1, n);
  const int64_t groups = n == 0 ? 0 : x.numel() / n;
  for (int64_t g = 0; g < groups; ++g) {
    const double* row = x.f.data() + g * n;
    auto [mean, var] = stats(g, row);
    const double inv = 1 / std::sqrt(var + eps);
    for (int64_t j = 0; j < n; ++j) {
      auto [w, b] = wb(g * n + j);
      const double y = (row[j] - mean) * inv * w + b;
      e.value.put(g * n + j, Num::of_float(y));
      const double s =
          std::fabs(w) * (std::fabs(row[j]) + std::fabs(mean) + std::fabs(row[j] - mean)) * inv +
          std::fabs(b);
      e.scale[g * n + j] = std::isfinite(s) ? s : 0.0;
    }
  }
  return e;
}

std::pair<double, double> moments(const double* row, int64_t n) {
  double mean = 0, var = 0;
  for (int64_t j = 0; j < n; ++j) mean += row[j];
  mean /= double(n);
  for (int64_t j = 0; j < n; ++j) var += (row[j] - mean) * (row[j] - mean);
  return {mean, var / double(n)};
}

double machine_eps(DType t) {
  switch (t) {
    case DType::Float16:
      return 0x1p-10;
    case DType::BFloat16:
      return 0x1p-7;
    case DType::Float64:
      return 0x1p-52;
    default:
      return 0x1p-23;
  }
}

Expected norms(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  const RefTensor& x = in[0];
  need_float(x);
  for (size_t i = 1; i < in.size(); ++i) need_same(x, in[i]);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (op == Op::rms_norm) {
    const int64_t nd = attrs.get_int(Attr::normalized_ndim);
    if (nd < 1 || nd > rank) reject(ErrorCode::Shape, "normalized_ndim");
    const Shape tail(x.shape.end() - nd, x.shape.end());
    if (in.size() > 1 && in[1].shape != tail) reject(ErrorCode::Shape, "weight");
    const int64_t n = product(tail);
    const double eps = attrs.get_float(Attr::eps, machine_eps(x.dtype));
    Expected e{RefTensor(x.dtype, x.shape)};
    e.scale.assign(static_cast<size_t>(x.numel()), 0.0);
    e.terms = std::max<int64_t>(1, n);
    for (int64_t g = 0; n > 0 && g < x.numel() / n; ++g) {
      double ms = 0;
      for (int64_t j = 0; j < n; ++j) ms += x.f[g * n + j] * x.f[g * n + j];
      const double inv = 1 / std::sqrt(ms / double(n) + eps);
      for (int64_t j = 0; j < n; ++j) {
        const double w = in.size() > 1 ? in[1].f[j] : 1.0;
        const double y = x.f[g * n + j] * inv * w;
        e.value.put(g * n + j, Num::of_float(y));
        e.scale[g * n + j] = std::isfinite(y) ? 2 * std::fabs(y) : 0.0;
      }
    }
    return e;
  }
  need_rank(x, op == Op::instance_norm ? 3 : 2, 16);
  const int64_t c = x.shape[1];
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i].shape != Shape{c}) reject(ErrorCode::Shape, "per-channel shape");
  }
  const double eps = attrs.get_float(Attr::eps, 1e-5);
  const int64_t sp = product(x.shape, 2);
  // Affine parameters: batch_norm's inputs 3 and 4, the others' 1 and 2.
  const size_t wi = op == Op::batch_norm ? 3 : 1;
  auto wb = [&](int64_t k) {
    const int64_t ch = k / std::max<int64_t>(sp, 1) % c;
    return std::pair{in.size() > wi ? in[wi].f[ch] : 1.0,
                     in.size() > wi + 1 ? in[wi + 1].f[ch] : 0.0};
  };
  if (op == Op::group_norm) {
    const int64_t groups = attrs.get_int(Attr::groups);
    if (groups < 1 || c % groups != 0) reject(ErrorCode::Shape, "groups");
    const int64_t n = c / groups * sp;
    return standardize(x, n, eps, wb, [&](int64_t, const double* row) { return moments(row, n); });
  }
  if (op == Op::instance_norm) {
    if (sp == 1) reject(ErrorCode::Shape, "one spatial element");
    return standardize(x, sp, eps, wb,
                       [&](int64_t, const double* row) { return moments(row, sp); });
  }
  // batch_norm: groups of one (batch, channel) plane, with that channel's statistics.
  const bool training = attrs.get_bool(Attr::training, false);
  const int64_t batch = x.shape[0];
  if (training && batch * sp == 1) reject(ErrorCode::Shape, "one value per channel");
  std::vector<std::pair<double, double>> stats(static_cast<size_t>(c));
  for (int64_t ch = 0; ch < c; ++ch) {
    if (!training) {
      stats[ch] = {in[1].f[ch], in[2].f[ch]};
      continue;
    }
    std::vector<double> all;
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t j = 0; j < sp; ++j) all.push_back(x.f[(b * c + ch) * sp + j]);
    }
    stats[ch] = all.empty() ? std::pair{0.0, 0.0} : moments(all.data(), int64_t(all.size()));
  }
  Expected e = standardize(x, sp, eps, wb, [&](int64_t g, const double*) { return stats[g % c]; });
  if (training) e.terms = std::max<int64_t>(1, batch * sp);
  return e;
}

Expected attention(std::span<const RefTensor> in, const ir::Attrs& attrs) {
  const RefTensor& q = in[0];
  const RefTensor& k = in[1];
  const RefTensor& v = in[2];
  need_float(q);
  need_same(q, k);
  need_same(q, v);
  need_rank(q, 2, 16);
  need_rank(k, 2, 16);
  need_rank(v, 2, 16);
  const size_t qr = q.shape.size(), kr = k.shape.size(), vr = v.shape.size();
  const int64_t l = q.shape[qr - 2], e_dim = q.shape[qr - 1], s = k.shape[kr - 2],
                ev = v.shape[vr - 1];
  if (k.shape[kr - 1] != e_dim || v.shape[vr - 2] != s) reject(ErrorCode::Shape, "qkv shapes");
  Shape batch = ref_broadcast(ref_broadcast(Shape(q.shape.begin(), q.shape.end() - 2),
                                            Shape(k.shape.begin(), k.shape.end() - 2)),
                              Shape(v.shape.begin(), v.shape.end() - 2));
  const bool causal = attrs.get_bool(Attr::is_causal, false);
  const RefTensor* mask = in.size() > 3 ? &in[3] : nullptr;
  Shape scores_shape = batch;
  scores_shape.push_back(l);
  scores_shape.push_back(s);
  if (mask) {
    if (mask->dtype != DType::Bool && mask->dtype != q.dtype) reject(ErrorCode::DType, "mask");
    if (ref_broadcast(mask->shape, scores_shape) != scores_shape) reject(ErrorCode::Shape, "mask");
    if (causal) reject(ErrorCode::InvalidGraph, "mask and is_causal");
  }
  const double scale = attrs.get_float(Attr::scale, 1.0 / std::sqrt(double(e_dim)));
  Shape out_shape = batch;
  out_shape.push_back(l);
  out_shape.push_back(ev);
  Expected e{RefTensor(q.dtype, out_shape)};
  e.scale.assign(static_cast<size_t>(e.value.numel()), 0.0);
  e.terms = std::max<int64_t>({int64_t{1}, e_dim, s});
  const int64_t nb = product(batch);
  auto bidx = [&](const RefTensor& t, int64_t b, int64_t i, int64_t j) {
    std::vector<int64_t> pos = unravel(b, batch);
    pos.push_back(i);
    pos.push_back(j);
    return broadcast_source(pos, t.shape);
  };
  for (int64_t b = 0; b < nb; ++b) {
    for (int64_t i = 0; i < l; ++i) {
      std::vector<double> sc(static_cast<size_t>(s));
      double m = -kInf, big = 0;
      for (int64_t j = 0; j < s; ++j) {
        double dot = 0;
        for (int64_t t = 0; t < e_dim; ++t) dot += q.f[bidx(q, b, i, t)] * k.f[bidx(k, b, j, t)];
        dot *= scale;
        if (std::isfinite(dot)) big = std::max(big, std::fabs(dot));
        if (mask && mask->dtype == DType::Bool && mask->i[bidx(*mask, b, i, j)] == 0) dot = -kInf;
        if (mask && mask->dtype != DType::Bool) dot += mask->f[bidx(*mask, b, i, j)];
        if (causal && j > i) dot = -kInf;
        sc[j] = dot;
        m = std::max(m, dot);
      }
      double total = 0;
      for (int64_t j = 0; j < s; ++j) total += std::exp(sc[j] - m);  // NaN when m is -inf
      for (int64_t t = 0; t < ev; ++t) {
        double acc = 0, mag = 0;
        for (int64_t j = 0; j < s; ++j) {
          const double p = std::exp(sc[j] - m) / total;
          const double val = v.f[bidx(v, b, j, t)];
          acc += p * val;
          if (std::isfinite(val)) mag = std::max(mag, std::fabs(val));
        }
        const int64_t o = (b * l + i) * ev + t;
        e.value.put(o, Num::of_float(s == 0 ? 0.0 : acc));
        // Scores err by eps * |score|; the probabilities relative to that, times |v|.
        e.scale[o] = mag * (1 + 2 * big);
      }
    }
  }
  return e;
}

Expected pixel_shuffle(Op op, const RefTensor& x, const ir::Attrs& attrs) {
  need_float(x);
  need_rank(x, 3, 16);
  const int64_t r = attrs.get_int(Attr::factor);
  if (r < 1) reject(ErrorCode::InvalidGraph, "factor");
  const size_t rank = x.shape.size();
  const int64_t c = x.shape[rank - 3], h = x.shape[rank - 2], w = x.shape[rank - 1];
  Shape out_shape = x.shape;
  if (op == Op::pixel_shuffle) {
    if (c % (r * r) != 0) reject(ErrorCode::Shape, "channels");
    out_shape[rank - 3] = c / (r * r), out_shape[rank - 2] = h * r, out_shape[rank - 1] = w * r;
  } else {
    if (h % r != 0 || w % r != 0) reject(ErrorCode::Shape, "height/width");
    out_shape[rank - 3] = c * r * r, out_shape[rank - 2] = h / r, out_shape[rank - 1] = w / r;
  }
  Expected e{RefTensor(x.dtype, out_shape)};
  const int64_t oc = out_shape[rank - 3], oh = out_shape[rank - 2], ow = out_shape[rank - 1];
  for (int64_t o = 0; o < e.value.numel(); ++o) {
    const int64_t b = o / (oc * oh * ow), ch = o / (oh * ow) % oc, y = o / ow % oh, xx = o % ow;
    int64_t src;
    if (op == Op::pixel_shuffle) {
      // out[c, y, x] = in[c r^2 + (y % r) r + x % r, y / r, x / r]
      const int64_t ic = ch * r * r + (y % r) * r + xx % r;
      src = ((b * c + ic) * h + y / r) * w + xx / r;
    } else {
      // out[c r^2 + i r + j, y, x] = in[c, y r + i, x r + j]
      const int64_t ic = ch / (r * r), i = ch / r % r, j = ch % r;
      src = ((b * c + ic) * h + y * r + i) * w + xx * r + j;
    }
    e.value.put(o, x.at(src));
  }
  return e;
}

Expected dropout(const RefTensor& x, const ir::Attrs& attrs) {
  need_float(x);
  const double p = attrs.get_float(Attr::p, 0.5);
  if (!(p >= 0 && p <= 1)) reject(ErrorCode::InvalidGraph, "p");
  const bool training = attrs.get_bool(Attr::training, true);
  const int64_t seed = attrs.get_int(Attr::seed, 0);
  Expected e{RefTensor(x.dtype, x.shape)};
  for (int64_t k = 0; k < x.numel(); ++k) {
    double y = x.f[k];
    if (training && p > 0) {
      // rand's float32 stream decides: kept where u < 1 - p (in float32).
      const bool keep = p < 1 && rand_value(DType::Float32, seed, k) <
                                     static_cast<double>(static_cast<float>(1.0 - p));
      y = x.f[k] * (keep ? 1.0 / (1.0 - p) : 0.0);
    }
    e.value.put(k, Num::of_float(y));
  }
  e.scale.assign(static_cast<size_t>(x.numel()), 0.0);
  for (int64_t k = 0; k < x.numel(); ++k) {
    e.scale[k] = std::isfinite(e.value.f[k]) ? std::fabs(e.value.f[k]) : 0.0;
  }
  return e;
}

// ctc_loss by brute force, independent of the kernel's recursion: every alignment path of
// each sample (C^T of them: the table keeps T and C small) is collapsed (repeats merged,
// blanks dropped) and, when it spells the target, its probability exp(sum of log_probs) added.
Expected ctc(std::span<const RefTensor> in, const ir::Attrs& attrs) {
  const RefTensor& lp = in[0];
  need_float(lp);
  need_rank(lp, 3, 3);
  need_rank(in[1], 2, 2);
  for (size_t i = 1; i < 4; ++i) {
    if (in[i].floating() || in[i].dtype == DType::Bool) reject(ErrorCode::DType, "integers");
  }
  const int64_t t_max = lp.shape[0], n = lp.shape[1], c = lp.shape[2], s_max = in[1].shape[1];
  if (in[1].shape[0] != n || in[2].shape != Shape{n} || in[3].shape != Shape{n}) {
    reject(ErrorCode::Shape, "shapes");
  }
  const int64_t blank = attrs.get_int(Attr::blank, 0);
  if (blank < 0 || blank >= c) reject(ErrorCode::InvalidGraph, "blank");
  const int64_t reduction = attrs.get_int(Attr::reduction, 1);
  if (reduction < 0 || reduction > 2) reject(ErrorCode::InvalidGraph, "reduction");
  const bool zero_inf = attrs.get_bool(Attr::zero_infinity, false);
  std::vector<double> losses;
  double big = 0;
  for (int64_t b = 0; b < n; ++b) {
    const int64_t steps = in[2].i[b], len = in[3].i[b];
    if (steps < 0 || steps > t_max || len < 0 || len > s_max) {
      reject(ErrorCode::Shape, "length out of range", true);
    }
    std::vector<int64_t> target;
    for (int64_t s = 0; s < len; ++s) {
      const int64_t k = in[1].i[b * s_max + s];
      if (k < 0 || k >= c) reject(ErrorCode::Shape, "class out of range", true);
      target.push_back(k);
    }
    double p = 0;
    int64_t paths = 1;
    for (int64_t t = 0; t < steps; ++t) paths *= c;
    for (int64_t path = 0; path < paths; ++path) {
      std::vector<int64_t> labels, collapsed;
      for (int64_t t = 0, q = path; t < steps; ++t, q /= c) labels.push_back(q % c);
      double logp = 0;
      for (int64_t t = 0; t < steps; ++t) {
        const int64_t k = labels[t];
        logp += lp.f[(t * n + b) * c + k];
        if (k != blank && (t == 0 || labels[t - 1] != k)) collapsed.push_back(k);
      }
      if (collapsed == target) p += std::exp(logp);
    }
    double loss = -std::log(p);
    if (zero_inf && std::isinf(loss)) loss = 0;
    if (std::isfinite(loss)) big = std::max(big, std::fabs(loss) + double(steps) * 3);
    losses.push_back(reduction == 1 ? loss / double(std::max<int64_t>(1, len)) : loss);
  }
  Expected e{RefTensor(lp.dtype, reduction == 0 ? Shape{n} : Shape{})};
  if (reduction == 0) {
    for (int64_t b = 0; b < n; ++b) e.value.put(b, Num::of_float(losses[b]));
    e.scale.assign(static_cast<size_t>(n), big);
  } else {
    double total = 0;
    for (double v : losses) total += v;
    e.value.put(0, Num::of_float(reduction == 1 ? total / double(n) : total));
    e.scale = {big};
  }
  e.terms = std::max<int64_t>(1, t_max * 2);
  return e;
}

}  // namespace

Expected ref_nn(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  switch (op) {
    case Op::conv1d:
    case Op::conv2d:
    case Op::conv3d:
    case Op::conv_transpose2d:
      return conv(op, in, attrs);
    case Op::max_pool1d:
    case Op::max_pool2d:
    case Op::avg_pool1d:
    case Op::avg_pool2d:
      return pool(op, in[0], attrs);
    case Op::adaptive_avg_pool2d:
      return adaptive_pool(in[0], attrs);
    case Op::interpolate:
      return interpolate(in[0], attrs);
    case Op::linear:
      return linear(in);
    case Op::embedding:
      return embedding(in);
    case Op::rms_norm:
    case Op::batch_norm:
    case Op::group_norm:
    case Op::instance_norm:
      return norms(op, in, attrs);
    case Op::scaled_dot_product_attention:
      return attention(in, attrs);
    case Op::dropout:
      return dropout(in[0], attrs);
    case Op::pixel_shuffle:
    case Op::pixel_unshuffle:
      return pixel_shuffle(op, in[0], attrs);
    case Op::ctc_loss:
      return ctc(in, attrs);
    default:
      break;
  }
  reject(ErrorCode::Internal, "no nn reference");
}

}  // namespace tensord::conformance
