// Neural-network ops of issue 4 (tensord/ops_nn.h) and the class-weighted losses: one node
// each; absent optional tensors are left out (or, for batch_norm's positional inputs, filled
// with ones and zeros). Attention with dropout or grouped heads and the running-statistics update
// of batch_norm are composites of other ops.
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "client/cpp/src/recorder.h"
#include "engine/ir/nn_geometry.h"
#include "tensord/linalg.h"
#include "tensord/ops.h"
#include "tensord/session.h"

namespace tensord {

using detail::record;
using ir::Attr;
using ir::Attrs;
using ir::Op;

namespace {

// An unbatched input (C, spatial...) runs as a batch of one, as PyTorch's does.
Tensor conv(Op op, const Tensor& x, const Tensor& w, const Tensor& bias, Attrs attrs, Loc loc) {
  const ir::Shape& xs = x.shape(loc);
  const bool unbatched = static_cast<int>(xs.size()) == ir::spatial_rank(op) + 1;
  std::vector<Tensor> in{x, w};
  if (unbatched) {
    ir::Shape batched{1};
    batched.insert(batched.end(), xs.begin(), xs.end());
    in[0] = x.reshape(batched, loc);
  }
  if (bias.defined()) in.push_back(bias);
  Tensor y = record(op, std::span<const Tensor>(in), std::move(attrs), loc);
  if (!unbatched) return y;
  const ir::Shape& ys = y.shape(loc);
  return y.reshape(ir::Shape(ys.begin() + 1, ys.end()), loc);
}

Attrs conv_attrs(Ints stride, Ints padding, Ints dilation, int64_t groups) {
  return {{Attr::stride, std::move(stride)},
          {Attr::padding, std::move(padding)},
          {Attr::dilation, std::move(dilation)},
          {Attr::groups, groups}};
}

// A per-channel tensor of `value` for channel axis 1 of x (batch_norm's absent inputs).
Tensor channel_fill(const Tensor& x, Op op, Loc loc) {
  const auto& node = detail::TensorAccess::node(x, loc);
  const int64_t c = node->type.rank() >= 2 ? node->type.shape[1] : 0;
  return detail::record_creation(
      node->session, op, {{Attr::shape, ir::Shape{c}}, {Attr::dtype, node->type.dtype}}, loc);
}

Tensor optional_inputs(Op op, std::vector<Tensor> in, const Tensor& a, const Tensor& b, Attrs attrs,
                       Loc loc) {
  if (a.defined()) {
    in.push_back(a);
  } else if (b.defined()) {
    in.push_back(channel_fill(in[0], Op::ones, loc));  // positional: a bias alone needs a weight
  }
  if (b.defined()) in.push_back(b);
  return record(op, std::span<const Tensor>(in), std::move(attrs), loc);
}

// enable_gqa: key or value head h serves query heads h * group ... (h + 1) * group - 1 (axis -3).
Tensor repeat_heads(const Tensor& kv, const Tensor& q, const char* what, Loc loc) {
  if (q.rank(loc) < 3 || kv.rank(loc) < 3) return kv;
  const int64_t heads = q.shape(loc)[q.shape(loc).size() - 3];
  const int64_t kv_heads = kv.shape(loc)[kv.shape(loc).size() - 3];
  if (kv_heads == heads) return kv;
  if (kv_heads == 0 || heads % kv_heads != 0) {
    throw Error(ErrorCode::Shape, "scaled_dot_product_attention: " + std::to_string(heads) +
                                      " query heads are not a multiple of " +
                                      std::to_string(kv_heads) + " " + what + " heads");
  }
  return repeat_interleave(kv, heads / kv_heads, -3, loc);
}

// The attention op has no dropout: its softmax is written out of ops, and dropout (Philox
// stream of `seed`) drops weights before they multiply v.
Tensor attention_with_dropout(const Tensor& q, const Tensor& k, const Tensor& v,
                              const Tensor& attn_mask, bool is_causal, std::optional<double> scale,
                              double p, int64_t seed, Loc loc) {
  if (!(p >= 0 && p <= 1)) {
    char text[32];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, p);  // shortest: "1.5", "nan"
    throw Error(ErrorCode::InvalidGraph,
                "scaled_dot_product_attention: dropout_p must be in [0, 1], got " +
                    std::string(text, ec == std::errc() ? end : text));
  }
  if (is_causal && attn_mask.defined()) {
    throw Error(ErrorCode::InvalidGraph,
                "scaled_dot_product_attention: attn_mask and is_causal are exclusive");
  }
  const double e = static_cast<double>(q.rank(loc) > 0 ? q.shape(loc).back() : 0);
  const double s = scale ? *scale : 1 / std::sqrt(e);
  Tensor scores = mul(matmul(q, transpose(k, -2, -1, loc), loc), s, loc);
  Tensor mask = attn_mask;
  if (is_causal) {
    const int64_t l = q.shape(loc)[q.shape(loc).size() - 2];
    const int64_t sk = k.shape(loc)[k.shape(loc).size() - 2];
    const auto& session = detail::TensorAccess::node(q, loc)->session;
    mask = tril(detail::record_creation(
                    session, Op::ones,
                    {{Attr::shape, ir::Shape{l, sk}}, {Attr::dtype, ir::DType::Bool}}, loc),
                0, loc);
  }
  if (mask.defined()) {
    scores = mask.dtype(loc) == ir::DType::Bool
                 ? where(mask, scores, -std::numeric_limits<double>::infinity(), loc)
                 : add(scores, mask, loc);
  }
  return matmul(dropout(softmax(scores, -1, loc), p, true, seed, loc), v, loc);
}

}  // namespace

Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias, Ints stride, Ints padding,
              Ints dilation, int64_t groups, Loc loc) {
  return conv(Op::conv1d, x, weight, bias, conv_attrs(stride, padding, dilation, groups), loc);
}
Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias, Ints stride, Ints padding,
              Ints dilation, int64_t groups, Loc loc) {
  return conv(Op::conv2d, x, weight, bias, conv_attrs(stride, padding, dilation, groups), loc);
}
Tensor conv3d(const Tensor& x, const Tensor& weight, const Tensor& bias, Ints stride, Ints padding,
              Ints dilation, int64_t groups, Loc loc) {
  return conv(Op::conv3d, x, weight, bias, conv_attrs(stride, padding, dilation, groups), loc);
}
Tensor conv_transpose(Op op, const Tensor& x, const Tensor& weight, const Tensor& bias, Ints stride,
                      Ints padding, Ints output_padding, int64_t groups, Ints dilation, Loc loc) {
  Attrs a = conv_attrs(stride, padding, dilation, groups);
  a.set(Attr::output_padding, std::move(output_padding));
  return conv(op, x, weight, bias, std::move(a), loc);
}
Tensor conv_transpose1d(const Tensor& x, const Tensor& weight, const Tensor& bias, Ints stride,
                        Ints padding, Ints output_padding, int64_t groups, Ints dilation, Loc loc) {
  return conv_transpose(Op::conv_transpose1d, x, weight, bias, std::move(stride),
                        std::move(padding), std::move(output_padding), groups, std::move(dilation),
                        loc);
}
Tensor conv_transpose2d(const Tensor& x, const Tensor& weight, const Tensor& bias, Ints stride,
                        Ints padding, Ints output_padding, int64_t groups, Ints dilation, Loc loc) {
  return conv_transpose(Op::conv_transpose2d, x, weight, bias, std::move(stride),
                        std::move(padding), std::move(output_padding), groups, std::move(dilation),
                        loc);
}
Tensor conv_transpose3d(const Tensor& x, const Tensor& weight, const Tensor& bias, Ints stride,
                        Ints padding, Ints output_padding, int64_t groups, Ints dilation, Loc loc) {
  return conv_transpose(Op::conv_transpose3d, x, weight, bias, std::move(stride),
                        std::move(padding), std::move(output_padding), groups, std::move(dilation),
                        loc);
}

