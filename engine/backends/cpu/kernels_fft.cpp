// Issue 4: fft_c2c, fft_r2c and fft_c2r on the CPU through FFTW 3 (docs/ops.md "FFT").
//
// Each run copies the input into a contiguous scratch array of the compute type, padded with
// zeros or truncated to the transform lengths along the axes (numpy's n/s), then transforms one
// axis at a time (AxisPass) into the contiguous output and scales the result by the norm. The
// scratch copy also keeps FFTW away from the caller's input: c2r transforms overwrite their
// input.
#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "engine/backends/cpu/dispatch.h"
#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels_complex.h"
#include "engine/backends/cpu/parallel.h"

namespace tensord::cpu {
namespace {

using ir::Attr;
using ir::Op;

// FFTW's API for one precision: one batch of 1-D transforms, `howmany` lines of n_in elements
// in and n_out out, each line contiguous.
enum class Kind { c2c, r2c, c2r };

template <typename R>
struct Fftw;
template <>
struct Fftw<double> {
  using Plan = fftw_plan;
  static Plan plan(Kind kind, const fftw_iodim64& dim, const fftw_iodim64& loop, void* in,
                   void* out, int sign) {
    if (kind == Kind::c2c) {
      return fftw_plan_guru64_dft(1, &dim, 1, &loop, static_cast<fftw_complex*>(in),
                                  static_cast<fftw_complex*>(out), sign, FFTW_ESTIMATE);
    }
    if (kind == Kind::r2c) {
      return fftw_plan_guru64_dft_r2c(1, &dim, 1, &loop, static_cast<double*>(in),
                                      static_cast<fftw_complex*>(out), FFTW_ESTIMATE);
    }
    return fftw_plan_guru64_dft_c2r(1, &dim, 1, &loop, static_cast<fftw_complex*>(in),
                                    static_cast<double*>(out), FFTW_ESTIMATE);
  }
  static void execute(Plan p) { fftw_execute(p); }
  static void destroy(Plan p) { fftw_destroy_plan(p); }
};
template <>
struct Fftw<float> {
  using Plan = fftwf_plan;
  static Plan plan(Kind kind, const fftw_iodim64& dim, const fftw_iodim64& loop, void* in,
                   void* out, int sign) {
    if (kind == Kind::c2c) {
      return fftwf_plan_guru64_dft(1, &dim, 1, &loop, static_cast<fftwf_complex*>(in),
                                   static_cast<fftwf_complex*>(out), sign, FFTW_ESTIMATE);
    }
    if (kind == Kind::r2c) {
      return fftwf_plan_guru64_dft_r2c(1, &dim, 1, &loop, static_cast<float*>(in),
                                       static_cast<fftwf_complex*>(out), FFTW_ESTIMATE);
    }
    return fftwf_plan_guru64_dft_c2r(1, &dim, 1, &loop, static_cast<fftwf_complex*>(in),
                                     static_cast<float*>(out), FFTW_ESTIMATE);
  }
  static void execute(Plan p) { fftwf_execute(p); }
  static void destroy(Plan p) { fftwf_destroy_plan(p); }
};

std::vector<int64_t> row_major_strides(const ir::Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

// dst (contiguous, shape `dshape`) = src (strided, same element type) where every index is in
// range of src's shape, else zero: the zero-padding / truncation of numpy's n and s.
template <typename E>
void copy_padded(const TensorValue& src, E* dst, const ir::Shape& dshape) {
  const auto rank = static_cast<int64_t>(dshape.size());
  int64_t n = 1;
  for (int64_t d : dshape) n *= d;
  if (n == 0) return;
  const E* s = src.data<E>();
  const std::vector<int64_t> sstr =
      src.strides.empty() ? row_major_strides(src.type.shape) : src.strides;
  if (rank >= 1) {
    // Row by row along the last axis: copy what the source has, zero the rest.
    const int64_t last = dshape[rank - 1], have = std::min(last, src.type.shape[rank - 1]);
    const int64_t ls = sstr[rank - 1], rows = n / last;
    std::vector<int64_t> idx(static_cast<size_t>(rank - 1), 0);
    for (int64_t r = 0; r < rows; ++r) {
      E* out = dst + r * last;
      bool inside = true;
      int64_t off = 0;
      for (int64_t d = 0; d + 1 < rank; ++d) {
        if (idx[d] >= src.type.shape[d]) {
          inside = false;
          break;
        }
        off += idx[d] * sstr[d];
      }
      const int64_t m = inside ? have : 0;
      if (ls == 1 && m > 0) {
        std::memcpy(static_cast<void*>(out), s + off, static_cast<size_t>(m) * sizeof(E));
      } else {
        for (int64_t j = 0; j < m; ++j) out[j] = s[off + j * ls];
      }
      for (int64_t j = m; j < last; ++j) out[j] = E{};
      for (int64_t d = rank - 2; d >= 0; --d) {
        if (++idx[d] < dshape[d]) break;
        idx[d] = 0;
      }
    }
    return;
  }
  std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
  for (int64_t k = 0; k < n; ++k) {
    bool inside = true;
    int64_t off = 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (idx[d] >= src.type.shape[d]) {
        inside = false;
        break;
      }
      off += idx[d] * sstr[d];
    }
    dst[k] = inside ? s[off] : E{};
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < dshape[d]) break;
      idx[d] = 0;
    }
  }
}

