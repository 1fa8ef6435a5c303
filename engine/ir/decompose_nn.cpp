// The neural-network composites of issue 4 (docs/ops.md "Neural-network ops"): linear,
// embedding, rms_norm, batch_norm, group_norm, instance_norm, scaled_dot_product_attention,
// dropout, pixel_shuffle, pixel_unshuffle and max_unpool. float16/bfloat16 compute in float32
// and round once.
#include <cmath>
#include <limits>

#include "engine/ir/expansion.h"

namespace tensord::ir {
namespace {

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

Ints iota(int64_t from, int64_t to) {
  Ints v;
  for (int64_t d = from; d < to; ++d) v.push_back(d);
  return v;
}

// A per-channel vector (C) shaped (1, C, 1, ...) to broadcast along axis 1 of a rank-`rank`
// tensor.
ValueRef per_channel(Expansion& e, ValueRef v, int64_t rank, DType c) {
  Shape shape(static_cast<size_t>(rank), 1);
  shape[1] = e.type(v).shape[0];
  return e.reshape(e.cast(v, c), shape);
}

// (x - mean) / sqrt(var + eps) with the biased variance over `axes` (keepdim).
ValueRef standardize(Expansion& e, ValueRef x, const Ints& axes, double n, double eps, DType c) {
  ValueRef mean = e.binary(Op::div, e.sum(x, axes, true), e.scalar(n, c));
  ValueRef d = e.binary(Op::sub, x, mean);
  ValueRef var = e.binary(Op::div, e.sum(e.binary(Op::mul, d, d), axes, true), e.scalar(n, c));
  return e.binary(Op::mul, d, e.unary(Op::rsqrt, e.binary(Op::add, var, e.scalar(eps, c))));
}

ValueRef linear(Expansion& e, std::span<const ValueRef> in, DType out) {
  const DType c = compute_dtype(out);
  ValueRef wt = e.add(Op::permute, {e.cast(in[1], c)}, {{Attr::dims, Ints{1, 0}}});
  ValueRef y = e.add(Op::matmul, {e.cast(in[0], c), wt});
  if (in.size() > 2) y = e.binary(Op::add, y, e.cast(in[2], c));
  return e.cast(y, out);
}

ValueRef embedding(Expansion& e, std::span<const ValueRef> in, const Shape& out_shape) {
  const Shape idx_shape = e.type(in[0]).shape;
  ValueRef flat = e.reshape(e.cast(in[0], DType::Int64), {numel_of(idx_shape)});
  ValueRef rows = e.add(Op::index_select, {in[1], flat}, {{Attr::axis, int64_t{0}}});
  return e.reshape(rows, out_shape);
}

// PyTorch's default eps for rms_norm: the dtype's machine epsilon.
double machine_eps(DType t) {
  switch (t) {
    case DType::Float16:
      return 0x1p-10;
    case DType::BFloat16:
      return 0x1p-7;
    case DType::Float64:
      return std::numeric_limits<double>::epsilon();
    default:
      return std::numeric_limits<float>::epsilon();
  }
}

ValueRef rms_norm(Expansion& e, std::span<const ValueRef> in, const Attrs& attrs, DType out) {
  const DType c = compute_dtype(out);
  const Shape shape = e.type(in[0]).shape;
  const auto rank = static_cast<int64_t>(shape.size());
  const int64_t nd = attrs.get_int(Attr::normalized_ndim);
  const Ints axes = iota(rank - nd, rank);
  double n = 1;
  for (int64_t d : axes) n *= static_cast<double>(shape[d]);
  ValueRef x = e.cast(in[0], c);
  ValueRef ms = e.binary(Op::div, e.sum(e.binary(Op::mul, x, x), axes, true), e.scalar(n, c));
  const double eps = attrs.get_float(Attr::eps, machine_eps(out));
  ValueRef y = e.binary(Op::mul, x, e.unary(Op::rsqrt, e.binary(Op::add, ms, e.scalar(eps, c))));
  if (in.size() > 1) y = e.binary(Op::mul, y, e.cast(in[1], c));
  return e.cast(y, out);
}

ValueRef batch_norm(Expansion& e, std::span<const ValueRef> in, const Attrs& attrs, DType out) {
  const DType c = compute_dtype(out);
  const Shape shape = e.type(in[0]).shape;
  const auto rank = static_cast<int64_t>(shape.size());
  const double eps = attrs.get_float(Attr::eps, 1e-5);
  ValueRef x = e.cast(in[0], c);
  ValueRef y;
  if (attrs.get_bool(Attr::training, false)) {
    Ints axes{0};
    for (int64_t d = 2; d < rank; ++d) axes.push_back(d);
    const double n = static_cast<double>(numel_of(shape)) / static_cast<double>(shape[1]);
    y = standardize(e, x, axes, n, eps, c);
  } else {
    ValueRef mean = per_channel(e, in[1], rank, c);
    ValueRef var = per_channel(e, in[2], rank, c);
    y = e.binary(Op::mul, e.binary(Op::sub, x, mean),
                 e.unary(Op::rsqrt, e.binary(Op::add, var, e.scalar(eps, c))));
  }
  y = e.binary(Op::mul, y, per_channel(e, in[3], rank, c));
  y = e.binary(Op::add, y, per_channel(e, in[4], rank, c));
  return e.cast(y, out);
}

// group_norm: (N, C, *) viewed as (N, G, C/G * spatial), standardized along the last axis.
// instance_norm is the same with one group per channel.
ValueRef group_norm(Expansion& e, std::span<const ValueRef> in, int64_t groups, double eps,
                    DType out) {
  const DType c = compute_dtype(out);
  const Shape shape = e.type(in[0]).shape;
  const auto rank = static_cast<int64_t>(shape.size());
  int64_t spatial = 1;
  for (int64_t d = 2; d < rank; ++d) spatial *= shape[d];
  const int64_t per_group = groups == 0 ? spatial : shape[1] / groups * spatial;
  ValueRef x = e.reshape(e.cast(in[0], c), {shape[0], groups, per_group});
  ValueRef y = e.reshape(standardize(e, x, {2}, static_cast<double>(per_group), eps, c), shape);
  if (in.size() > 1) y = e.binary(Op::mul, y, per_channel(e, in[1], rank, c));
  if (in.size() > 2) y = e.binary(Op::add, y, per_channel(e, in[2], rank, c));
  return e.cast(y, out);
}

// softmax(q k^T * scale + mask) v, masks as -inf (bool, causal) or added (float). A row whose
// scores are all -inf gives NaN, as in PyTorch.
ValueRef attention(Expansion& e, std::span<const ValueRef> in, const Attrs& attrs, DType out) {
  const DType c = compute_dtype(out);
  const Shape qs = e.type(in[0]).shape, ks = e.type(in[1]).shape;
  const auto kr = static_cast<int64_t>(ks.size());
  const int64_t l = qs[qs.size() - 2], s = ks[ks.size() - 2];
  const double scale =
      attrs.get_float(Attr::scale, 1.0 / std::sqrt(static_cast<double>(qs.back())));
  Ints perm = iota(0, kr);
  std::swap(perm[kr - 2], perm[kr - 1]);
  ValueRef kt = e.add(Op::permute, {e.cast(in[1], c)}, {{Attr::dims, perm}});
  ValueRef scores = e.add(Op::matmul, {e.cast(in[0], c), kt});
  scores = e.binary(Op::mul, scores, e.scalar(scale, c));
  const double inf = std::numeric_limits<double>::infinity();
  if (in.size() > 3) {
    if (e.type(in[3]).dtype == DType::Bool) {
      scores = e.where(in[3], scores, e.scalar(-inf, c));
    } else {
      scores = e.binary(Op::add, scores, e.cast(in[3], c));
    }
  } else if (attrs.get_bool(Attr::is_causal, false)) {
    // Position (i, j) may attend when j <= i (PyTorch's top-left aligned tril).
    auto range = [&](int64_t n) {
      return e.add(Op::arange, {},
                   {{Attr::start, int64_t{0}},
                    {Attr::stop, n},
                    {Attr::step, int64_t{1}},
                    {Attr::dtype, DType::Int64}});
    };
    ValueRef rows = e.reshape(range(l), {l, 1});
    ValueRef cols = e.reshape(range(s), {1, s});
    scores = e.where(e.binary(Op::le, cols, rows), scores, e.scalar(-inf, c));
  }
  const int64_t sr = e.type(scores).rank();
  ValueRef p = e.call(Op::softmax, {scores}, {{Attr::axis, sr - 1}});
  return e.cast(e.add(Op::matmul, {p, e.cast(in[2], c)}), out);
}

// x * noise, noise = 1 / (1 - p) where rand < 1 - p and 0 elsewhere (PyTorch's bernoulli mask;
// a dropped NaN stays NaN). The uniform numbers are rand's (Philox) float32 stream of `seed`.
ValueRef dropout(Expansion& e, ValueRef in, const Attrs& attrs, DType out) {
  const double p = attrs.get_float(Attr::p, 0.5);
  if (!attrs.get_bool(Attr::training, true) || p == 0) return in;
  const DType c = compute_dtype(out);
  ValueRef x = e.cast(in, c);
  if (p == 1) return e.cast(e.binary(Op::mul, x, e.scalar(0.0, c)), out);
  const Shape shape = e.type(in).shape;
  ValueRef u = e.add(Op::rand, {},
                     {{Attr::shape, shape},
                      {Attr::seed, attrs.get_int(Attr::seed, 0)},
                      {Attr::dtype, DType::Float32}});
  ValueRef keep = e.binary(Op::lt, u, e.scalar(1.0 - p, DType::Float32));
  ValueRef noise = e.where(keep, e.scalar(1.0 / (1.0 - p), c), e.scalar(0.0, c));
  return e.cast(e.binary(Op::mul, x, noise), out);
}

// Each plane's values scattered into zeros at their indices: (P, L) into (P, O) along axis 1,
// with P the leading axes' product, L and O the input's and output's spatial volumes.
ValueRef max_unpool(Expansion& e, std::span<const ValueRef> in, const Shape& out_shape, int nd) {
  const Shape& xs = e.type(in[0]).shape;
  const auto first = static_cast<int64_t>(xs.size()) - nd;
  int64_t planes = 1, volume = 1, out_volume = 1;
  for (int64_t d = 0; d < first; ++d) planes *= xs[d];
  for (int64_t d = first; d < static_cast<int64_t>(xs.size()); ++d) {
    volume *= xs[d];
    out_volume *= out_shape[d];
  }
  const DType t = e.type(in[0]).dtype;
  ValueRef values = e.reshape(in[0], {planes, volume});
  ValueRef index = e.reshape(e.cast(in[1], DType::Int64), {planes, volume});
  ValueRef y = e.add(Op::scatter, {e.full({planes, out_volume}, 0.0, t), index, values},
                     {{Attr::axis, int64_t{1}}});
  return e.reshape(y, out_shape);
}

// (*, C r^2, H, W) <-> (*, C, H r, W r): reshape, permute, reshape.
ValueRef pixel_shuffle(Expansion& e, Op op, ValueRef x, int64_t r, const Shape& out_shape) {
  const Shape shape = e.type(x).shape;
  const size_t b = shape.size() - 3;
  Shape lead(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(b));
  const auto nb = static_cast<int64_t>(b);
  Shape split = lead;
  Ints perm = iota(0, nb);
  if (op == Op::pixel_shuffle) {
    // (*, C, r, r, H, W) -> (*, C, H, r, W, r)
    const int64_t c = shape[b] / (r * r), h = shape[b + 1], w = shape[b + 2];
    split.insert(split.end(), {c, r, r, h, w});
    for (int64_t d : {0, 3, 1, 4, 2}) perm.push_back(nb + d);
  } else {
    // (*, C, H/r, r, W/r, r) -> (*, C, r, r, H/r, W/r)
    const int64_t c = shape[b], h = shape[b + 1] / r, w = shape[b + 2] / r;
    split.insert(split.end(), {c, h, r, w, r});
    for (int64_t d : {0, 2, 4, 1, 3}) perm.push_back(nb + d);
  }
  ValueRef y = e.add(Op::permute, {e.reshape(x, split)}, {{Attr::dims, perm}});
  return e.reshape(y, out_shape);
}

}  // namespace

ValueRef expand_nn(Expansion& e, const Node& node, std::span<const ValueRef> in) {
  const TensorType& out = node.outputs[0];
  const Attrs& attrs = node.attrs;
  switch (node.op) {
    case Op::linear:
      return linear(e, in, out.dtype);
    case Op::embedding:
      return embedding(e, in, out.shape);
    case Op::rms_norm:
      return rms_norm(e, in, attrs, out.dtype);
    case Op::batch_norm:
      return batch_norm(e, in, attrs, out.dtype);
    case Op::group_norm:
      return group_norm(e, in, attrs.get_int(Attr::groups), attrs.get_float(Attr::eps, 1e-5),
                        out.dtype);
    case Op::instance_norm: {
      // One group per channel, for each sample: (N, C, *) -> (N, C, spatial).
      return group_norm(e, in, e.type(in[0]).shape[1], attrs.get_float(Attr::eps, 1e-5), out.dtype);
    }
    case Op::scaled_dot_product_attention:
      return attention(e, in, attrs, out.dtype);
    case Op::dropout:
      return dropout(e, in[0], attrs, out.dtype);
    case Op::pixel_shuffle:
    case Op::pixel_unshuffle:
      return pixel_shuffle(e, node.op, in[0], attrs.get_int(Attr::factor), out.shape);
    case Op::max_unpool:
      return max_unpool(e, in, out.shape, static_cast<int>(attrs.get_ints(Attr::shape).size()));
    default:
      break;
  }
  throw Error(ErrorCode::Internal, "no nn decomposition for " + std::string(name(node.op)));
}

}  // namespace tensord::ir
