#include "engine/backends/cuda/dnn_kernels.h"

#include "engine/codegen/cuda_half_prelude.h"
#include "engine/ir/error.h"

namespace tensord::cuda::dnn {
namespace {

static_assert(sizeof(CopyArgs) == 8 * (2 + 3 * kCopyRank));
static_assert(sizeof(BiasArgs) == 8 * 4);
static_assert(sizeof(PoolArgs) == 8 * (8 + 7 * 3));
static_assert(sizeof(InterpolateArgs) == 8 * 20);
static_assert(sizeof(ConvArgs) == 8 * (7 + 18 + 10));
static_assert(sizeof(CtcArgs) == 8 * 9);

// Grid-stride loops and 64-bit indices; the 16-bit conversions are cuda_half_prelude()'s (the
// same rounding as the CPU backend: round to nearest even, quiet NaNs).
constexpr const char* kCommon = R"(
typedef long long i64;
typedef unsigned short u16;
typedef unsigned int u32;
#define TD_LOOP(k, total) \
  for (i64 k = blockIdx.x * (i64)blockDim.x + threadIdx.x; k < (total); \
       k += (i64)gridDim.x * blockDim.x)
__device__ __forceinline__ double td_inf() { return __longlong_as_double(0x7ff0000000000000LL); }
)";

// Loads widen to double (exact); stores round once to float32 (the CPU's work dtype for every
// dtype but float64) and then to the storage format, as the CPU does.
constexpr const char* kAccessors = R"(
#if TD_DTYPE == 0
typedef float st_t;
__device__ __forceinline__ double ld(const st_t* p, i64 i) { return (double)p[i]; }
__device__ __forceinline__ void st(st_t* p, i64 i, double v) { p[i] = (float)v; }
#elif TD_DTYPE == 1
typedef double st_t;
__device__ __forceinline__ double ld(const st_t* p, i64 i) { return p[i]; }
__device__ __forceinline__ void st(st_t* p, i64 i, double v) { p[i] = v; }
#elif TD_DTYPE == 2
typedef u16 st_t;
__device__ __forceinline__ double ld(const st_t* p, i64 i) { return (double)td_h2f(p[i]); }
__device__ __forceinline__ void st(st_t* p, i64 i, double v) { p[i] = td_f2h((float)v); }
#else
typedef u16 st_t;
__device__ __forceinline__ double ld(const st_t* p, i64 i) { return (double)td_b2f(p[i]); }
__device__ __forceinline__ void st(st_t* p, i64 i, double v) { p[i] = td_f2b((float)v); }
#endif
)";

// The CPU kernels of kernels_nn.cpp, kernels_interpolate.cpp and kernels_ctc.cpp, one output
// element per thread (one sample per block for the CTC recursion). Products and sums use the
// _rn intrinsics so that no multiply-add is contracted: nearest's source indices must agree
// with the CPU's to the bit.
constexpr const char* kBody = R"(
struct PoolArgs {
  i64 n, c, sn, sc, max, include_pad, adaptive, divisor;
  i64 in[3], out[3], st[3], k[3], s[3], pad[3], dil[3];
};
struct ConvArgs {
  i64 n, cin, cout, groups, transposed, has_bias, bias_stride;
  i64 in[3], k[3], o[3], s[3], pad[3], dil[3];
  i64 xs[5], ws[5];
};
struct CtcArgs { i64 t_max, n, c, s_max, blank, zero_inf, st_t, st_n, st_c; };

// Output o's window along axis d: taps start + j dil for j in [first, end), the taps inside the
// input; div is the axis's factor of an average's divisor (PyTorch's: the window clipped to the
// padded input, or to the input). Adaptive: [floor(o in / out), ceil((o + 1) in / out)).
struct PoolWindow { i64 start, first, end, dil, div; };

__device__ PoolWindow pool_window(const PoolArgs& a, int d, i64 o) {
  PoolWindow w;
  const i64 in = a.in[d], out = a.out[d];
  if (a.adaptive) {
    w.start = o * in / out;
    w.first = 0;
    w.end = ((o + 1) * in + out - 1) / out - w.start;
    w.dil = 1;
    w.div = w.end;
    return w;
  }
  const i64 k = a.k[d];
  w.dil = a.dil[d];
  w.start = o * a.s[d] - a.pad[d];
  const i64 last = in - 1 - w.start;
  const i64 first = w.start >= 0 ? 0 : (-w.start + w.dil - 1) / w.dil;
  w.end = last < 0 ? 0 : min(k, last / w.dil + 1);
  w.first = min(first, w.end);
  w.div = a.include_pad ? min(w.start + k, in + a.pad[d]) - w.start : w.end - w.first;
  return w;
}