// One 1-D transform of `len` points along the middle axis of a contiguous array viewed as
// (outer, n, inner): n_in elements a line in, n_out out. FFTW_ESTIMATE plans lines that are
// contiguous well and strided ones badly (a 1024 x 1024 complex64 fft2 as one guru plan: 60 ms;
// its rows alone: 1 ms), so a pass along an inner axis gathers a tile of lines into a
// contiguous buffer, transforms them there and scatters the results back, as pocketfft does.
struct AxisPass {
  Kind kind;
  int sign;  // c2c only
  int64_t len, outer, inner;
  int64_t n_in() const { return kind == Kind::c2r ? len / 2 + 1 : len; }
  int64_t n_out() const { return kind == Kind::r2c ? len / 2 + 1 : len; }
};

// The planner mutex held only around FFTW's planner calls; execution runs unlocked.
template <typename R>
class LinePlan {
 public:
  LinePlan(std::mutex& planner, const AxisPass& p, int64_t lines, void* in, void* out)
      : planner_(planner) {
    const fftw_iodim64 dim{static_cast<ptrdiff_t>(p.len), 1, 1};
    const fftw_iodim64 loop{static_cast<ptrdiff_t>(lines), static_cast<ptrdiff_t>(p.n_in()),
                            static_cast<ptrdiff_t>(p.n_out())};
    std::lock_guard<std::mutex> lock(planner_);
    plan_ = Fftw<R>::plan(p.kind, dim, loop, in, out, p.sign);
    if (plan_ == nullptr) {
      throw Error(ErrorCode::Internal, "FFTW could not plan " + std::to_string(lines) +
                                           " lines of " + std::to_string(p.len) + " points");
    }
  }
  ~LinePlan() {
    std::lock_guard<std::mutex> lock(planner_);
    Fftw<R>::destroy(plan_);
  }
  LinePlan(const LinePlan&) = delete;
  LinePlan& operator=(const LinePlan&) = delete;
  void execute() const { Fftw<R>::execute(plan_); }

 private:
  std::mutex& planner_;
  typename Fftw<R>::Plan plan_;
};

// src and dst may be the same array for a c2c pass (each tile is gathered before it is
// written back; contiguous lines transform in place).
template <typename R, typename In, typename Out>
void run_axis_pass(std::mutex& planner, int threads, const AxisPass& p, const In* src, Out* dst) {
  const int64_t n_in = p.n_in(), n_out = p.n_out();
  const int64_t line_bytes =
      n_in * static_cast<int64_t>(sizeof(In)) + n_out * static_cast<int64_t>(sizeof(Out));
  if (p.inner == 1) {
    // Contiguous lines: transform rows [b, e) where they lie.
    parallel_for(
        p.outer, std::max<int64_t>(1, kParallelGrain / p.len), threads, [&](int64_t b, int64_t e) {
          LinePlan<R> plan(planner, p, e - b, const_cast<In*>(src) + b * n_in, dst + b * n_out);
          plan.execute();
        });
    return;
  }
  // Tiles of `width` neighbouring lines (a tile's elements at one position along the axis are
  // adjacent in memory), sized to stay in L2.
  const int64_t width = std::clamp<int64_t>((256 << 10) / line_bytes, 4, 64);
  const int64_t w = std::min(width, p.inner);
  const int64_t per_outer = (p.inner + w - 1) / w;
  parallel_for(p.outer * per_outer, std::max<int64_t>(1, kParallelGrain / (w * p.len)), threads,
               [&](int64_t b, int64_t e) {
                 std::vector<In> lines_in(static_cast<size_t>(w * n_in));
                 std::vector<Out> lines_out(static_cast<size_t>(w * n_out));
                 LinePlan<R> plan(planner, p, w, lines_in.data(), lines_out.data());
                 for (int64_t t = b; t < e; ++t) {
                   const int64_t o = t / per_outer, j0 = (t % per_outer) * w;
                   const int64_t cols = std::min(w, p.inner - j0);
                   const In* s = src + o * n_in * p.inner + j0;
                   for (int64_t k = 0; k < n_in; ++k) {
                     for (int64_t c = 0; c < cols; ++c) lines_in[c * n_in + k] = s[k * p.inner + c];
                   }
                   // A last, narrower tile transforms stale lines too, and drops them.
                   plan.execute();
                   Out* d = dst + o * n_out * p.inner + j0;
                   for (int64_t k = 0; k < n_out; ++k) {
                     for (int64_t c = 0; c < cols; ++c)
                       d[k * p.inner + c] = lines_out[c * n_out + k];
                   }
                 }
               });
}

