// Neural-network kernels of issue 4 (docs/ops.md "Neural-network ops"): max/avg pooling,
// adaptive average pooling, interpolate (kernels_interpolate.cpp), and the direct-loop
// convolution that float64 (which oneDNN does not run) and any problem oneDNN refuses take.
// Inputs are converted to a contiguous float64 copy for float64 outputs and a float32 one
// otherwise; sums run in double; the result is rounded once into the output's dtype.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/kernels_interpolate.h"
#include "engine/backends/cpu/parallel.h"
#include "engine/ir/nn_geometry.h"

namespace tensord::cpu {
namespace {

using ir::Attr;
using ir::Op;

ir::DType work_dtype(ir::DType out) {
  return out == ir::DType::Float64 ? ir::DType::Float64 : ir::DType::Float32;
}

// `v` as a contiguous tensor of dtype `t` (itself when it already is one).
TensorValue dense(const KernelContext& ctx, const TensorValue& v, ir::DType t) {
  return make_contiguous(ctx, cast_to(ctx, v, t));
}

// Runs `fn(x, y)` with x the contiguous input in the work dtype and y a contiguous buffer of
// the output's shape in that dtype, then stores y into `out`.
template <typename Fn>
void with_work(const KernelContext& ctx, const TensorValue& in, const TensorValue& out, Fn&& fn) {
  const ir::DType w = work_dtype(out.type.dtype);
  TensorValue x = dense(ctx, in, w);
  TensorValue y =
      out.type.dtype == w ? out : allocate_value(ctx.scratch, ir::TensorType{w, out.type.shape});
  if (w == ir::DType::Float64) {
    fn(x.data<double>(), y.data<double>());
  } else {
    fn(x.data<float>(), y.data<float>());
  }
  if (out.type.dtype != w) cast_into(ctx, operand_of(y), operand_of(out));
}

// Planes (all leading axes), then up to two spatial axes; 1-D ops see height 1.
struct Planes {
  int64_t planes = 1, ih = 1, iw = 1, oh = 1, ow = 1;
};

Planes planes_of(const ir::Shape& in, const ir::Shape& out, int nd) {
  Planes p;
  const size_t first = in.size() - static_cast<size_t>(nd);
  for (size_t d = 0; d < first; ++d) p.planes *= in[d];
  if (nd == 2) {
    p.ih = in[first], p.oh = out[first];
  }
  p.iw = in.back(), p.ow = out.back();
  return p;
}

template <typename T>
void pool(const KernelContext& ctx, Op op, const ir::PoolGeometry& g, const Planes& p, const T* x,
          T* y) {
  // Spatial parameters as (height, width); a 1-D op has the identity window in height.
  const int h = g.nd == 2 ? 0 : -1, w = g.nd - 1;
  auto at = [](const ir::Spatial& s, int d, int64_t identity) { return d < 0 ? identity : s[d]; };
  const int64_t kh = at(g.kernel, h, 1), kw = at(g.kernel, w, 1);
  const int64_t sh = at(g.stride, h, 1), sw = at(g.stride, w, 1);
  const int64_t ph = at(g.padding, h, 0), pw = at(g.padding, w, 0);
  const int64_t dh = at(g.dilation, h, 1), dw = at(g.dilation, w, 1);
  const bool is_max = op == Op::max_pool1d || op == Op::max_pool2d;
  const int64_t per_plane = p.oh * p.ow;
  parallel_for(p.planes * per_plane, 4096, ctx.threads, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      const int64_t plane = k / per_plane, oy = k % per_plane / p.ow, ox = k % p.ow;
      const T* src = x + plane * p.ih * p.iw;
      const int64_t y0 = oy * sh - ph, x0 = ox * sw - pw;
      if (is_max) {
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t i = 0; i < kh; ++i) {
          const int64_t yy = y0 + i * dh;
          if (yy < 0 || yy >= p.ih) continue;
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t xx = x0 + j * dw;
            if (xx < 0 || xx >= p.iw) continue;
            const double v = src[yy * p.iw + xx];
            if (v > m || std::isnan(v)) m = v;
            if (std::isnan(m)) break;
          }
        }
        y[k] = static_cast<T>(m);
      } else {
        // PyTorch's divisor: the window clipped to the padded input, or to the input alone.
        int64_t ye = std::min(y0 + kh, p.ih + ph), xe = std::min(x0 + kw, p.iw + pw);
        const int64_t padded = (ye - y0) * (xe - x0);
        const int64_t ys = std::max<int64_t>(y0, 0), xs = std::max<int64_t>(x0, 0);
        ye = std::min(ye, p.ih), xe = std::min(xe, p.iw);
        double sum = 0;
        for (int64_t yy = ys; yy < ye; ++yy) {
          for (int64_t xx = xs; xx < xe; ++xx) sum += src[yy * p.iw + xx];
        }
        const int64_t inside = std::max<int64_t>(0, ye - ys) * std::max<int64_t>(0, xe - xs);
        y[k] = static_cast<T>(sum / static_cast<double>(g.count_include_pad ? padded : inside));
      }
    }
  });
}