// Max: PyTorch's rule `v > m or isnan(v)` over the window in row-major order (the last NaN
// wins), the index starting at the first tap; an empty window gives -inf at index -1.
extern "C" __global__ void dnn_pool(const st_t* x, st_t* y, i64* indices, PoolArgs a) {
  const i64 per_plane = a.out[0] * a.out[1] * a.out[2];
  TD_LOOP(k, a.n * a.c * per_plane) {
    const i64 plane = k / per_plane;
    const st_t* src = x + plane / a.c * a.sn + plane % a.c * a.sc;
    const PoolWindow w0 = pool_window(a, 0, k / (a.out[1] * a.out[2]) % a.out[0]);
    const PoolWindow w1 = pool_window(a, 1, k / a.out[2] % a.out[1]);
    const PoolWindow w2 = pool_window(a, 2, k % a.out[2]);
    double r = a.max ? -td_inf() : 0.0;
    i64 at = -1;
    for (i64 i = w0.first; i < w0.end; ++i) {
      const i64 p0 = w0.start + i * w0.dil;
      for (i64 j = w1.first; j < w1.end; ++j) {
        const i64 p1 = w1.start + j * w1.dil;
        for (i64 q = w2.first; q < w2.end; ++q) {
          const i64 p2 = w2.start + q * w2.dil;
          const double v = ld(src, p0 * a.st[0] + p1 * a.st[1] + p2 * a.st[2]);
          if (a.max) {
            const bool take = v > r || v != v;
            if (take || at < 0) at = (p0 * a.in[1] + p1) * a.in[2] + p2;
            if (take) r = v;
          } else {
            r = __dadd_rn(r, v);
          }
        }
      }
    }
    if (!a.max) r = __ddiv_rn(r, (double)(a.divisor ? a.divisor : w0.div * w1.div * w2.div));
    st(y, k, r);
    if (indices) indices[k] = at;
  }
}

// interpolate, per spatial axis (leading axes of size 1 pad 1-d and 2-d inputs to 3 axes): the
// sampling scale is 1 / the user's factor where one is given (scale > 0), else in / out.
// PyTorch's nearest_idx rounds that scale to float32 and multiplies in float32.
__device__ float nearest_scale(i64 in, i64 out, double scale) {
  return scale > 0 ? (float)__ddiv_rn(1.0, scale) : __fdiv_rn((float)in, (float)out);
}

__device__ i64 nearest_source(i64 o, i64 in, i64 out, double scale) {
  if (out == in) return o;
  if (out == 2 * in) return o >> 1;
  return min((i64)floorf(__fmul_rn((float)o, nearest_scale(in, out, scale))), in - 1);
}

// PyTorch's nearest_neighbor_exact_idx: (o + 0.5) * scale in double, rounded to float32.
__device__ i64 nearest_exact_source(i64 o, i64 in, i64 out, double scale) {
  const double s = (double)nearest_scale(in, out, scale);
  return min((i64)floorf((float)__dmul_rn(__dadd_rn((double)o, 0.5), s)), in - 1);
}

__device__ double sample_scale(i64 in, i64 out, double scale, bool align_corners) {
  if (align_corners) return out > 1 ? __ddiv_rn((double)(in - 1), (double)(out - 1)) : 0.0;
  return scale > 0 ? __ddiv_rn(1.0, scale) : __ddiv_rn((double)in, (double)out);
}

// The source elements one output index reads along one axis, with their weights. A tap of
// weight 0 is left out, as the CPU does: an inf there would make NaN. Area's window may be
// long: its taps (`box`) are i[0] .. i[0] + n - 1, of weight 1 each; so are antialias's
// (`aa`), weighted by aa_weight.
struct Taps {
  i64 i[4];
  double w[4];
  i64 n;
  bool box, aa, cubic;
  double center, invscale, total;
};

__device__ void add_tap(Taps& t, i64 i, double w) {
  if (w == 0) return;
  t.i[t.n] = i;
  t.w[t.n] = w;
  ++t.n;
}

