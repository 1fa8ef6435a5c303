// The losses (docs/ops.md), written from PyTorch's formulas in float64: a per-element loss with
// an error scale (the magnitudes a float32 evaluation rounds), then the reduction.
#include <algorithm>
#include <cmath>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace {

struct Elements {
  Shape shape;
  std::vector<double> loss, scale;
  std::vector<bool> counted;  // nll/cross_entropy: not ignored
  std::vector<double> weight;  // issue 4: class weight of each element (the mean's divisor)
};

int64_t reduction_code(Op op, const ir::Attrs& attrs) {
  const int64_t r = attrs.get_int(Attr::reduction, 1);
  if (r < 0 || r > (op == Op::kl_div ? 3 : 2)) reject(ErrorCode::InvalidGraph, "reduction code");
  return r;
}

Expected finish(DType t, const Elements& el, int64_t reduction) {
  if (reduction == 0) {
    Expected e{RefTensor(t, el.shape)};
    e.scale.resize(el.loss.size());
    for (size_t k = 0; k < el.loss.size(); ++k) {
      e.value.put(static_cast<int64_t>(k), Num::of_float(el.loss[k]));
      e.scale[k] = std::isfinite(el.scale[k]) ? el.scale[k] : 0.0;
    }
    return e;
  }
  double total = 0, big = 0, n = 0;
  for (size_t k = 0; k < el.loss.size(); ++k) {
    if (!el.counted.empty() && !el.counted[k]) continue;
    total += el.loss[k];
    big = std::max(big, el.scale[k]);
    n += 1;
  }
  if (reduction == 1 && !el.weight.empty()) {
    double wsum = 0;
    for (size_t k = 0; k < el.loss.size(); ++k) {
      if (el.counted.empty() || el.counted[k]) wsum += el.weight[k];
    }
    total /= wsum;
    big /= std::max(1.0, n);
  } else if (reduction == 1) {
    total /= el.counted.empty() ? static_cast<double>(el.loss.size()) : n;
    big /= std::max(1.0, n);
  } else if (reduction == 3) {
    const double batch = el.shape.empty() ? 1.0 : static_cast<double>(el.shape[0]);
    total /= batch;
    big /= batch;
  }
  Expected e{RefTensor(t, {})};
  e.value.put(0, Num::of_float(total));
  e.scale = {std::isfinite(big) ? big : 0.0};
  e.terms = static_cast<int64_t>(std::max<size_t>(1, el.loss.size()));
  return e;
}

double clamped_log(double v) {
  return std::max(std::log(v), -100.0);
}

// Per element of the broadcast shape: (loss, scale).
std::pair<double, double> pointwise(Op op, double x, double y, const ir::Attrs& attrs) {
  const double d = x - y, a = std::fabs(d), mag = std::fabs(x) + std::fabs(y);
  switch (op) {
    case Op::mse_loss:
      return {d * d, 2 * a * mag};
    case Op::l1_loss:
      return {a, mag};
    case Op::smooth_l1_loss: {
      const double beta = attrs.get_float(Attr::beta, 1.0);
      return {a < beta ? 0.5 * d * d / beta : a - 0.5 * beta,
              mag * (1 + a / std::max(beta, 1e-300))};
    }
    case Op::huber_loss: {
      const double delta = attrs.get_float(Attr::delta, 1.0);
      return {a < delta ? 0.5 * d * d : delta * (a - 0.5 * delta), mag * (a + delta)};
    }
    case Op::binary_cross_entropy: {
      const double u = y * clamped_log(x), v = (1 - y) * clamped_log(1 - x);
      return {-(u + v), std::fabs(u) + std::fabs(v) + 1};
    }
    case Op::binary_cross_entropy_with_logits: {
      const double m = std::max(-x, 0.0);
      return {(1 - y) * x + m + std::log(std::exp(-m) + std::exp(-x - m)), 2 * std::fabs(x) + 1};
    }
    default: {  // kl_div(input x, target y)
      if (attrs.get_bool(Attr::log_target, false)) {
        const double v = std::exp(y) * (y - x);
        return {v, std::exp(y) * (std::fabs(y) + std::fabs(x)) + std::fabs(v)};
      }
      const double ylogy = y == 0 ? 0.0 : y * std::log(y);
      return {ylogy - y * x, std::fabs(ylogy) + std::fabs(y * x)};
    }
  }
}

