// The special functions of issue 4 (docs/ops.md).
#include <array>

#include "client/cpp/src/recorder.h"
#include "tensord/ops.h"

namespace tensord {

using detail::record;
using ir::Op;

Tensor lgamma(const Tensor& x, Loc loc) {
  return record(Op::lgamma, {&x}, {}, loc);
}
Tensor digamma(const Tensor& x, Loc loc) {
  return record(Op::digamma, {&x}, {}, loc);
}
Tensor erfinv(const Tensor& x, Loc loc) {
  return record(Op::erfinv, {&x}, {}, loc);
}
Tensor erfcx(const Tensor& x, Loc loc) {
  return record(Op::erfcx, {&x}, {}, loc);
}
Tensor i0(const Tensor& x, Loc loc) {
  return record(Op::i0, {&x}, {}, loc);
}
Tensor i0e(const Tensor& x, Loc loc) {
  return record(Op::i0e, {&x}, {}, loc);
}
Tensor i1(const Tensor& x, Loc loc) {
  return record(Op::i1, {&x}, {}, loc);
}
Tensor i1e(const Tensor& x, Loc loc) {
  return record(Op::i1e, {&x}, {}, loc);
}
Tensor ndtr(const Tensor& x, Loc loc) {
  return record(Op::ndtr, {&x}, {}, loc);
}
Tensor ndtri(const Tensor& x, Loc loc) {
  return record(Op::ndtri, {&x}, {}, loc);
}
Tensor log_ndtr(const Tensor& x, Loc loc) {
  return record(Op::log_ndtr, {&x}, {}, loc);
}
Tensor sinc(const Tensor& x, Loc loc) {
  return record(Op::sinc, {&x}, {}, loc);
}
Tensor entr(const Tensor& x, Loc loc) {
  return record(Op::entr, {&x}, {}, loc);
}
Tensor logit(const Tensor& x, Loc loc) {
  return record(Op::logit, {&x}, {}, loc);
}
Tensor expit(const Tensor& x, Loc loc) {
  return record(Op::expit, {&x}, {}, loc);
}
Tensor xlogy(const Operand& x, const Operand& y, Loc loc) {
  std::array<const Operand*, 2> operands{&x, &y};
  return detail::record_elementwise(Op::xlogy, operands, nullptr, loc);
}
Tensor xlog1py(const Operand& x, const Operand& y, Loc loc) {
  std::array<const Operand*, 2> operands{&x, &y};
  return detail::record_elementwise(Op::xlog1py, operands, nullptr, loc);
}

}  // namespace tensord
