// Linear algebra and neural-network ops.
#include "client/cpp/src/recorder.h"
#include "tensord/ops.h"
#include "tensord/session.h"

namespace tensord {

using detail::record;
using ir::Attr;
using ir::Op;

Tensor matmul(const Tensor& a, const Tensor& b, Loc loc) {
  return record(Op::matmul, {&a, &b}, {}, loc);
}
Tensor softmax(const Tensor& x, int64_t axis, Loc loc) {
  return record(Op::softmax, {&x}, {{Attr::axis, axis}}, loc);
}
Tensor log_softmax(const Tensor& x, int64_t axis, Loc loc) {
  return record(Op::log_softmax, {&x}, {{Attr::axis, axis}}, loc);
}

Tensor layer_norm(const Tensor& x, int64_t normalized_ndim, const Tensor& weight,
                  const Tensor& bias, double eps, Loc loc) {
  ir::Attrs attrs{{Attr::normalized_ndim, normalized_ndim}, {Attr::eps, eps}};
  if (!weight.defined() && !bias.defined()) return record(Op::layer_norm, {&x}, attrs, loc);
  if (weight.defined() && !bias.defined()) {
    return record(Op::layer_norm, {&x, &weight}, attrs, loc);
  }
  if (weight.defined()) return record(Op::layer_norm, {&x, &weight, &bias}, attrs, loc);
  // The op's inputs are positional (x, weight, bias): a bias alone needs a weight of ones.
  const auto& b = detail::TensorAccess::node(bias, loc);
  Tensor ones = detail::record_creation(
      b->session, Op::ones, {{Attr::shape, b->type.shape}, {Attr::dtype, b->type.dtype}}, loc);
  return record(Op::layer_norm, {&x, &ones, &bias}, attrs, loc);
}

}  // namespace tensord
