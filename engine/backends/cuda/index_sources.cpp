// The gather and index sources (movement_sources.h). Indices reach these kernels as dense int64
// already wrapped into range by td_check_index; the scatters work on dense 8-byte accumulators
// (float64 for floats, int64 for integers and bool) as the CPU does, so every dtype is written
// exactly and sums round once when the host casts the accumulator into the output.
#include "engine/backends/cuda/movement_sources.h"

namespace tensord::cuda {
namespace {

// out[k] = x[xo(k) + index[io(k)] * jump], out contiguous: `xs` are x's strides with 0 along the
// gathered axis, `is` the index's strides over the output's shape.
constexpr const char* kGather = R"(
template <typename T, typename I>
__device__ void td_gather(char* out, const char* x, const td_i64* index, td_i64 n,
                          const td_dims& d, const td_strides& xs, const td_strides& is,
                          td_i64 jump) {
  T* o = (T*)out;
  const T* in = (const T*)x;
  for (td_i64 k = td_thread(); k < n; k += td_threads()) {
    td_i64 xo, io;
    td_offsets2<I>(k, d, xs, is, xo, io);
    o[k] = in[xo + index[io] * jump];
  }
}
#define TD_GATHER(N, T)                                                                         \
  extern "C" __global__ void td_gather##N##_i32(char* out, const char* x, const td_i64* index, \
                                                td_i64 n, td_dims d, td_strides xs,           \
                                                td_strides is, td_i64 jump) {                 \
    td_gather<T, td_u32>(out, x, index, n, d, xs, is, jump);                                    \
  }                                                                                             \
  extern "C" __global__ void td_gather##N##_i64(char* out, const char* x, const td_i64* index, \
                                                td_i64 n, td_dims d, td_strides xs,           \
                                                td_strides is, td_i64 jump) {                 \
    td_gather<T, td_u64>(out, x, index, n, d, xs, is, jump);                                    \
  }
TD_GATHER(1, td_u8)
TD_GATHER(2, td_u16)
TD_GATHER(4, td_u32)
TD_GATHER(8, td_u64)
TD_GATHER(16, td_b16)
)";

constexpr const char* kIndex = R"(
// Wraps negative indices into [0, size) in place; an index outside [-size, size) is left as it
// is and the smallest such position goes to *bad (initialised to the largest int64), which the
// host reads back to raise the CPU's error.
extern "C" __global__ void td_check_index(td_i64* index, td_i64 n, td_i64 size, td_u64* bad) {
  for (td_i64 k = td_thread(); k < n; k += td_threads()) {
    const td_i64 v = index[k];
    if (v < -size || v >= size) {
      atomicMin(bad, (td_u64)k);
    } else if (v < 0) {
      index[k] = v + size;
    }
  }
}

// scatter along `axis`: position k of the index (row-major over `size`) targets
// o = sum(d == axis ? index[k] : pos[d]) * xs[d] of x and reads src at sum(pos[d] * ss[d]).
struct td_scatter_geom {
  td_i64 rank, axis;
  td_i64 size[TD_MAX_RANK], xs[TD_MAX_RANK], ss[TD_MAX_RANK];
};
__device__ __forceinline__ void td_scatter_at(td_i64 k, td_i64 i, const td_scatter_geom& g,
                                              td_i64& o, td_i64& s) {
  o = 0;
  s = 0;
  td_u64 rest = (td_u64)k;
#pragma unroll
  for (int d = TD_MAX_RANK - 1; d >= 0; --d) {
    if (d < g.rank) {
      const td_u64 size = (td_u64)g.size[d], q = rest / size;
      const td_i64 p = (td_i64)(rest - q * size);
      rest = q;
      o += (d == g.axis ? i : p) * g.xs[d];
      s += p * g.ss[d];
    }
  }
}

// Repeated targets keep the last position in row-major order, as the CPU: the largest k per
// target wins (winner starts at -1), then the winners write.
extern "C" __global__ void td_scatter_winner(const td_i64* index, td_i64 n, td_scatter_geom g,
                                             td_i64* winner) {
  for (td_i64 k = td_thread(); k < n; k += td_threads()) {
    td_i64 o, s;
    td_scatter_at(k, index[k], g, o, s);
    atomicMax(winner + o, k);
  }
}
extern "C" __global__ void td_scatter_write(const td_i64* index, td_i64 n, td_scatter_geom g,
                                            const td_i64* winner, td_u64* acc,
                                            const td_u64* src) {
  for (td_i64 k = td_thread(); k < n; k += td_threads()) {
    td_i64 o, s;
    td_scatter_at(k, index[k], g, o, s);
    if (winner[o] == k) acc[o] = src[s];
  }
}
extern "C" __global__ void td_scatter_add_f64(const td_i64* index, td_i64 n, td_scatter_geom g,
                                              double* acc, const double* src) {
  for (td_i64 k = td_thread(); k < n; k += td_threads()) {
    td_i64 o, s;
    td_scatter_at(k, index[k], g, o, s);
    atomicAdd(acc + o, src[s]);
  }
}
// Integer sums wrap: added as uint64.
extern "C" __global__ void td_scatter_add_i64(const td_i64* index, td_i64 n, td_scatter_geom g,
                                              td_u64* acc, const td_u64* src) {
  for (td_i64 k = td_thread(); k < n; k += td_threads()) {
    td_i64 o, s;
    td_scatter_at(k, index[k], g, o, s);
    atomicAdd(acc + o, src[s]);
  }
}

