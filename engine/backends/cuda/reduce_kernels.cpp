// CUDA C of prod, argmax and argmin over the lines of sort_common.h (a line: the reduced
// elements of one output). Three shapes of work: one thread per output (short lines or many
// outputs), one block per output or per chunk of it (long lines), and a finishing pass that
// combines the chunks of each output in order.
#include <array>

#include "engine/backends/cuda/sort_common.h"
#include "engine/backends/cuda/sort_sources.h"

namespace tensord::cuda {
namespace {

// prod: integers and bool multiply in wrapping uint64 and give int64; floats multiply in their
// compute type (float for 16-bit floats) and keep their dtype; complex in complex128 (products
// without FMA contraction, as the CPU's std::complex<double>). argmax/argmin: `better` as the
// CPU's ArgMaxOp, made associative so that any grouping gives the sequential answer: a NaN beats
// every number, and between equals (or two NaNs) the lower index wins.
constexpr const char* kBody = R"(
#if IS_COMPLEX
struct PAcc { double re, im; };
typedef In POut;
__device__ __forceinline__ PAcc prod_ident() { PAcc a; a.re = 1.0; a.im = 0.0; return a; }
__device__ __forceinline__ PAcc prod_lift(In v) { PAcc a; a.re = (double)v.re; a.im = (double)v.im; return a; }
__device__ __forceinline__ PAcc prod_comb(PAcc a, PAcc b) {
  PAcc r;
  r.re = __dsub_rn(__dmul_rn(a.re, b.re), __dmul_rn(a.im, b.im));
  r.im = __dadd_rn(__dmul_rn(a.re, b.im), __dmul_rn(a.im, b.re));
  return r;
}
__device__ __forceinline__ POut prod_out(PAcc a) { POut o; o.re = (Part)a.re; o.im = (Part)a.im; return o; }
#elif IS_FLOAT
typedef Cmp PAcc;
typedef In POut;
__device__ __forceinline__ PAcc prod_ident() { return (PAcc)1; }
__device__ __forceinline__ PAcc prod_lift(In v) { return to_cmp(v); }
__device__ __forceinline__ PAcc prod_comb(PAcc a, PAcc b) { return a * b; }
__device__ __forceinline__ POut prod_out(PAcc a) { return from_cmp(a); }
#else
typedef u64 PAcc;
typedef i64 POut;
__device__ __forceinline__ PAcc prod_ident() { return 1ull; }
__device__ __forceinline__ PAcc prod_lift(In v) { return (u64)(i64)v; }
__device__ __forceinline__ PAcc prod_comb(PAcc a, PAcc b) { return a * b; }
__device__ __forceinline__ POut prod_out(PAcc a) { return (i64)a; }
#endif

struct ProdP {
  typedef PAcc Acc;
  typedef POut Out;
  static __device__ __forceinline__ Acc ident() { return prod_ident(); }
  static __device__ __forceinline__ Acc lift(In v, i64) { return prod_lift(v); }
  static __device__ __forceinline__ Acc comb(Acc a, Acc b, int) { return prod_comb(a, b); }
  static __device__ __forceinline__ Out out(Acc a) { return prod_out(a); }
};

#if !IS_COMPLEX
struct AAcc { Cmp v; i64 i; };
struct ArgP {
  typedef AAcc Acc;
  typedef i64 Out;
  static __device__ __forceinline__ Acc ident() { Acc a; a.v = (Cmp)0; a.i = -1; return a; }
  static __device__ __forceinline__ Acc lift(In v, i64 k) { Acc a; a.v = to_cmp(v); a.i = k; return a; }
  static __device__ __forceinline__ Acc comb(Acc a, Acc b, int is_max) {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    const bool an = a.v != a.v, bn = b.v != b.v;
    if (an || bn) {
      if (an && bn) return a.i < b.i ? a : b;
      return an ? a : b;
    }
    if (is_max ? a.v > b.v : a.v < b.v) return a;
    if (is_max ? b.v > a.v : b.v < a.v) return b;
    return a.i < b.i ? a : b;
  }
  static __device__ __forceinline__ Out out(Acc a) { return a.i; }
};
#endif

#define REDUCE_THREADS 256

template <class P>
__device__ void reduce_thread(const LineGeo& g, const In* x, typename P::Out* out, int flag) {
  for (i64 line = global_thread(); line < g.lines; line += global_threads()) {
    typename P::Acc acc = P::ident();
    const i64 base = line_base(g, line);
    for (i64 k = 0; k < g.n; ++k) {
      acc = P::comb(acc, P::lift(x[base + group_offset(g.line, k)], k), flag);
    }
    out[line] = P::out(acc);
  }
}

// One block per (line, chunk); `splits` chunks of `chunk` elements per line. With one chunk the
// block writes the output, else its partial result for reduce_finish.
template <class P>
__device__ void reduce_block(const LineGeo& g, const In* x, typename P::Out* out,
                             typename P::Acc* partial, i64 splits, i64 chunk, int flag) {
  __shared__ typename P::Acc sh[REDUCE_THREADS];
  const int t = threadIdx.x;
  for (i64 unit = blockIdx.x; unit < g.lines * splits; unit += gridDim.x) {
    const i64 line = unit / splits, begin = (unit % splits) * chunk;
    const i64 end = min(g.n, begin + chunk);
    const i64 base = line_base(g, line);
    typename P::Acc acc = P::ident();
    for (i64 k = begin + t; k < end; k += REDUCE_THREADS) {
      acc = P::comb(acc, P::lift(x[base + group_offset(g.line, k)], k), flag);
    }
    sh[t] = acc;
    __syncthreads();
    for (int w = REDUCE_THREADS / 2; w > 0; w >>= 1) {
      if (t < w) sh[t] = P::comb(sh[t], sh[t + w], flag);
      __syncthreads();
    }
    if (t == 0) {
      if (splits == 1) out[line] = P::out(sh[0]);
      else partial[unit] = sh[0];
    }
    __syncthreads();
  }
}

template <class P>
__device__ void reduce_finish(i64 lines, i64 splits, const typename P::Acc* partial,
                              typename P::Out* out, int flag) {
  for (i64 line = global_thread(); line < lines; line += global_threads()) {
    typename P::Acc acc = P::ident();
    for (i64 s = 0; s < splits; ++s) acc = P::comb(acc, partial[line * splits + s], flag);
    out[line] = P::out(acc);
  }
}

KERNEL void __launch_bounds__(256) prod_thread(LineGeo g, const In* x, POut* out) {
  reduce_thread<ProdP>(g, x, out, 0);
}
KERNEL void __launch_bounds__(REDUCE_THREADS)
prod_block(LineGeo g, const In* x, POut* out, PAcc* partial, i64 splits, i64 chunk) {
  reduce_block<ProdP>(g, x, out, partial, splits, chunk, 0);
}
KERNEL void __launch_bounds__(256)
prod_finish(i64 lines, i64 splits, const PAcc* partial, POut* out) {
  reduce_finish<ProdP>(lines, splits, partial, out, 0);
}

#if !IS_COMPLEX
KERNEL void __launch_bounds__(256)
arg_thread(LineGeo g, const In* x, i64* out, int is_max) {
  reduce_thread<ArgP>(g, x, out, is_max);
}
KERNEL void __launch_bounds__(REDUCE_THREADS)
arg_block(LineGeo g, const In* x, i64* out, AAcc* partial, i64 splits, i64 chunk, int is_max) {
  reduce_block<ArgP>(g, x, out, partial, splits, chunk, is_max);
}
KERNEL void __launch_bounds__(256)
arg_finish(i64 lines, i64 splits, const AAcc* partial, i64* out, int is_max) {
  reduce_finish<ArgP>(lines, splits, partial, out, is_max);
}
#endif
)";

constexpr int kDTypes = static_cast<int>(ir::DType::Complex128) + 1;

}  // namespace

std::vector<ir::DType> sort_family_dtypes() {
  std::vector<ir::DType> out;
  for (int t = 0; t < kDTypes; ++t) out.push_back(static_cast<ir::DType>(t));
  return out;
}

const std::string& reduce_source(ir::DType in) {
  static const std::array<std::string, kDTypes> sources = [] {
    std::array<std::string, kDTypes> s;
    for (int t = 0; t < kDTypes; ++t) {
      s[t] = "// tensord reduce kernels (prod, argmax, argmin)\n" + sort_prelude() +
             dtype_prelude(static_cast<ir::DType>(t)) + kBody;
    }
    return s;
  }();
  return sources.at(static_cast<size_t>(in));
}

std::vector<std::string> reduce_kernel_names(ir::DType in) {
  std::vector<std::string> names = {"prod_thread", "prod_block", "prod_finish"};
  if (!ir::is_complex(in)) {
    for (const char* n : {"arg_thread", "arg_block", "arg_finish"}) names.emplace_back(n);
  }
  return names;
}

}  // namespace tensord::cuda
