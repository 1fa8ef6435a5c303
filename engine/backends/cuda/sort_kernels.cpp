// CUDA C of sorting along an axis. Every line is sorted as (key, original position) pairs, the
// key an unsigned integer in value order (sort_prelude's key_f32/key_f64/key_i64: NaN above
// everything, -0.0 equal to 0.0; complemented for descending order). Ties are broken by the
// position, so the pairs are all distinct and any sorting network gives the stable order in
// both directions. The network is bitonic: lines are padded to a power of two P (padding sorts
// last), chunks of 2048 pairs sort in shared memory, longer lines continue with one global
// compare-exchange launch per step of 2048 or more and a shared-memory merge for the rest.
// The per-dtype kernels load the keys and turn sorted lines into each op's outputs.
#include <array>

#include "engine/backends/cuda/sort_common.h"
#include "engine/backends/cuda/sort_sources.h"

namespace tensord::cuda {
namespace {

constexpr const char* kNetwork = R"(
#define SORT_CHUNK 2048
#define SORT_THREADS 1024

__device__ __forceinline__ bool pair_after(u64 ka, i64 ia, u64 kb, i64 ib) {
  return ka > kb || (ka == kb && ia > ib);
}

// Compare-exchange of pair t of step (k, j) inside a chunk starting at `base`. Segments of P
// pairs are sorted on their own (ascending: the direction bit comes from the position inside
// the segment, so the last stage k = P is ascending everywhere).
__device__ __forceinline__ void chunk_pass(u64* sk, i64* si, i64 base, i64 total, i64 P, i64 k,
                                           i64 j, int t) {
  const int i = 2 * t - (t & (int)(j - 1));
  const i64 gi = base + i;
  if (gi >= total) return;  // the partner is in the same segment: inside too when gi is
  const int p = i + (int)j;
  const bool asc = ((gi & (P - 1)) & k) == 0;
  if (pair_after(sk[i], si[i], sk[p], si[p]) == asc) {
    const u64 tk = sk[i]; sk[i] = sk[p]; sk[p] = tk;
    const i64 ti = si[i]; si[i] = si[p]; si[p] = ti;
  }
}

// Stages k = 2 .. kmax (kmax = min(P, SORT_CHUNK)) when k_only is 0; else only the steps
// j < SORT_CHUNK of stage k_only (the end of a stage whose longer steps ran in sort_step).
__device__ void chunk_sort(u64* keys, i64* idx, i64 total, i64 P, i64 kmax, i64 k_only) {
  __shared__ u64 sk[SORT_CHUNK];
  __shared__ i64 si[SORT_CHUNK];
  const int t = threadIdx.x;
  for (i64 base = (i64)blockIdx.x * SORT_CHUNK; base < total; base += (i64)gridDim.x * SORT_CHUNK) {
    for (int e = t; e < SORT_CHUNK; e += SORT_THREADS) {
      if (base + e < total) {
        sk[e] = keys[base + e];
        si[e] = idx[base + e];
      }
    }
    __syncthreads();
    if (k_only == 0) {
      for (i64 k = 2; k <= kmax; k <<= 1) {
        for (i64 j = k >> 1; j > 0; j >>= 1) {
          chunk_pass(sk, si, base, total, P, k, j, t);
          __syncthreads();
        }
      }
    } else {
      for (i64 j = SORT_CHUNK / 2; j > 0; j >>= 1) {
        chunk_pass(sk, si, base, total, P, k_only, j, t);
        __syncthreads();
      }
    }
    for (int e = t; e < SORT_CHUNK; e += SORT_THREADS) {
      if (base + e < total) {
        keys[base + e] = sk[e];
        idx[base + e] = si[e];
      }
    }
    __syncthreads();
  }
}

KERNEL void __launch_bounds__(SORT_THREADS)
sort_chunks(u64* keys, i64* idx, i64 total, i64 P, i64 kmax) {
  chunk_sort(keys, idx, total, P, kmax, 0);
}

KERNEL void __launch_bounds__(SORT_THREADS)
sort_merge(u64* keys, i64* idx, i64 total, i64 P, i64 k) {
  chunk_sort(keys, idx, total, P, 0, k);
}

// One compare-exchange step (k, j) with j >= SORT_CHUNK over the whole array (total is a
// multiple of P here).
KERNEL void __launch_bounds__(256)
sort_step(u64* keys, i64* idx, i64 total, i64 P, i64 k, i64 j) {
  for (i64 t = global_thread(); t < total / 2; t += global_threads()) {
    const i64 i = 2 * t - (t & (j - 1));
    const i64 p = i + j;
    const bool asc = ((i & (P - 1)) & k) == 0;
    const u64 ka = keys[i], kb = keys[p];
    const i64 ia = idx[i], ib = idx[p];
    if (pair_after(ka, ia, kb, ib) == asc) {
      keys[i] = kb; keys[p] = ka;
      idx[i] = ib; idx[p] = ia;
    }
  }
}
)";

// op codes of sort_select: 0 median_axis, 1 nanmedian_axis, 2 mode, 3 median, 4 nanmedian.
constexpr const char* kPerDType = R"(
// Keys of line `line` padded to P: real elements (complemented when descending), then padding
// that sorts after everything (the largest key and position).
KERNEL void __launch_bounds__(256)
sort_load(LineGeo g, const In* x, u64* keys, i64* idx, i64 P, int descending) {
  const i64 total = g.lines * P;
  for (i64 e = global_thread(); e < total; e += global_threads()) {
    const i64 line = e / P, k = e % P;
    if (k < g.n) {
      const u64 key = key_of(x[in_at(g, line, k)]);
      keys[e] = descending ? ~key : key;
      idx[e] = k;
    } else {
      keys[e] = ~0ull;
      idx[e] = I64_MAX;
    }
  }
}

// Outputs s = 0 .. m-1 of every line from sorted position first + s: sort, argsort, topk,
// kthvalue. values or indices may be null.
KERNEL void __launch_bounds__(256)
sort_gather(LineGeo g, const In* x, const i64* idx, i64 P, i64 first, In* values, i64* indices) {
  const i64 total = g.lines * g.m;
  for (i64 e = global_thread(); e < total; e += global_threads()) {
    const i64 line = e / g.m, s = e % g.m;
    const i64 pos = idx[line * P + first + s];
    const i64 o = out_at(g, line, s);
    if (values) values[o] = x[in_at(g, line, pos)];
    if (indices) indices[o] = pos;
  }
}

// The number of non-NaN elements of an ascending line (NaNs sort last).
__device__ __forceinline__ i64 finite_count(const u64* k, i64 n) {
#if IS_FLOAT
  const u64 nk = nan_key();
  i64 lo = 0, hi = n;
  while (lo < hi) {
    const i64 mid = lo + (hi - lo) / 2;
    if (k[mid] >= nk) hi = mid;
    else lo = mid + 1;
  }
  return lo;
#else
  return n;
#endif
}

KERNEL void __launch_bounds__(256)
sort_select(LineGeo g, const In* x, const u64* keys, const i64* idx, i64 P, int op, In* values,
            i64* indices) {
  for (i64 line = global_thread(); line < g.lines; line += global_threads()) {
    const u64* kl = keys + line * P;
    const i64* il = idx + line * P;
    const i64 n = g.n;
    const i64 finite = finite_count(kl, n);
    i64 pick;
    if (op == 2) {  // mode: the longest run of equal keys, the first (smallest) on ties, its end
      i64 best = 0, best_count = 0;
      for (i64 s = 0; s < n;) {
        i64 e = s + 1;
        while (e < n && kl[e] == kl[s]) ++e;
        if (e - s > best_count) {
          best = e - 1;
          best_count = e - s;
        }
        s = e;
      }
      pick = best;
    } else if (op <= 1) {  // median_axis: a NaN line gives its first NaN
      pick = (finite == 0 || (finite < n && op == 0)) ? finite : (finite - 1) / 2;
    } else {  // median of all elements: a NaN gives the last NaN (as the CPU)
      pick = (finite == 0 || (finite < n && op == 3)) ? n - 1 : (finite - 1) / 2;
    }
    const i64 pos = il[pick];
    values[line] = x[in_at(g, line, pos)];
    if (indices) indices[line] = pos;
  }
}

#if IS_FLOAT
// PyTorch's lerp, exact at both ends; no FMA contraction (the CPU rounds each operation).
__device__ __forceinline__ double lerp_d(double a, double b, double w) {
  const double d = __dsub_rn(b, a);
  return fabs(w) < 0.5 ? __dadd_rn(a, __dmul_rn(w, d)) : __dsub_rn(b, __dmul_rn(d, __dsub_rn(1.0, w)));
}

// out[j * lines + line]: quantile q[j] of the line (interpolation `mode` as docs/ops.md).
KERNEL void __launch_bounds__(256)
sort_quantile(LineGeo g, const In* x, const u64* keys, const i64* idx, i64 P, const double* q,
              i64 nq, int mode, int skip_nan, In* out) {
  const i64 total = g.lines * nq;
  for (i64 e = global_thread(); e < total; e += global_threads()) {
    const i64 j = e / g.lines, line = e % g.lines;
    const u64* kl = keys + line * P;
    const i64* il = idx + line * P;
    const i64 finite = finite_count(kl, g.n);
    double r = __longlong_as_double(0x7ff8000000000000LL);
    if (finite > 0 && (finite == g.n || skip_nan)) {
      const double pos = __dmul_rn(q[j], (double)(finite - 1));
      const i64 lo = (i64)floor(pos), hi = (i64)ceil(pos);
      const double vlo = to_f64(x[in_at(g, line, il[lo])]);
      const double vhi = to_f64(x[in_at(g, line, il[hi])]);
      switch (mode) {
        case 1: r = vlo; break;
        case 2: r = vhi; break;
        case 3: r = to_f64(x[in_at(g, line, il[(i64)rint(pos)])]); break;
        case 4: r = lo == hi ? vlo : lerp_d(vlo, vhi, 0.5); break;
        default: r = lo == hi ? vlo : lerp_d(vlo, vhi, __dsub_rn(pos, (double)lo)); break;
      }
    }
    out[e] = from_f64(r);
  }
}
#endif
)";

constexpr int kDTypes = static_cast<int>(ir::DType::Float64) + 1;  // no complex sorting

}  // namespace

const std::string& sort_network_source() {
  static const std::string source =
      "// tensord sorting network (bitonic, (key, position) pairs)\n" + sort_prelude() + kNetwork;
  return source;
}

std::vector<std::string> sort_network_kernel_names() {
  return {"sort_chunks", "sort_merge", "sort_step"};
}

const std::string& sort_source(ir::DType in) {
  static const std::array<std::string, kDTypes> sources = [] {
    std::array<std::string, kDTypes> s;
    for (int t = 0; t < kDTypes; ++t) {
      s[t] = "// tensord sort kernels (keys, gather, select, quantile)\n" + sort_prelude() +
             dtype_prelude(static_cast<ir::DType>(t)) + kPerDType;
    }
    return s;
  }();
  return sources.at(static_cast<size_t>(in));
}

std::vector<std::string> sort_kernel_names(ir::DType in) {
  std::vector<std::string> names = {"sort_load", "sort_gather", "sort_select"};
  if (ir::is_floating(in)) names.emplace_back("sort_quantile");
  return names;
}

}  // namespace tensord::cuda
