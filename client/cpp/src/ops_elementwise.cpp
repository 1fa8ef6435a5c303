// Elementwise ops and operators.
#include <array>

#include "client/cpp/src/recorder.h"
#include "tensord/ops.h"

namespace tensord {
namespace {

using detail::record;
using ir::Op;

Tensor unary(Op op, const Tensor& x, Loc loc, ir::Attrs attrs = {}) {
  return record(op, {&x}, std::move(attrs), loc);
}

Tensor binary(Op op, const Operand& a, const Operand& b, Loc loc) {
  std::array<const Operand*, 2> operands{&a, &b};
  return detail::record_elementwise(op, operands, nullptr, loc);
}

}  // namespace

Tensor cast(const Tensor& x, ir::DType dtype, Loc loc) {
  return unary(Op::cast, x, loc, {{ir::Attr::dtype, dtype}});
}
Tensor astype(const Tensor& x, ir::DType dtype, Loc loc) {
  return cast(x, dtype, loc);
}
Tensor neg(const Tensor& x, Loc loc) {
  return unary(Op::neg, x, loc);
}
Tensor abs(const Tensor& x, Loc loc) {
  return unary(Op::abs, x, loc);
}
Tensor exp(const Tensor& x, Loc loc) {
  return unary(Op::exp, x, loc);
}
Tensor log(const Tensor& x, Loc loc) {
  return unary(Op::log, x, loc);
}
Tensor sqrt(const Tensor& x, Loc loc) {
  return unary(Op::sqrt, x, loc);
}
Tensor rsqrt(const Tensor& x, Loc loc) {
  return unary(Op::rsqrt, x, loc);
}
Tensor sin(const Tensor& x, Loc loc) {
  return unary(Op::sin, x, loc);
}
Tensor cos(const Tensor& x, Loc loc) {
  return unary(Op::cos, x, loc);
}
Tensor tanh(const Tensor& x, Loc loc) {
  return unary(Op::tanh, x, loc);
}
Tensor sigmoid(const Tensor& x, Loc loc) {
  return unary(Op::sigmoid, x, loc);
}
Tensor relu(const Tensor& x, Loc loc) {
  return unary(Op::relu, x, loc);
}
Tensor erf(const Tensor& x, Loc loc) {
  return unary(Op::erf, x, loc);
}
Tensor floor(const Tensor& x, Loc loc) {
  return unary(Op::floor, x, loc);
}
Tensor ceil(const Tensor& x, Loc loc) {
  return unary(Op::ceil, x, loc);
}
Tensor round(const Tensor& x, Loc loc) {
  return unary(Op::round, x, loc);
}
Tensor sign(const Tensor& x, Loc loc) {
  return unary(Op::sign, x, loc);
}
Tensor logical_not(const Tensor& x, Loc loc) {
  return unary(Op::logical_not, x, loc);
}
Tensor gelu(const Tensor& x, bool tanh_approximation, Loc loc) {
  return unary(Op::gelu, x, loc, {{ir::Attr::tanh, tanh_approximation}});
}
Tensor silu(const Tensor& x, Loc loc) {
  return unary(Op::silu, x, loc);
}
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max, Loc loc) {
  ir::Attrs attrs;
  if (min) attrs.set(ir::Attr::min, detail::attr_value(*min));
  if (max) attrs.set(ir::Attr::max, detail::attr_value(*max));
  return unary(Op::clamp, x, loc, std::move(attrs));
}

Tensor add(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::add, a, b, loc);
}
Tensor sub(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::sub, a, b, loc);
}
Tensor mul(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::mul, a, b, loc);
}
Tensor div(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::div, a, b, loc);
}
Tensor pow(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::pow, a, b, loc);
}
Tensor maximum(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::maximum, a, b, loc);
}
Tensor minimum(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::minimum, a, b, loc);
}
Tensor eq(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::eq, a, b, loc);
}
Tensor ne(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::ne, a, b, loc);
}
Tensor lt(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::lt, a, b, loc);
}
Tensor le(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::le, a, b, loc);
}
Tensor gt(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::gt, a, b, loc);
}
Tensor ge(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::ge, a, b, loc);
}
Tensor logical_and(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::logical_and, a, b, loc);
}
Tensor logical_or(const Operand& a, const Operand& b, Loc loc) {
  return binary(Op::logical_or, a, b, loc);
}
Tensor where(const Tensor& cond, const Operand& a, const Operand& b, Loc loc) {
  std::array<const Operand*, 2> operands{&a, &b};
  return detail::record_elementwise(Op::where, operands, &cond, loc);
}

// The Operand's line is the expression's; a Tensor on the left converts to an Operand at the
// same line, so both sides report the same place.
#define TENSORD_BINARY_OPERATOR(sym, op)                                               \
  Tensor operator sym(const Tensor& a, const Operand& b) {                             \
    return binary(Op::op, Operand(a, b.loc()), b, b.loc());                            \
  }                                                                                    \
  Tensor operator sym(const ScalarOperand& a, const Tensor& b) {                       \
    return binary(Op::op, Operand(a.scalar(), a.loc()), Operand(b, a.loc()), a.loc()); \
  }
TENSORD_BINARY_OPERATOR(+, add)
TENSORD_BINARY_OPERATOR(-, sub)
TENSORD_BINARY_OPERATOR(*, mul)
TENSORD_BINARY_OPERATOR(/, div)
TENSORD_BINARY_OPERATOR(==, eq)
TENSORD_BINARY_OPERATOR(!=, ne)
TENSORD_BINARY_OPERATOR(<, lt)
TENSORD_BINARY_OPERATOR(<=, le)
TENSORD_BINARY_OPERATOR(>, gt)
TENSORD_BINARY_OPERATOR(>=, ge)
#undef TENSORD_BINARY_OPERATOR

Tensor operator-(const Operand& x) {
  if (!x.tensor()) {
    throw Error(ErrorCode::InvalidGraph, "unary minus of a number records nothing", std::nullopt,
                "neg", detail::where(x.loc()));
  }
  return neg(*x.tensor(), x.loc());
}

}  // namespace tensord
