// Issue 4: the CPU kernels of complex64/complex128 (docs/ops.md "Complex numbers"). Elements are
// std::complex<float/double>; arithmetic follows C++ (C99 Annex G for infinities and NaN in
// products and quotients). The real-typed kernels never see a complex operand: run_unary,
// run_binary, run_where, run_reduction, run_creation, cast_into and matmul hand complex nodes here.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <numbers>
#include <vector>

#include "engine/backends/cpu/complex_math.h"
#include "engine/backends/cpu/elementwise.h"
#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/kernels_complex.h"
#include "engine/backends/cpu/matmul.h"
#include "engine/backends/cpu/parallel.h"
#include "engine/backends/cpu/scalar_cast.h"
#include "engine/ir/axes.h"

namespace tensord::cpu {
namespace {

using ir::Op;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

template <typename F>
decltype(auto) visit_complex(DType t, F&& f) {
  if (t == DType::Complex64) return f(TypeTag<c64>{});
  if (t == DType::Complex128) return f(TypeTag<c128>{});
  throw Error(ErrorCode::Internal, "not a complex dtype: " + std::string(ir::name(t)));
}

template <typename T>
using Real = typename T::value_type;

template <typename T>
constexpr DType complex_dtype() {
  return std::is_same_v<T, c64> ? DType::Complex64 : DType::Complex128;
}

// Elementwise loop: out = f(in...) with the operands' element types given.
template <typename Out, typename In, typename F>
void map1(const KernelContext& ctx, std::span<const Operand> ops, F f) {
  launch(ctx.threads, ops, [f](char* const* p, const int64_t* s, int64_t n) {
    for (int64_t k = 0; k < n; ++k) at<Out>(p[0], s[0], k) = f(at<In>(p[1], s[1], k));
  });
}
template <typename Out, typename In, typename F>
void map2(const KernelContext& ctx, std::span<const Operand> ops, F f) {
  launch(ctx.threads, ops, [f](char* const* p, const int64_t* s, int64_t n) {
    for (int64_t k = 0; k < n; ++k) {
      at<Out>(p[0], s[0], k) = f(at<In>(p[1], s[1], k), at<In>(p[2], s[2], k));
    }
  });
}

// Complex -> any dtype, any dtype -> complex (NumPy's rules: the imaginary part is dropped;
// to bool: nonzero if either part is; from real: imaginary part 0).
void cast_complex(const KernelContext& ctx, const Operand& src, const Operand& dst) {
  Operand ops[2] = {dst, src};
  if (ir::is_complex(src.dtype) && ir::is_complex(dst.dtype)) {
    return visit_complex(src.dtype, [&]<typename From>(TypeTag<From>) {
      visit_complex(dst.dtype, [&]<typename To>(TypeTag<To>) {
        map1<To, From>(ctx, ops, [](From x) { return To(x.real(), x.imag()); });
      });
    });
  }
  if (ir::is_complex(src.dtype)) {
    return visit_complex(src.dtype, [&]<typename From>(TypeTag<From>) {
      visit_dtype(dst.dtype, [&]<typename To>(TypeTag<To>) {
        if constexpr (std::is_same_v<To, bool>) {
          map1<bool, From>(ctx, ops, [](From x) { return x.real() != 0 || x.imag() != 0; });
        } else {
          map1<To, From>(ctx, ops, [](From x) { return cast_scalar<To>(x.real()); });
        }
      });
    });
  }
  visit_complex(dst.dtype, [&]<typename To>(TypeTag<To>) {
    visit_dtype(src.dtype, [&]<typename From>(TypeTag<From>) {
      map1<To, From>(ctx, ops, [](From x) { return To(cast_scalar<Real<To>>(x), Real<To>(0)); });
    });
  });
}

// The functions of complex_math.h and <complex>, computed in complex<double> (complex64 rounded
// once at the end, as the CUDA formulas compute it).
template <typename T>
void math(const KernelContext& ctx, Op op, std::span<const Operand> ops) {
  namespace cm = complex_math;
  auto f = [&](auto fn) {
    map1<T, T>(ctx, ops, [fn](T x) {
      const c128 r = fn(c128(x.real(), x.imag()));
      return T(static_cast<Real<T>>(r.real()), static_cast<Real<T>>(r.imag()));
    });
  };
  switch (op) {
    case Op::sin:
      return f([](c128 z) { return std::sin(z); });
    case Op::cos:
      return f([](c128 z) { return std::cos(z); });
    case Op::tan:
      return f([](c128 z) { return std::tan(z); });
    case Op::sinh:
      return f([](c128 z) { return std::sinh(z); });
    case Op::cosh:
      return f([](c128 z) { return std::cosh(z); });
    case Op::tanh:
      return f([](c128 z) { return std::tanh(z); });
    case Op::asin:
      return f([](c128 z) { return std::asin(z); });
    case Op::acos:
      return f([](c128 z) { return std::acos(z); });
    case Op::atan:
      return f([](c128 z) { return std::atan(z); });
    case Op::asinh:
      return f([](c128 z) { return std::asinh(z); });
    case Op::acosh:
      return f([](c128 z) { return std::acosh(z); });
    case Op::atanh:
      return f([](c128 z) { return std::atanh(z); });
    case Op::exp2:
      return f(cm::exp2);
    case Op::expm1:
      return f(cm::expm1);
    case Op::log2:
      return f([](c128 z) { return cm::log_base(z, std::numbers::ln2); });
    case Op::log10:
      return f([](c128 z) { return cm::log_base(z, std::numbers::ln10); });
    case Op::log1p:
      return f(cm::log1p);
    case Op::rsqrt:
      return f([](c128 z) { return c128(1) / std::sqrt(z); });
    case Op::sigmoid:
      return f(cm::sigmoid);
    case Op::sign:
      return f(cm::sign);
    default:
      throw_unsupported(op, complex_dtype<T>());
  }
}

template <typename T>
void unary(const KernelContext& ctx, Op op, const Operand& in, const Operand& out) {
  Operand ops[2] = {out, in};
  using R = Real<T>;
  switch (op) {
    case Op::neg:
      return map1<T, T>(ctx, ops, [](T x) { return -x; });
    case Op::conj:
      return map1<T, T>(ctx, ops, [](T x) { return std::conj(x); });
    case Op::exp:
      return map1<T, T>(ctx, ops, [](T x) { return std::exp(x); });
    case Op::log:
      return map1<T, T>(ctx, ops, [](T x) { return std::log(x); });
    case Op::sqrt:
      return map1<T, T>(ctx, ops, [](T x) { return std::sqrt(x); });
    case Op::abs:
      return map1<R, T>(ctx, ops, [](T x) { return std::abs(x); });
    case Op::real:
      return map1<R, T>(ctx, ops, [](T x) { return x.real(); });
    case Op::imag:
      return map1<R, T>(ctx, ops, [](T x) { return x.imag(); });
    case Op::angle:
      return map1<R, T>(ctx, ops, [](T x) { return std::arg(x); });
    case Op::isnan:
      return map1<bool, T>(ctx, ops,
                           [](T x) { return std::isnan(x.real()) || std::isnan(x.imag()); });
    case Op::isinf:
      return map1<bool, T>(ctx, ops,
                           [](T x) { return std::isinf(x.real()) || std::isinf(x.imag()); });
    case Op::isfinite:
      return map1<bool, T>(ctx, ops,
                           [](T x) { return std::isfinite(x.real()) && std::isfinite(x.imag()); });
    case Op::square:
      return map1<T, T>(ctx, ops, [](T x) { return x * x; });
    case Op::reciprocal:
      return map1<T, T>(ctx, ops, [](T x) { return T(1) / x; });
    default:
      return math<T>(ctx, op, ops);
  }
}

template <typename T>
void binary(const KernelContext& ctx, Op op, std::span<const Operand> ops) {
  switch (op) {
    case Op::add:
      return map2<T, T>(ctx, ops, [](T a, T b) { return a + b; });
    case Op::sub:
      return map2<T, T>(ctx, ops, [](T a, T b) { return a - b; });
    case Op::mul:
      return map2<T, T>(ctx, ops, [](T a, T b) { return a * b; });
    case Op::div:
      return map2<T, T>(ctx, ops, [](T a, T b) { return a / b; });
    case Op::pow:
      return map2<T, T>(ctx, ops, [](T a, T b) {
        const c128 r = complex_math::pow(c128(a.real(), a.imag()), c128(b.real(), b.imag()));
        return T(static_cast<Real<T>>(r.real()), static_cast<Real<T>>(r.imag()));
      });
    default:
      throw_unsupported(op, complex_dtype<T>());
  }
}

// eq/ne: both parts equal (NaN in either part is unequal to everything).
template <typename T>
void compare(const KernelContext& ctx, Op op, std::span<const Operand> ops) {
  if (op == Op::eq) return map2<bool, T>(ctx, ops, [](T a, T b) { return a == b; });
  map2<bool, T>(ctx, ops, [](T a, T b) { return a != b; });
}

// The sum of n contiguous complex values of type T, in double: eight real lanes (four complex
// values) accumulated independently, so that the compiler vectorises the loop without
// reassociating anything.
template <typename T>
c128 sum_run(const T* x, int64_t n) {
  const Real<T>* p = reinterpret_cast<const Real<T>*>(x);
  double lane[8] = {};
  int64_t k = 0;
  for (; k + 4 <= n; k += 4) {
    for (int j = 0; j < 8; ++j) lane[j] += static_cast<double>(p[2 * k + j]);
  }
  c128 acc((lane[0] + lane[2]) + (lane[4] + lane[6]), (lane[1] + lane[3]) + (lane[5] + lane[7]));
  for (; k < n; ++k) acc += c128(x[k].real(), x[k].imag());
  return acc;
}

// A sum over trailing axes of a contiguous input (sum of everything, x.sum(-1)): each output
// is the sum of one run of `len` elements. Runs are split among the threads when there are
// fewer outputs than threads. Returns false for any other sum.
bool sum_trailing(const KernelContext& ctx, ir::AxisMask mask, const TensorValue& in,
                  const TensorValue& out) {
  const Operand x = operand_of(in);
  const auto rank = static_cast<int64_t>(in.type.rank());
  int64_t first = rank;
  while (first > 0 && ir::has_axis(mask, first - 1)) --first;
  for (int64_t d = 0; d < first; ++d) {
    if (ir::has_axis(mask, d)) return false;
  }
  if (!x.is_contiguous()) return false;
  int64_t len = 1;
  for (int64_t d = first; d < rank; ++d) len *= in.type.shape[d];
  const int64_t nout = out.type.numel();
  return visit_complex(in.type.dtype, [&]<typename T>(TypeTag<T>) {
    const T* src = reinterpret_cast<const T*>(x.data);
    return visit_complex(out.type.dtype, [&]<typename O>(TypeTag<O>) {
      O* dst = out.data<O>();
      auto store = [](c128 v) {
        return O(static_cast<Real<O>>(v.real()), static_cast<Real<O>>(v.imag()));
      };
      if (nout >= ctx.threads || len < kParallelGrain) {
        parallel_for(nout, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(len, 1)),
                     ctx.threads, [&](int64_t b, int64_t e) {
                       for (int64_t o = b; o < e; ++o) dst[o] = store(sum_run(src + o * len, len));
                     });
        return true;
      }
      for (int64_t o = 0; o < nout; ++o) {  // few long runs: each split among the threads
        const int64_t chunks = ctx.threads;
        std::vector<c128> part(static_cast<size_t>(chunks));
        parallel_for(chunks, 1, ctx.threads, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c) {
            const int64_t lo = len * c / chunks, hi = len * (c + 1) / chunks;
            part[c] = sum_run(src + o * len + lo, hi - lo);
          }
        });
        c128 acc(0);
        for (const c128& v : part) acc += v;
        dst[o] = store(acc);
      }
      return true;
    });
  });
}

