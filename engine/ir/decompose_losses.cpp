// The losses of issue 4 (docs/ops.md), as PyTorch's functional forms define them: a pointwise
// loss, then the reduction (0 none, 1 mean, 2 sum, 3 batchmean for kl_div). Computed in the
// compute dtype (float16/bfloat16 in float32) and rounded once.
#include <cmath>
#include <optional>

#include "engine/ir/expansion.h"

namespace tensord::ir {
namespace {

class Loss {
 public:
  Loss(Expansion& e, DType out) : e_(e), c_(compute_dtype(out)) {}

  ValueRef k(double v) { return e_.scalar(v, c_); }
  ValueRef bin(Op op, ValueRef a, ValueRef b) { return e_.binary(op, a, b); }
  ValueRef un(Op op, ValueRef a) { return e_.unary(op, a); }
  ValueRef in(ValueRef v) { return e_.cast(v, c_); }
  ValueRef sum_all(ValueRef v) {
    const int64_t rank = e_.type(v).rank();
    Ints axes;
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    return e_.reduce(Op::sum, v, axes, false);
  }
  // none, mean over `count` (default: every element), sum, or sum / batch (kl_div).
  ValueRef reduce(ValueRef loss, int64_t reduction, std::optional<ValueRef> count = {}) {
    if (reduction == 0) return loss;
    ValueRef total = sum_all(loss);
    if (reduction == 2) return total;
    const Shape& shape = e_.type(loss).shape;
    if (reduction == 3) return bin(Op::div, total, k(shape.empty() ? 1.0 : double(shape[0])));
    if (count) return bin(Op::div, total, *count);
    double n = 1;
    for (int64_t d : shape) n *= static_cast<double>(d);
    return bin(Op::div, total, k(n));
  }
  Expansion& e() { return e_; }
  DType c() const { return c_; }

