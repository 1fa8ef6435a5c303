// Inference of issue 4's composites: lerp, addcmul, addcdiv and the activations (docs/ops.md).
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

}  // namespace tensord::ir::detail