// sum/prod over the reduced axes, accumulated in complex<double>: one pass over the input in
// row-major order, each element added into its output element.
void reduce(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
            const TensorValue& out) {
  const auto rank = static_cast<int64_t>(in.type.rank());
  const ir::AxisMask mask = ir::reduction_axes(node.attrs, rank);
  if (node.op == Op::sum && in.type.numel() > 0 && sum_trailing(ctx, mask, in, out)) return;
  const ir::Shape& shape = in.type.shape;
  const int64_t nout = out.type.numel();
  const bool prod = node.op == Op::prod;
  ScratchVector<c128> acc(ctx.scratch, static_cast<size_t>(nout), prod ? c128(1) : c128(0));
  // Output strides per input axis (0 on reduced axes): the output is contiguous in the kept axes.
  std::vector<int64_t> ostride(static_cast<size_t>(rank), 0);
  int64_t st = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (!ir::has_axis(mask, d)) {
      ostride[d] = st;
      st *= shape[d];
    }
  }
  const int64_t n = in.type.numel();
  Operand x = operand_of(in);
  visit_complex(in.type.dtype, [&]<typename T>(TypeTag<T>) {
    std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
    for (int64_t k = 0; k < n; ++k) {
      int64_t src = 0, dst = 0;
      for (int64_t d = 0; d < rank; ++d) {
        src += idx[d] * x.strides[d];
        dst += idx[d] * ostride[d];
      }
      const T v = *reinterpret_cast<const T*>(x.data + src * x.itemsize);
      const c128 w(v.real(), v.imag());
      acc[dst] = prod ? acc[dst] * w : acc[dst] + w;
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++idx[d] < shape[d]) break;
        idx[d] = 0;
      }
    }
    visit_complex(out.type.dtype, [&]<typename O>(TypeTag<O>) {
      O* o = out.data<O>();
      for (int64_t k = 0; k < nout; ++k) o[k] = O(acc[k].real(), acc[k].imag());
    });
  });
  (void)ctx;
}

}  // namespace