 private:
  Expansion& e_;
  DType c_;
};

int64_t reduction_of(const Attrs& attrs) {
  return attrs.get_int(Attr::reduction, 1);
}

ValueRef pointwise_loss(Loss& l, const Node& node, ValueRef x, ValueRef y) {
  const Attrs& attrs = node.attrs;
  ValueRef d = l.bin(Op::sub, x, y);
  ValueRef a = l.un(Op::abs, d);
  switch (node.op) {
    case Op::mse_loss:
      return l.bin(Op::mul, d, d);
    case Op::l1_loss:
      return a;
    case Op::smooth_l1_loss: {
      const double beta = attrs.get_float(Attr::beta, 1.0);
      if (beta == 0) return a;
      ValueRef quad = l.bin(Op::div, l.bin(Op::mul, l.k(0.5), l.bin(Op::mul, d, d)), l.k(beta));
      return l.e().where(l.bin(Op::lt, a, l.k(beta)), quad, l.bin(Op::sub, a, l.k(0.5 * beta)));
    }
    case Op::huber_loss: {
      const double delta = attrs.get_float(Attr::delta, 1.0);
      ValueRef quad = l.bin(Op::mul, l.k(0.5), l.bin(Op::mul, d, d));
      ValueRef lin = l.bin(Op::mul, l.k(delta), l.bin(Op::sub, a, l.k(0.5 * delta)));
      return l.e().where(l.bin(Op::lt, a, l.k(delta)), quad, lin);
    }
    default:
      break;
  }
  throw Error(ErrorCode::Internal, "not a pointwise loss");
}

// log clamped to >= -100, as PyTorch's binary_cross_entropy does (log(0) would be -inf).
ValueRef clamped_log(Loss& l, ValueRef p) {
  return l.bin(Op::maximum, l.un(Op::log, p), l.k(-100.0));
}

ValueRef bce(Loss& l, ValueRef p, ValueRef y) {
  ValueRef one_minus_y = l.bin(Op::sub, l.k(1.0), y);
  ValueRef s = l.bin(Op::add, l.bin(Op::mul, y, clamped_log(l, p)),
                     l.bin(Op::mul, one_minus_y, clamped_log(l, l.bin(Op::sub, l.k(1.0), p))));
  return l.un(Op::neg, s);
}

// max(x, 0) - x y + log1p(exp(-|x|)): no overflow for large |x|.
ValueRef bce_logits(Loss& l, ValueRef x, ValueRef y) {
  ValueRef relu = l.bin(Op::maximum, x, l.k(0.0));
  ValueRef soft = l.un(Op::log1p, l.un(Op::exp, l.un(Op::neg, l.un(Op::abs, x))));
  return l.bin(Op::add, l.bin(Op::sub, relu, l.bin(Op::mul, x, y)), soft);
}

// target (log(target) - input); a zero target contributes 0 (PyTorch's xlogy).
ValueRef kl_div(Loss& l, ValueRef x, ValueRef t, bool log_target) {
  if (log_target) return l.bin(Op::mul, l.un(Op::exp, t), l.bin(Op::sub, t, x));
  ValueRef tlogt =
      l.e().where(l.bin(Op::eq, t, l.k(0.0)), l.k(0.0), l.bin(Op::mul, t, l.un(Op::log, t)));
  return l.bin(Op::sub, tlogt, l.bin(Op::mul, t, x));
}

int64_t class_axis(Expansion& e, ValueRef x) {
  return e.type(x).rank() >= 2 ? 1 : 0;
}

// `weight` (classes) shaped to broadcast along the class axis of a tensor of rank `rank`.
ValueRef class_weight_along(Loss& l, ValueRef weight, int64_t rank, int64_t axis) {
  Shape shape(static_cast<size_t>(rank), 1);
  shape[axis] = l.e().type(weight).shape[0];
  return l.e().reshape(l.in(weight), shape);
}

// Negative log-likelihood of class-index targets; ignored targets contribute 0 and are not
// counted by the mean. `smooth` adds label smoothing's -mean(logp) term. With class weights
// (issue 4, PyTorch's definition) each term is scaled by its class's weight and the mean divides
// by the sum of the weights of the counted targets.
ValueRef nll(Loss& l, ValueRef logp, ValueRef target, const Attrs& attrs, double smooth,
             std::optional<ValueRef> weight = {}) {
  Expansion& e = l.e();
  const int64_t axis = class_axis(e, logp);
  const int64_t rank = e.type(logp).rank();
  const Shape target_shape = e.type(target).shape;
  const double classes = static_cast<double>(e.type(logp).shape[axis]);
  ValueRef t = e.cast(target, DType::Int64);
  ValueRef keep =
      e.binary(Op::ne, t, e.scalar(double(attrs.get_int(Attr::ignore_index, -100)), DType::Int64));
  ValueRef safe = e.where(keep, t, e.scalar(0.0, DType::Int64));
  Shape index_shape = target_shape;
  index_shape.insert(index_shape.begin() + axis, 1);
  ValueRef picked = e.add(Op::gather, {logp, e.reshape(safe, index_shape)}, {{Attr::axis, axis}});
  ValueRef loss = l.un(Op::neg, e.reshape(picked, target_shape));
  std::optional<ValueRef> w_t;
  if (weight) {
    int64_t n = 1;
    for (int64_t d : target_shape) n *= d;
    ValueRef flat = e.reshape(safe, {n});
    w_t = e.reshape(e.add(Op::index_select, {l.in(*weight), flat}, {{Attr::axis, int64_t{0}}}),
                    target_shape);
    loss = l.bin(Op::mul, *w_t, loss);
  }
  if (smooth > 0) {
    ValueRef terms = weight ? l.bin(Op::mul, logp, class_weight_along(l, *weight, rank, axis)) : logp;
    ValueRef all = l.un(Op::neg, e.reduce(Op::sum, terms, {axis}, false));
    loss = l.bin(Op::add, l.bin(Op::mul, l.k(1 - smooth), loss),
                 l.bin(Op::mul, l.k(smooth / classes), all));
  }
  loss = e.where(keep, loss, l.k(0.0));
  const int64_t reduction = reduction_of(attrs);
  if (reduction != 1) return l.reduce(loss, reduction);
  if (w_t) return l.reduce(loss, 1, l.sum_all(e.where(keep, *w_t, l.k(0.0))));
  return l.reduce(loss, 1, e.cast(l.sum_all(keep), l.c()));
}

ValueRef cross_entropy(Loss& l, ValueRef x, ValueRef target, const Attrs& attrs,
                       std::optional<ValueRef> weight = {}) {
  Expansion& e = l.e();
  const int64_t axis = class_axis(e, x);
  const double smooth = attrs.get_float(Attr::label_smoothing, 0.0);
  ValueRef logp = e.call(Op::log_softmax, {x}, {{Attr::axis, axis}});
  if (!is_floating(e.type(target).dtype)) return nll(l, logp, target, attrs, smooth, weight);
  const double classes = static_cast<double>(e.type(x).shape[axis]);
  ValueRef p = l.in(target);
  if (smooth > 0) {
    p = l.bin(Op::add, l.bin(Op::mul, p, l.k(1 - smooth)), l.k(smooth / classes));
  }
  ValueRef terms = l.bin(Op::mul, p, logp);
  if (weight) {
    terms = l.bin(Op::mul, terms, class_weight_along(l, *weight, e.type(x).rank(), axis));
  }
  ValueRef loss = l.un(Op::neg, e.reduce(Op::sum, terms, {axis}, false));
  return l.reduce(loss, reduction_of(attrs));
}

// PyTorch's form: each vector divided by max(its norm, eps), then the dot product.
ValueRef cosine_similarity(Loss& l, ValueRef a, ValueRef b, const Attrs& attrs) {
  Expansion& e = l.e();
  const Shape shape = broadcast_shapes(e.type(a).shape, e.type(b).shape);
  const int64_t axis =
      normalize_axis(attrs.get_int(Attr::axis, 1), static_cast<int64_t>(shape.size()));
  ValueRef eps = l.k(attrs.get_float(Attr::eps, 1e-8));
  auto unit = [&](ValueRef v) {
    ValueRef n = l.un(Op::sqrt, e.reduce(Op::sum, l.bin(Op::mul, v, v), {axis}, true));
    return l.bin(Op::div, v, l.bin(Op::maximum, n, eps));
  };
  a = e.add(Op::expand, {a}, {{Attr::shape, shape}});
  b = e.add(Op::expand, {b}, {{Attr::shape, shape}});
  return e.reduce(Op::sum, l.bin(Op::mul, unit(a), unit(b)), {axis}, false);
}

}  // namespace

ValueRef expand_loss(Expansion& e, const Node& node, std::span<const ValueRef> in) {
  const DType out = node.outputs[0].dtype;
  Loss l(e, out);
  const Attrs& attrs = node.attrs;
  ValueRef y;
  switch (node.op) {
    case Op::mse_loss:
    case Op::l1_loss:
    case Op::smooth_l1_loss:
    case Op::huber_loss:
      y = l.reduce(pointwise_loss(l, node, l.in(in[0]), l.in(in[1])), reduction_of(attrs));
      break;
    case Op::binary_cross_entropy:
      y = l.reduce(bce(l, l.in(in[0]), l.in(in[1])), reduction_of(attrs));
      break;
    case Op::binary_cross_entropy_with_logits:
      y = l.reduce(bce_logits(l, l.in(in[0]), l.in(in[1])), reduction_of(attrs));
      break;
    case Op::kl_div:
      y = l.reduce(kl_div(l, l.in(in[0]), l.in(in[1]), attrs.get_bool(Attr::log_target, false)),
                   reduction_of(attrs));
      break;
    case Op::cross_entropy:
      y = in.size() > 2 ? cross_entropy(l, l.in(in[0]), in[1], attrs, in[2])
                        : cross_entropy(l, l.in(in[0]), in[1], attrs);
      break;
    case Op::nll_loss:
      y = in.size() > 2 ? nll(l, l.in(in[0]), in[1], attrs, 0.0, in[2])
                        : nll(l, l.in(in[0]), in[1], attrs, 0.0);
      break;
    case Op::cosine_similarity:
      y = cosine_similarity(l, l.in(in[0]), l.in(in[1]), attrs);
      break;
    default:
      throw Error(ErrorCode::Internal, "no loss decomposition for " + std::string(name(node.op)));
  }
  return e.cast(y, out);
}

}  // namespace tensord::ir