Expected classification(Op op, const RefTensor& x, const RefTensor& target, const ir::Attrs& attrs,
                        int64_t reduction, const RefTensor* weight = nullptr) {
  if (!x.floating()) reject(ErrorCode::DType, "float input");
  if (x.shape.empty()) reject(ErrorCode::Shape, "0-d input");
  const size_t axis = x.shape.size() >= 2 ? 1 : 0;
  const int64_t classes = x.shape[axis];
  if (classes == 0) reject(ErrorCode::Shape, "no classes");
  if (target.dtype == DType::Bool) reject(ErrorCode::DType, "bool target");
  Shape loss_shape = x.shape;
  loss_shape.erase(loss_shape.begin() + static_cast<int64_t>(axis));
  const bool probs = target.floating();
  if (probs && op != Op::cross_entropy) reject(ErrorCode::DType, "nll_loss of probabilities");
  if (probs ? target.shape != x.shape : target.shape != loss_shape) {
    reject(ErrorCode::Shape, "target shape");
  }
  const double smoothing = attrs.get_float(Attr::label_smoothing, 0.0);
  if (!probs && !(smoothing >= 0 && smoothing <= 1)) reject(ErrorCode::Shape, "label_smoothing");
  const DType t = probs ? ref_promote(x.dtype, target.dtype) : x.dtype;
  // Class weights (issue 4): floating, shape (classes).
  if (weight && !weight->floating()) reject(ErrorCode::DType, "class weight dtype");
  if (weight && weight->shape != Shape{classes}) reject(ErrorCode::Shape, "class weight shape");
  auto wc = [&](int64_t c) { return weight ? cast_to(t, weight->at(c)).f : 1.0; };
  double wmax = 1;
  for (int64_t c = 0; weight && c < classes; ++c) wmax = std::max(wmax, std::fabs(wc(c)));
  const int64_t ignore = attrs.get_int(Attr::ignore_index, -100);
  int64_t inner = 1;
  for (size_t d = axis + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  Elements el{loss_shape, {}, {}, {}, {}};
  int64_t samples = 1;
  for (int64_t d : loss_shape) samples *= d;
  if (!probs) el.counted.assign(static_cast<size_t>(samples), true);
  for (int64_t s = 0; s < samples; ++s) {
    const int64_t base = (s / inner) * classes * inner + s % inner;
    auto at = [&](int64_t c) { return cast_to(t, x.at(base + c * inner)).f; };
    std::vector<double> logp(static_cast<size_t>(classes));
    double m = -INFINITY, big = 0;
    for (int64_t c = 0; c < classes; ++c) m = std::max(m, at(c));
    double total = 0;
    for (int64_t c = 0; c < classes; ++c) total += std::exp(at(c) - m);
    for (int64_t c = 0; c < classes; ++c) {
      logp[c] = op == Op::nll_loss ? at(c) : at(c) - m - std::log(total);
      big = std::max(big, std::fabs(at(c)));
    }
    double loss = 0;
    if (probs) {
      for (int64_t c = 0; c < classes; ++c) {
        double p = cast_to(t, target.at(base + c * inner)).f;
        if (smoothing > 0) p = p * (1 - smoothing) + smoothing / static_cast<double>(classes);
        loss -= wc(c) * p * logp[c];
      }
      big *= 2;
    } else {
      const int64_t k = target.i[s];
      if (k == ignore) {
        el.counted[s] = false;
      } else {
        const int64_t c = k < 0 ? k + classes : k;
        if (c < 0 || c >= classes) reject(ErrorCode::Shape, "class index out of range", true);
        loss = -wc(c) * logp[c];
        if (weight) el.weight.push_back(wc(c));
        if (smoothing > 0) {
          double all = 0;
          for (int64_t j = 0; j < classes; ++j) all -= wc(j) * logp[j];
          loss = (1 - smoothing) * loss + smoothing / static_cast<double>(classes) * all;
        }
      }
      if (weight && k == ignore) el.weight.push_back(0.0);
    }
    el.loss.push_back(loss);
    el.scale.push_back((big + 1) * wmax);
  }
  return finish(t, el, reduction);
}

Expected cosine(const RefTensor& a, const RefTensor& b, const ir::Attrs& attrs) {
  DType t = ref_promote(a.dtype, b.dtype);
  if (!ir::is_floating(t)) t = DType::Float32;
  const Shape shape = ref_broadcast(a.shape, b.shape);
  if (shape.empty()) reject(ErrorCode::Shape, "0-d");
  const int64_t axis = ref_axis(attrs.get_int(Attr::axis, 1), static_cast<int64_t>(shape.size()));
  const double eps = attrs.get_float(Attr::eps, 1e-8);
  Shape out_shape = shape;
  out_shape.erase(out_shape.begin() + axis);
  Expected e{RefTensor(t, out_shape)};
  e.scale.resize(static_cast<size_t>(e.value.numel()));
  e.terms = shape[axis];
  for (int64_t o = 0; o < e.value.numel(); ++o) {
    std::vector<int64_t> idx = unravel(o, out_shape);
    idx.insert(idx.begin() + axis, 0);
    double dot = 0, na = 0, nb = 0;
    for (int64_t i = 0; i < shape[axis]; ++i) {
      idx[axis] = i;
      const double x = cast_to(t, a.at(broadcast_source(idx, a.shape))).f;
      const double y = cast_to(t, b.at(broadcast_source(idx, b.shape))).f;
      dot += x * y, na += x * x, nb += y * y;
    }
    const double v = dot / (std::max(std::sqrt(na), eps) * std::max(std::sqrt(nb), eps));
    e.value.put(o, Num::of_float(v));
    e.scale[o] = 1;  // unit vectors: each product is at most 1
  }
  return e;
}

}  // namespace

