// Pooling in float64 (docs/ops.md "Neural-network ops"), written from PyTorch's definitions as
// direct loops over every tap of every window: max (with PyTorch's indices) and average window
// pools, adaptive max and average pools over 1 to 3 spatial axes, and max_unpool. Attributes
// are read and checked here again, independently of engine/ir/nn_geometry.h.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/conformance/reference_nn_internal.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace nn_ref {
namespace {

struct PoolOp {
  int nd = 1;
  bool max = false, adaptive = false;
};

PoolOp pool_op(Op op) {
  switch (op) {
    case Op::max_pool1d:
      return {1, true, false};
    case Op::max_pool2d:
      return {2, true, false};
    case Op::max_pool3d:
      return {3, true, false};
    case Op::avg_pool1d:
      return {1, false, false};
    case Op::avg_pool2d:
      return {2, false, false};
    case Op::avg_pool3d:
      return {3, false, false};
    case Op::adaptive_max_pool1d:
      return {1, true, true};
    case Op::adaptive_max_pool2d:
      return {2, true, true};
    case Op::adaptive_max_pool3d:
      return {3, true, true};
    case Op::adaptive_avg_pool1d:
      return {1, false, true};
    case Op::adaptive_avg_pool2d:
      return {2, false, true};
    case Op::adaptive_avg_pool3d:
      return {3, false, true};
    default:
      reject(ErrorCode::Internal, "not a pool");
  }
}

int64_t pool_out(int64_t size, int64_t k, int64_t p, int64_t s, int64_t d, bool ceil_mode) {
  // PyTorch's pooling_output_shape, with Python's floor division.
  const int64_t num = size + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t q = num / s;
  if (num % s != 0 && num < 0) --q;
  int64_t out = q + 1;
  if (ceil_mode && (out - 1) * s >= size + p) --out;
  return out;
}

// One axis of one output position: the input coordinates its window reads (inside the input,
// in order) and its factor of an average's divisor.
struct AxisWindow {
  std::vector<int64_t> taps;
  int64_t divisor = 1;
};

// Rejects what docs/ops.md rejects; returns the output's spatial sizes.
std::vector<int64_t> output_sizes(const PoolOp& p, const RefTensor& x, const ir::Attrs& attrs,
                                  std::vector<int64_t>& k, std::vector<int64_t>& s,
                                  std::vector<int64_t>& pad, std::vector<int64_t>& dil) {
  const size_t first = x.shape.size() - static_cast<size_t>(p.nd);
  std::vector<int64_t> out(static_cast<size_t>(p.nd));
  if (p.adaptive) {
    const std::vector<int64_t>& size = attrs.get_ints(Attr::shape);
    if (size.size() != static_cast<size_t>(p.nd)) reject(ErrorCode::InvalidGraph, "sizes");
    for (int64_t v : size) {
      if (v < 1) reject(ErrorCode::InvalidGraph, "output size below 1");
    }
    need_rank(x, p.nd + 1, p.nd + 2);
    need_float(x);
    for (int d = 0; d < p.nd; ++d) {
      if (x.shape[first + d] < 1) reject(ErrorCode::Shape, "empty spatial axis");
    }
    return size;
  }
  k = spatial(attrs, Attr::kernel, p.nd, 1, 1);
  s = attrs.has(Attr::stride) ? spatial(attrs, Attr::stride, p.nd, 1, 1) : k;
  pad = spatial(attrs, Attr::padding, p.nd, 0, 0);
  dil = p.max ? spatial(attrs, Attr::dilation, p.nd, 1, 1) : std::vector<int64_t>(p.nd, 1);
  for (int d = 0; d < p.nd; ++d) {
    if (2 * pad[d] > k[d]) reject(ErrorCode::InvalidGraph, "padding above half the kernel");
  }
  need_rank(x, p.nd + 1, p.nd + 2);
  need_float(x);
  const bool ceil_mode = attrs.get_bool(Attr::ceil_mode, false);
  for (int d = 0; d < p.nd; ++d) {
    out[d] = pool_out(x.shape[first + d], k[d], pad[d], s[d], dil[d], ceil_mode);
    if (x.shape[first + d] < 1 || out[d] < 1) reject(ErrorCode::Shape, "input too small");
  }
  return out;
}

Expected max_unpool(const RefTensor& x, const RefTensor& idx, const ir::Attrs& attrs) {
  const std::vector<int64_t>& size = attrs.get_ints(Attr::shape);
  const auto nd = static_cast<int>(size.size());
  if (nd < 1 || nd > 3) reject(ErrorCode::InvalidGraph, "1 to 3 output sizes");
  for (int64_t v : size) {
    if (v < 1) reject(ErrorCode::InvalidGraph, "output size below 1");
  }
  need_rank(x, nd + 1, nd + 2);
  need_float(x);
  if (idx.floating() || idx.dtype == DType::Bool) reject(ErrorCode::DType, "integer indices");
  if (idx.shape != x.shape) reject(ErrorCode::Shape, "indices of the input's shape");
  const size_t first = x.shape.size() - static_cast<size_t>(nd);
  Shape out_shape = x.shape;
  int64_t volume = 1, out_volume = 1;
  for (int d = 0; d < nd; ++d) {
    volume *= x.shape[first + d];
    out_volume *= size[d];
    out_shape[first + d] = size[d];
  }
  Expected e{RefTensor(x.dtype, out_shape)};
  const int64_t planes = product(Shape(x.shape.begin(), x.shape.begin() + first));
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t i = 0; i < volume; ++i) {  // row-major: a repeated index keeps the last value
      int64_t at = idx.i[p * volume + i];
      if (at < 0) at += out_volume;  // wraps once, as scatter
      if (at < 0 || at >= out_volume) reject(ErrorCode::Shape, "index out of range", true);
      e.value.put(p * out_volume + at, Num::of_float(x.f[p * volume + i]));
    }
  }
  return e;
}

}  // namespace