bool involves_complex(const ir::Node& node, std::span<const TensorValue> inputs,
                      const TensorValue& out) {
  switch (node.op) {
    case Op::real:
    case Op::imag:
    case Op::angle:
    case Op::conj:
    case Op::complex:
      return true;
    default:
      break;
  }
  if (ir::is_complex(out.type.dtype)) return true;
  for (const TensorValue& v : inputs) {
    if (ir::is_complex(v.type.dtype)) return true;
  }
  return false;
}

void cast_complex_into(const KernelContext& ctx, const Operand& src, const Operand& dst) {
  cast_complex(ctx, src, dst);
}

void run_complex(const KernelContext& ctx, const ir::Node& node,
                 std::span<const TensorValue> inputs, const TensorValue& out) {
  const Op op = node.op;
  const ir::OpKind kind = ir::op_info(op).kind;
  if (op == Op::cast) return cast_into(ctx, operand_of(inputs[0]), operand_of(out));
  if (op == Op::conj) {  // materialising a conj view (conj itself is a view op)
    const TensorValue& in = inputs[0];
    if (!ir::is_complex(in.type.dtype)) return copy_into(ctx, operand_of(in), operand_of(out));
    return visit_complex(in.type.dtype, [&]<typename T>(TypeTag<T>) {
      unary<T>(ctx, op, operand_of(in), operand_of(out));
    });
  }
  if (kind == ir::OpKind::Creation) {  // full (zeros/ones decompose to it)
    const ir::AttrValue* value = node.attrs.find(ir::Attr::value);
    if (op != Op::full || value == nullptr) throw_unsupported(op, out.type.dtype);
    const double v = std::visit(
        [](const auto& x) -> double {
          using V = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<V, int64_t> || std::is_same_v<V, double> ||
                        std::is_same_v<V, bool>)
            return static_cast<double>(x);
          else
            throw Error(ErrorCode::InvalidGraph, "full needs a scalar value");
        },
        *value);
    return visit_complex(out.type.dtype, [&]<typename T>(TypeTag<T>) {
      T* p = out.data<T>();
      const T fill(static_cast<Real<T>>(v), 0);
      for (int64_t k = 0, n = out.type.numel(); k < n; ++k) p[k] = fill;
    });
  }
  if (kind == ir::OpKind::Reduction) {
    if (op != Op::sum && op != Op::prod) throw_unsupported(op, inputs[0].type.dtype);
    return reduce(ctx, node, inputs[0], out);
  }
  if (op == Op::where) {
    TensorValue keep_c, keep_a, keep_b;
    Operand ops[4] = {operand_of(out), operand_as(ctx, inputs[0], DType::Bool, keep_c),
                      operand_as(ctx, inputs[1], out.type.dtype, keep_a),
                      operand_as(ctx, inputs[2], out.type.dtype, keep_b)};
    return visit_complex(out.type.dtype, [&]<typename T>(TypeTag<T>) {
      launch(ctx.threads, ops, [](char* const* p, const int64_t* s, int64_t n) {
        for (int64_t k = 0; k < n; ++k) {
          at<T>(p[0], s[0], k) =
              at<bool>(p[1], s[1], k) ? at<T>(p[2], s[2], k) : at<T>(p[3], s[3], k);
        }
      });
    });
  }
  if (op == Op::complex) {  // complex(re, im): real inputs of any float dtype
    const DType part = ir::real_of(out.type.dtype);
    TensorValue keep_a, keep_b;
    Operand ops[3] = {operand_of(out), operand_as(ctx, inputs[0], part, keep_a),
                      operand_as(ctx, inputs[1], part, keep_b)};
    return visit_complex(out.type.dtype, [&]<typename T>(TypeTag<T>) {
      map2<T, Real<T>>(ctx, ops, [](Real<T> a, Real<T> b) { return T(a, b); });
    });
  }
  if (kind == ir::OpKind::Unary) {
    const TensorValue& in = inputs[0];
    if (!ir::is_complex(in.type.dtype)) {
      // conj of a real tensor is a copy; angle of a real one is atan2(0, x) in the float output.
      TensorValue keep;
      Operand ops[2] = {operand_of(out), operand_as(ctx, in, out.type.dtype, keep)};
      if (op == Op::conj) return copy_into(ctx, ops[1], ops[0]);
      if (op == Op::angle) {
        return visit_dtype(out.type.dtype, [&]<typename R>(TypeTag<R>) {
          if constexpr (std::is_floating_point_v<R>) {
            map1<R, R>(ctx, ops, [](R x) { return std::atan2(R(0), x); });
          } else if constexpr (kIsHalf<R>) {
            map1<R, R>(ctx, ops, [](R x) { return R(std::atan2(0.0f, static_cast<float>(x))); });
          } else {
            throw_unsupported(Op::angle, out.type.dtype);
          }
        });
      }
      throw_unsupported(op, in.type.dtype);
    }
    return visit_complex(in.type.dtype, [&]<typename T>(TypeTag<T>) {
      unary<T>(ctx, op, operand_of(in), operand_of(out));
    });
  }
  if (kind == ir::OpKind::Binary) {
    const bool cmp = op == Op::eq || op == Op::ne;
    const DType compute =
        cmp ? ir::promote(inputs[0].type.dtype, inputs[1].type.dtype) : out.type.dtype;
    TensorValue keep_a, keep_b;
    Operand ops[3] = {operand_of(out), operand_as(ctx, inputs[0], compute, keep_a),
                      operand_as(ctx, inputs[1], compute, keep_b)};
    return visit_complex(compute, [&]<typename T>(TypeTag<T>) {
      if (cmp) return compare<T>(ctx, op, ops);
      binary<T>(ctx, op, ops);
    });
  }
  throw_unsupported(op, out.type.dtype);
}