// scatter_reduce: how many src values reach each target, the identity written where some do
// (include_self = false: the first src value then replaces x's), the combination, the mean.
extern "C" __global__ void td_scatter_count(const td_i64* index, td_i64 n, td_scatter_geom g,
                                            td_u64* count) {
  for (td_i64 k = td_thread(); k < n; k += td_threads()) {
    td_i64 o, s;
    td_scatter_at(k, index[k], g, o, s);
    atomicAdd(count + o, 1ull);
  }
}
extern "C" __global__ void td_fill_counted(td_u64* acc, const td_u64* count, td_i64 m,
                                           td_u64 bits) {
  for (td_i64 o = td_thread(); o < m; o += td_threads()) {
    if (count[o] != 0) acc[o] = bits;
  }
}

enum { TD_SUM, TD_PROD, TD_MEAN, TD_AMAX, TD_AMIN };

__device__ __forceinline__ double td_combine_f64(int r, double a, double b) {
  const double nan = __longlong_as_double(0x7ff8000000000000ll);
  switch (r) {
    case TD_PROD: return __dmul_rn(a, b);
    case TD_AMAX: return a != a || b != b ? nan : (a < b ? b : a);
    case TD_AMIN: return a != a || b != b ? nan : (b < a ? b : a);
    default: return __dadd_rn(a, b);
  }
}
extern "C" __global__ void td_scatter_combine_f64(const td_i64* index, td_i64 n,
                                                  td_scatter_geom g, double* acc,
                                                  const double* src, int reduction) {
  for (td_i64 k = td_thread(); k < n; k += td_threads()) {
    td_i64 o, s;
    td_scatter_at(k, index[k], g, o, s);
    const double v = src[s];
    if (reduction == TD_SUM || reduction == TD_MEAN) {
      atomicAdd(acc + o, v);
      continue;
    }
    td_u64* p = (td_u64*)(acc + o);
    td_u64 old = *p, seen;
    do {
      seen = old;
      const double next = td_combine_f64(reduction, __longlong_as_double((td_i64)seen), v);
      old = atomicCAS(p, seen, (td_u64)__double_as_longlong(next));
    } while (old != seen);
  }
}
extern "C" __global__ void td_scatter_combine_i64(const td_i64* index, td_i64 n,
                                                  td_scatter_geom g, td_i64* acc,
                                                  const td_i64* src, int reduction) {
  for (td_i64 k = td_thread(); k < n; k += td_threads()) {
    td_i64 o, s;
    td_scatter_at(k, index[k], g, o, s);
    const td_i64 v = src[s];
    if (reduction == TD_AMAX) {
      atomicMax(acc + o, v);
    } else if (reduction == TD_AMIN) {
      atomicMin(acc + o, v);
    } else if (reduction == TD_PROD) {
      td_u64* p = (td_u64*)(acc + o);
      td_u64 old = *p, seen;
      do {
        seen = old;
        old = atomicCAS(p, seen, seen * (td_u64)v);
      } while (old != seen);
    } else {
      atomicAdd((td_u64*)(acc + o), (td_u64)v);
    }
  }
}
// mean: the sum over (hits + self) values, where more than one was combined.
extern "C" __global__ void td_scatter_mean_f64(double* acc, const td_u64* count, td_i64 m,
                                               td_i64 self) {
  for (td_i64 o = td_thread(); o < m; o += td_threads()) {
    const td_i64 c = (td_i64)count[o] + self;
    if (c > 1) acc[o] = __ddiv_rn(acc[o], (double)c);
  }
}
// Integer mean rounds toward -inf (PyTorch's floor division), on the wrapped int64 sum.
extern "C" __global__ void td_scatter_mean_i64(td_i64* acc, const td_u64* count, td_i64 m,
                                               td_i64 self) {
  for (td_i64 o = td_thread(); o < m; o += td_threads()) {
    const td_i64 c = (td_i64)count[o] + self;
    if (c > 1) {
      const td_i64 sum = acc[o];
      td_i64 q = sum / c;
      if (sum % c != 0 && sum < 0) --q;
      acc[o] = q;
    }
  }
}