// PyTorch's antialiased filters of |x|: linear's triangle; Keys' cubic with A = -0.5 (PIL's).
__device__ double aa_filter(bool cubic, double x) {
  x = fabs(x);
  if (!cubic) return x < 1.0 ? __dadd_rn(1.0, -x) : 0.0;
  if (x < 1.0) return __dadd_rn(__dmul_rn(__dmul_rn(__dadd_rn(__dmul_rn(1.5, x), -2.5), x), x), 1.0);
  if (x >= 2.0) return 0.0;
  const double p = __dadd_rn(__dmul_rn(__dadd_rn(__dmul_rn(__dadd_rn(x, -5.0), x), 8.0), x), -4.0);
  return __dmul_rn(p, -0.5);
}

// The filter at input i's distance (centre i + 0.5) from the output's centre, unnormalized.
__device__ double aa_raw(const Taps& t, i64 i) {
  return aa_filter(t.cubic, __dmul_rn(__dadd_rn(__dadd_rn((double)i, -t.center), 0.5), t.invscale));
}

__device__ i64 tap_index(const Taps& t, i64 j) { return t.box || t.aa ? t.i[0] + j : t.i[j]; }
__device__ double tap_weight(const Taps& t, i64 j) {
  if (t.aa) {
    const double w = aa_raw(t, t.i[0] + j);
    return t.total != 0 ? __ddiv_rn(w, t.total) : w;
  }
  return t.box ? 1.0 : t.w[j];
}

// PyTorch's _compute_weights_aa: the filter stretched by the scale when downsampling (support
// interp_size / 2 * scale), centred on scale (o + 0.5), over the inputs it covers.
__device__ void aa_taps(Taps& t, bool cubic, i64 o, i64 in, i64 out, double scale,
                        bool align_corners) {
  const double s = sample_scale(in, out, scale, align_corners);
  const double support = __dmul_rn(cubic ? 2.0 : 1.0, s >= 1.0 ? s : 1.0);
  t.aa = true;
  t.cubic = cubic;
  t.invscale = s >= 1.0 ? __ddiv_rn(1.0, s) : 1.0;
  t.center = __dmul_rn(s, __dadd_rn((double)o, 0.5));
  const i64 lo = max((i64)__dadd_rn(__dadd_rn(t.center, -support), 0.5), (i64)0);
  const i64 hi = min((i64)__dadd_rn(__dadd_rn(t.center, support), 0.5), in);
  t.i[0] = lo;
  t.n = max(hi - lo, (i64)0);
  t.total = 0;
  for (i64 i = lo; i < hi; ++i) t.total = __dadd_rn(t.total, aa_raw(t, i));
}

__device__ void linear_taps(Taps& t, i64 o, i64 in, i64 out, double scale, bool align_corners) {
  const double s = sample_scale(in, out, scale, align_corners);
  const double src = align_corners
                         ? __dmul_rn(s, (double)o)
                         : fmax(__dadd_rn(__dmul_rn(s, __dadd_rn((double)o, 0.5)), -0.5), 0.0);
  const i64 i0 = min((i64)src, in - 1);
  const double l1 = fmin(__dadd_rn(src, -(double)i0), 1.0);
  add_tap(t, i0, __dadd_rn(1.0, -l1));
  add_tap(t, i0 + (i0 < in - 1 ? 1 : 0), l1);
}

// Keys' cubic convolution with A = -0.75, in PyTorch's evaluation order: |d| <= 1, 1 < |d| < 2.
__device__ double cubic_near(double d) {
  return __dadd_rn(__dmul_rn(__dmul_rn(__dadd_rn(__dmul_rn(1.25, d), -2.25), d), d), 1.0);
}

__device__ double cubic_far(double d) {
  const double p = __dadd_rn(__dmul_rn(__dadd_rn(__dmul_rn(-0.75, d), 3.75), d), -6.0);
  return __dadd_rn(__dmul_rn(p, d), 3.0);
}