// Blocked complex matmul: per batch, C = A B with tiles of 64 x 64 x 256 (k innermost over a
// row of B kept in cache), accumulating in the element type; rows of C run in parallel.
void matmul_complex(const KernelContext& ctx, const MatmulProblem& p, bool conj_a, bool conj_b) {
  visit_complex(p.dtype, [&]<typename T>(TypeTag<T>) {
    const int64_t batches = p.batch_count();
    const int64_t m = p.m, n = p.n, kk = p.k;
    auto base = [&](const MatrixOperand& o, int64_t b) {
      int64_t off = 0, rest = b;
      for (int d = p.batch_rank - 1; d >= 0; --d) {
        off += (rest % p.batch[d]) * o.batch_strides[d];
        rest /= p.batch[d];
      }
      return reinterpret_cast<T*>(o.data) + off;
    };
    constexpr int64_t kTileM = 64, kTileN = 64, kTileK = 256;
    for (int64_t b = 0; b < batches; ++b) {
      const T* A = base(p.a, b);
      const T* B = base(p.b, b);
      T* C = base(p.c, b);
      const int64_t ars = p.a.row_stride, acs = p.a.col_stride;
      const int64_t brs = p.b.row_stride, bcs = p.b.col_stride;
      const int64_t crs = p.c.row_stride, ccs = p.c.col_stride;
      const int64_t mtiles = (m + kTileM - 1) / kTileM;
      parallel_for(mtiles, 1, ctx.threads, [&](int64_t t0, int64_t t1) {
        std::vector<T> acc(static_cast<size_t>(kTileM * kTileN));
        for (int64_t tm = t0; tm < t1; ++tm) {
          const int64_t i0 = tm * kTileM, i1 = std::min(m, i0 + kTileM);
          for (int64_t j0 = 0; j0 < n; j0 += kTileN) {
            const int64_t j1 = std::min(n, j0 + kTileN);
            std::fill(acc.begin(), acc.end(), T(0));
            for (int64_t k0 = 0; k0 < kk; k0 += kTileK) {
              const int64_t k1 = std::min(kk, k0 + kTileK);
              for (int64_t i = i0; i < i1; ++i) {
                T* arow = acc.data() + (i - i0) * kTileN;
                for (int64_t k = k0; k < k1; ++k) {
                  const T a = A[i * ars + k * acs];
                  const Real<T> ar = a.real(), ai = conj_a ? -a.imag() : a.imag();
                  const T* brow = B + k * brs;
                  // Plain (ar + i ai)(br + i bi) without Annex G's NaN recovery: a matmul sums
                  // products anyway, as BLAS's cgemm/zgemm do.
                  for (int64_t j = j0; j < j1; ++j) {
                    const T bv = brow[j * bcs];
                    const Real<T> br = bv.real(), bi = conj_b ? -bv.imag() : bv.imag();
                    arow[j - j0] += T(ar * br - ai * bi, ar * bi + ai * br);
                  }
                }
              }
            }
            for (int64_t i = i0; i < i1; ++i) {
              for (int64_t j = j0; j < j1; ++j)
                C[i * crs + j * ccs] = acc[(i - i0) * kTileN + j - j0];
            }
          }
        }
      });
    }
  });
}

}  // namespace tensord::cpu
