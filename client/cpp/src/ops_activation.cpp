// The activations of issue 4 (docs/ops.md); each records one composite node.
#include "client/cpp/src/recorder.h"
#include "tensord/ops.h"

namespace tensord {

using detail::record;
using ir::Attr;
using ir::Op;

Tensor elu(const Tensor& x, double alpha, Loc loc) {
  return record(Op::elu, {&x}, {{Attr::alpha, alpha}}, loc);
}
Tensor celu(const Tensor& x, double alpha, Loc loc) {
  return record(Op::celu, {&x}, {{Attr::alpha, alpha}}, loc);
}
Tensor selu(const Tensor& x, Loc loc) {
  return record(Op::selu, {&x}, {}, loc);
}
Tensor leaky_relu(const Tensor& x, double negative_slope, Loc loc) {
  return record(Op::leaky_relu, {&x}, {{Attr::negative_slope, negative_slope}}, loc);
}
Tensor hardtanh(const Tensor& x, double min_val, double max_val, Loc loc) {
  return record(Op::hardtanh, {&x}, {{Attr::min, min_val}, {Attr::max, max_val}}, loc);
}
Tensor hardsigmoid(const Tensor& x, Loc loc) {
  return record(Op::hardsigmoid, {&x}, {}, loc);
}
Tensor hardswish(const Tensor& x, Loc loc) {
  return record(Op::hardswish, {&x}, {}, loc);
}
Tensor softplus(const Tensor& x, double beta, double threshold, Loc loc) {
  return record(Op::softplus, {&x}, {{Attr::beta, beta}, {Attr::threshold, threshold}}, loc);
}
Tensor softsign(const Tensor& x, Loc loc) {
  return record(Op::softsign, {&x}, {}, loc);
}
Tensor mish(const Tensor& x, Loc loc) {
  return record(Op::mish, {&x}, {}, loc);
}
Tensor prelu(const Tensor& x, const Tensor& weight, Loc loc) {
  return record(Op::prelu, {&x, &weight}, {}, loc);
}
Tensor glu(const Tensor& x, int64_t axis, Loc loc) {
  return record(Op::glu, {&x}, {{Attr::axis, axis}}, loc);
}

}  // namespace tensord