// The source is not clamped at 0 (linear's is): the taps' indices are.
__device__ void cubic_taps(Taps& t, i64 o, i64 in, i64 out, double scale, bool align_corners) {
  const double s = sample_scale(in, out, scale, align_corners);
  const double src = align_corners ? __dmul_rn(s, (double)o)
                                   : __dadd_rn(__dmul_rn(s, __dadd_rn((double)o, 0.5)), -0.5);
  const double f = floor(src), u = __dadd_rn(src, -f);
  const double w[4] = {cubic_far(__dadd_rn(u, 1.0)), cubic_near(u), cubic_near(__dadd_rn(1.0, -u)),
                       cubic_far(__dadd_rn(2.0, -u))};
  for (int j = 0; j < 4; ++j) add_tap(t, min(max((i64)f - 1 + j, (i64)0), in - 1), w[j]);
}

struct InterpolateArgs {
  i64 n, c, nd, mode, align_corners, in[3], out[3], sn, sc, st[3];
  double scales[3];
  i64 antialias;
};

// Modes: 0 nearest, 1 linear, 2 bicubic, 3 area, 4 nearest-exact (ir::InterpolateMode).
__device__ Taps axis_taps(const InterpolateArgs& a, int d, i64 o) {
  Taps t = {};
  if (d < 3 - a.nd) {  // a padding axis
    add_tap(t, 0, 1.0);
    return t;
  }
  const i64 in = a.in[d], out = a.out[d];
  const bool corners = a.align_corners != 0;
  if (a.antialias) {
    aa_taps(t, a.mode == 2, o, in, out, a.scales[d], corners);
  } else if (a.mode == 0) {
    add_tap(t, nearest_source(o, in, out, a.scales[d]), 1.0);
  } else if (a.mode == 4) {
    add_tap(t, nearest_exact_source(o, in, out, a.scales[d]), 1.0);
  } else if (a.mode == 1) {
    linear_taps(t, o, in, out, a.scales[d], corners);
  } else if (a.mode == 2) {
    cubic_taps(t, o, in, out, a.scales[d], corners);
  } else {  // area: adaptive average pooling's window [floor(o in / out), ceil((o + 1) in / out))
    t.box = true;
    t.i[0] = o * in / out;
    t.n = ((o + 1) * in + out - 1) / out - t.i[0];
  }
  return t;
}

// Every mode is separable: the value is the weighted sum over the product of the axes' taps,
// innermost axis first, each sum from its first term (so -0.0 stays -0.0), as the CPU's loops.
extern "C" __global__ void dnn_interpolate(const st_t* x, st_t* y, InterpolateArgs a) {
  const i64 per_plane = a.out[0] * a.out[1] * a.out[2];
  TD_LOOP(k, a.n * a.c * per_plane) {
    const i64 plane = k / per_plane;
    const st_t* src = x + plane / a.c * a.sn + plane % a.c * a.sc;
    const Taps t0 = axis_taps(a, 0, k / (a.out[1] * a.out[2]) % a.out[0]);
    const Taps t1 = axis_taps(a, 1, k / a.out[2] % a.out[1]);
    const Taps t2 = axis_taps(a, 2, k % a.out[2]);
    if (a.mode == 0 || a.mode == 4) {
      y[k] = src[t0.i[0] * a.st[0] + t1.i[0] * a.st[1] + t2.i[0] * a.st[2]];
      continue;
    }
    // Antialias's taps of weight 0 (a distance of exactly 1 or 2) are skipped, as the CPU's.
    double v = 0;
    bool first0 = true;
    for (i64 p = 0; p < t0.n; ++p) {
      const double w0 = tap_weight(t0, p);
      if (w0 == 0) continue;
      double vp = 0;
      bool first1 = true;
      for (i64 q = 0; q < t1.n; ++q) {
        const double w1 = tap_weight(t1, q);
        if (w1 == 0) continue;
        const st_t* row = src + tap_index(t0, p) * a.st[0] + tap_index(t1, q) * a.st[1];
        double vq = 0;
        bool first2 = true;
        for (i64 r = 0; r < t2.n; ++r) {
          const double w2 = tap_weight(t2, r);
          if (w2 == 0) continue;
          const double term = __dmul_rn(w2, ld(row, tap_index(t2, r) * a.st[2]));
          vq = first2 ? term : __dadd_rn(vq, term);
          first2 = false;
        }
        const double term = __dmul_rn(w1, vq);
        vp = first1 ? term : __dadd_rn(vp, term);
        first1 = false;
      }
      const double term = __dmul_rn(w0, vp);
      v = first0 ? term : __dadd_rn(v, term);
      first0 = false;
    }
    if (a.mode == 3) v = __ddiv_rn(v, (double)(t0.n * t1.n * t2.n));
    st(y, k, v);
  }
}