template <typename T>
void adaptive_avg(const KernelContext& ctx, const Planes& p, const T* x, T* y) {
  const int64_t per_plane = p.oh * p.ow;
  parallel_for(p.planes * per_plane, 4096, ctx.threads, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      const int64_t plane = k / per_plane, oy = k % per_plane / p.ow, ox = k % p.ow;
      const T* src = x + plane * p.ih * p.iw;
      // start = floor(o * in / out), end = ceil((o + 1) * in / out)
      const int64_t ys = oy * p.ih / p.oh, ye = ((oy + 1) * p.ih + p.oh - 1) / p.oh;
      const int64_t xs = ox * p.iw / p.ow, xe = ((ox + 1) * p.iw + p.ow - 1) / p.ow;
      double sum = 0;
      for (int64_t yy = ys; yy < ye; ++yy) {
        for (int64_t xx = xs; xx < xe; ++xx) sum += src[yy * p.iw + xx];
      }
      y[k] = static_cast<T>(sum / static_cast<double>((ye - ys) * (xe - xs)));
    }
  });
}

}  // namespace

// The direct convolution (conv_dnnl.cpp's fallback and float64's path): gather form, one output
// element at a time, sums in double.
template <typename T>
void conv_direct(const KernelContext& ctx, Op op, const ir::ConvGeometry& g, const ir::Shape& xs,
                 const ir::Shape& ws, const ir::Shape& ys, const T* x, const T* w, const T* bias,
                 T* y) {
  const bool transposed = ir::is_conv_transpose(op);
  // Pad every shape to 3 spatial axes (leading size-1 axes).
  const int nd = g.nd;
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, o[3] = {1, 1, 1};
  int64_t s[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dil[3] = {1, 1, 1};
  for (int d = 0; d < nd; ++d) {
    const int e = 3 - nd + d;
    in[e] = xs[2 + d], k[e] = ws[2 + d], o[e] = ys[2 + d];
    s[e] = g.stride[d], pad[e] = g.padding[d], dil[e] = g.dilation[d];
  }
  const int64_t n = xs[0], cin = xs[1], cout = ys[1], groups = g.groups;
  const int64_t cin_g = cin / groups, cout_g = cout / groups;
  const int64_t in_sp = in[0] * in[1] * in[2], out_sp = o[0] * o[1] * o[2];
  const int64_t k_sp = k[0] * k[1] * k[2];
  parallel_for(n * cout * out_sp, 1024, ctx.threads, [&](int64_t begin, int64_t end) {
    for (int64_t idx = begin; idx < end; ++idx) {
      const int64_t b = idx / (cout * out_sp), co = idx / out_sp % cout, pos = idx % out_sp;
      const int64_t op0 = pos / (o[1] * o[2]), op1 = pos / o[2] % o[1], op2 = pos % o[2];
      const int64_t grp = co / cout_g, col = co % cout_g;
      double acc = bias ? static_cast<double>(bias[co]) : 0.0;
      for (int64_t ci = 0; ci < cin_g; ++ci) {
        const int64_t c = grp * cin_g + ci;
        const T* xc = x + (b * cin + c) * in_sp;
        // weight element (kernel offset kk) for this (output channel, input channel)
        const T* wc = transposed ? w + (c * cout_g + col) * k_sp : w + (co * cin_g + ci) * k_sp;
        for (int64_t k0 = 0; k0 < k[0]; ++k0) {
          int64_t i0;
          if (transposed) {
            const int64_t t = op0 + pad[0] - k0 * dil[0];
            if (t < 0 || t % s[0] != 0 || (i0 = t / s[0]) >= in[0]) continue;
          } else {
            i0 = op0 * s[0] - pad[0] + k0 * dil[0];
            if (i0 < 0 || i0 >= in[0]) continue;
          }
          for (int64_t k1 = 0; k1 < k[1]; ++k1) {
            int64_t i1;
            if (transposed) {
              const int64_t t = op1 + pad[1] - k1 * dil[1];
              if (t < 0 || t % s[1] != 0 || (i1 = t / s[1]) >= in[1]) continue;
            } else {
              i1 = op1 * s[1] - pad[1] + k1 * dil[1];
              if (i1 < 0 || i1 >= in[1]) continue;
            }
            for (int64_t k2 = 0; k2 < k[2]; ++k2) {
              int64_t i2;
              if (transposed) {
                const int64_t t = op2 + pad[2] - k2 * dil[2];
                if (t < 0 || t % s[2] != 0 || (i2 = t / s[2]) >= in[2]) continue;
              } else {
                i2 = op2 * s[2] - pad[2] + k2 * dil[2];
                if (i2 < 0 || i2 >= in[2]) continue;
              }
              acc += static_cast<double>(xc[(i0 * in[1] + i1) * in[2] + i2]) *
                     static_cast<double>(wc[(k0 * k[1] + k1) * k[2] + k2]);
            }
          }
        }
      }
      y[idx] = static_cast<T>(acc);
    }
  });
}

void run_conv_direct(const KernelContext& ctx, const ir::Node& node,
                     std::span<const TensorValue> inputs, const TensorValue& out) {
  const ir::ConvGeometry g = ir::conv_geometry(node.op, node.attrs, ir::spatial_rank(node.op));
  const ir::DType w = work_dtype(out.type.dtype);
  TensorValue x = dense(ctx, inputs[0], w), wt = dense(ctx, inputs[1], w);
  TensorValue bias;
  if (inputs.size() > 2) bias = dense(ctx, inputs[2], w);
  TensorValue y =
      out.type.dtype == w ? out : allocate_value(ctx.scratch, ir::TensorType{w, out.type.shape});
  if (w == ir::DType::Float64) {
    conv_direct<double>(ctx, node.op, g, x.type.shape, wt.type.shape, out.type.shape,
                        x.data<double>(), wt.data<double>(),
                        bias.buffer ? bias.data<double>() : nullptr, y.data<double>());
  } else {
    conv_direct<float>(ctx, node.op, g, x.type.shape, wt.type.shape, out.type.shape,
                       x.data<float>(), wt.data<float>(),
                       bias.buffer ? bias.data<float>() : nullptr, y.data<float>());
  }
  if (out.type.dtype != w) cast_into(ctx, operand_of(y), operand_of(out));
}

bool is_nn(Op op) {
  switch (op) {
    case Op::conv1d:
    case Op::conv2d:
    case Op::conv3d:
    case Op::conv_transpose1d:
    case Op::conv_transpose2d:
    case Op::conv_transpose3d:
    case Op::max_pool1d:
    case Op::max_pool2d:
    case Op::avg_pool1d:
    case Op::avg_pool2d:
    case Op::adaptive_avg_pool2d:
    case Op::interpolate:
    case Op::ctc_loss:
      return true;
    default:
      return false;
  }
}

void run_nn(const KernelContext& ctx, const ir::Node& node, std::span<const TensorValue> inputs,
            const TensorValue& out) {
  const Op op = node.op;
  if (op == Op::ctc_loss) return run_ctc_loss(ctx, node, inputs, out);
  const size_t want_min = ir::is_conv(op) ? 2 : 1;
  if (inputs.size() < want_min || inputs.size() > (want_min == 2 ? 3u : 1u)) {
    throw Error(ErrorCode::Internal,
                std::string(ir::name(op)) + " got " + std::to_string(inputs.size()) + " inputs");
  }
  if (out.type.numel() == 0) return;
  switch (op) {
    case Op::conv1d:
    case Op::conv2d:
    case Op::conv3d:
    case Op::conv_transpose1d:
    case Op::conv_transpose2d:
    case Op::conv_transpose3d:
      return run_conv(ctx, node, inputs, out);
    case Op::max_pool1d:
    case Op::max_pool2d:
    case Op::avg_pool1d:
    case Op::avg_pool2d: {
      const ir::PoolGeometry g = ir::pool_geometry(op, node.attrs);
      const Planes p = planes_of(inputs[0].type.shape, out.type.shape, g.nd);
      return with_work(ctx, inputs[0], out,
                       [&](const auto* x, auto* y) { pool(ctx, op, g, p, x, y); });
    }
    case Op::adaptive_avg_pool2d: {
      const Planes p = planes_of(inputs[0].type.shape, out.type.shape, 2);
      return with_work(ctx, inputs[0], out,
                       [&](const auto* x, auto* y) { adaptive_avg(ctx, p, x, y); });
    }
    case Op::interpolate: {
      const ir::Shape& xs = inputs[0].type.shape;
      Volume v;
      v.nd = static_cast<int>(xs.size()) - 2;
      v.planes = xs[0] * xs[1];
      for (int d = 0; d < v.nd; ++d) {
        v.in[3 - v.nd + d] = xs[2 + d];
        v.out[3 - v.nd + d] = out.type.shape[2 + d];
      }
      const ir::InterpolateGeometry g = ir::interpolate_geometry(node.attrs);
      return with_work(ctx, inputs[0], out,
                       [&](const auto* x, auto* y) { interpolate(ctx, g, v, x, y); });
    }
    default:
      break;
  }
  throw Error(ErrorCode::Internal, "no nn kernel for " + std::string(ir::name(op)));
}

}  // namespace tensord::cpu