// The (outer, inner) view of `shape` around `axis`.
AxisPass pass_along(Kind kind, int sign, int64_t len, const ir::Shape& shape, int64_t axis) {
  AxisPass p{kind, sign, len, 1, 1};
  for (int64_t d = 0; d < axis; ++d) p.outer *= shape[d];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) p.inner *= shape[d];
  return p;
}

}  // namespace

bool is_fft(Op op) {
  return op == Op::fft_c2c || op == Op::fft_r2c || op == Op::fft_c2r;
}

void FftPlanner::run(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
                     const TensorValue& out) {
  const Op op = node.op;
  const auto rank = static_cast<int64_t>(in.type.rank());
  std::vector<int64_t> axes;
  for (int64_t a : node.attrs.get_ints(Attr::axes)) axes.push_back(a < 0 ? a + rank : a);
  std::vector<int64_t> lengths;
  if (node.attrs.has(Attr::shape)) {
    lengths = node.attrs.get_ints(Attr::shape);
  } else {
    for (int64_t a : axes)
      lengths.push_back(op == Op::fft_c2r ? out.type.shape[a] : in.type.shape[a]);
  }
  const int64_t norm = node.attrs.get_int(Attr::fft_norm, 0);
  const bool inverse =
      op == Op::fft_c2r || (op == Op::fft_c2c && node.attrs.get_bool(Attr::inverse, false));
  if (out.type.numel() == 0) return;

  // The scratch input: compute dtype, the transform's input shape.
  const DType out_t = out.type.dtype;
  const bool dbl = out_t == DType::Complex128 || out_t == DType::Float64;
  const DType in_compute = op == Op::fft_r2c ? (dbl ? DType::Float64 : DType::Float32)
                                             : (dbl ? DType::Complex128 : DType::Complex64);
  ir::Shape xshape = in.type.shape;
  for (size_t i = 0; i < axes.size(); ++i) xshape[axes[i]] = lengths[i];
  if (op == Op::fft_c2r) xshape[axes.back()] = lengths.back() / 2 + 1;
  TensorValue src = cast_to(ctx, in, in_compute);
  TensorValue x = allocate_value(ctx.scratch, ir::TensorType{in_compute, xshape});
  const size_t esize = ir::itemsize(in_compute);
  visit_itemsize(esize == 16 ? 8 : esize, [&]<typename U>(TypeTag<U>) {
    if (esize == 16) {
      copy_padded(src, x.data<std::complex<double>>(), xshape);
    } else {
      copy_padded(src, x.data<U>(), xshape);
    }
  });

  double n_total = 1;
  for (int64_t n : lengths) n_total *= static_cast<double>(n);
  double scale = 1;
  if (norm == 1)
    scale = 1 / std::sqrt(n_total);
  else if ((norm == 0 && inverse) || (norm == 2 && !inverse))
    scale = 1 / n_total;

  // One pass an axis, as numpy does: c2c along each; r2c along the last axis into out, then
  // c2c in place along the others; c2c in place along the others of the scratch, then c2r.
  auto go = [&]<typename R>() {
    using C = std::complex<R>;
    const int sign = inverse ? FFTW_BACKWARD : FFTW_FORWARD;
    C* const y = static_cast<C*>(out.raw());
    const size_t last = axes.size() - 1;
    if (op == Op::fft_c2c) {
      for (size_t i = 0; i < axes.size(); ++i) {
        const AxisPass p = pass_along(Kind::c2c, sign, lengths[i], xshape, axes[i]);
        run_axis_pass<R>(planner_mutex_, ctx.threads, p, i == 0 ? x.data<C>() : y, y);
      }
    } else if (op == Op::fft_r2c) {
      run_axis_pass<R>(planner_mutex_, ctx.threads,
                       pass_along(Kind::r2c, sign, lengths[last], xshape, axes[last]), x.data<R>(),
                       y);
      for (size_t i = 0; i < last; ++i) {
        const AxisPass p = pass_along(Kind::c2c, sign, lengths[i], out.type.shape, axes[i]);
        run_axis_pass<R>(planner_mutex_, ctx.threads, p, y, y);
      }
    } else {
      C* const z = x.data<C>();
      for (size_t i = 0; i < last; ++i) {
        const AxisPass p = pass_along(Kind::c2c, sign, lengths[i], xshape, axes[i]);
        run_axis_pass<R>(planner_mutex_, ctx.threads, p, z, z);
      }
      run_axis_pass<R>(planner_mutex_, ctx.threads,
                       pass_along(Kind::c2r, sign, lengths[last], xshape, axes[last]), z,
                       static_cast<R*>(out.raw()));
    }
    if (scale != 1) {
      R* q = static_cast<R*>(out.raw());
      const int64_t n = out.type.numel() * (ir::is_complex(out_t) ? 2 : 1);
      const R f = static_cast<R>(scale);
      for (int64_t k = 0; k < n; ++k) q[k] *= f;
    }
  };
  if (dbl) {
    go.template operator()<double>();
  } else {
    go.template operator()<float>();
  }
}

}  // namespace tensord::cpu
