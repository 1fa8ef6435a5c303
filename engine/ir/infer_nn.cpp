// Inference of the neural-network ops of issue 4 (docs/ops.md "Neural-network ops"): ranks,
// channel counts, window geometry and dtypes. Every error names the op.
#include <cmath>
#include <string>

#include "engine/ir/infer_internal.h"
#include "engine/ir/nn_geometry.h"

namespace tensord::ir::detail {

namespace {

std::string op_name(Op op) {
  return std::string(name(op));
}

void require_float(Op op, const TensorType& t, const char* what) {
  if (!is_floating(t.dtype)) {
    fail(ErrorCode::DType,
         op_name(op) + " takes a floating-point " + what + ", got " + std::string(name(t.dtype)));
  }
}

void same_dtype(Op op, const TensorType& a, const TensorType& b, const char* what) {
  if (a.dtype != b.dtype) {
    fail(ErrorCode::DType, op_name(op) + " needs the " + what + " in the input's dtype " +
                               std::string(name(a.dtype)) + ", got " + std::string(name(b.dtype)));
  }
}

void require_rank(Op op, const TensorType& t, int64_t lo, int64_t hi, const char* what) {
  if (t.rank() < lo || t.rank() > hi) {
    std::string want =
        lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
    fail(ErrorCode::Shape,
         op_name(op) + " needs " + what + " of rank " + want + ", got shape " + to_string(t.shape));
  }
}

// A per-channel parameter (weight, bias, running statistics): shape (channels).
void require_channels(Op op, const TensorType& p, int64_t channels, const char* what) {
  if (p.shape != Shape{channels}) {
    fail(ErrorCode::Shape, op_name(op) + "'s " + what + " must have shape (" +
                               std::to_string(channels) + "), got " + to_string(p.shape));
  }
}

std::vector<TensorType> infer_conv(Op op, Inputs in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  const TensorType& w = *in[1];
  const bool transposed = is_conv_transpose(op);
  const int nd = spatial_rank(op);
  require_rank(op, x, nd + 2, nd + 2, "an input (batch, channels, spatial...)");
  require_rank(op, w, nd + 2, nd + 2, "a weight");
  require_float(op, x, "input");
  same_dtype(op, x, w, "weight");
  const ConvGeometry g = conv_geometry(op, attrs, nd);
  const int64_t cin = x.shape[1];
  // weight: (out, in / groups, k...) or, transposed, (in, out / groups, k...).
  int64_t cout;
  if (!transposed) {
    if (cin % g.groups != 0 || w.shape[0] % g.groups != 0) {
      fail(ErrorCode::Shape, op_name(op) + ": groups " + std::to_string(g.groups) +
                                 " must divide the input channels " + std::to_string(cin) +
                                 " and the output channels " + std::to_string(w.shape[0]));
    }
    if (w.shape[1] * g.groups != cin) {
      fail(ErrorCode::Shape, op_name(op) + ": weight " + to_string(w.shape) + " with groups " +
                                 std::to_string(g.groups) + " expects " +
                                 std::to_string(w.shape[1] * g.groups) +
                                 " input channels, got input " + to_string(x.shape));
    }
    cout = w.shape[0];
  } else {
    if (cin % g.groups != 0) {
      fail(ErrorCode::Shape, op_name(op) + ": groups " + std::to_string(g.groups) +
                                 " must divide the input channels " + std::to_string(cin));
    }
    if (w.shape[0] != cin) {
      fail(ErrorCode::Shape, op_name(op) + ": weight " + to_string(w.shape) + " expects " +
                                 std::to_string(w.shape[0]) + " input channels, got input " +
                                 to_string(x.shape));
    }
    cout = w.shape[1] * g.groups;
  }
  if (in.size() > 2) {
    same_dtype(op, x, *in[2], "bias");
    require_channels(op, *in[2], cout, "bias");
  }
  Shape out{x.shape[0], cout};
  for (int d = 0; d < nd; ++d) {
    const int64_t size = x.shape[2 + d], k = w.shape[2 + d];
    if (size < 1 || k < 1) {
      fail(ErrorCode::Shape, op_name(op) + " needs spatial sizes >= 1, got input " +
                                 to_string(x.shape) + " and weight " + to_string(w.shape));
    }
    int64_t o;
    if (transposed) {
      if (g.output_padding[d] >= g.stride[d] && g.output_padding[d] >= g.dilation[d]) {
        fail(ErrorCode::InvalidGraph, op_name(op) +
                                          ": output_padding must be smaller than the stride "
                                          "or the dilation, got " +
                                          std::to_string(g.output_padding[d]));
      }
      o = conv_transpose_output_size(size, k, g.padding[d], g.stride[d], g.dilation[d],
                                     g.output_padding[d]);
    } else {
      o = conv_output_size(size, k, g.padding[d], g.stride[d], g.dilation[d]);
    }
    if (o < 1) {
      fail(ErrorCode::Shape, op_name(op) + ": the output would be empty (size " +
                                 std::to_string(o) + " on spatial axis " + std::to_string(d) +
                                 ") for input " + to_string(x.shape) + " and weight " +
                                 to_string(w.shape) +
                                 "; the padded input is smaller than the "
                                 "dilated kernel");
    }
    out.push_back(o);
  }
  return result(x.dtype, std::move(out));
}

// (values) or, for a max pool with return_indices, (values, int64 positions in the plane).
std::vector<TensorType> pool_result(Op op, const TensorType& x, Shape out, const Attrs& attrs) {
  std::vector<TensorType> r = result(x.dtype, out);
  if (is_max_pool(op) || is_adaptive_max_pool(op)) {
    if (attrs.get_bool(Attr::return_indices, false)) {
      r.push_back(TensorType{DType::Int64, std::move(out)});
    }
  }
  return r;
}

std::vector<TensorType> infer_pool(Op op, const TensorType& x, const Attrs& attrs) {
  const PoolGeometry g = pool_geometry(op, attrs);
  require_rank(op, x, g.nd + 1, g.nd + 2, "an input ([batch,] channels, spatial...)");
  require_float(op, x, "input");
  Shape out = x.shape;
  const int64_t first = x.rank() - g.nd;
  for (int d = 0; d < g.nd; ++d) {
    const int64_t size = x.shape[first + d];
    const int64_t o =
        pool_output_size(size, g.kernel[d], g.padding[d], g.stride[d], g.dilation[d], g.ceil_mode);
    if (size < 1 || o < 1) {
      fail(ErrorCode::Shape, op_name(op) + ": input " + to_string(x.shape) +
                                 " is too small for kernel " + std::to_string(g.kernel[d]) +
                                 " (output size " + std::to_string(o) + ")");
    }
    out[first + d] = o;
  }
  return pool_result(op, x, std::move(out), attrs);
}

// `shape` as the output's nd spatial sizes, each in [1, 2^31].
const std::vector<int64_t>& spatial_shape_attr(Op op, const Attrs& attrs, int nd) {
  const std::vector<int64_t>& size = attrs.get_ints(Attr::shape);
  if (size.size() != static_cast<size_t>(nd)) {
    fail(ErrorCode::InvalidGraph, op_name(op) + " needs an output size of " + std::to_string(nd) +
                                      " values, got " + std::to_string(size.size()));
  }
  for (int64_t s : size) {
    if (s < 1 || s > kMaxWindowAttr) {
      fail(ErrorCode::InvalidGraph,
           op_name(op) + " needs output sizes in [1, 2^31], got " + std::to_string(s));
    }
  }
  return size;
}

std::vector<TensorType> infer_adaptive_pool(Op op, const TensorType& x, const Attrs& attrs) {
  const int nd = spatial_rank(op);
  require_rank(op, x, nd + 1, nd + 2, "an input ([batch,] channels, spatial...)");
  require_float(op, x, "input");
  const std::vector<int64_t>& size = spatial_shape_attr(op, attrs, nd);
  Shape out = x.shape;
  for (int d = 0; d < nd; ++d) {
    if (x.shape[x.rank() - nd + d] < 1) {
      fail(ErrorCode::Shape,
           op_name(op) + " needs non-empty spatial axes, got " + to_string(x.shape));
    }
    out[x.rank() - nd + d] = size[d];
  }
  return pool_result(op, x, std::move(out), attrs);
}

// max_unpool(x, indices; shape): x and indices ([batch,] channels, spatial...) of one shape,
// the output's spatial sizes in `shape` (its length is the spatial rank).
std::vector<TensorType> infer_max_unpool(Op op, const TensorType& x, const TensorType& indices,
                                         const Attrs& attrs) {
  const auto nd = static_cast<int>(attrs.get_ints(Attr::shape).size());
  if (nd < 1 || nd > kMaxSpatial) {
    fail(ErrorCode::InvalidGraph,
         op_name(op) + " needs 1 to 3 output sizes, got " + std::to_string(nd));
  }
  const std::vector<int64_t>& size = spatial_shape_attr(op, attrs, nd);
  require_rank(op, x, nd + 1, nd + 2, "an input ([batch,] channels, spatial...)");
  require_float(op, x, "input");
  if (!is_integral(indices.dtype)) {
    fail(ErrorCode::DType,
         op_name(op) + " takes integer indices, got " + std::string(name(indices.dtype)));
  }
  if (indices.shape != x.shape) {
    fail(ErrorCode::Shape, op_name(op) + " needs indices of the input's shape " +
                               to_string(x.shape) + ", got " + to_string(indices.shape));
  }
  Shape out = x.shape;
  for (int d = 0; d < nd; ++d) out[x.rank() - nd + d] = size[d];
  return result(x.dtype, std::move(out));
}

std::vector<TensorType> infer_interpolate(Op op, const TensorType& x, const Attrs& attrs) {
  const int64_t mode = attrs.get_int(Attr::mode, 0);
  if (mode < 0 || mode >= kNumInterpolateModes) {
    fail(ErrorCode::InvalidGraph,
         "interpolate's mode must be 0 (nearest), 1 (linear), 2 (bicubic), 3 (area) or 4 "
         "(nearest-exact), got " +
             std::to_string(mode));
  }
  const auto m = static_cast<InterpolateMode>(mode);
  if (m == InterpolateMode::Bicubic) {
    require_rank(op, x, 4, 4, "an input (batch, channels, height, width) for bicubic");
  } else {
    require_rank(op, x, 3, 5, "an input (batch, channels, spatial...) with 1 to 3 spatial axes");
  }
  require_float(op, x, "input");
  const bool sampled = m == InterpolateMode::Linear || m == InterpolateMode::Bicubic;
  if (!sampled && attrs.has(Attr::align_corners)) {
    fail(ErrorCode::InvalidGraph,
         "interpolate: align_corners applies to the linear and bicubic modes only");
  }
  if (attrs.get_bool(Attr::antialias, false) && (!sampled || x.rank() != 4)) {
    fail(ErrorCode::InvalidGraph,
         "interpolate: antialias applies to bilinear and bicubic (2 spatial axes) only");
  }
  const std::vector<int64_t>& size = attrs.get_ints(Attr::shape);
  const int64_t nd = x.rank() - 2;
  if (static_cast<int64_t>(size.size()) != nd) {
    fail(ErrorCode::InvalidGraph, "interpolate needs " + std::to_string(nd) +
                                      " output sizes for input " + to_string(x.shape) + ", got " +
                                      std::to_string(size.size()));
  }
  if (attrs.has(Attr::scales)) {
    // Where scales would not change the result, the graph must say so by leaving them out.
    if (m == InterpolateMode::Area || attrs.get_bool(Attr::align_corners, false)) {
      fail(ErrorCode::InvalidGraph,
           "interpolate: scales do not apply to area mode or with align_corners");
    }
    const std::vector<double>& scales = attrs.get_floats(Attr::scales);
    if (static_cast<int64_t>(scales.size()) != nd) {
      fail(ErrorCode::InvalidGraph, "interpolate needs " + std::to_string(nd) +
                                        " scales for input " + to_string(x.shape) + ", got " +
                                        std::to_string(scales.size()));
    }
    for (double s : scales) {
      if (!(s > 0) || !std::isfinite(s)) {
        fail(ErrorCode::InvalidGraph,
             "interpolate's scales must be positive and finite, got " + std::to_string(s));
      }
    }
  }
  Shape out = x.shape;
  for (int64_t d = 0; d < nd; ++d) {
    if (size[d] < 1 || size[d] > kMaxWindowAttr) {
      fail(ErrorCode::InvalidGraph,
           "interpolate needs output sizes in [1, 2^31], got " + std::to_string(size[d]));
    }
    if (x.shape[2 + d] < 1) {
      fail(ErrorCode::Shape, "interpolate needs non-empty spatial axes, got " + to_string(x.shape));
    }
    out[2 + d] = size[d];
  }
  return result(x.dtype, std::move(out));
}

std::vector<TensorType> infer_linear(Op op, Inputs in) {
  const TensorType& x = *in[0];
  const TensorType& w = *in[1];
  require_float(op, x, "input");
  same_dtype(op, x, w, "weight");
  require_rank(op, x, 1, kMaxRank, "an input");
  require_rank(op, w, 2, 2, "a weight (out_features, in_features)");
  if (x.shape.back() != w.shape[1]) {
    fail(ErrorCode::Shape, "linear: input " + to_string(x.shape) + " has " +
                               std::to_string(x.shape.back()) + " features, weight " +
                               to_string(w.shape) + " takes " + std::to_string(w.shape[1]));
  }
  if (in.size() > 2) {
    same_dtype(op, x, *in[2], "bias");
    require_channels(op, *in[2], w.shape[0], "bias");
  }
  Shape out = x.shape;
  out.back() = w.shape[0];
  return result(x.dtype, std::move(out));
}

std::vector<TensorType> infer_embedding(Op op, const TensorType& idx, const TensorType& w) {
  if (!is_integral(idx.dtype) || idx.dtype == DType::Bool) {
    fail(ErrorCode::DType, "embedding takes integer indices, got " + std::string(name(idx.dtype)));
  }
  require_rank(op, w, 2, 2, "a weight (num_embeddings, embedding_dim)");
  Shape out = idx.shape;
  out.push_back(w.shape[1]);
  return result(w.dtype, std::move(out));
}

std::vector<TensorType> infer_norms(Op op, Inputs in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  require_float(op, x, "input");
  if (!(attrs.get_float(Attr::eps, 1e-5) >= 0)) {
    fail(ErrorCode::InvalidGraph, op_name(op) + "'s eps must be >= 0");
  }
  if (op == Op::rms_norm) {
    const int64_t nd = attrs.get_int(Attr::normalized_ndim);
    if (nd < 1 || nd > x.rank()) {
      fail(ErrorCode::Shape, "rms_norm normalized_ndim " + std::to_string(nd) +
                                 " must be in [1, rank] for shape " + to_string(x.shape));
    }
    if (in.size() > 1) {
      const Shape normalized(x.shape.end() - nd, x.shape.end());
      same_dtype(op, x, *in[1], "weight");
      if (in[1]->shape != normalized) {
        fail(ErrorCode::Shape, "rms_norm's weight must have shape " + to_string(normalized) +
                                   ", got " + to_string(in[1]->shape));
      }
    }
    return result(x.dtype, x.shape);
  }
  const int64_t min_rank = op == Op::instance_norm ? 3 : 2;
  require_rank(op, x, min_rank, kMaxRank,
               op == Op::instance_norm ? "an input (batch, channels, spatial...)"
                                       : "an input (batch, channels, ...)");
  const int64_t c = x.shape[1];
  for (size_t i = 1; i < in.size(); ++i) {
    static const char* const kBatch[] = {"", "running_mean", "running_var", "weight", "bias"};
    static const char* const kAffine[] = {"", "weight", "bias"};
    const char* what = op == Op::batch_norm ? kBatch[i] : kAffine[i];
    same_dtype(op, x, *in[i], what);
    require_channels(op, *in[i], c, what);
  }
  int64_t spatial = 1;
  for (int64_t d = 2; d < x.rank(); ++d) spatial *= x.shape[d];
  if (op == Op::group_norm) {
    const int64_t groups = attrs.get_int(Attr::groups);
    if (groups < 1 || c % groups != 0) {
      fail(ErrorCode::Shape, "group_norm: groups " + std::to_string(groups) +
                                 " must be >= 1 and divide the channels " + std::to_string(c));
    }
  } else if (op == Op::batch_norm && attrs.get_bool(Attr::training, false)) {
    if (x.shape[0] * spatial == 1) {
      fail(ErrorCode::Shape,
           "batch_norm in training needs more than 1 value per channel, got "
           "input " +
               to_string(x.shape));
    }
  } else if (op == Op::instance_norm && spatial == 1) {
    fail(ErrorCode::Shape,
         "instance_norm needs more than 1 spatial element, got input " + to_string(x.shape));
  }
  return result(x.dtype, x.shape);
}

std::vector<TensorType> infer_attention(Op op, Inputs in, const Attrs& attrs) {
  const TensorType& q = *in[0];
  const TensorType& k = *in[1];
  const TensorType& v = *in[2];
  require_float(op, q, "query");
  same_dtype(op, q, k, "key");
  same_dtype(op, q, v, "value");
  require_rank(op, q, 2, kMaxRank, "a query (..., L, E)");
  require_rank(op, k, 2, kMaxRank, "a key (..., S, E)");
  require_rank(op, v, 2, kMaxRank, "a value (..., S, Ev)");
  const int64_t l = q.shape[q.rank() - 2], e = q.shape.back();
  const int64_t s = k.shape[k.rank() - 2];
  if (k.shape.back() != e || v.shape[v.rank() - 2] != s) {
    fail(ErrorCode::Shape, "scaled_dot_product_attention: query " + to_string(q.shape) + ", key " +
                               to_string(k.shape) + " and value " + to_string(v.shape) +
                               " need key (..., S, E) and value (..., S, Ev)");
  }
  const Shape qb(q.shape.begin(), q.shape.end() - 2), kb(k.shape.begin(), k.shape.end() - 2),
      vb(v.shape.begin(), v.shape.end() - 2);
  Shape batch = broadcast_shapes(broadcast_shapes(qb, kb), vb);
  if (in.size() > 3) {
    const TensorType& m = *in[3];
    if (m.dtype != DType::Bool && m.dtype != q.dtype) {
      fail(ErrorCode::DType, "scaled_dot_product_attention's attn_mask must be bool or " +
                                 std::string(name(q.dtype)) + ", got " +
                                 std::string(name(m.dtype)));
    }
    Shape scores = batch;
    scores.push_back(l);
    scores.push_back(s);
    if (broadcast_shapes(m.shape, scores) != scores) {
      fail(ErrorCode::Shape, "scaled_dot_product_attention's attn_mask " + to_string(m.shape) +
                                 " does not broadcast to the scores " + to_string(scores));
    }
    if (attrs.get_bool(Attr::is_causal, false)) {
      fail(ErrorCode::InvalidGraph,
           "scaled_dot_product_attention takes attn_mask or is_causal, not both");
    }
  }
  batch.push_back(l);
  batch.push_back(v.shape.back());
  return result(q.dtype, std::move(batch));
}

std::vector<TensorType> infer_pixel_shuffle(Op op, const TensorType& x, const Attrs& attrs) {
  require_float(op, x, "input");
  require_rank(op, x, 3, kMaxRank, "an input (..., channels, height, width)");
  const int64_t r = attrs.get_int(Attr::factor);
  if (r < 1 || r > kMaxWindowAttr) {
    fail(ErrorCode::InvalidGraph, op_name(op) + "'s factor must be >= 1, got " + std::to_string(r));
  }
  Shape out = x.shape;
  const size_t c = out.size() - 3, h = c + 1, w = c + 2;
  if (op == Op::pixel_shuffle) {
    if (x.shape[c] % (r * r) != 0) {
      fail(ErrorCode::Shape, "pixel_shuffle: channels " + std::to_string(x.shape[c]) +
                                 " must be divisible by factor^2 = " + std::to_string(r * r));
    }
    if (out[h] > (int64_t{1} << 62) / r || out[w] > (int64_t{1} << 62) / r) {
      fail(ErrorCode::Shape,
           "pixel_shuffle: the result of " + to_string(x.shape) + " is too large");
    }
    out[c] /= r * r;
    out[h] *= r;
    out[w] *= r;
  } else {
    if (x.shape[h] % r != 0 || x.shape[w] % r != 0) {
      fail(ErrorCode::Shape, "pixel_unshuffle: height and width of " + to_string(x.shape) +
                                 " must be divisible by the factor " + std::to_string(r));
    }
    if (out[c] > (int64_t{1} << 62) / (r * r)) {
      fail(ErrorCode::Shape,
           "pixel_unshuffle: the result of " + to_string(x.shape) + " is too large");
    }
    out[c] *= r * r;
    out[h] /= r;
    out[w] /= r;
  }
  return result(x.dtype, std::move(out));
}

std::vector<TensorType> infer_ctc(Op op, Inputs in, const Attrs& attrs) {
  const TensorType& lp = *in[0];
  const TensorType& targets = *in[1];
  require_float(op, lp, "log_probs");
  require_rank(op, lp, 3, 3, "log_probs (T, N, C)");
  require_rank(op, targets, 2, 2, "padded targets (N, S)");
  const int64_t n = lp.shape[1], c = lp.shape[2];
  for (size_t i = 1; i < 4; ++i) {
    if (!is_integral(in[i]->dtype) || in[i]->dtype == DType::Bool) {
      fail(ErrorCode::DType,
           "ctc_loss takes integer targets and lengths, got " + std::string(name(in[i]->dtype)));
    }
  }
  if (targets.shape[0] != n || in[2]->shape != Shape{n} || in[3]->shape != Shape{n}) {
    fail(ErrorCode::Shape, "ctc_loss: log_probs " + to_string(lp.shape) + " needs targets (" +
                               std::to_string(n) + ", S) and lengths (" + std::to_string(n) +
                               "), got " + to_string(targets.shape) + ", " +
                               to_string(in[2]->shape) + " and " + to_string(in[3]->shape));
  }
  const int64_t blank = attrs.get_int(Attr::blank, 0);
  if (blank < 0 || blank >= c) {
    fail(ErrorCode::InvalidGraph,
         "ctc_loss: blank " + std::to_string(blank) + " is not a class of " + std::to_string(c));
  }
  const int64_t r = attrs.get_int(Attr::reduction, 1);
  if (r < 0 || r > 2) {
    fail(ErrorCode::InvalidGraph,
         "ctc_loss's reduction must be 0 (none), 1 (mean) or 2 (sum), got " + std::to_string(r));
  }
  return result(lp.dtype, r == 0 ? Shape{n} : Shape{});
}

}  // namespace

std::vector<TensorType> infer_nn(Op op, Inputs in, const Attrs& attrs) {
  {
    switch (op) {
      case Op::conv1d:
      case Op::conv2d:
      case Op::conv3d:
      case Op::conv_transpose1d:
      case Op::conv_transpose2d:
      case Op::conv_transpose3d:
        return infer_conv(op, in, attrs);
      case Op::max_pool1d:
      case Op::max_pool2d:
      case Op::max_pool3d:
      case Op::avg_pool1d:
      case Op::avg_pool2d:
      case Op::avg_pool3d:
        return infer_pool(op, *in[0], attrs);
      case Op::adaptive_avg_pool1d:
      case Op::adaptive_avg_pool2d:
      case Op::adaptive_avg_pool3d:
      case Op::adaptive_max_pool1d:
      case Op::adaptive_max_pool2d:
      case Op::adaptive_max_pool3d:
        return infer_adaptive_pool(op, *in[0], attrs);
      case Op::max_unpool:
        return infer_max_unpool(op, *in[0], *in[1], attrs);
      case Op::interpolate:
        return infer_interpolate(op, *in[0], attrs);
      case Op::linear:
        return infer_linear(op, in);
      case Op::embedding:
        return infer_embedding(op, *in[0], *in[1]);
      case Op::rms_norm:
      case Op::batch_norm:
      case Op::group_norm:
      case Op::instance_norm:
        return infer_norms(op, in, attrs);
      case Op::scaled_dot_product_attention:
        return infer_attention(op, in, attrs);
      case Op::dropout: {
        require_float(op, *in[0], "input");
        const double p = attrs.get_float(Attr::p, 0.5);
        if (!(p >= 0 && p <= 1)) {
          fail(ErrorCode::InvalidGraph, "dropout's p must be in [0, 1], got " + std::to_string(p));
        }
        return result(in[0]->dtype, in[0]->shape);
      }
      case Op::pixel_shuffle:
      case Op::pixel_unshuffle:
        return infer_pixel_shuffle(op, *in[0], attrs);
      case Op::ctc_loss:
        return infer_ctc(op, in, attrs);
      default:
        break;
    }
  }
  fail(ErrorCode::Internal, "no nn inference for " + op_name(op));
}

}  // namespace tensord::ir::detail
