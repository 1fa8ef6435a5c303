// Pooling (docs/ops.md "Neural-network ops"). Every pool is separable in its windows: output o
// of an axis reads taps start + j * dilation for j in [first, end), the taps inside the input
// (padding never contributes). An output element reduces over the product of its axes' taps.
// Max compares in the input's dtype (exact); averages sum in double and round once.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "engine/backends/cpu/kernels_pool.h"
#include "engine/backends/cpu/parallel.h"

namespace tensord::cpu {
namespace {

// The windows of every output coordinate of one axis.
struct AxisWindows {
  int64_t dilation = 1;
  std::vector<int64_t> start, first, end;  // tap j of output o reads start[o] + j * dilation
  std::vector<double> divisor;             // averages: this axis's factor of the divisor
};

// Window pools: start = o stride - pad; the valid taps are those with 0 <= start + j dil < in.
// PyTorch's divisor: the window clipped to the padded input (count_include_pad) or to the input.
AxisWindows window_axis(const ir::PoolGeometry& g, int d, int64_t in, int64_t out) {
  AxisWindows a;
  a.dilation = g.dilation[d];
  const int64_t k = g.kernel[d], s = g.stride[d], p = g.padding[d], dil = g.dilation[d];
  for (int64_t o = 0; o < out; ++o) {
    const int64_t start = o * s - p, last = in - 1 - start;
    const int64_t first = start >= 0 ? 0 : (-start + dil - 1) / dil;
    const int64_t end = last < 0 ? 0 : std::min(k, last / dil + 1);
    a.start.push_back(start);
    a.first.push_back(std::min(first, end));  // first > end: no tap inside the input
    a.end.push_back(end);
    const int64_t padded = std::min(start + k, in + p) - start;
    a.divisor.push_back(
        static_cast<double>(g.count_include_pad ? padded : a.end.back() - a.first.back()));
  }
  return a;
}

// Adaptive pools: output o's window is [floor(o in / out), ceil((o + 1) in / out)).
AxisWindows adaptive_axis(int64_t in, int64_t out) {
  AxisWindows a;
  for (int64_t o = 0; o < out; ++o) {
    const int64_t start = o * in / out, stop = ((o + 1) * in + out - 1) / out;
    a.start.push_back(start);
    a.first.push_back(0);
    a.end.push_back(stop - start);
    a.divisor.push_back(static_cast<double>(stop - start));
  }
  return a;
}

struct Windows {
  AxisWindows axis[3];
};

// One output row (plane, o0, o1) along the last axis: every output of it reads the same input
// rows (their offsets in the plane, in window order) and the last axis's own taps.
template <typename T>
void mean_row(const AxisWindows& a2, std::span<const int64_t> rows, double divisor, const T* plane,
              int64_t out, T* y) {
  for (int64_t o = 0; o < out; ++o) {
    double sum = 0;
    for (int64_t row : rows) {
      const T* p = plane + row + a2.start[o];
      for (int64_t k = a2.first[o]; k < a2.end[o]; ++k) sum += p[k];
    }
    y[o] = static_cast<T>(sum / (divisor * a2.divisor[o]));
  }
}

// The maximum of one output's window as a max that compiles to maxss/maxsd (PyTorch's rule
// `v > m or isnan(v)` as a chain of dependent selects took max_pool2d of (16, 16, 64, 64) from
// 1.9 to 6.1 ms), with NaN noted aside. Ties keep the first maximum's value (-0.0 before 0.0).
template <typename T>
T window_max(std::span<const int64_t> rows, const T* plane, int64_t start, int64_t first,
             int64_t end, int64_t dilation, bool& nan) {
  T m = -std::numeric_limits<T>::infinity();
  for (int64_t row : rows) {
    const T* p = plane + row + start;
    for (int64_t k = first; k < end; ++k) {
      const T x = p[k * dilation];
      m = x > m ? x : m;
      nan |= x != x;
    }
  }
  return m;
}

// Max and its index by PyTorch's rule over the window in row-major order: the first maximum,
// or the last NaN; no tap: -inf at index -1. The maximum first (above), then its position by a
// backward scan of selects, which has no branch to mispredict on random data (the rule's own
// loop measured 6.2 ms on (16, 16, 64, 64), 3x the values alone).
template <typename T>
void max_index_row(const AxisWindows& a2, std::span<const int64_t> rows, const T* plane,
                   int64_t out, T* y, int64_t* indices) {
  const int64_t d2 = a2.dilation;
  for (int64_t o = 0; o < out; ++o) {
    bool nan = false;
    const T m = window_max(rows, plane, a2.start[o], a2.first[o], a2.end[o], d2, nan);
    int64_t at = -1;
    if (!nan) {
      for (auto row = rows.rbegin(); row != rows.rend(); ++row) {
        const int64_t base = *row + a2.start[o];
        for (int64_t k = a2.end[o] - 1; k >= a2.first[o]; --k) {
          const int64_t pos = base + k * d2;
          at = plane[pos] == m ? pos : at;
        }
      }
    } else {
      for (int64_t row : rows) {
        const int64_t base = row + a2.start[o];
        for (int64_t k = a2.first[o]; k < a2.end[o]; ++k) {
          const int64_t pos = base + k * d2;
          at = plane[pos] != plane[pos] ? pos : at;
        }
      }
    }
    y[o] = nan ? plane[at] : m;
    indices[o] = at;
  }
}

// The values alone: the maximum, or NaN where the window has one.
template <typename T>
void max_row(const AxisWindows& a2, std::span<const int64_t> rows, const T* plane, int64_t out,
             T* y) {
  for (int64_t o = 0; o < out; ++o) {
    bool nan = false;
    const T m = window_max(rows, plane, a2.start[o], a2.first[o], a2.end[o], a2.dilation, nan);
    y[o] = nan ? std::numeric_limits<T>::quiet_NaN() : m;
  }
}

template <typename T>
void run_windows(const KernelContext& ctx, PoolKind kind, const Windows& w, const Volume& v,
                 const T* x, T* y, int64_t* indices) {
  const AxisWindows &a0 = w.axis[0], &a1 = w.axis[1], &a2 = w.axis[2];
  const int64_t out_rows = v.out[0] * v.out[1], in_plane = v.in_volume();
  const int64_t grain = std::max<int64_t>(1, 4096 / v.out[2]);
  parallel_for(v.planes * out_rows, grain, ctx.threads, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> rows;
    for (int64_t r = begin; r < end; ++r) {
      const int64_t o0 = r % out_rows / v.out[1], o1 = r % v.out[1];
      rows.clear();
      for (int64_t i = a0.first[o0]; i < a0.end[o0]; ++i) {
        const int64_t z = a0.start[o0] + i * a0.dilation;
        for (int64_t j = a1.first[o1]; j < a1.end[o1]; ++j) {
          rows.push_back((z * v.in[1] + a1.start[o1] + j * a1.dilation) * v.in[2]);
        }
      }
      const T* plane = x + r / out_rows * in_plane;
      const int64_t at = r * v.out[2];
      if (kind == PoolKind::Average) {
        mean_row(a2, rows, a0.divisor[o0] * a1.divisor[o1], plane, v.out[2], y + at);
      } else if (indices != nullptr) {
        max_index_row(a2, rows, plane, v.out[2], y + at, indices + at);
      } else {
        max_row(a2, rows, plane, v.out[2], y + at);
      }
    }
  });
}

template <typename T>
void window_pool_t(const KernelContext& ctx, PoolKind kind, const ir::PoolGeometry& g,
                   const Volume& v, const T* x, T* y, int64_t* indices) {
  // The geometry's nd axes are the last nd of the volume's three; the others see the identity
  // window (kernel, stride 1, no padding).
  ir::PoolGeometry g3;
  g3.nd = 3;
  g3.count_include_pad = g.count_include_pad;
  for (int d = 0; d < g.nd; ++d) {
    const int to = 3 - g.nd + d;
    g3.kernel[to] = g.kernel[d], g3.stride[to] = g.stride[d];
    g3.padding[to] = g.padding[d], g3.dilation[to] = g.dilation[d];
  }
  Windows w;
  for (int d = 0; d < 3; ++d) w.axis[d] = window_axis(g3, d, v.in[d], v.out[d]);
  if (g.divisor != 0) {  // divisor_override: the product of the axes' factors is the divisor
    for (int d = 0; d < 3; ++d) {
      w.axis[d].divisor.assign(w.axis[d].divisor.size(), d == 2 ? double(g.divisor) : 1.0);
    }
  }
  run_windows(ctx, kind, w, v, x, y, indices);
}

template <typename T>
void adaptive_pool_t(const KernelContext& ctx, PoolKind kind, const Volume& v, const T* x, T* y,
                     int64_t* indices) {
  Windows w;
  for (int d = 0; d < 3; ++d) w.axis[d] = adaptive_axis(v.in[d], v.out[d]);
  run_windows(ctx, kind, w, v, x, y, indices);
}

}  // namespace

void window_pool(const KernelContext& ctx, PoolKind kind, const ir::PoolGeometry& g,
                 const Volume& v, const float* x, float* y, int64_t* indices) {
  window_pool_t(ctx, kind, g, v, x, y, indices);
}
void window_pool(const KernelContext& ctx, PoolKind kind, const ir::PoolGeometry& g,
                 const Volume& v, const double* x, double* y, int64_t* indices) {
  window_pool_t(ctx, kind, g, v, x, y, indices);
}

void adaptive_pool(const KernelContext& ctx, PoolKind kind, const Volume& v, const float* x,
                   float* y, int64_t* indices) {
  adaptive_pool_t(ctx, kind, v, x, y, indices);
}
void adaptive_pool(const KernelContext& ctx, PoolKind kind, const Volume& v, const double* x,
                   double* y, int64_t* indices) {
  adaptive_pool_t(ctx, kind, v, x, y, indices);
}

}  // namespace tensord::cpu
