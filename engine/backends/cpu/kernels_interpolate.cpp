// interpolate (docs/ops.md "Neural-network ops"): nearest, linear (1 to 3 axes), bicubic,
// area and nearest-exact, PyTorch's coordinates, and its antialiased linear and bicubic. Every
// mode is separable: each output coordinate of an axis reads a few source coordinates of that
// axis with weights (its taps), and an output element is the weighted sum over the product of
// its axes' taps, in double.
#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/backends/cpu/kernels_interpolate.h"
#include "engine/backends/cpu/parallel.h"

namespace tensord::cpu {
namespace {

using ir::InterpolateMode;

// The taps of every output coordinate of one axis, flattened: output o reads
// index[begin[o] .. begin[o + 1]) with the same weights.
struct AxisTaps {
  std::vector<int64_t> begin{0};
  std::vector<int64_t> index;
  std::vector<double> weight;
  bool single = true;  // one tap of weight 1 per output (the nearest modes)

  int64_t taps(int64_t o) const { return begin[o + 1] - begin[o]; }

  // A tap of weight 0 is left out: PyTorch multiplies it, and an inf there gives NaN.
  void add(int64_t i, double w) {
    if (w == 0) return;
    index.push_back(i);
    weight.push_back(w);
  }
  void close() {
    begin.push_back(static_cast<int64_t>(index.size()));
    if (begin.back() - begin[begin.size() - 2] != 1 || weight.back() != 1.0) single = false;
  }
};

// PyTorch's area_pixel_compute_scale: (in - 1) / (out - 1) under align_corners, else 1 / the
// user's factor or in / out.
double sampling_scale(const ir::InterpolateGeometry& g, int d, int64_t in, int64_t out) {
  if (g.align_corners) {
    return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  }
  return g.has_scales ? 1.0 / g.scales[d] : static_cast<double>(in) / static_cast<double>(out);
}

// float32, as PyTorch's nearest_idx computes it.
float nearest_scale(const ir::InterpolateGeometry& g, int d, int64_t in, int64_t out) {
  return g.has_scales ? static_cast<float>(1.0 / g.scales[d])
                      : static_cast<float>(in) / static_cast<float>(out);
}

int64_t nearest_source(const ir::InterpolateGeometry& g, int d, int64_t o, int64_t in,
                       int64_t out) {
  if (out == in) return o;
  if (out == 2 * in) return o >> 1;
  const float s = nearest_scale(g, d, in, out);
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
}

int64_t nearest_exact_source(const ir::InterpolateGeometry& g, int d, int64_t o, int64_t in,
                             int64_t out) {
  const float s = nearest_scale(g, d, in, out);
  const auto src = static_cast<float>((static_cast<double>(o) + 0.5) * static_cast<double>(s));
  return std::min(static_cast<int64_t>(std::floor(src)), in - 1);
}

// Keys' cubic convolution, A = -0.75 (PyTorch's get_cubic_upsample_coefficients).
constexpr double kCubicA = -0.75;
double cubic_near(double t) {  // |distance| <= 1
  return ((kCubicA + 2) * t - (kCubicA + 3)) * t * t + 1;
}
double cubic_far(double t) {  // 1 < |distance| < 2
  return ((kCubicA * t - 5 * kCubicA) * t + 8 * kCubicA) * t - 4 * kCubicA;
}

// PyTorch's antialiased filters (its _compute_weights_aa): linear's triangle, and for bicubic
// Keys' cubic with A = -0.5 (PIL's choice, which PyTorch follows there), of |x|.
double aa_filter(bool cubic, double x) {
  x = std::fabs(x);
  if (!cubic) return x < 1 ? 1 - x : 0;
  constexpr double a = -0.5;
  if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return (((x - 5) * x + 8) * x - 4) * a;
  return 0;
}

// Output o's antialiased taps: the filter stretched by the scale when downsampling (support
// interp_size / 2 * scale), centred on scale (o + 0.5), over the inputs it covers, each weight
// divided by their total.
void add_aa_taps(AxisTaps& t, bool cubic, double scale, int64_t o, int64_t in) {
  const double support = (cubic ? 2.0 : 1.0) * (scale >= 1 ? scale : 1.0);
  const double invscale = scale >= 1 ? 1 / scale : 1.0;
  const double center = scale * (static_cast<double>(o) + 0.5);
  const int64_t lo = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
  const int64_t hi = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in);
  double total = 0;
  for (int64_t i = lo; i < hi; ++i) {
    total += aa_filter(cubic, (static_cast<double>(i) - center + 0.5) * invscale);
  }
  for (int64_t i = lo; i < hi; ++i) {
    const double w = aa_filter(cubic, (static_cast<double>(i) - center + 0.5) * invscale);
    t.add(i, total != 0 ? w / total : w);
  }
}

// The taps of spatial axis d (`in` source coordinates, `out` outputs); a padded axis (d < 0)
// takes one tap of weight 1.
AxisTaps axis_taps(const ir::InterpolateGeometry& g, int d, int64_t in, int64_t out) {
  AxisTaps t;
  if (d < 0) {
    t.add(0, 1.0);
    t.close();
    return t;
  }
  const double scale = sampling_scale(g, d, in, out);
  for (int64_t o = 0; o < out; ++o) {
    const double od = static_cast<double>(o);
    if (g.antialias) {
      add_aa_taps(t, g.mode == InterpolateMode::Bicubic, scale, o, in);
    } else if (g.mode == InterpolateMode::Nearest) {
      t.add(nearest_source(g, d, o, in, out), 1.0);
    } else if (g.mode == InterpolateMode::NearestExact) {
      t.add(nearest_exact_source(g, d, o, in, out), 1.0);
    } else if (g.mode == InterpolateMode::Linear) {
      const double src = g.align_corners ? scale * od : std::max(scale * (od + 0.5) - 0.5, 0.0);
      const int64_t i0 = std::min(static_cast<int64_t>(src), in - 1);
      const double l1 = std::min(src - static_cast<double>(i0), 1.0);
      t.add(i0, 1.0 - l1);
      t.add(i0 + (i0 < in - 1 ? 1 : 0), l1);
    } else if (g.mode == InterpolateMode::Bicubic) {
      const double src = g.align_corners ? scale * od : scale * (od + 0.5) - 0.5;
      const double f = std::floor(src), u = src - f;
      const double w[4] = {cubic_far(u + 1), cubic_near(u), cubic_near(1 - u), cubic_far(2 - u)};
      for (int k = 0; k < 4; ++k) {
        const int64_t i = static_cast<int64_t>(f) - 1 + k;
        t.add(std::clamp<int64_t>(i, 0, in - 1), w[k]);
      }
    } else {  // Area: adaptive average pooling's window, summed, then divided by its size
      const int64_t s = o * in / out, e = ((o + 1) * in + out - 1) / out;
      for (int64_t i = s; i < e; ++i) t.add(i, 1.0);
    }
    t.close();
  }
  return t;
}

// The width axis's taps as `slots` columns of `out` entries (slot k of output o at
// k * out + o), for loops over o that the compiler vectorizes: an output with fewer taps has
// weight 0 in its last slots, which the loop skips (multiplying would turn an inf into NaN).
struct TapSlots {
  int64_t slots = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
};

TapSlots slots_of(const AxisTaps& t) {
  TapSlots s;
  const int64_t out = static_cast<int64_t>(t.begin.size()) - 1;
  for (int64_t o = 0; o < out; ++o) s.slots = std::max(s.slots, t.taps(o));
  s.index.assign(static_cast<size_t>(s.slots * out), 0);
  s.weight.assign(static_cast<size_t>(s.slots * out), 0.0);
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t k = 0; k < t.taps(o); ++k) {
      s.index[k * out + o] = t.index[t.begin[o] + k];
      s.weight[k * out + o] = t.weight[t.begin[o] + k];
    }
  }
  return s;
}

