// Inference of issue 4's ops: lerp, addcmul, addcdiv, the activations, the reductions and
// the scans (docs/ops.md). The losses are in infer_losses.cpp.
#include <cmath>

#include "engine/ir/axes.h"
#include "engine/ir/infer_internal.h"

namespace tensord::ir::detail {

namespace {

Shape broadcast3(const TensorType& a, const TensorType& b, const TensorType& c) {
  return broadcast_shapes(broadcast_shapes(a.shape, b.shape), c.shape);
}

// prelu's weight: one value, or one per channel (axis 1 of x).
void check_prelu_weight(const TensorType& x, const TensorType& w) {
  const bool single = w.rank() <= 1 && (w.rank() == 0 || w.shape[0] == 1);
  const bool per_channel = w.rank() == 1 && x.rank() >= 2 && w.shape[0] == x.shape[1];
  if (!single && !per_channel) {
    fail(ErrorCode::Shape, "prelu weight " + to_string(w.shape) +
                               " must have one element or one per channel (axis 1) of " +
                               to_string(x.shape));
  }
}

}  // namespace

std::vector<TensorType> infer_pointwise3(Op op, Inputs in, const Attrs&) {
  const DType t = promote(promote(in[0]->dtype, in[1]->dtype), in[2]->dtype);
  if (op == Op::addcmul && t == DType::Bool) fail(ErrorCode::DType, "addcmul of bool tensors");
  if (op != Op::addcmul && !is_floating(t)) {
    fail(ErrorCode::DType,
         std::string(name(op)) + " takes floating-point inputs, got " + std::string(name(t)));
  }
  return result(t, broadcast3(*in[0], *in[1], *in[2]));
}

std::vector<TensorType> infer_activation(Op op, Inputs in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  DType t = x.dtype;
  if (op == Op::prelu) {
    check_prelu_weight(x, *in[1]);
    t = promote(t, in[1]->dtype);
  }
  if (!is_floating(t)) t = kDefaultFloat;
  if (op == Op::glu) {
    if (x.rank() == 0) fail(ErrorCode::Shape, "glu needs a tensor of rank >= 1");
    const int64_t axis = normalize_axis(attrs.get_int(Attr::axis, -1), x.rank());
    if (x.shape[axis] % 2 != 0) {
      fail(ErrorCode::Shape, "glu halves axis " + std::to_string(axis) + " of " +
                                 to_string(x.shape) + ", which has an odd size");
    }
    Shape shape = x.shape;
    shape[axis] /= 2;
    return result(t, std::move(shape));
  }
  return result(t, x.shape);
}

std::vector<TensorType> infer_reduction_more(Op op, const TensorType& x, const Attrs& attrs) {
  if (op == Op::amax || op == Op::amin) {
    return infer_reduction(op == Op::amax ? Op::max : Op::min, x, attrs);
  }
  std::vector<TensorType> out = infer_reduction(Op::sum, x, attrs);  // axes checks and shape
  DType t = x.dtype;
  switch (op) {
    case Op::all:
    case Op::any:
      t = DType::Bool;
      break;
    case Op::count_nonzero:
      t = DType::Int64;
      break;
    case Op::nansum:
      if (!is_floating(t)) t = kDefaultInt;
      break;
    case Op::logsumexp:
      if (!is_floating(t)) t = kDefaultFloat;
      break;
    default:  // nanmean, std, norm
      require_floating(op, t);
      break;
  }
  if (op == Op::norm) {
    const double p = attrs.get_float(Attr::ord, 2.0);
    if (std::isnan(p)) fail(ErrorCode::Shape, "norm's ord is NaN");
    const AxisMask mask = reduction_axes(attrs, x.rank());
    for (int64_t d = 0; std::isinf(p) && d < x.rank(); ++d) {
      if (has_axis(mask, d) && x.shape[d] == 0) {
        fail(ErrorCode::Shape, "norm with ord " + std::string(p > 0 ? "inf" : "-inf") +
                                   " over axis " + std::to_string(d) + " of size 0 in shape " +
                                   to_string(x.shape) + " has no identity");
      }
    }
  }
  out[0].dtype = t;
  return out;
}

std::vector<TensorType> infer_scan(Op op, const TensorType& x, const Attrs& attrs) {
  if (x.rank() == 0) fail(ErrorCode::Shape, std::string(name(op)) + " needs a tensor of rank >= 1");
  normalize_axis(attrs.get_int(Attr::axis), x.rank());
  DType t = x.dtype;
  if (!is_floating(t)) t = op == Op::logcumsumexp ? kDefaultFloat : kDefaultInt;
  return result(t, x.shape);
}

}  // namespace tensord::ir::detail
