// The float64 reference of the neural-network composites (linear, embedding, the norms,
// attention, pixel shuffle, dropout) and of ctc_loss, from PyTorch's definitions.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "tests/conformance/reference_nn_internal.h"

namespace tensord::conformance::nn_ref {

using ir::Attr;
using ir::Op;

namespace {

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

}  // namespace

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

}  // namespace tensord::conformance::nn_ref
