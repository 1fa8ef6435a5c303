// CUDA C of the scans along an axis: cumsum, cumprod, logcumsumexp (one output) and cummax,
// cummin (values and indices). Short lines: one thread walks a line, exactly the CPU's
// sequence of steps. Long lines: one block per line, each thread scans a contiguous chunk
// twice (its total, then its outputs from the exclusive prefix of the chunks before it).
#include <array>

#include "engine/backends/cuda/sort_common.h"
#include "engine/backends/cuda/sort_sources.h"

namespace tensord::cuda {
namespace {

// Accumulation as kernels_scan.cpp: floats in float64 (each output rounded once: through
// float32 for 16-bit floats, as the CPU's T(float(acc))), complex values in complex128 (cumsum
// and cumprod only; products as reduce_kernels.cpp's), integers and bool in wrapping uint64
// (int64 output); logcumsumexp of integers reads them as float32 first (the CPU casts the input
// to the output dtype). cummax/cummin: PyTorch's rule as kernels_sort_multi.cpp: a NaN takes
// over, otherwise an element >= (<= for cummin) the running one; the same rule combines a
// running result with a chunk's, so that it is associative.
constexpr const char* kBody = R"(
#if IS_COMPLEX
struct SAcc { double re, im; };
typedef In COut;
__device__ __forceinline__ SAcc cum_lift(In v) { SAcc a; a.re = (double)v.re; a.im = (double)v.im; return a; }
__device__ __forceinline__ COut cum_out(SAcc a) { COut o; o.re = (Part)a.re; o.im = (Part)a.im; return o; }
__device__ __forceinline__ SAcc cum_ident(int op) { SAcc a; a.re = op == 1 ? 1.0 : 0.0; a.im = 0.0; return a; }
__device__ __forceinline__ SAcc cum_comb(SAcc a, SAcc b, int op) {
  SAcc r;
  if (op == 1) {
    r.re = __dsub_rn(__dmul_rn(a.re, b.re), __dmul_rn(a.im, b.im));
    r.im = __dadd_rn(__dmul_rn(a.re, b.im), __dmul_rn(a.im, b.re));
  } else {
    r.re = a.re + b.re;
    r.im = a.im + b.im;
  }
  return r;
}
#elif IS_FLOAT
typedef double SAcc;
typedef In COut;
typedef In LOut;
__device__ __forceinline__ SAcc cum_lift(In v) { return (double)to_cmp(v); }
__device__ __forceinline__ COut cum_out(SAcc a) { return from_cmp((Cmp)a); }
__device__ __forceinline__ double lcse_lift(In v) { return (double)to_cmp(v); }
__device__ __forceinline__ LOut lcse_out(double a) { return from_cmp((Cmp)a); }
#else
typedef u64 SAcc;
typedef i64 COut;
typedef float LOut;
__device__ __forceinline__ SAcc cum_lift(In v) { return (u64)(i64)v; }
__device__ __forceinline__ COut cum_out(SAcc a) { return (i64)a; }
__device__ __forceinline__ double lcse_lift(In v) { return (double)(float)(i64)v; }
__device__ __forceinline__ LOut lcse_out(double a) { return (float)a; }
#endif
#if !IS_COMPLEX
__device__ __forceinline__ SAcc cum_ident(int op) { return op == 1 ? (SAcc)1 : (SAcc)0; }
__device__ __forceinline__ SAcc cum_comb(SAcc a, SAcc b, int op) { return op == 1 ? a * b : a + b; }
#endif

struct CumP {  // flag: 0 cumsum, 1 cumprod
  typedef SAcc Acc;
  typedef COut Out;
  static __device__ __forceinline__ Acc ident(int op) { return cum_ident(op); }
  static __device__ __forceinline__ Acc lift(In v, i64) { return cum_lift(v); }
  static __device__ __forceinline__ Acc comb(Acc a, Acc b, int op) { return cum_comb(a, b, op); }
  static __device__ __forceinline__ void put(Out* o, i64*, i64 at, Acc a) { o[at] = cum_out(a); }
};

#if !IS_COMPLEX
struct LcseP {
  typedef double Acc;
  typedef LOut Out;
  static __device__ __forceinline__ Acc ident(int) { return -d_inf(); }
  static __device__ __forceinline__ Acc lift(In v, i64) { return lcse_lift(v); }
  static __device__ __forceinline__ Acc comb(Acc a, Acc b, int) {
    if ((a == d_inf() || a == -d_inf()) && a == b) return a;  // equal infinities
    if (a != a || b != b) return a + b;
    return fmax(a, b) + log1p(exp(-fabs(a - b)));
  }
  static __device__ __forceinline__ void put(Out* o, i64*, i64 at, Acc a) { o[at] = lcse_out(a); }
};

struct CmxAcc { Cmp v; In raw; i64 i; };
struct CmxP {  // flag: 1 cummax, 0 cummin
  typedef CmxAcc Acc;
  typedef In Out;
  static __device__ __forceinline__ Acc ident(int) { Acc a; a.v = (Cmp)0; a.i = -1; return a; }
  static __device__ __forceinline__ Acc lift(In v, i64 k) { Acc a; a.v = to_cmp(v); a.raw = v; a.i = k; return a; }
  static __device__ __forceinline__ Acc comb(Acc a, Acc b, int is_max) {
    if (b.i < 0) return a;
    if (a.i < 0) return b;
    const bool take = (b.v != b.v) || (!(a.v != a.v) && (is_max ? b.v >= a.v : b.v <= a.v));
    return take ? b : a;
  }
  static __device__ __forceinline__ void put(Out* o, i64* idx, i64 at, Acc a) {
    o[at] = a.raw;
    idx[at] = a.i;
  }
};
#endif

#define SCAN_THREADS 256

template <class P>
__device__ void scan_thread(const LineGeo& g, const In* x, typename P::Out* out, i64* idx,
                            int flag) {
  for (i64 line = global_thread(); line < g.lines; line += global_threads()) {
    typename P::Acc acc = P::ident(flag);
    const i64 base = line_base(g, line);
    for (i64 k = 0; k < g.n; ++k) {
      acc = P::comb(acc, P::lift(x[base + group_offset(g.line, k)], k), flag);
      P::put(out, idx, out_at(g, line, k), acc);
    }
  }
}

template <class P>
__device__ void scan_block(const LineGeo& g, const In* x, typename P::Out* out, i64* idx,
                           int flag) {
  __shared__ typename P::Acc sh[SCAN_THREADS];
  const int t = threadIdx.x;
  const i64 per = (g.n + SCAN_THREADS - 1) / SCAN_THREADS;
  const i64 begin = min(g.n, t * per), end = min(g.n, begin + per);
  for (i64 line = blockIdx.x; line < g.lines; line += gridDim.x) {
    const i64 base = line_base(g, line);
    typename P::Acc acc = P::ident(flag);
    for (i64 k = begin; k < end; ++k) {
      acc = P::comb(acc, P::lift(x[base + group_offset(g.line, k)], k), flag);
    }
    sh[t] = acc;
    __syncthreads();
    if (t == 0) {  // exclusive prefixes of the chunks, in order
      typename P::Acc running = P::ident(flag);
      for (int i = 0; i < SCAN_THREADS; ++i) {
        const typename P::Acc chunk = sh[i];
        sh[i] = running;
        running = P::comb(running, chunk, flag);
      }
    }
    __syncthreads();
    acc = sh[t];
    for (i64 k = begin; k < end; ++k) {
      acc = P::comb(acc, P::lift(x[base + group_offset(g.line, k)], k), flag);
      P::put(out, idx, out_at(g, line, k), acc);
    }
    __syncthreads();
  }
}

KERNEL void __launch_bounds__(256) cum_thread(LineGeo g, const In* x, COut* out, int op) {
  scan_thread<CumP>(g, x, out, 0, op);
}
KERNEL void __launch_bounds__(SCAN_THREADS) cum_block(LineGeo g, const In* x, COut* out, int op) {
  scan_block<CumP>(g, x, out, 0, op);
}
#if !IS_COMPLEX
KERNEL void __launch_bounds__(256) lcse_thread(LineGeo g, const In* x, LOut* out) {
  scan_thread<LcseP>(g, x, out, 0, 0);
}
KERNEL void __launch_bounds__(SCAN_THREADS) lcse_block(LineGeo g, const In* x, LOut* out) {
  scan_block<LcseP>(g, x, out, 0, 0);
}
KERNEL void __launch_bounds__(256)
cmx_thread(LineGeo g, const In* x, In* values, i64* indices, int is_max) {
  scan_thread<CmxP>(g, x, values, indices, is_max);
}
KERNEL void __launch_bounds__(SCAN_THREADS)
cmx_block(LineGeo g, const In* x, In* values, i64* indices, int is_max) {
  scan_block<CmxP>(g, x, values, indices, is_max);
}
#endif
)";

constexpr int kDTypes = static_cast<int>(ir::DType::Complex128) + 1;

}  // namespace

const std::string& scan_source(ir::DType in) {
  static const std::array<std::string, kDTypes> sources = [] {
    std::array<std::string, kDTypes> s;
    for (int t = 0; t < kDTypes; ++t) {
      s[t] = "// tensord scan kernels (cumsum, cumprod, logcumsumexp, cummax, cummin)\n" +
             sort_prelude() + dtype_prelude(static_cast<ir::DType>(t)) + kBody;
    }
    return s;
  }();
  return sources.at(static_cast<size_t>(in));
}

std::vector<std::string> scan_kernel_names(ir::DType t) {
  if (ir::is_complex(t)) return {"cum_thread", "cum_block"};  // cumsum and cumprod only
  return {"cum_thread", "cum_block", "lcse_thread", "lcse_block", "cmx_thread", "cmx_block"};
}

}  // namespace tensord::cuda
