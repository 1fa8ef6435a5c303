// The elementwise math ops of issue 4 (docs/ops.md).
#include <array>

#include "client/cpp/src/recorder.h"
#include "tensord/ops.h"

namespace tensord {

using detail::record;
using ir::Op;

namespace {

Tensor binary(Op op, const Operand& a, const Operand& b, Loc loc) {
  std::array<const Operand*, 2> operands{&a, &b};
  return detail::record_elementwise(op, operands, nullptr, loc);
}

}  // namespace

Tensor exp2(const Tensor& x, Loc loc) {
  return record(Op::exp2, {&x}, {}, loc);
}
Tensor expm1(const Tensor& x, Loc loc) {
  return record(Op::expm1, {&x}, {}, loc);
}
Tensor log2(const Tensor& x, Loc loc) {
  return record(Op::log2, {&x}, {}, loc);
}
Tensor log10(const Tensor& x, Loc loc) {
  return record(Op::log10, {&x}, {}, loc);
}
Tensor log1p(const Tensor& x, Loc loc) {
  return record(Op::log1p, {&x}, {}, loc);
}
Tensor tan(const Tensor& x, Loc loc) {
  return record(Op::tan, {&x}, {}, loc);
}
Tensor asin(const Tensor& x, Loc loc) {
  return record(Op::asin, {&x}, {}, loc);
}
Tensor acos(const Tensor& x, Loc loc) {
  return record(Op::acos, {&x}, {}, loc);
}
Tensor atan(const Tensor& x, Loc loc) {
  return record(Op::atan, {&x}, {}, loc);
}
Tensor sinh(const Tensor& x, Loc loc) {
  return record(Op::sinh, {&x}, {}, loc);
}
Tensor cosh(const Tensor& x, Loc loc) {
  return record(Op::cosh, {&x}, {}, loc);
}
Tensor asinh(const Tensor& x, Loc loc) {
  return record(Op::asinh, {&x}, {}, loc);
}
Tensor acosh(const Tensor& x, Loc loc) {
  return record(Op::acosh, {&x}, {}, loc);
}
Tensor atanh(const Tensor& x, Loc loc) {
  return record(Op::atanh, {&x}, {}, loc);
}
Tensor erfc(const Tensor& x, Loc loc) {
  return record(Op::erfc, {&x}, {}, loc);
}
Tensor reciprocal(const Tensor& x, Loc loc) {
  return record(Op::reciprocal, {&x}, {}, loc);
}
Tensor square(const Tensor& x, Loc loc) {
  return record(Op::square, {&x}, {}, loc);
}
Tensor trunc(const Tensor& x, Loc loc) {
  return record(Op::trunc, {&x}, {}, loc);
}
Tensor isnan(const Tensor& x, Loc loc) {
  return record(Op::isnan, {&x}, {}, loc);
}
Tensor isinf(const Tensor& x, Loc loc) {
  return record(Op::isinf, {&x}, {}, loc);
}
Tensor isfinite(const Tensor& x, Loc loc) {
  return record(Op::isfinite, {&x}, {}, loc);
}
Tensor signbit(const Tensor& x, Loc loc) {
  return record(Op::signbit, {&x}, {}, loc);
}
Tensor nan_to_num(const Tensor& x, double nan, std::optional<double> posinf,
                  std::optional<double> neginf, Loc loc) {
  ir::Attrs attrs{{ir::Attr::value, nan}};
  if (posinf) attrs.set(ir::Attr::max, *posinf);
  if (neginf) attrs.set(ir::Attr::min, *neginf);
  return record(Op::nan_to_num, {&x}, std::move(attrs), loc);
}
Tensor frac(const Tensor& x, Loc loc) {
  return record(Op::frac, {&x}, {}, loc);
}
Tensor bitwise_not(const Tensor& x, Loc loc) {
  return record(Op::bitwise_not, {&x}, {}, loc);
}
Tensor atan2(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::atan2, a, b, loc);
}
Tensor hypot(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::hypot, a, b, loc);
}
Tensor logaddexp(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::logaddexp, a, b, loc);
}
Tensor logaddexp2(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::logaddexp2, a, b, loc);
}
Tensor copysign(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::copysign, a, b, loc);
}
Tensor fmod(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::fmod, a, b, loc);
}
Tensor remainder(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::remainder, a, b, loc);
}
Tensor floor_divide(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::floor_divide, a, b, loc);
}
Tensor bitwise_and(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::bitwise_and, a, b, loc);
}
Tensor bitwise_or(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::bitwise_or, a, b, loc);
}
Tensor bitwise_xor(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::bitwise_xor, a, b, loc);
}
Tensor bitwise_left_shift(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::bitwise_left_shift, a, b, loc);
}
Tensor bitwise_right_shift(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::bitwise_right_shift, a, b, loc);
}
Tensor gcd(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::gcd, a, b, loc);
}
Tensor lcm(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::lcm, a, b, loc);
}

Tensor nextafter(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::nextafter, a, b, loc);
}
Tensor lerp(const Operand& a, const Operand& b, const Operand& weight, Loc loc) {
  std::array<const Operand*, 3> operands{&a, &b, &weight};
  return detail::record_elementwise(Op::lerp, operands, nullptr, loc);
}
Tensor addcmul(const Tensor& x, const Tensor& t1, const Tensor& t2, Scalar value, Loc loc) {
  return record(Op::addcmul, {&x, &t1, &t2}, {{ir::Attr::value, detail::attr_value(value)}}, loc);
}
Tensor addcdiv(const Tensor& x, const Tensor& t1, const Tensor& t2, Scalar value, Loc loc) {
  return record(Op::addcdiv, {&x, &t1, &t2}, {{ir::Attr::value, detail::attr_value(value)}}, loc);
}

}  // namespace tensord