struct Taps3 {
  AxisTaps d, h, w;
  TapSlots w_slots;  // w's, but in area mode (windows of any length: slots would waste)
};

// dst[o] = the weighted sum of row over o's width taps, from its first term.
template <typename T>
void resample_row(const TapSlots& s, int64_t ow, const T* row, double* dst) {
  const int64_t* idx = s.index.data();
  const double* w = s.weight.data();
  for (int64_t o = 0; o < ow; ++o) dst[o] = w[o] * static_cast<double>(row[idx[o]]);
  for (int64_t k = 1; k < s.slots; ++k) {
    const int64_t* ik = idx + k * ow;
    const double* wk = w + k * ow;
    for (int64_t o = 0; o < ow; ++o) {
      const double term = wk[o] * static_cast<double>(row[ik[o]]);
      dst[o] = wk[o] != 0 ? dst[o] + term : dst[o];
    }
  }
}

// Output rows go in blocks of this many consecutive rows of one (plane, depth): the block's
// source rows are resampled along the width once (into `wide`), then blended per output row.
constexpr int64_t kBlockRows = 16;

// One block: output rows h0 .. h1 - 1 at depth od of the plane at `src`, written to `out`. The
// sums take the order of the nested form (width, then height, then depth taps), each from its
// first term, so that -0.0 stays -0.0.
template <typename T>
void resample_block(const Taps3& t, const Volume& v, bool area, const T* src, int64_t od,
                    int64_t h0, int64_t h1, T* out, std::vector<double>& wide,
                    std::vector<double>& acc) {
  const int64_t ow = v.out[2], in_w = v.in[2];
  const int64_t b0 = t.h.begin[h0], b1 = t.h.begin[h1];
  const auto [lo_it, hi_it] = std::minmax_element(t.h.index.begin() + b0, t.h.index.begin() + b1);
  const int64_t lo = *lo_it, rows = *hi_it - lo + 1;
  std::vector<char> needed(static_cast<size_t>(rows), 0);
  for (int64_t b = b0; b < b1; ++b) needed[t.h.index[b] - lo] = 1;
  const int64_t depth_taps = t.d.taps(od);
  wide.resize(static_cast<size_t>(depth_taps * rows * ow));
  for (int64_t ai = 0; ai < depth_taps; ++ai) {
    const int64_t id = t.d.index[t.d.begin[od] + ai];
    for (int64_t r = 0; r < rows; ++r) {
      if (!needed[r]) continue;
      const T* row = src + (id * v.in[1] + lo + r) * in_w;
      double* dst = wide.data() + (ai * rows + r) * ow;
      if (t.w_slots.slots != 0) {
        resample_row(t.w_slots, ow, row, dst);
        continue;
      }
      for (int64_t o = 0; o < ow; ++o) {  // area's windows, of any length
        const int64_t c0 = t.w.begin[o], c1 = t.w.begin[o + 1];
        double sum = t.w.weight[c0] * static_cast<double>(row[t.w.index[c0]]);
        for (int64_t c = c0 + 1; c < c1; ++c) {
          sum += t.w.weight[c] * static_cast<double>(row[t.w.index[c]]);
        }
        dst[o] = sum;
      }
    }
  }
  acc.resize(static_cast<size_t>(2 * ow));
  double* acc_h = acc.data();
  double* acc_d = acc.data() + ow;
  for (int64_t oh = h0; oh < h1; ++oh) {
    for (int64_t ai = 0; ai < depth_taps; ++ai) {
      for (int64_t b = t.h.begin[oh]; b < t.h.begin[oh + 1]; ++b) {
        const double wh = t.h.weight[b];
        const double* hw = wide.data() + (ai * rows + t.h.index[b] - lo) * ow;
        if (b == t.h.begin[oh]) {
          for (int64_t o = 0; o < ow; ++o) acc_h[o] = wh * hw[o];
        } else {
          for (int64_t o = 0; o < ow; ++o) acc_h[o] += wh * hw[o];
        }
      }
      const double wd = t.d.weight[t.d.begin[od] + ai];
      if (ai == 0) {
        for (int64_t o = 0; o < ow; ++o) acc_d[o] = wd * acc_h[o];
      } else {
        for (int64_t o = 0; o < ow; ++o) acc_d[o] += wd * acc_h[o];
      }
    }
    T* y = out + (oh - h0) * ow;
    if (area) {
      const auto boxes = static_cast<double>(depth_taps * t.h.taps(oh));
      for (int64_t o = 0; o < ow; ++o) {
        y[o] = static_cast<T>(acc_d[o] / (boxes * static_cast<double>(t.w.taps(o))));
      }
    } else {
      for (int64_t o = 0; o < ow; ++o) y[o] = static_cast<T>(acc_d[o]);
    }
  }
}