Tensor interpolate(const Tensor& x, Ints size, InterpolateMode mode,
                   std::optional<bool> align_corners, std::vector<double> scales, bool antialias,
                   Loc loc) {
  Attrs a{{Attr::shape, std::move(size)}, {Attr::mode, static_cast<int64_t>(mode)}};
  if (align_corners) a.set(Attr::align_corners, *align_corners);
  if (!scales.empty()) a.set(Attr::scales, std::move(scales));
  if (antialias) a.set(Attr::antialias, true);
  return record(Op::interpolate, {&x}, std::move(a), loc);
}

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias, Loc loc) {
  if (bias.defined()) return record(Op::linear, {&x, &weight, &bias}, {}, loc);
  return record(Op::linear, {&x, &weight}, {}, loc);
}

Tensor embedding(const Tensor& indices, const Tensor& weight, Loc loc) {
  return record(Op::embedding, {&indices, &weight}, {}, loc);
}

Tensor embedding(const Tensor& indices, Tensor& weight, double max_norm, double norm_type,
                 Loc loc) {
  Tensor rows = embedding(indices, weight, loc);
  const Tensor norms = linalg::vector_norm(rows, norm_type, Axes{-1}, true, loc);
  // Scalars are weak: the scale keeps the table's dtype.
  const Tensor scale =
      where(gt(norms, max_norm, loc), div(max_norm, add(norms, 1e-7, loc), loc), 1.0, loc);
  rows = mul(rows, scale, loc);
  const int64_t dim = weight.shape(loc).back();
  weight =
      index_put(weight, {indices.reshape({-1}, loc)}, rows.reshape({-1, dim}, loc), false, loc);
  return rows;
}