Expected ref_loss(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  const RefTensor& a = in[0];
  const RefTensor& b = in[1];
  if (op == Op::cosine_similarity) return cosine(a, b, attrs);
  const int64_t reduction = reduction_code(op, attrs);
  if (op == Op::cross_entropy || op == Op::nll_loss)
    return classification(op, a, b, attrs, reduction, in.size() > 2 ? &in[2] : nullptr);
  if (op == Op::binary_cross_entropy || op == Op::binary_cross_entropy_with_logits) {
    if (a.shape != b.shape) reject(ErrorCode::Shape, "shapes differ");
  }
  if (op == Op::smooth_l1_loss && !(attrs.get_float(Attr::beta, 1.0) >= 0))
    reject(ErrorCode::Shape, "beta");
  if (op == Op::huber_loss && !(attrs.get_float(Attr::delta, 1.0) > 0))
    reject(ErrorCode::Shape, "delta");
  const DType t = ref_promote(a.dtype, b.dtype);
  if (!ir::is_floating(t)) reject(ErrorCode::DType, "float inputs");
  Elements el{ref_broadcast(a.shape, b.shape), {}, {}, {}, {}};
  int64_t n = 1;
  for (int64_t d : el.shape) n *= d;
  for (int64_t k = 0; k < n; ++k) {
    std::vector<int64_t> idx = unravel(k, el.shape);
    const double x = cast_to(t, a.at(broadcast_source(idx, a.shape))).f;
    const double y = cast_to(t, b.at(broadcast_source(idx, b.shape))).f;
    auto [loss, scale] = pointwise(op, x, y, attrs);
    el.loss.push_back(loss);
    el.scale.push_back(scale);
  }
  return finish(t, el, reduction);
}

}  // namespace tensord::conformance
