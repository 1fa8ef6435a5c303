// The neural-network ops of issue 4 (docs/ops.md "Neural-network ops") in float64, written
// from PyTorch's definitions as direct loops: convolutions (a transposed one in scatter form,
// unlike the kernel's gather form), interpolation, pooling (reference_pool.cpp), and the
// composites (linear, embedding, the norms, attention, dropout, pixel shuffle). Independent of
// engine/ir/nn_geometry.h: attributes are read and checked here again.
//
// This file: convolutions and interpolation, and the entry point; the
// composites and ctc_loss are in reference_nn_composite.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>

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

namespace {

// ---- convolution ------------------------------------------------------------------------

Expected conv(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  const RefTensor& x = in[0];
  const RefTensor& w = in[1];
  const bool transposed =
      op == Op::conv_transpose1d || op == Op::conv_transpose2d || op == Op::conv_transpose3d;
  const int nd = op == Op::conv1d || op == Op::conv_transpose1d   ? 1
                 : op == Op::conv3d || op == Op::conv_transpose3d ? 3
                                                                  : 2;
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

// ---- interpolation ------------------------------------------------------------------------

// One output coordinate's source coordinates along an axis, with their weights.
using Taps = std::vector<std::pair<int64_t, double>>;

// docs/ops.md's interpolate, axis by axis, in double: PyTorch's coordinates; taps of weight 0
// are left out.
// PyTorch's antialiased weights: input pixel i (centre i + 0.5) weighted by the filter at its
// distance to the output's centre mapped into the input, in input pixels divided by the scale
// when downsampling; the window spans the filter's support (interp_size / 2 pixels of the
// output) by PyTorch's truncations; the weights are divided by their sum.
Taps antialiased_taps(bool cubic, double scale, int64_t o, int64_t in) {
  const double stretch = std::max(scale, 1.0);
  const double support = (cubic ? 2.0 : 1.0) * stretch;
  const double centre = scale * (static_cast<double>(o) + 0.5);
  const auto lo = std::max<int64_t>(static_cast<int64_t>(std::trunc(centre - support + 0.5)), 0);
  const auto hi = std::min<int64_t>(static_cast<int64_t>(std::trunc(centre + support + 0.5)), in);
  auto filter = [&](double d) {
    d = std::fabs(d);
    if (!cubic) return std::max(0.0, 1 - d);
    const double a = -0.5;  // PIL's cubic, which PyTorch's antialiased bicubic follows
    if (d < 1) return (a + 2) * d * d * d - (a + 3) * d * d + 1;
    if (d < 2) return a * d * d * d - 5 * a * d * d + 8 * a * d - 4 * a;
    return 0.0;
  };
  Taps t;
  double total = 0;
  for (int64_t i = lo; i < hi; ++i) total += filter((double(i) + 0.5 - centre) / stretch);
  for (int64_t i = lo; i < hi; ++i) {
    const double w = filter((double(i) + 0.5 - centre) / stretch);
    if (w != 0) t.push_back({i, total != 0 ? w / total : w});
  }
  return t;
}

Taps interpolate_taps(int64_t mode, bool corners, std::optional<double> factor, int64_t o,
                      int64_t in, int64_t out, bool antialias) {
  Taps t;
  const double od = static_cast<double>(o);
  auto nearest_scale = [&] {
    return factor ? static_cast<float>(1.0 / *factor)
                  : static_cast<float>(in) / static_cast<float>(out);
  };
  if (mode == 0) {             // nearest
    int64_t i = o * in / out;  // out == in: o; out == 2 in: o / 2
    if (out != in && out != 2 * in) {
      i = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * nearest_scale())),
                   in - 1);
    }
    return {{i, 1.0}};
  }
  if (mode == 4) {  // nearest-exact
    const auto src = static_cast<float>((od + 0.5) * static_cast<double>(nearest_scale()));
    return {{std::min(static_cast<int64_t>(std::floor(src)), in - 1), 1.0}};
  }
  if (mode == 3) {  // area
    const int64_t s = static_cast<int64_t>(std::floor(od * double(in) / double(out)));
    const int64_t e = static_cast<int64_t>(std::ceil((od + 1) * double(in) / double(out)));
    for (int64_t i = s; i < e; ++i) t.push_back({i, 1.0 / double(e - s)});
    return t;
  }
  double scale;
  if (corners) {
    scale = out > 1 ? double(in - 1) / double(out - 1) : 0.0;
  } else {
    scale = factor ? 1.0 / *factor : double(in) / double(out);
  }
  if (antialias) return antialiased_taps(mode == 2, scale, o, in);
  if (mode == 1) {  // linear
    const double src = corners ? scale * od : std::max(scale * (od + 0.5) - 0.5, 0.0);
    const int64_t i0 = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
    const double l1 = std::min(src - double(i0), 1.0);
    if (l1 != 1.0) t.push_back({i0, 1.0 - l1});
    if (l1 != 0.0) t.push_back({std::min(i0 + 1, in - 1), l1});
    return t;
  }
  // bicubic: Keys' kernel with A = -0.75 at the distances to the four nearest samples
  const double src = corners ? scale * od : scale * (od + 0.5) - 0.5;
  const double f = std::floor(src);
  for (int k = -1; k <= 2; ++k) {
    const double dist = std::fabs(src - (f + k)), a = -0.75;
    const double w = dist <= 1
                         ? (a + 2) * dist * dist * dist - (a + 3) * dist * dist + 1
                         : a * dist * dist * dist - 5 * a * dist * dist + 8 * a * dist - 4 * a;
    if (w != 0) t.push_back({std::clamp<int64_t>(static_cast<int64_t>(f) + k, 0, in - 1), w});
  }
  return t;
}