template <typename T>
void interpolate_typed(const KernelContext& ctx, const ir::InterpolateGeometry& g, const Volume& v,
                       const T* x, T* y) {
  Taps3 t{axis_taps(g, v.nd - 3, v.in[0], v.out[0]),
          axis_taps(g, v.nd - 2, v.in[1], v.out[1]),
          axis_taps(g, v.nd - 1, v.in[2], v.out[2]),
          {}};
  if (g.mode != InterpolateMode::Area) t.w_slots = slots_of(t.w);
  const int64_t in_plane = v.in[0] * v.in[1] * v.in[2], in_row = v.in[2];
  const int64_t ow = v.out[2];
  if (t.d.single && t.h.single && t.w.single) {  // the nearest modes: a gather
    const int64_t rows = v.planes * v.out[0] * v.out[1];
    parallel_for(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(ow, 1)), ctx.threads,
                 [&](int64_t begin, int64_t end) {
                   for (int64_t r = begin; r < end; ++r) {
                     const int64_t plane = r / (v.out[0] * v.out[1]);
                     const int64_t od = r / v.out[1] % v.out[0], oh = r % v.out[1];
                     const T* row =
                         x + plane * in_plane + (t.d.index[od] * v.in[1] + t.h.index[oh]) * in_row;
                     T* out = y + r * ow;
                     // Nearest upsampling repeats whole rows: copy the previous one.
                     if (r > begin && oh > 0 && t.h.index[oh - 1] == t.h.index[oh]) {
                       std::copy_n(out - ow, ow, out);
                     } else {
                       for (int64_t o = 0; o < ow; ++o) out[o] = row[t.w.index[o]];
                     }
                   }
                 });
    return;
  }
  const bool area = g.mode == InterpolateMode::Area;
  const int64_t blocks = (v.out[1] + kBlockRows - 1) / kBlockRows;
  const int64_t items = v.planes * v.out[0] * blocks;
  parallel_for(items, std::max<int64_t>(1, 4096 / std::max<int64_t>(kBlockRows * ow, 1)),
               ctx.threads, [&](int64_t begin, int64_t end) {
                 std::vector<double> wide, acc;
                 for (int64_t i = begin; i < end; ++i) {
                   const int64_t plane = i / (v.out[0] * blocks);
                   const int64_t od = i / blocks % v.out[0], blk = i % blocks;
                   const int64_t h0 = blk * kBlockRows;
                   const int64_t h1 = std::min(h0 + kBlockRows, v.out[1]);
                   T* out = y + ((plane * v.out[0] + od) * v.out[1] + h0) * ow;
                   resample_block(t, v, area, x + plane * in_plane, od, h0, h1, out, wide, acc);
                 }
               });
}

}  // namespace

void interpolate(const KernelContext& ctx, const ir::InterpolateGeometry& g, const Volume& v,
                 const float* x, float* y) {
  interpolate_typed(ctx, g, v, x, y);
}

void interpolate(const KernelContext& ctx, const ir::InterpolateGeometry& g, const Volume& v,
                 const double* x, double* y) {
  interpolate_typed(ctx, g, v, x, y);
}

}  // namespace tensord::cpu
