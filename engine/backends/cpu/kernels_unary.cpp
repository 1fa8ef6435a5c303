// Unary elementwise ops (cast lives in kernels_cast.cpp).
#include <cmath>

#include "engine/backends/cpu/elementwise.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/vector_math.h"
#include "engine/backends/cpu/kernels_complex.h"

namespace tensord::cpu {
namespace {

using ir::Op;

struct Neg {
  template <typename C>
  C operator()(C x) const {
    if constexpr (kIsInt<C>)
      return static_cast<C>(WrapT<C>(0) - static_cast<WrapT<C>>(x));
    else
      return -x;
  }
};
struct Abs {
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>)
      return x;
    else if constexpr (kIsInt<C>)
      return x < 0 ? Neg{}(x) : x;
    else
      return std::fabs(x);
  }
};
struct Relu {
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>)
      return x;
    else
      return x > 0 || x != x ? x : C(0);  // relu(NaN) = NaN
  }
};
struct Sign {
  template <typename C>
  C operator()(C x) const {
    if constexpr (kIsInt<C>)
      return static_cast<C>((x > 0) - (x < 0));
    else
      return x > 0 ? C(1) : x < 0 ? C(-1) : x == 0 ? C(0) : x;  // +0 for -0, NaN stays
  }
};
struct LogicalNot {
  template <typename C>
  bool operator()(C x) const {
    return x == C(0);
  }
};

// Float-only ops; C is float or double.
struct Exp {
  template <typename C>
  C operator()(C x) const {
    return std::exp(x);
  }
  template <typename C>
  void block(const C* x, C* y, int64_t n) const {
    vmath::exp(x, y, n);
  }
};
struct Log {
  template <typename C>
  C operator()(C x) const {
    return std::log(x);
  }
  template <typename C>
  void block(const C* x, C* y, int64_t n) const {
    vmath::log(x, y, n);
  }
};
struct Sqrt {
  template <typename C>
  C operator()(C x) const {
    return std::sqrt(x);
  }
};
struct Rsqrt {
  template <typename C>
  C operator()(C x) const {
    return C(1) / std::sqrt(x);
  }
};
struct Sin {
  template <typename C>
  C operator()(C x) const {
    return std::sin(x);
  }
  template <typename C>
  void block(const C* x, C* y, int64_t n) const {
    vmath::sin(x, y, n);
  }
};
struct Cos {
  template <typename C>
  C operator()(C x) const {
    return std::cos(x);
  }
  template <typename C>
  void block(const C* x, C* y, int64_t n) const {
    vmath::cos(x, y, n);
  }
};
struct Tanh {
  template <typename C>
  C operator()(C x) const {
    return std::tanh(x);
  }
  template <typename C>
  void block(const C* x, C* y, int64_t n) const {
    vmath::tanh(x, y, n);
  }
};
struct Sigmoid {
  template <typename C>
  C operator()(C x) const {
    return C(1) / (C(1) + std::exp(-x));
  }
  template <typename C>
  void block(const C* x, C* y, int64_t n) const {
    vmath::sigmoid(x, y, n);
  }
};
struct Erf {
  template <typename C>
  C operator()(C x) const {
    return std::erf(x);
  }
  template <typename C>
  void block(const C* x, C* y, int64_t n) const {
    vmath::erf(x, y, n);
  }
};
struct Floor {
  template <typename C>
  C operator()(C x) const {
    return std::floor(x);
  }
};
struct Ceil {
  template <typename C>
  C operator()(C x) const {
    return std::ceil(x);
  }
};
struct Round {
  template <typename C>
  C operator()(C x) const {
    return std::nearbyint(x);
  }  // half to even
};

// ops: output, input.
template <typename In, typename Out, typename F>
void apply(const KernelContext& ctx, std::span<const Operand> ops, F f) {
  launch(ctx.threads, ops,
         [f](char* const* p, const int64_t* s, int64_t n) { unary_row<In, Out>(p, s, n, f); });
}

template <typename T>
void run_same_type(const KernelContext& ctx, Op op, std::span<const Operand> ops) {
  auto go = [&](auto f) { apply<T, T>(ctx, ops, f); };
  if constexpr (!std::is_same_v<T, bool>) {
    switch (op) {
      case Op::neg:
        return go(Neg{});
      case Op::abs:
        return go(Abs{});
      case Op::relu:
        return go(Relu{});
      case Op::sign:
        return go(Sign{});
      default:
        break;
    }
  }
  if constexpr (kIsFloat<T>) {
    switch (op) {
      case Op::exp:
        return go(Exp{});
      case Op::log:
        return go(Log{});
      case Op::sqrt:
        return go(Sqrt{});
      case Op::rsqrt:
        return go(Rsqrt{});
      case Op::sin:
        return go(Sin{});
      case Op::cos:
        return go(Cos{});
      case Op::tanh:
        return go(Tanh{});
      case Op::sigmoid:
        return go(Sigmoid{});
      case Op::erf:
        return go(Erf{});
      case Op::floor:
        return go(Floor{});
      case Op::ceil:
        return go(Ceil{});
      case Op::round:
        return go(Round{});
      default:
        break;
    }
  } else if constexpr (kIsInt<T>) {
    switch (op) {
      case Op::floor:
      case Op::ceil:
      case Op::round:
        return copy_into(ctx, ops[1], ops[0]);
      default:
        break;
    }
  }
  throw_unsupported(op, dtype_of<T>());
}

}  // namespace

void run_unary(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
               const TensorValue& out) {
  if (involves_complex(node, {&in, 1}, out)) return run_complex(ctx, node, {&in, 1}, out);
  if (node.op == Op::cast) return cast_into(ctx, operand_of(in), operand_of(out));
  if (is_unary_math(node.op)) return run_unary_math(ctx, node, in, out);
  if (is_special(node.op)) return run_special(ctx, node, {&in, 1}, out);
  if (node.op == Op::logical_not) {
    Operand ops[2] = {operand_of(out), operand_of(in)};
    return visit_dtype(in.type.dtype,
                       [&]<typename T>(TypeTag<T>) { apply<T, bool>(ctx, ops, LogicalNot{}); });
  }
  // Float ops on integer or bool inputs compute in the (float) output dtype.
  TensorValue keep;
  Operand ops[2] = {operand_of(out), operand_as(ctx, in, out.type.dtype, keep)};
  visit_dtype(out.type.dtype, [&]<typename T>(TypeTag<T>) { run_same_type<T>(ctx, node.op, ops); });
}

}  // namespace tensord::cpu