Tensor rms_norm(const Tensor& x, int64_t normalized_ndim, const Tensor& weight,
                std::optional<double> eps, Loc loc) {
  Attrs a{{Attr::normalized_ndim, normalized_ndim}};
  if (eps) a.set(Attr::eps, *eps);
  if (weight.defined()) return record(Op::rms_norm, {&x, &weight}, std::move(a), loc);
  return record(Op::rms_norm, {&x}, std::move(a), loc);
}

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double eps, Loc loc) {
  if (!training && (!running_mean.defined() || !running_var.defined())) {
    throw Error(ErrorCode::InvalidGraph,
                "batch_norm in inference (training=false) needs running_mean and running_var");
  }
  // The op's five inputs are positional: absent statistics (unused in training) and an absent
  // weight or bias become zeros and ones.
  auto or_fill = [&](const Tensor& t, Op fill) {
    return t.defined() ? t : channel_fill(x, fill, loc);
  };
  std::vector<Tensor> in{x, or_fill(running_mean, Op::zeros), or_fill(running_var, Op::ones),
                         or_fill(weight, Op::ones), or_fill(bias, Op::zeros)};
  return record(Op::batch_norm, std::span<const Tensor>(in),
                {{Attr::training, training}, {Attr::eps, eps}}, loc);
}

void update_batch_norm_stats(const Tensor& x, Tensor& running_mean, Tensor& running_var,
                             double momentum, Loc loc) {
  if (x.rank(loc) < 2) {
    throw Error(ErrorCode::Shape, "update_batch_norm_stats needs x of rank >= 2 (N, C, ...), got " +
                                      ir::to_string(x.shape(loc)));
  }
  std::vector<int64_t> axes;
  int64_t n = 1;
  for (int64_t d = 0; d < x.rank(loc); ++d) {
    if (d == 1) continue;
    axes.push_back(d);
    n *= x.shape(loc)[static_cast<size_t>(d)];
  }
  auto blend = [&](Tensor& stat, const Tensor& batch) {
    const ir::DType dtype = stat.dtype(loc);
    stat = add(mul(stat, 1 - momentum, loc), mul(batch.astype(dtype, loc), momentum, loc), loc)
               .astype(dtype, loc);
  };
  // Axes kept, then reshaped: the daemon's batch_norm takes its sums so, and common
  // subexpression elimination then merges them, so x is read for its statistics once.
  const std::vector<int64_t> channels{x.shape(loc)[1]};
  if (running_mean.defined()) {
    blend(running_mean, reshape(mean(x, Axes(axes), true, loc), channels, loc));
  }
  if (running_var.defined()) {
    blend(running_var, reshape(var(x, Axes(axes), n > 1 ? 1 : 0, true, loc), channels, loc));
  }
}