// Gather form of (transposed) convolution, one output element per thread, sums in double.
extern "C" __global__ void dnn_conv_direct(const st_t* x, const st_t* w, const st_t* bias,
                                           st_t* y, ConvArgs a) {
  const i64 out_sp = a.o[0] * a.o[1] * a.o[2];
  const i64 cin_g = a.cin / a.groups, cout_g = a.cout / a.groups;
  TD_LOOP(idx, a.n * a.cout * out_sp) {
    const i64 b = idx / (a.cout * out_sp), co = idx / out_sp % a.cout, pos = idx % out_sp;
    const i64 op[3] = {pos / (a.o[1] * a.o[2]), pos / a.o[2] % a.o[1], pos % a.o[2]};
    const i64 grp = co / cout_g, col = co % cout_g;
    double acc = a.has_bias ? ld(bias, co * a.bias_stride) : 0.0;
    for (i64 ci = 0; ci < cin_g; ++ci) {
      const i64 c = grp * cin_g + ci;
      const st_t* xc = x + b * a.xs[0] + c * a.xs[1];
      const st_t* wc = a.transposed ? w + c * a.ws[0] + col * a.ws[1]
                                    : w + co * a.ws[0] + ci * a.ws[1];
      for (i64 k0 = 0; k0 < a.k[0]; ++k0) {
        i64 i[3];
        bool ok = true;
        i64 kk[3] = {k0, 0, 0};
        for (kk[1] = 0; kk[1] < a.k[1]; ++kk[1]) {
          for (kk[2] = 0; kk[2] < a.k[2]; ++kk[2]) {
            ok = true;
            for (int d = 0; d < 3 && ok; ++d) {
              if (a.transposed) {
                const i64 t = op[d] + a.pad[d] - kk[d] * a.dil[d];
                ok = t >= 0 && t % a.s[d] == 0 && (i[d] = t / a.s[d]) < a.in[d];
              } else {
                i[d] = op[d] * a.s[d] - a.pad[d] + kk[d] * a.dil[d];
                ok = i[d] >= 0 && i[d] < a.in[d];
              }
            }
            if (!ok) continue;
            acc += ld(xc, i[0] * a.xs[2] + i[1] * a.xs[3] + i[2] * a.xs[4]) *
                   ld(wc, kk[0] * a.ws[2] + kk[1] * a.ws[3] + kk[2] * a.ws[4]);
          }
        }
      }
    }
    st(y, idx, acc);
  }
}

__device__ __forceinline__ double log_add(double a, double b) {
  if (a == -td_inf()) return b;
  if (b == -td_inf()) return a;
  const double m = fmax(a, b);
  return m + log1p(exp(-fabs(a - b)));
}

// The alpha recursion of one sample per block (threads over the extended label positions);
// the extended sequence is blank, l1, blank, l2, ..., blank.
extern "C" __global__ void dnn_ctc_alpha(const st_t* lp, const i64* ints, double* work,
                                         double* losses, CtcArgs a) {
  const i64* targets = ints;
  const i64* in_len = ints + a.n * a.s_max;
  const i64* tgt_len = in_len + a.n;
  const i64 full = 2 * a.s_max + 1;
  for (i64 b = blockIdx.x; b < a.n; b += gridDim.x) {
    const i64 steps = in_len[b], len = tgt_len[b], width = 2 * len + 1;
    double* cur = work + b * 2 * full;
    double* nxt = cur + full;
    double nll = 0;
    if (steps == 0) {
      nll = len == 0 ? 0.0 : td_inf();
    } else {
      for (i64 s = threadIdx.x; s < width; s += blockDim.x) {
        const i64 label = s % 2 ? targets[b * a.s_max + s / 2] : a.blank;
        cur[s] = s < 2 ? ld(lp, b * a.st_n + label * a.st_c) : -td_inf();
      }
      __syncthreads();
      for (i64 t = 1; t < steps; ++t) {
        for (i64 s = threadIdx.x; s < width; s += blockDim.x) {
          const i64 label = s % 2 ? targets[b * a.s_max + s / 2] : a.blank;
          double v = cur[s];
          if (s >= 1) v = log_add(v, cur[s - 1]);
          if (s >= 2 && label != a.blank && label != targets[b * a.s_max + s / 2 - 1])
            v = log_add(v, cur[s - 2]);
          nxt[s] = v == -td_inf() ? -td_inf() : v + ld(lp, t * a.st_t + b * a.st_n + label * a.st_c);
        }
        __syncthreads();
        double* swap = cur;
        cur = nxt;
        nxt = swap;
      }
      double total = cur[width - 1];
      if (width > 1) total = log_add(total, cur[width - 2]);
      nll = -total;
    }
    if (threadIdx.x == 0) {
      if (a.zero_inf && fabs(nll) == td_inf()) nll = 0;
      losses[b] = nll;
    }
    __syncthreads();
  }
}

