// The neural-network ops of issue 4 (docs/ops.md "Neural-network ops") in float64, written
// from PyTorch's definitions as direct loops: convolutions (a transposed one in scatter form,
// unlike the kernel's gather form), pooling, adaptive pooling, interpolation, and the
// composites (linear, embedding, the norms, attention, dropout, pixel shuffle). Independent of
// engine/ir/nn_geometry.h: attributes are read and checked here again.
//
// This file: convolutions, pooling, adaptive pooling and interpolation, and the entry point; the
// composites and ctc_loss are in reference_nn_composite.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "tests/conformance/reference_nn_internal.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace nn_ref {

void need_float(const RefTensor& t) {
  if (!t.floating()) reject(ErrorCode::DType, "floating-point input required");
}

void need_same(const RefTensor& a, const RefTensor& b) {
  if (a.dtype != b.dtype) reject(ErrorCode::DType, "dtypes differ");
}

void need_rank(const RefTensor& t, size_t lo, size_t hi) {
  if (t.shape.size() < lo || t.shape.size() > hi) reject(ErrorCode::Shape, "rank");
}

int64_t product(const Shape& s, size_t from) {
  int64_t n = 1;
  for (size_t d = from; d < s.size(); ++d) n *= s[d];
  return n;
}

namespace {

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

}  // namespace
}  // namespace nn_ref

using namespace nn_ref;

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
