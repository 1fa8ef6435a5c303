// Inference of the losses (docs/ops.md): their input shapes and dtypes, the reduction code and
// the attribute ranges.
#include <cmath>

#include "engine/ir/infer_internal.h"

namespace tensord::ir::detail {

namespace {

// 0 none, 1 mean, 2 sum; kl_div also 3 batchmean.
int64_t reduction_code(Op op, const Attrs& attrs) {
  const int64_t r = attrs.get_int(Attr::reduction, 1);
  const int64_t top = op == Op::kl_div ? 3 : 2;
  if (r < 0 || r > top) {
    fail(ErrorCode::InvalidGraph, std::string(name(op)) + "'s reduction must be 0 (none), 1 " +
                                      "(mean), 2 (sum)" + (top == 3 ? " or 3 (batchmean)" : "") +
                                      ", got " + std::to_string(r));
  }
  return r;
}

DType float_pair(Op op, const TensorType& a, const TensorType& b) {
  const DType t = promote(a.dtype, b.dtype);
  if (!is_floating(t)) {
    fail(ErrorCode::DType, std::string(name(op)) + " takes floating-point inputs, got " +
                               std::string(name(a.dtype)) + " and " + std::string(name(b.dtype)));
  }
  return t;
}

std::vector<TensorType> reduced(DType t, Shape loss_shape, int64_t reduction) {
  return result(t, reduction == 0 ? std::move(loss_shape) : Shape{});
}

// Class-index targets: integers with the input's shape less the class axis (axis 1, or axis 0
// of a 1-D input). Probability targets (cross_entropy only): floats of the input's shape.
std::vector<TensorType> infer_classification(Op op, const TensorType& x, const TensorType& t,
                                             const Attrs& attrs, int64_t reduction) {
  if (!is_floating(x.dtype)) {
    fail(ErrorCode::DType,
         std::string(name(op)) + " takes floating-point input, got " + std::string(name(x.dtype)));
  }
  if (x.rank() == 0) fail(ErrorCode::Shape, std::string(name(op)) + " needs input of rank >= 1");
  const int64_t axis = x.rank() >= 2 ? 1 : 0;
  if (x.shape[axis] == 0) fail(ErrorCode::Shape, std::string(name(op)) + " needs >= 1 class");
  Shape loss_shape = x.shape;
  loss_shape.erase(loss_shape.begin() + axis);
  if (t.dtype == DType::Bool) fail(ErrorCode::DType, std::string(name(op)) + " of a bool target");
  if (is_floating(t.dtype)) {
    if (op != Op::cross_entropy) {
      fail(ErrorCode::DType, "nll_loss takes integer class indices as target");
    }
    if (t.shape != x.shape) {
      fail(ErrorCode::Shape,
           "cross_entropy with probabilities needs a target of the input's "
           "shape " +
               to_string(x.shape) + ", got " + to_string(t.shape));
    }
    return reduced(promote(x.dtype, t.dtype), std::move(loss_shape), reduction);
  }
  if (t.shape != loss_shape) {
    fail(ErrorCode::Shape, std::string(name(op)) + " with input " + to_string(x.shape) +
                               " needs class indices of shape " + to_string(loss_shape) + ", got " +
                               to_string(t.shape));
  }
  const double smoothing = attrs.get_float(Attr::label_smoothing, 0.0);
  if (!(smoothing >= 0 && smoothing <= 1)) {
    fail(ErrorCode::Shape, "label_smoothing must be in [0, 1], got " + std::to_string(smoothing));
  }
  return reduced(x.dtype, std::move(loss_shape), reduction);
}

// Class weights (issue 4): a float tensor of shape (classes).
void check_class_weight(Op op, const TensorType& x, const TensorType& w) {
  if (!is_floating(w.dtype)) {
    fail(ErrorCode::DType, std::string(name(op)) + "'s class weight must be floating-point, got " +
                               std::string(name(w.dtype)));
  }
  const int64_t classes = x.rank() == 0 ? 0 : x.shape[x.rank() >= 2 ? 1 : 0];
  if (w.shape != Shape{classes}) {
    fail(ErrorCode::Shape, std::string(name(op)) + "'s class weight must have shape (" +
                               std::to_string(classes) + "), got " + to_string(w.shape));
  }
}

}  // namespace

std::vector<TensorType> infer_loss(Op op, Inputs in, const Attrs& attrs) {
  const TensorType& a = *in[0];
  const TensorType& b = *in[1];
  if (op == Op::cosine_similarity) {
    DType t = promote(a.dtype, b.dtype);
    if (!is_floating(t)) t = kDefaultFloat;
    Shape shape = broadcast_shapes(a.shape, b.shape);
    if (shape.empty()) fail(ErrorCode::Shape, "cosine_similarity of 0-d tensors has no axis");
    const int64_t axis =
        normalize_axis(attrs.get_int(Attr::axis, 1), static_cast<int64_t>(shape.size()));
    shape.erase(shape.begin() + axis);
    return result(t, std::move(shape));
  }
  const int64_t reduction = reduction_code(op, attrs);
  switch (op) {
    case Op::cross_entropy:
    case Op::nll_loss:
    {
      std::vector<TensorType> out = infer_classification(op, a, b, attrs, reduction);
      if (in.size() > 2) check_class_weight(op, a, *in[2]);
      return out;
    }
    case Op::binary_cross_entropy:
    case Op::binary_cross_entropy_with_logits:
      if (a.shape != b.shape) {
        fail(ErrorCode::Shape, std::string(name(op)) +
                                   " needs input and target of one shape, got " +
                                   to_string(a.shape) + " and " + to_string(b.shape));
      }
      break;
    case Op::smooth_l1_loss:
      if (!(attrs.get_float(Attr::beta, 1.0) >= 0))
        fail(ErrorCode::Shape, "smooth_l1_loss needs beta >= 0");
      break;
    case Op::huber_loss:
      if (!(attrs.get_float(Attr::delta, 1.0) > 0))
        fail(ErrorCode::Shape, "huber_loss needs delta > 0");
      break;
    default:
      break;
  }
  const DType t = float_pair(op, a, b);
  return reduced(t, broadcast_shapes(a.shape, b.shape), reduction);
}

}  // namespace tensord::ir::detail
