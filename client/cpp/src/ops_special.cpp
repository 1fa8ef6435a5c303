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

// issue 4: more special functions
Tensor polygamma(int64_t n, const Tensor& x, Loc loc) {
  return record(Op::polygamma, {&x}, {{ir::Attr::n, n}}, loc);
}
Tensor multigammaln(const Tensor& x, int64_t p, Loc loc) {
  return record(Op::multigammaln, {&x}, {{ir::Attr::p, p}}, loc);
}
Tensor gammainc(const Operand& a, const Operand& x, Loc loc) {
  std::array<const Operand*, 2> operands{&a, &x};
  return detail::record_elementwise(Op::gammainc, operands, nullptr, loc);
}
Tensor gammaincc(const Operand& a, const Operand& x, Loc loc) {
  std::array<const Operand*, 2> operands{&a, &x};
  return detail::record_elementwise(Op::gammaincc, operands, nullptr, loc);
}
Tensor bessel_j0(const Tensor& x, Loc loc) {
  return record(Op::bessel_j0, {&x}, {}, loc);
}
Tensor bessel_j1(const Tensor& x, Loc loc) {
  return record(Op::bessel_j1, {&x}, {}, loc);
}
Tensor zeta(const Operand& x, const Operand& q, Loc loc) {
  std::array<const Operand*, 2> operands{&x, &q};
  return detail::record_elementwise(Op::zeta, operands, nullptr, loc);
}
Tensor logit(const Tensor& x, double eps, Loc loc) {
  return record(Op::logit, {&x}, {{ir::Attr::eps, eps}}, loc);
}

}  // namespace tensord
