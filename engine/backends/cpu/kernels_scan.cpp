// Scans along one axis: cumsum, cumprod, logcumsumexp (docs/ops.md). The input is first
// converted to the output dtype and made contiguous, then every line along the axis is scanned
// with a float64 accumulator for floats (as PyTorch's CPU kernels accumulate float32 in
// double), a complex<double> one for complex values (cumsum, cumprod) and a wrapping one for
// integers. Lines are split across threads.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "engine/backends/cpu/dispatch.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/parallel.h"

namespace tensord::cpu {
namespace {

using ir::Op;

template <typename T>
struct Accumulator {
  using type = std::conditional_t<kIsFloat<T>, double, uint64_t>;
};
template <typename R>
struct Accumulator<std::complex<R>> {
  using type = std::complex<double>;
};
template <typename T>
using AccT = typename Accumulator<T>::type;

template <typename A>
A step(Op op, A acc, A x) {
  if constexpr (std::is_floating_point_v<A>) {
    if (op == Op::cumsum) return acc + x;
    if (op == Op::cumprod) return acc * x;
    // logcumsumexp: log(exp(acc) + exp(x)), stable; equal infinities give themselves.
    if (std::isinf(acc) && acc == x) return acc;
    if (acc != acc || x != x) return acc + x;
    return std::max(acc, x) + std::log1p(std::exp(-std::fabs(acc - x)));
  } else if constexpr (std::is_same_v<A, std::complex<double>>) {
    if (op == Op::cumsum) return acc + x;
    // NumPy's product (and the CUDA scan's): no C99 Annex G recovery of infinities, which
    // makes std::complex's operator* a library call per step.
    return {acc.real() * x.real() - acc.imag() * x.imag(),
            acc.real() * x.imag() + acc.imag() * x.real()};
  } else {
    return op == Op::cumprod ? acc * x : acc + x;  // unsigned: wraps
  }
}

template <typename A>
A identity(Op op) {
  if (op == Op::cumprod) return A(1);
  if constexpr (std::is_floating_point_v<A>) {
    if (op == Op::logcumsumexp) return -std::numeric_limits<A>::infinity();
  }
  return A(0);
}

template <typename T>
AccT<T> load(T v) {
  if constexpr (kIsHalf<T>)
    return static_cast<float>(v);
  else
    return static_cast<AccT<T>>(v);
}
template <typename T>
T store(AccT<T> a) {
  if constexpr (kIsHalf<T>)
    return T(static_cast<float>(a));
  else
    return static_cast<T>(a);
}

// Lines: `outer` blocks of `n` steps of `inner` adjacent lines each.
template <typename T, Op kOp>
void scan_block(const ScratchSite& scratch, const T* in, T* out, int64_t n, int64_t inner,
                int64_t begin, int64_t end) {
  using A = AccT<T>;
  ScratchVector<A> acc(scratch, static_cast<size_t>(inner));
  for (int64_t o = begin; o < end; ++o) {
    const T* x = in + o * n * inner;
    T* y = out + o * n * inner;
    std::fill(acc.begin(), acc.end(), identity<A>(kOp));
    for (int64_t k = 0; k < n; ++k) {
      for (int64_t j = 0; j < inner; ++j) {
        acc[j] = step(kOp, acc[j], load(x[k * inner + j]));
        y[k * inner + j] = store<T>(acc[j]);
      }
    }
  }
}

template <typename T, Op kOp>
void scan(const KernelContext& ctx, const T* in, T* out, int64_t outer, int64_t n, int64_t inner) {
  const int64_t per_block = std::max<int64_t>(1, n * inner);
  parallel_for(
      outer, std::max<int64_t>(1, kParallelGrain / per_block), ctx.threads,
      [&](int64_t b, int64_t e) { scan_block<T, kOp>(ctx.scratch, in, out, n, inner, b, e); });
}

}  // namespace

bool is_scan(Op op) {
  return op == Op::cumsum || op == Op::cumprod || op == Op::logcumsumexp;
}

void run_scan(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
              const TensorValue& out) {
  const ir::Shape& shape = out.type.shape;
  const auto rank = static_cast<int64_t>(shape.size());
  const int64_t axis = ir::normalize_axis(node.attrs.get_int(ir::Attr::axis), rank);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= shape[d];
  if (outer * inner * shape[axis] == 0) return;
  TensorValue src = make_contiguous(ctx, cast_to(ctx, in, out.type.dtype));
  if (ir::is_complex(out.type.dtype)) {
    auto complex_scan = [&]<typename T>(TypeTag<T>) {
      const T* x = src.data<T>();
      T* y = out.data<T>();
      if (node.op == Op::cumsum) return scan<T, Op::cumsum>(ctx, x, y, outer, shape[axis], inner);
      if (node.op == Op::cumprod) return scan<T, Op::cumprod>(ctx, x, y, outer, shape[axis], inner);
      throw_unsupported(node.op, out.type.dtype);
    };
    if (out.type.dtype == ir::DType::Complex64) return complex_scan(TypeTag<std::complex<float>>{});
    return complex_scan(TypeTag<std::complex<double>>{});
  }
  visit_dtype(out.type.dtype, [&]<typename T>(TypeTag<T>) {
    if constexpr (std::is_same_v<T, bool>) {
      throw_unsupported(node.op, out.type.dtype);
    } else {
      const T* x = src.data<T>();
      T* y = out.data<T>();
      switch (node.op) {
        case Op::cumsum:
          return scan<T, Op::cumsum>(ctx, x, y, outer, shape[axis], inner);
        case Op::cumprod:
          return scan<T, Op::cumprod>(ctx, x, y, outer, shape[axis], inner);
        case Op::logcumsumexp:
          if constexpr (kIsFloat<T>)
            return scan<T, Op::logcumsumexp>(ctx, x, y, outer, shape[axis], inner);
          break;
        default:
          break;
      }
      throw_unsupported(node.op, out.type.dtype);
    }
  });
}

}  // namespace tensord::cpu