Expected pool(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs, uint32_t output) {
  if (op == Op::max_unpool) return max_unpool(in[0], in[1], attrs);
  const PoolOp p = pool_op(op);
  const RefTensor& x = in[0];
  std::vector<int64_t> k, s, pad, dil;
  const std::vector<int64_t> out = output_sizes(p, x, attrs, k, s, pad, dil);
  const bool include_pad = attrs.get_bool(Attr::count_include_pad, true);
  const int64_t divisor = attrs.get_int(Attr::divisor, 0);  // PyTorch's divisor_override
  if (attrs.has(Attr::divisor) && divisor == 0) reject(ErrorCode::InvalidGraph, "divisor 0");
  const size_t first = x.shape.size() - static_cast<size_t>(p.nd);
  const std::vector<int64_t> in_size(x.shape.begin() + first, x.shape.end());

  // Every axis's windows, padded to three axes by leading axes of size 1.
  std::vector<std::vector<AxisWindow>> axes(3, std::vector<AxisWindow>(1, AxisWindow{{0}, 1}));
  int64_t in3[3] = {1, 1, 1}, out3[3] = {1, 1, 1};
  for (int d = 0; d < p.nd; ++d) {
    const int e = 3 - p.nd + d;
    in3[e] = in_size[d], out3[e] = out[d];
    axes[e].assign(static_cast<size_t>(out[d]), AxisWindow{});
    for (int64_t o = 0; o < out[d]; ++o) {
      AxisWindow& w = axes[e][o];
      if (p.adaptive) {
        const auto lo = static_cast<int64_t>(std::floor(double(o * in_size[d]) / double(out[d])));
        const auto hi =
            static_cast<int64_t>(std::ceil(double((o + 1) * in_size[d]) / double(out[d])));
        for (int64_t i = lo; i < hi; ++i) w.taps.push_back(i);
        w.divisor = hi - lo;
        continue;
      }
      const int64_t start = o * s[d] - pad[d];
      for (int64_t j = 0; j < k[d]; ++j) {
        const int64_t i = start + j * dil[d];
        if (i >= 0 && i < in_size[d]) w.taps.push_back(i);
      }
      w.divisor = include_pad ? std::min(start + k[d], in_size[d] + pad[d]) - start
                              : static_cast<int64_t>(w.taps.size());
    }
  }

  Shape out_shape = x.shape;
  for (int d = 0; d < p.nd; ++d) out_shape[first + d] = out[d];
  if (output == 1) {
    if (!p.max || !attrs.get_bool(Attr::return_indices, false)) {
      throw std::logic_error("table bug: " + std::string(ir::name(op)) + " has one output");
    }
  }
  Expected e{RefTensor(output == 1 ? DType::Int64 : x.dtype, out_shape)};
  e.scale.assign(static_cast<size_t>(e.value.numel()), 0.0);
  e.terms = 1;
  const int64_t planes = product(Shape(x.shape.begin(), x.shape.begin() + first));
  const int64_t in_volume = in3[0] * in3[1] * in3[2];
  int64_t o = 0;
  for (int64_t pl = 0; pl < planes; ++pl) {
    for (int64_t o0 = 0; o0 < out3[0]; ++o0) {
      for (int64_t o1 = 0; o1 < out3[1]; ++o1) {
        for (int64_t o2 = 0; o2 < out3[2]; ++o2, ++o) {
          const AxisWindow &w0 = axes[0][o0], &w1 = axes[1][o1], &w2 = axes[2][o2];
          // Max: PyTorch's scan `v > m or isnan(v)` (the first maximum, the last NaN), the index
          // starting at the window's first tap; no tap: -inf at -1.
          double m = -kInf, sum = 0, big = 0;
          int64_t at = -1;
          for (int64_t i0 : w0.taps) {
            for (int64_t i1 : w1.taps) {
              for (int64_t i2 : w2.taps) {
                const int64_t pos = (i0 * in3[1] + i1) * in3[2] + i2;
                const double v = x.f[pl * in_volume + pos];
                const bool take = v > m || std::isnan(v);
                if (take || at < 0) at = pos;
                if (take) m = v;
                sum += v;
                if (std::isfinite(v)) big = std::max(big, std::fabs(v));
              }
            }
          }
          if (output == 1) {
            e.value.put(o, Num::of_int(at));
          } else if (p.max) {
            e.value.put(o, Num::of_float(m));
          } else {
            const int64_t count = divisor != 0 ? divisor : w0.divisor * w1.divisor * w2.divisor;
            e.value.put(o, Num::of_float(sum / double(count)));
            e.scale[o] = big;
            e.terms = std::max<int64_t>(
                e.terms, static_cast<int64_t>(w0.taps.size() * w1.taps.size() * w2.taps.size()));
          }
        }
      }
    }
  }
  return e;
}

}  // namespace nn_ref

Expected ref_pool(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs, uint32_t output) {
  return nn_ref::pool(op, in, attrs, output);
}

}  // namespace tensord::conformance