Tensor group_norm(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                  double eps, Loc loc) {
  return optional_inputs(Op::group_norm, {x}, weight, bias,
                         {{Attr::groups, groups}, {Attr::eps, eps}}, loc);
}

Tensor instance_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                     Loc loc) {
  return optional_inputs(Op::instance_norm, {x}, weight, bias, {{Attr::eps, eps}}, loc);
}

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                    const Tensor& attn_mask, bool is_causal,
                                    std::optional<double> scale, double dropout_p, bool enable_gqa,
                                    int64_t seed, Loc loc) {
  if (enable_gqa) {
    const Tensor kk = repeat_heads(k, q, "key", loc), vv = repeat_heads(v, q, "value", loc);
    return scaled_dot_product_attention(q, kk, vv, attn_mask, is_causal, scale, dropout_p, false,
                                        seed, loc);
  }
  if (dropout_p != 0) {
    return attention_with_dropout(q, k, v, attn_mask, is_causal, scale, dropout_p, seed, loc);
  }
  Attrs a{{Attr::is_causal, is_causal}};
  if (scale) a.set(Attr::scale, *scale);
  if (attn_mask.defined()) {
    return record(Op::scaled_dot_product_attention, {&q, &k, &v, &attn_mask}, std::move(a), loc);
  }
  return record(Op::scaled_dot_product_attention, {&q, &k, &v}, std::move(a), loc);
}

Tensor dropout(const Tensor& x, double p, bool training, int64_t seed, Loc loc) {
  return record(Op::dropout, {&x}, {{Attr::p, p}, {Attr::training, training}, {Attr::seed, seed}},
                loc);
}

Tensor pixel_shuffle(const Tensor& x, int64_t upscale_factor, Loc loc) {
  return record(Op::pixel_shuffle, {&x}, {{Attr::factor, upscale_factor}}, loc);
}
Tensor pixel_unshuffle(const Tensor& x, int64_t downscale_factor, Loc loc) {
  return record(Op::pixel_unshuffle, {&x}, {{Attr::factor, downscale_factor}}, loc);
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, int64_t reduction, bool zero_infinity,
                Loc loc) {
  return record(
      Op::ctc_loss, {&log_probs, &targets, &input_lengths, &target_lengths},
      {{Attr::blank, blank}, {Attr::reduction, reduction}, {Attr::zero_infinity, zero_infinity}},
      loc);
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction r,
                     int64_t ignore_index, double label_smoothing, Loc loc) {
  Attrs a{{Attr::reduction, static_cast<int64_t>(r)},
          {Attr::ignore_index, ignore_index},
          {Attr::label_smoothing, label_smoothing}};
  if (!weight.defined()) return record(Op::cross_entropy, {&input, &target}, std::move(a), loc);
  return record(Op::cross_entropy, {&input, &target, &weight}, std::move(a), loc);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction r,
                int64_t ignore_index, Loc loc) {
  Attrs a{{Attr::reduction, static_cast<int64_t>(r)}, {Attr::ignore_index, ignore_index}};
  if (!weight.defined()) return record(Op::nll_loss, {&input, &target}, std::move(a), loc);
  return record(Op::nll_loss, {&input, &target, &weight}, std::move(a), loc);
}

}  // namespace tensord
