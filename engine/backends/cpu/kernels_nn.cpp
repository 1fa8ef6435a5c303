// Neural-network kernels of issue 4 (docs/ops.md "Neural-network ops"): pooling
// (kernels_pool.cpp), interpolate (kernels_interpolate.cpp), and the direct-loop
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
#include "engine/backends/cpu/kernels_pool.h"
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

void run_pool(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
              std::span<const TensorValue> outputs) {
  const TensorValue& out = outputs[0];
  if (out.type.numel() == 0) return;
  const Op op = node.op;
  const int nd = ir::spatial_rank(op);
  const Volume v = volume_of(in.type.shape, out.type.shape, nd);
  const PoolKind kind =
      ir::is_max_pool(op) || ir::is_adaptive_max_pool(op) ? PoolKind::Max : PoolKind::Average;
  int64_t* indices = outputs.size() > 1 ? outputs[1].data<int64_t>() : nullptr;
  if (ir::is_adaptive_pool(op)) {
    return with_work(ctx, in, out,
                     [&](const auto* x, auto* y) { adaptive_pool(ctx, kind, v, x, y, indices); });
  }
  const ir::PoolGeometry g = ir::pool_geometry(op, node.attrs);
  with_work(ctx, in, out,
            [&](const auto* x, auto* y) { window_pool(ctx, kind, g, v, x, y, indices); });
}

bool is_nn(Op op) {
  switch (op) {
    case Op::conv1d:
    case Op::conv2d:
    case Op::conv3d:
    case Op::conv_transpose1d:
    case Op::conv_transpose2d:
    case Op::conv_transpose3d:
    case Op::interpolate:
    case Op::ctc_loss:
      return true;
    default:
      return ir::is_window_pool(op) || ir::is_adaptive_pool(op);
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
  if (ir::is_window_pool(op) || ir::is_adaptive_pool(op)) {
    return run_pool(ctx, node, inputs[0], std::span<const TensorValue>(&out, 1));
  }
  switch (op) {
    case Op::conv1d:
    case Op::conv2d:
    case Op::conv3d:
    case Op::conv_transpose1d:
    case Op::conv_transpose2d:
    case Op::conv_transpose3d:
      return run_conv(ctx, node, inputs, out);
    case Op::interpolate: {
      const Volume v =
          volume_of(inputs[0].type.shape, out.type.shape, static_cast<int>(out.type.rank()) - 2);
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