// index_put: k index tensors broadcast to B (`brank` dims of `bsize`) pick a row of x
// (base = sum index_d[b] * xs[d]) whose `tail` elements (the rest of x, `rsize`) receive values
// broadcast to B + rest (strides vb over B, vr over the rest). Position j = r * tail + t is the
// CPU's visiting order.
struct td_put_geom {
  td_i64 k, brank, rrank, tail;
  td_i64 bsize[TD_MAX_RANK], rsize[TD_MAX_RANK];
  td_i64 vb[TD_MAX_RANK], vr[TD_MAX_RANK], xs[TD_MAX_RANK];
  td_i64 istr[TD_MAX_RANK][TD_MAX_RANK];
  const td_i64* index[TD_MAX_RANK];
};
__device__ void td_put_at(td_i64 j, const td_put_geom& g, td_i64& o, td_i64& v) {
  const td_u64 tail = (td_u64)g.tail;
  td_u64 r = (td_u64)j / tail, t = (td_u64)j - r * tail;
  td_i64 pos[TD_MAX_RANK];
  v = 0;
#pragma unroll
  for (int e = TD_MAX_RANK - 1; e >= 0; --e) {
    pos[e] = 0;
    if (e < g.brank) {
      const td_u64 size = (td_u64)g.bsize[e], q = r / size;
      pos[e] = (td_i64)(r - q * size);
      r = q;
      v += pos[e] * g.vb[e];
    }
  }
  td_u64 rest = t;
#pragma unroll
  for (int e = TD_MAX_RANK - 1; e >= 0; --e) {
    if (e < g.rrank) {
      const td_u64 size = (td_u64)g.rsize[e], q = rest / size;
      v += (td_i64)(rest - q * size) * g.vr[e];
      rest = q;
    }
  }
  o = (td_i64)t;
  for (int d = 0; d < g.k; ++d) {
    td_i64 at = 0;
#pragma unroll
    for (int e = 0; e < TD_MAX_RANK; ++e) at += pos[e] * g.istr[d][e];
    o += g.index[d][at] * g.xs[d];
  }
}
extern "C" __global__ void td_put_winner(td_i64 n, td_put_geom g, td_i64* winner) {
  for (td_i64 j = td_thread(); j < n; j += td_threads()) {
    td_i64 o, v;
    td_put_at(j, g, o, v);
    atomicMax(winner + o, j);
  }
}
extern "C" __global__ void td_put_write(td_i64 n, td_put_geom g, const td_i64* winner,
                                        td_u64* acc, const td_u64* values) {
  for (td_i64 j = td_thread(); j < n; j += td_threads()) {
    td_i64 o, v;
    td_put_at(j, g, o, v);
    if (winner[o] == j) acc[o] = values[v];
  }
}
extern "C" __global__ void td_put_add_f64(td_i64 n, td_put_geom g, double* acc,
                                          const double* values) {
  for (td_i64 j = td_thread(); j < n; j += td_threads()) {
    td_i64 o, v;
    td_put_at(j, g, o, v);
    atomicAdd(acc + o, values[v]);
  }
}
extern "C" __global__ void td_put_add_i64(td_i64 n, td_put_geom g, td_u64* acc,
                                          const td_u64* values) {
  for (td_i64 j = td_thread(); j < n; j += td_threads()) {
    td_i64 o, v;
    td_put_at(j, g, o, v);
    atomicAdd(acc + o, values[v]);
  }
}

// searchsorted: value k searches row k / per_row of the sequence (rows of `len`), through the
// sorter when there is one. NaN sorts last.
__device__ __forceinline__ bool td_less(double a, double b) { return a < b || (a == a && b != b); }
__device__ __forceinline__ bool td_less(td_i64 a, td_i64 b) { return a < b; }
template <typename C>
__device__ void td_search(const C* seq, const td_i64* sorter, td_i64 len, const C* values,
                          td_i64 n, td_i64 per_row, int right, td_i64* out) {
  for (td_i64 k = td_thread(); k < n; k += td_threads()) {
    const td_i64 row = k / per_row;
    const C* s = seq + row * len;
    const td_i64* order = sorter ? sorter + row * len : 0;
    const C v = values[k];
    td_i64 lo = 0, hi = len;
    while (lo < hi) {
      const td_i64 mid = lo + (hi - lo) / 2;
      const C m = order ? s[order[mid]] : s[mid];
      const bool go_right = right ? !td_less(v, m) : td_less(m, v);
      if (go_right) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    out[k] = lo;
  }
}
extern "C" __global__ void td_search_f64(const double* seq, const td_i64* sorter, td_i64 len,
                                         const double* values, td_i64 n, td_i64 per_row,
                                         int right, td_i64* out) {
  td_search<double>(seq, sorter, len, values, n, per_row, right, out);
}
extern "C" __global__ void td_search_i64(const td_i64* seq, const td_i64* sorter, td_i64 len,
                                         const td_i64* values, td_i64 n, td_i64 per_row,
                                         int right, td_i64* out) {
  td_search<td_i64>(seq, sorter, len, values, n, per_row, right, out);
}
)";

}  // namespace

const std::string& gather_kernel_source() {
  static const std::string text = movement_prelude() + kGather;
  return text;
}

const std::string& index_kernel_source() {
  static const std::string text = movement_prelude() + kIndex;
  return text;
}

}  // namespace tensord::cuda
