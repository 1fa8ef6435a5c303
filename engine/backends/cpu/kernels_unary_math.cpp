// The one-input math ops of issue 4 (exp2 ... signbit): float functions from libm, square and
// trunc, and the float-class predicates. The ops of the first op set are in kernels_unary.cpp.
#include <cmath>

#include "engine/backends/cpu/elementwise.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/vector_math.h"

namespace tensord::cpu {
namespace {

using ir::Op;

// Float-only functions; C is float or double (float16/bfloat16 compute in float). Whole
// blocks go through libmvec (vector_math.h), single values through libm.
#define TENSORD_LIBM_OP(Name, fn)                   \
  struct Name {                                     \
    template <typename C>                           \
    C operator()(C x) const {                       \
      return std::fn(x);                            \
    }                                               \
    template <typename C>                           \
    void block(const C* x, C* y, int64_t n) const { \
      vmath::fn(x, y, n);                           \
    }                                               \
  };
TENSORD_LIBM_OP(Exp2, exp2)
TENSORD_LIBM_OP(Expm1, expm1)
TENSORD_LIBM_OP(Log2, log2)
TENSORD_LIBM_OP(Log10, log10)
TENSORD_LIBM_OP(Log1p, log1p)
TENSORD_LIBM_OP(Tan, tan)
TENSORD_LIBM_OP(Asin, asin)
TENSORD_LIBM_OP(Acos, acos)
TENSORD_LIBM_OP(Atan, atan)
TENSORD_LIBM_OP(Sinh, sinh)
TENSORD_LIBM_OP(Cosh, cosh)
TENSORD_LIBM_OP(Asinh, asinh)
TENSORD_LIBM_OP(Acosh, acosh)
TENSORD_LIBM_OP(Atanh, atanh)
TENSORD_LIBM_OP(Erfc, erfc)
#undef TENSORD_LIBM_OP
struct Trunc {
  template <typename C>
  C operator()(C x) const {
    return std::trunc(x);
  }
};

struct Frac {  // x - trunc(x): exact; frac(+-inf) = NaN
  template <typename C>
  C operator()(C x) const {
    return x - std::trunc(x);
  }
};
struct Reciprocal {
  template <typename C>
  C operator()(C x) const {
    return C(1) / x;
  }
};
struct Square {
  template <typename C>
  C operator()(C x) const {
    if constexpr (kIsInt<C>)
      return static_cast<C>(static_cast<WrapT<C>>(x) * static_cast<WrapT<C>>(x));
    else
      return x * x;
  }
};

struct BitNot {  // logical not for bool
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, bool>)
      return !x;
    else
      return static_cast<C>(~x);
  }
};

// Predicates on any dtype; integers and bool are never NaN or infinite.
struct IsNan {
  template <typename C>
  bool operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return std::isnan(x);
    else
      return false;
  }
};
struct IsInf {
  template <typename C>
  bool operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return std::isinf(x);
    else
      return false;
  }
};
struct IsFinite {
  template <typename C>
  bool operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return std::isfinite(x);
    else
      return true;
  }
};
struct SignBit {  // true for -0.0 and negative NaNs too
  template <typename C>
  bool operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>)
      return std::signbit(x);
    else if constexpr (std::is_signed_v<C>)
      return x < 0;
    else
      return false;
  }
};

// ops: output, input.
template <typename In, typename Out, typename F>
void apply(const KernelContext& ctx, std::span<const Operand> ops, F f) {
  launch(ctx.threads, ops,
         [f](char* const* p, const int64_t* s, int64_t n) { unary_row<In, Out>(p, s, n, f); });
}

template <typename T>
void run_predicate(const KernelContext& ctx, Op op, std::span<const Operand> ops) {
  auto go = [&](auto f) { apply<T, bool>(ctx, ops, f); };
  switch (op) {
    case Op::isnan:
      return go(IsNan{});
    case Op::isinf:
      return go(IsInf{});
    case Op::isfinite:
      return go(IsFinite{});
    case Op::signbit:
      return go(SignBit{});
    default:
      throw_unsupported(op, dtype_of<T>());
  }
}

template <typename T>
void run_same_type(const KernelContext& ctx, Op op, std::span<const Operand> ops) {
  auto go = [&](auto f) { apply<T, T>(ctx, ops, f); };
  if constexpr (kIsFloat<T>) {
    switch (op) {
      case Op::exp2:
        return go(Exp2{});
      case Op::expm1:
        return go(Expm1{});
      case Op::log2:
        return go(Log2{});
      case Op::log10:
        return go(Log10{});
      case Op::log1p:
        return go(Log1p{});
      case Op::tan:
        return go(Tan{});
      case Op::asin:
        return go(Asin{});
      case Op::acos:
        return go(Acos{});
      case Op::atan:
        return go(Atan{});
      case Op::sinh:
        return go(Sinh{});
      case Op::cosh:
        return go(Cosh{});
      case Op::asinh:
        return go(Asinh{});
      case Op::acosh:
        return go(Acosh{});
      case Op::atanh:
        return go(Atanh{});
      case Op::erfc:
        return go(Erfc{});
      case Op::reciprocal:
        return go(Reciprocal{});
      case Op::frac:
        return go(Frac{});
      case Op::square:
        return go(Square{});
      case Op::trunc:
        return go(Trunc{});
      default:
        break;
    }
  } else {
    if (op == Op::bitwise_not) return go(BitNot{});
  }
  if constexpr (kIsInt<T>) {
    switch (op) {
      case Op::square:
        return go(Square{});
      case Op::trunc:
        return copy_into(ctx, ops[1], ops[0]);
      default:
        break;
    }
  }
  throw_unsupported(op, dtype_of<T>());
}

}  // namespace

bool is_unary_math(Op op) {
  switch (op) {
    case Op::exp2:
    case Op::expm1:
    case Op::log2:
    case Op::log10:
    case Op::log1p:
    case Op::tan:
    case Op::asin:
    case Op::acos:
    case Op::atan:
    case Op::sinh:
    case Op::cosh:
    case Op::asinh:
    case Op::acosh:
    case Op::atanh:
    case Op::erfc:
    case Op::reciprocal:
    case Op::frac:
    case Op::square:
    case Op::trunc:
    case Op::isnan:
    case Op::isinf:
    case Op::isfinite:
    case Op::signbit:
    case Op::bitwise_not:
      return true;
    default:
      return false;
  }
}

void run_unary_math(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
                    const TensorValue& out) {
  const Op op = node.op;
  if (op == Op::isnan || op == Op::isinf || op == Op::isfinite || op == Op::signbit) {
    Operand ops[2] = {operand_of(out), operand_of(in)};
    return visit_dtype(in.type.dtype,
                       [&]<typename T>(TypeTag<T>) { run_predicate<T>(ctx, op, ops); });
  }
  // Float functions of integer or bool inputs compute in the (float) output dtype.
  TensorValue keep;
  Operand ops[2] = {operand_of(out), operand_as(ctx, in, out.type.dtype, keep)};
  visit_dtype(out.type.dtype, [&]<typename T>(TypeTag<T>) { run_same_type<T>(ctx, op, ops); });
}

}  // namespace tensord::cpu