// PyTorch's reductions, in the CPU's order: mean divides each loss by its target length (at
// least 1), then by the batch.
extern "C" __global__ void dnn_ctc_reduce(const double* losses, const i64* tgt_len, st_t* y,
                                          i64 n, i64 reduction) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  if (reduction == 0) {
    for (i64 b = 0; b < n; ++b) st(y, b, losses[b]);
    return;
  }
  double total = 0;
  for (i64 b = 0; b < n; ++b)
    total += reduction == 1 ? losses[b] / (double)max(tgt_len[b], (i64)1) : losses[b];
  st(y, 0, reduction == 1 ? total / (double)n : total);
}
)";

constexpr const char* kCopyBody = R"(
struct CopyArgs { i64 n, rank, size[6], src[6], dst[6]; };
struct BiasArgs { i64 n, c, inner, bias_stride; };
template <typename T>
__device__ void copy_impl(const T* src, T* dst, const CopyArgs& a) {
  TD_LOOP(k, a.n) {
    i64 rem = k, so = 0, doff = 0;
    for (int r = (int)a.rank - 1; r >= 0; --r) {
      const i64 i = rem % a.size[r];
      rem /= a.size[r];
      so += i * a.src[r];
      doff += i * a.dst[r];
    }
    dst[doff] = src[so];
  }
}
template <typename T>
__device__ void fill_bias_impl(const T* bias, T* y, const BiasArgs& a) {
  TD_LOOP(k, a.n) { y[k] = bias[k / a.inner % a.c * a.bias_stride]; }
}
extern "C" __global__ void dnn_copy_2(const u16* s, u16* d, CopyArgs a) { copy_impl(s, d, a); }
extern "C" __global__ void dnn_copy_4(const u32* s, u32* d, CopyArgs a) { copy_impl(s, d, a); }
extern "C" __global__ void dnn_copy_8(const i64* s, i64* d, CopyArgs a) { copy_impl(s, d, a); }
extern "C" __global__ void dnn_fill_bias_2(const u16* b, u16* y, BiasArgs a) { fill_bias_impl(b, y, a); }
extern "C" __global__ void dnn_fill_bias_4(const u32* b, u32* y, BiasArgs a) { fill_bias_impl(b, y, a); }
extern "C" __global__ void dnn_fill_bias_8(const i64* b, i64* y, BiasArgs a) { fill_bias_impl(b, y, a); }
)";

int dtype_code(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::Float32:
      return 0;
    case ir::DType::Float64:
      return 1;
    case ir::DType::Float16:
      return 2;
    case ir::DType::BFloat16:
      return 3;
    default:
      throw Error(ErrorCode::Internal,
                  "no neural-network kernels for " + std::string(ir::name(dtype)));
  }
}

}  // namespace

std::string kernel_source(ir::DType dtype) {
  return "// tensord: neural-network kernels, " + std::string(ir::name(dtype)) +
         "\n#define TD_DTYPE " + std::to_string(dtype_code(dtype)) + "\n" +
         std::string(codegen::cuda_half_prelude()) + kCommon + kAccessors + kBody;
}

const std::string& copy_source() {
  static const std::string source = std::string("// tensord: neural-network copies\n") +
                                    std::string(codegen::cuda_half_prelude()) + kCommon + kCopyBody;
  return source;
}

std::string copy_kernel(size_t element_bytes) {
  return "dnn_copy_" + std::to_string(element_bytes);
}

std::string fill_bias_kernel(size_t element_bytes) {
  return "dnn_fill_bias_" + std::to_string(element_bytes);
}

}  // namespace tensord::cuda::dnn