Expected interpolate(const RefTensor& x, const ir::Attrs& attrs) {
  const int64_t mode = attrs.get_int(Attr::mode, 0);
  if (mode < 0 || mode > 4) reject(ErrorCode::InvalidGraph, "mode");
  if (mode == 2) {
    need_rank(x, 4, 4);
  } else {
    need_rank(x, 3, 5);
  }
  need_float(x);
  const bool sampled = mode == 1 || mode == 2;
  if (!sampled && attrs.has(Attr::align_corners)) reject(ErrorCode::InvalidGraph, "corners");
  const bool corners = attrs.get_bool(Attr::align_corners, false);
  const bool antialias = attrs.get_bool(Attr::antialias, false);
  if (antialias && (!sampled || x.shape.size() != 4)) reject(ErrorCode::InvalidGraph, "antialias");
  const std::vector<int64_t>& size = attrs.get_ints(Attr::shape);
  const size_t nd = x.shape.size() - 2;
  if (size.size() != nd) reject(ErrorCode::InvalidGraph, "size length");
  std::vector<double> factors;
  if (attrs.has(Attr::scales)) {
    if (mode == 3 || corners) reject(ErrorCode::InvalidGraph, "scales with area or corners");
    factors = attrs.get_floats(Attr::scales);
    if (factors.size() != nd) reject(ErrorCode::InvalidGraph, "scales length");
    for (double f : factors) {
      if (!(f > 0) || !std::isfinite(f)) reject(ErrorCode::InvalidGraph, "scale");
    }
  }
  Shape out_shape = x.shape;
  for (size_t d = 0; d < nd; ++d) {
    if (size[d] < 1) reject(ErrorCode::InvalidGraph, "size");
    if (x.shape[2 + d] < 1) reject(ErrorCode::Shape, "empty spatial axis");
    out_shape[2 + d] = size[d];
  }
  // Spatial axes padded to three by leading size-1 axes.
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  std::vector<Taps> taps[3];
  for (int a = 0; a < 3; ++a) {
    const int d = a - (3 - static_cast<int>(nd));
    if (d < 0) {
      taps[a] = {{{0, 1.0}}};
      continue;
    }
    in[a] = x.shape[2 + d], out[a] = out_shape[2 + d];
    std::optional<double> factor;
    if (!factors.empty()) factor = factors[d];
    for (int64_t o = 0; o < out[a]; ++o) {
      taps[a].push_back(interpolate_taps(mode, corners, factor, o, in[a], out[a], antialias));
    }
  }
  const int64_t planes = x.shape[0] * x.shape[1];
  Expected e{RefTensor(x.dtype, out_shape)};
  e.scale.assign(static_cast<size_t>(e.value.numel()), 0.0);
  e.terms = 1;
  int64_t o = 0;
  for (int64_t pl = 0; pl < planes; ++pl) {
    for (int64_t z = 0; z < out[0]; ++z) {
      for (int64_t yv = 0; yv < out[1]; ++yv) {
        for (int64_t xv = 0; xv < out[2]; ++xv, ++o) {
          double v = 0, big = 0, weights = 0;
          int64_t terms = 0;
          for (auto [iz, wz] : taps[0][z]) {
            for (auto [iy, wy] : taps[1][yv]) {
              for (auto [ix, wx] : taps[2][xv]) {
                const double s = x.f[((pl * in[0] + iz) * in[1] + iy) * in[2] + ix];
                v += wz * wy * wx * s;
                weights += std::fabs(wz * wy * wx);
                if (std::isfinite(s)) big = std::max(big, std::fabs(s));
                ++terms;
              }
            }
          }
          e.value.put(o, Num::of_float(v));
          e.scale[o] = 2 * big * std::max(weights, 1.0);
          e.terms = std::max(e.terms, terms);
        }
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
    case Op::conv_transpose1d:
    case Op::conv_transpose2d:
    case Op::conv_transpose3d:
      return conv(op, in, attrs);
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
