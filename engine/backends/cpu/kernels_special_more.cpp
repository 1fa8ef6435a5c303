// More special functions of issue 4 (docs/ops.md): polygamma, multigammaln, bessel_j0,
// bessel_j1, gammainc, gammaincc, zeta and logit with its eps clamp. As in kernels_special.cpp,
// every dtype is evaluated in float64 (special_functions_more.h) and rounded once.
#include "engine/backends/cpu/elementwise.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/special_functions_more.h"

namespace tensord::cpu {
namespace {

using ir::Attr;
using ir::Op;

// `v` rounded to T, as a double.
template <typename T>
double round_to(double v) {
  if constexpr (kIsHalf<T>)
    return static_cast<double>(static_cast<float>(T(static_cast<float>(v))));
  else
    return static_cast<double>(static_cast<T>(v));
}

template <typename T>
void run_unary_typed(const KernelContext& ctx, const ir::Node& node, std::span<const Operand> ops) {
  auto go = [&](auto f) {
    launch(ctx.threads, ops, [f](char* const* p, const int64_t* s, int64_t n) {
      unary_row<T, T>(p, s, n,
                      [f](auto x) { return static_cast<decltype(x)>(f(static_cast<double>(x))); });
    });
  };
  if constexpr (kIsFloat<T>) {
    switch (node.op) {
      case Op::polygamma: {
        const int64_t order = node.attrs.get_int(Attr::n);
        return go([order](double x) { return special::polygamma(order, x); });
      }
      case Op::multigammaln: {
        const int64_t p = node.attrs.get_int(Attr::p);
        return go([p](double x) { return special::multigammaln(x, p); });
      }
      case Op::bessel_j0:
        return go([](double x) { return special::bessel_j(0, x); });
      case Op::bessel_j1:
        return go([](double x) { return special::bessel_j(1, x); });
      case Op::logit: {
        // PyTorch: eps in the dtype, lo = eps and hi = 1 - eps computed in the dtype; a NaN eps
        // clamps nothing.
        const double lo = round_to<T>(node.attrs.get_float(Attr::eps));
        const double hi = round_to<T>(1 - lo);
        return go([lo, hi](double x) {
          const double z = x < lo ? lo : x > hi ? hi : x;
          return special::logit(z);
        });
      }
      default:
        break;
    }
  }
  throw_unsupported(node.op, dtype_of<T>());
}

template <typename T>
void run_binary_typed(const KernelContext& ctx, Op op, std::span<const Operand> ops) {
  auto go = [&](auto f) {
    launch(ctx.threads, ops, [f](char* const* p, const int64_t* s, int64_t n) {
      binary_row<T, T>(p, s, n, [f](auto x, auto y) {
        return static_cast<decltype(x)>(f(static_cast<double>(x), static_cast<double>(y)));
      });
    });
  };
  if constexpr (kIsFloat<T>) {
    switch (op) {
      case Op::gammainc:
        return go([](double a, double x) { return special::gammainc(a, x); });
      case Op::gammaincc:
        return go([](double a, double x) { return special::gammaincc(a, x); });
      case Op::zeta:
        return go([](double s, double q) { return special::zeta(s, q); });
      default:
        break;
    }
  }
  throw_unsupported(op, dtype_of<T>());
}

}  // namespace

bool is_special_more(const ir::Node& node) {
  switch (node.op) {
    case Op::polygamma:
    case Op::multigammaln:
    case Op::bessel_j0:
    case Op::bessel_j1:
    case Op::gammainc:
    case Op::gammaincc:
    case Op::zeta:
      return true;
    case Op::logit:
      return node.attrs.has(Attr::eps);
    default:
      return false;
  }
}

void run_special_more(const KernelContext& ctx, const ir::Node& node,
                      std::span<const TensorValue> inputs, const TensorValue& out) {
  const ir::DType t = out.type.dtype;
  TensorValue keep[2];
  if (inputs.size() == 1) {
    Operand ops[2] = {operand_of(out), operand_as(ctx, inputs[0], t, keep[0])};
    return visit_dtype(t, [&]<typename T>(TypeTag<T>) { run_unary_typed<T>(ctx, node, ops); });
  }
  Operand ops[3] = {operand_of(out), operand_as(ctx, inputs[0], t, keep[0]),
                    operand_as(ctx, inputs[1], t, keep[1])};
  visit_dtype(t, [&]<typename T>(TypeTag<T>) { run_binary_typed<T>(ctx, node.op, ops); });
}

}  // namespace tensord::cpu
