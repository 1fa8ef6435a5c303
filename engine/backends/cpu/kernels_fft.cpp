// Issue 4: fft_c2c, fft_r2c and fft_c2r on the CPU through FFTW 3 (docs/ops.md "FFT").
//
// Each run copies the input into a contiguous scratch array of the compute type, padded with
// zeros or truncated to the transform lengths along the axes (numpy's n/s), plans one FFTW guru
// transform over all axes at once (the other axes are FFTW's "howmany" loops) from the scratch
// into the contiguous output, executes it and scales the result by the norm. The scratch copy
// also keeps FFTW away from the caller's input: c2r transforms overwrite their input.
#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "engine/backends/cpu/dispatch.h"
#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels_complex.h"

namespace tensord::cpu {
namespace {

using ir::Attr;
using ir::Op;

// FFTW's API for one precision.
template <typename R>
struct Fftw;
template <>
struct Fftw<double> {
  using Plan = fftw_plan;
  using C = fftw_complex;
  static Plan c2c(int rank, const fftw_iodim64* dims, int hr, const fftw_iodim64* hd, void* in,
                  void* out, int sign) {
    return fftw_plan_guru64_dft(rank, dims, hr, hd, static_cast<C*>(in), static_cast<C*>(out), sign,
                                FFTW_ESTIMATE);
  }
  static Plan r2c(int rank, const fftw_iodim64* dims, int hr, const fftw_iodim64* hd, void* in,
                  void* out) {
    return fftw_plan_guru64_dft_r2c(rank, dims, hr, hd, static_cast<double*>(in),
                                    static_cast<C*>(out), FFTW_ESTIMATE);
  }
  static Plan c2r(int rank, const fftw_iodim64* dims, int hr, const fftw_iodim64* hd, void* in,
                  void* out) {
    return fftw_plan_guru64_dft_c2r(rank, dims, hr, hd, static_cast<C*>(in),
                                    static_cast<double*>(out), FFTW_ESTIMATE);
  }
  static void execute(Plan p) { fftw_execute(p); }
  static void destroy(Plan p) { fftw_destroy_plan(p); }
};
template <>
struct Fftw<float> {
  using Plan = fftwf_plan;
  using C = fftwf_complex;
  static Plan c2c(int rank, const fftw_iodim64* dims, int hr, const fftw_iodim64* hd, void* in,
                  void* out, int sign) {
    return fftwf_plan_guru64_dft(rank, dims, hr, hd, static_cast<C*>(in), static_cast<C*>(out),
                                 sign, FFTW_ESTIMATE);
  }
  static Plan r2c(int rank, const fftw_iodim64* dims, int hr, const fftw_iodim64* hd, void* in,
                  void* out) {
    return fftwf_plan_guru64_dft_r2c(rank, dims, hr, hd, static_cast<float*>(in),
                                     static_cast<C*>(out), FFTW_ESTIMATE);
  }
  static Plan c2r(int rank, const fftw_iodim64* dims, int hr, const fftw_iodim64* hd, void* in,
                  void* out) {
    return fftwf_plan_guru64_dft_c2r(rank, dims, hr, hd, static_cast<C*>(in),
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

  // The guru dims: transform axes, then every other axis as a loop. Strides count elements of
  // each array's own type (real or complex).
  const std::vector<int64_t> xs = row_major_strides(xshape), os = row_major_strides(out.type.shape);
  std::vector<fftw_iodim64> dims, loops;
  for (size_t i = 0; i < axes.size(); ++i) {
    dims.push_back({static_cast<ptrdiff_t>(lengths[i]), static_cast<ptrdiff_t>(xs[axes[i]]),
                    static_cast<ptrdiff_t>(os[axes[i]])});
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(axes.begin(), axes.end(), d) != axes.end()) continue;
    loops.push_back({static_cast<ptrdiff_t>(xshape[d]), static_cast<ptrdiff_t>(xs[d]),
                     static_cast<ptrdiff_t>(os[d])});
  }
  double n_total = 1;
  for (int64_t n : lengths) n_total *= static_cast<double>(n);
  double scale = 1;
  if (norm == 1)
    scale = 1 / std::sqrt(n_total);
  else if ((norm == 0 && inverse) || (norm == 2 && !inverse))
    scale = 1 / n_total;

  auto go = [&]<typename R>() {
    using F = Fftw<R>;
    typename F::Plan plan;
    {
      std::lock_guard<std::mutex> lock(planner_mutex_);
      const int r = static_cast<int>(dims.size()), hr = static_cast<int>(loops.size());
      if (op == Op::fft_c2c) {
        plan = F::c2c(r, dims.data(), hr, loops.data(), x.raw(), out.raw(),
                      inverse ? FFTW_BACKWARD : FFTW_FORWARD);
      } else if (op == Op::fft_r2c) {
        plan = F::r2c(r, dims.data(), hr, loops.data(), x.raw(), out.raw());
      } else {
        plan = F::c2r(r, dims.data(), hr, loops.data(), x.raw(), out.raw());
      }
    }
    if (plan == nullptr) {
      throw Error(ErrorCode::Internal, std::string("FFTW could not plan ") +
                                           std::string(ir::name(op)) + " of " +
                                           ir::to_string(in.type.shape));
    }
    F::execute(plan);
    {
      std::lock_guard<std::mutex> lock(planner_mutex_);
      F::destroy(plan);
    }
    if (scale != 1) {
      R* p = static_cast<R*>(out.raw());
      const int64_t n = out.type.numel() * (ir::is_complex(out_t) ? 2 : 1);
      const R s = static_cast<R>(scale);
      for (int64_t k = 0; k < n; ++k) p[k] *= s;
    }
  };
  if (dbl) {
    go.template operator()<double>();
  } else {
    go.template operator()<float>();
  }
}

}  // namespace tensord::cpu
