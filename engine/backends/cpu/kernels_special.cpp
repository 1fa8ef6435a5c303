// The special functions of issue 4 (docs/ops.md): lgamma ... logit and xlogy, xlog1py. Every
// dtype is evaluated in float64 by special_functions.h and rounded once to the output dtype
// (these functions are not libm's vectorized ones anyway, and float32 intermediates would
// overflow: erfcx(10) needs exp(100)).
#include "engine/backends/cpu/elementwise.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/special_blocks.h"
#include "engine/backends/cpu/special_functions.h"
#include "engine/backends/cpu/vector_math.h"

namespace tensord::cpu {
namespace {

using ir::Op;

template <double (*F)(double)>
struct Unary {
  template <typename C>
  C operator()(C x) const {
    return static_cast<C>(F(static_cast<double>(x)));
  }
};

// A two-argument float64 function with a block form (special_blocks.h) over blocks of any float
// type.
template <double (*F)(double, double),
          void (*Block)(const double*, const double*, double*, int64_t)>
struct BinaryBlock {
  template <typename C>
  C operator()(C x, C y) const {
    return static_cast<C>(F(static_cast<double>(x), static_cast<double>(y)));
  }
  template <typename C>
  void block(const C* x, const C* y, C* z, int64_t n) const {
    double a[kBlock], b[kBlock], out[kBlock];
    for (int64_t i = 0; i < n; i += kBlock) {
      const int64_t m = std::min(kBlock, n - i);
      for (int64_t k = 0; k < m; ++k) a[k] = static_cast<double>(x[i + k]);
      for (int64_t k = 0; k < m; ++k) b[k] = static_cast<double>(y[i + k]);
      Block(a, b, out, m);
      for (int64_t k = 0; k < m; ++k) z[i + k] = static_cast<C>(out[k]);
    }
  }
};

// sinc a block at a time: the exact reduction r = x - 2 rint(x / 2) vectorizes and sin(pi r)
// goes through libmvec's float64 sin (a libm sin per element was 100x slower than NumPy).
// Equal to special::sinc element for element up to libmvec's last ulp or two.
struct Sinc {
  template <typename C>
  C operator()(C x) const {
    return static_cast<C>(special::sinc(static_cast<double>(x)));
  }
  template <typename C>
  void block(const C* x, C* y, int64_t n) const {
    double r[kBlock];
    for (int64_t i = 0; i < n; i += kBlock) {
      const int64_t m = std::min(kBlock, n - i);
      for (int64_t k = 0; k < m; ++k) {
        const double v = x[i + k];
        r[k] = special::kPi * (v - 2 * std::rint(v / 2));
      }
      vmath::sin(r, r, m);
      for (int64_t k = 0; k < m; ++k) {
        const double v = x[i + k];
        const double q = v == 0 ? 1.0 : std::isinf(v) ? 0.0 : r[k] / (special::kPi * v);
        y[i + k] = static_cast<C>(q);
      }
    }
  }
};

// A float64 function with a block form (special_blocks.h) over blocks of any float type.
template <double (*F)(double), void (*Block)(const double*, double*, int64_t)>
struct BlockUnary {
  template <typename C>
  C operator()(C x) const {
    return static_cast<C>(F(static_cast<double>(x)));
  }
  template <typename C>
  void block(const C* x, C* y, int64_t n) const {
    double in[kBlock], out[kBlock];
    for (int64_t i = 0; i < n; i += kBlock) {
      const int64_t m = std::min(kBlock, n - i);
      for (int64_t k = 0; k < m; ++k) in[k] = static_cast<double>(x[i + k]);
      Block(in, out, m);
      for (int64_t k = 0; k < m; ++k) y[i + k] = static_cast<C>(out[k]);
    }
  }
};

double i0(double x) {
  return special::bessel_i(0, x);
}
double i1(double x) {
  return special::bessel_i(1, x);
}
double i0e(double x) {
  return special::bessel_i_scaled(0, x);
}
double i1e(double x) {
  return special::bessel_i_scaled(1, x);
}

template <typename T>
void run_unary_typed(const KernelContext& ctx, Op op, std::span<const Operand> ops) {
  auto go = [&](auto f) {
    launch(ctx.threads, ops,
           [f](char* const* p, const int64_t* s, int64_t n) { unary_row<T, T>(p, s, n, f); });
  };
  if constexpr (kIsFloat<T>) {
    switch (op) {
      case Op::lgamma:
        return go(Unary<special::lgamma>{});
      case Op::digamma:
        return go(BlockUnary<special::digamma, special::digamma_block>{});
      case Op::erfinv:
        return go(BlockUnary<special::erfinv, special::erfinv_block>{});
      case Op::erfcx:
        return go(Unary<special::erfcx>{});
      case Op::i0:
        return go(Unary<i0>{});
      case Op::i0e:
        return go(Unary<i0e>{});
      case Op::i1:
        return go(Unary<i1>{});
      case Op::i1e:
        return go(Unary<i1e>{});
      case Op::ndtr:
        return go(BlockUnary<special::ndtr, special::ndtr_block>{});
      case Op::ndtri:
        return go(BlockUnary<special::ndtri, special::ndtri_block>{});
      case Op::log_ndtr:
        return go(Unary<special::log_ndtr>{});
      case Op::sinc:
        return go(Sinc{});
      case Op::entr:
        return go(BlockUnary<special::entr, special::entr_block>{});
      case Op::logit:
        return go(BlockUnary<special::logit, special::logit_block>{});
      default:
        break;
    }
  }
  throw_unsupported(op, dtype_of<T>());
}

template <typename T>
void run_binary_typed(const KernelContext& ctx, Op op, std::span<const Operand> ops) {
  auto go = [&](auto f) {
    launch(ctx.threads, ops,
           [f](char* const* p, const int64_t* s, int64_t n) { binary_row<T, T>(p, s, n, f); });
  };
  if constexpr (kIsFloat<T>) {
    if (op == Op::xlogy) return go(BinaryBlock<special::xlogy, special::xlogy_block>{});
    if (op == Op::xlog1py) return go(BinaryBlock<special::xlog1py, special::xlog1py_block>{});
  }
  throw_unsupported(op, dtype_of<T>());
}

}  // namespace

bool is_special(Op op) {
  switch (op) {
    case Op::lgamma:
    case Op::digamma:
    case Op::erfinv:
    case Op::erfcx:
    case Op::i0:
    case Op::i0e:
    case Op::i1:
    case Op::i1e:
    case Op::ndtr:
    case Op::ndtri:
    case Op::log_ndtr:
    case Op::sinc:
    case Op::entr:
    case Op::logit:
    case Op::xlogy:
    case Op::xlog1py:
    // issue 4: more special functions (kernels_special_more.cpp)
    case Op::polygamma:
    case Op::multigammaln:
    case Op::bessel_j0:
    case Op::bessel_j1:
    case Op::gammainc:
    case Op::gammaincc:
    case Op::zeta:
      return true;
    default:
      return false;
  }
}

void run_special(const KernelContext& ctx, const ir::Node& node,
                 std::span<const TensorValue> inputs, const TensorValue& out) {
  if (is_special_more(node)) return run_special_more(ctx, node, inputs, out);
  const ir::DType t = out.type.dtype;
  TensorValue keep[2];
  if (inputs.size() == 1) {
    Operand ops[2] = {operand_of(out), operand_as(ctx, inputs[0], t, keep[0])};
    return visit_dtype(t, [&]<typename T>(TypeTag<T>) { run_unary_typed<T>(ctx, node.op, ops); });
  }
  Operand ops[3] = {operand_of(out), operand_as(ctx, inputs[0], t, keep[0]),
                    operand_as(ctx, inputs[1], t, keep[1])};
  visit_dtype(t, [&]<typename T>(TypeTag<T>) { run_binary_typed<T>(ctx, node.op, ops); });
}

}  // namespace tensord::cpu
