// The FFT family's staging run end to end on the host: run_fft_plan (fft_plan.h) with host
// memory, a host copy with the strided copy kernel's semantics and a direct DFT standing in for
// cuFFT, against a direct DFT of the whole node (the conformance table's reference, written
// again here). What this checks without a GPU: the stages, their layouts and batches, padding
// and truncation, the c2r bins, the scale, and which buffers are written in place.
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "engine/backends/cuda/fft_plan.h"

namespace tensord::cuda::test {
namespace {

using C = std::complex<double>;
using ir::Attr;
using ir::Attrs;
using ir::DType;
using ir::Op;
using Ints = std::vector<int64_t>;

std::vector<int64_t> unravel(int64_t flat, const ir::Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

C load(const void* base, DType t, int64_t off) {
  switch (t) {
    case DType::Float64:
      return {static_cast<const double*>(base)[off], 0};
    case DType::Complex128:
      return static_cast<const C*>(base)[off];
    default:
      FAIL("host runner: unexpected dtype");
      return {};
  }
}

void store(void* base, DType t, int64_t off, C v) {
  if (t == DType::Float64) {
    static_cast<double*>(base)[off] = v.real();
  } else {
    REQUIRE(t == DType::Complex128);
    static_cast<C*>(base)[off] = v;
  }
}

// Host memory, the copy kernel's rules, and direct (unnormalised) DFTs in cuFFT's layouts.
class HostRunner final : public FftStageRunner {
 public:
  void* allocate(size_t bytes) override {
    buffers_.push_back(std::make_unique<std::vector<char>>(bytes + 16));
    ++allocations;
    return buffers_.back()->data();
  }

  void copy(const DeviceView& src, const ir::Shape& shape, void* dst, DType dst_dtype,
            const std::vector<int64_t>& dst_strides, const CopyOptions& o) override {
    ++copies;
    const int64_t n = ir::numel(shape);
    const auto rank = static_cast<int64_t>(shape.size());
    for (int64_t i = 0; i < n; ++i) {
      const std::vector<int64_t> idx = unravel(i, shape);
      int64_t so = 0, dof = 0;
      bool inside = true, drop_im = false;
      for (int64_t d = 0; d < rank; ++d) {
        if (idx[d] >= src.shape[d]) inside = false;
        so += idx[d] * src.strides[d];
        dof += idx[d] * dst_strides[d];
        if (d == o.herm_dim && (idx[d] == 0 || (o.herm_n % 2 == 0 && idx[d] == o.herm_n / 2)))
          drop_im = true;
      }
      C v = inside ? load(src.data, src.dtype, so) : C(0, 0);
      if (drop_im) v = C(v.real(), 0);
      store(dst, dst_dtype, dof, v * o.scale);
    }
  }

  void transform(const FftStage& st, void* in, void* out) override {
    ++transforms;
    const auto r = st.lengths.size();
    ir::Shape in_len(st.lengths.begin(), st.lengths.end()), out_len = in_len;
    const int64_t n_last = st.lengths.back();
    if (st.kind == FftKind::R2C) out_len.back() = n_last / 2 + 1;
    if (st.kind == FftKind::C2R) {
      REQUIRE(r == 1);  // the plans only make 1-D c2r stages
      in_len.back() = n_last / 2 + 1;
    }
    const int64_t in_n = ir::numel(in_len), out_n = ir::numel(out_len);
    const DType in_t = st.kind == FftKind::R2C ? DType::Float64 : DType::Complex128;
    const DType out_t = st.kind == FftKind::C2R ? DType::Float64 : DType::Complex128;
    const double sign = st.inverse ? 1 : -1;
    const ir::Shape full(st.lengths.begin(), st.lengths.end());
    for (int64_t b = 0; b < st.batch; ++b) {
      std::vector<C> x(static_cast<size_t>(ir::numel(full)));
      if (st.kind == FftKind::C2R) {
        // The Hermitian extension of the half spectrum.
        for (int64_t k = 0; k < n_last; ++k) {
          const int64_t h = k <= n_last / 2 ? k : n_last - k;
          const C v = load(in, in_t, b * in_n + h);
          x[static_cast<size_t>(k)] = k <= n_last / 2 ? v : std::conj(v);
        }
      } else {
        for (int64_t k = 0; k < in_n; ++k) x[static_cast<size_t>(k)] = load(in, in_t, b * in_n + k);
      }
      std::vector<C> y(x.size());
      for (int64_t k = 0; k < ir::numel(full); ++k) {
        const std::vector<int64_t> kk = unravel(k, full);
        C acc = 0;
        for (int64_t j = 0; j < ir::numel(full); ++j) {
          const std::vector<int64_t> jj = unravel(j, full);
          double phase = 0;
          for (size_t d = 0; d < r; ++d) {
            phase += static_cast<double>(jj[d] * kk[d] % full[d]) / static_cast<double>(full[d]);
          }
          acc += x[static_cast<size_t>(j)] * std::polar(1.0, sign * 2 * M_PI * phase);
        }
        y[static_cast<size_t>(k)] = acc;
      }
      for (int64_t k = 0; k < out_n; ++k) {
        std::vector<int64_t> kk = unravel(k, out_len);
        int64_t flat = 0;
        for (size_t d = 0; d < r; ++d) flat = flat * full[d] + kk[d];
        store(out, out_t, b * out_n + k, y[static_cast<size_t>(flat)]);
      }
    }
  }

  int allocations = 0, copies = 0, transforms = 0;

 private:
  std::vector<std::unique_ptr<std::vector<char>>> buffers_;
};

// ---- the reference: numpy's definitions, one axis at a time ----

struct Tensor {
  ir::Shape shape;
  std::vector<C> v;
};

Tensor resize_axis(const Tensor& x, int64_t axis, int64_t n) {
  Tensor y{x.shape, {}};
  y.shape[axis] = n;
  y.v.assign(static_cast<size_t>(ir::numel(y.shape)), C(0, 0));
  for (int64_t i = 0; i < ir::numel(y.shape); ++i) {
    std::vector<int64_t> idx = unravel(i, y.shape);
    if (idx[axis] >= x.shape[axis]) continue;
    int64_t flat = 0;
    for (size_t d = 0; d < idx.size(); ++d) flat = flat * x.shape[d] + idx[d];
    y.v[static_cast<size_t>(i)] = x.v[static_cast<size_t>(flat)];
  }
  return y;
}

Tensor dft_axis(const Tensor& x, int64_t axis, bool inverse) {
  Tensor y{x.shape, std::vector<C>(x.v.size())};
  const int64_t n = x.shape[axis];
  const ir::Shape strides = ir::contiguous_strides(x.shape);
  for (int64_t i = 0; i < ir::numel(x.shape); ++i) {
    const std::vector<int64_t> idx = unravel(i, x.shape);
    const int64_t base = i - idx[axis] * strides[axis];
    C acc = 0;
    for (int64_t j = 0; j < n; ++j) {
      const double phase = static_cast<double>(j * idx[axis] % n) / static_cast<double>(n);
      acc += x.v[static_cast<size_t>(base + j * strides[axis])] *
             std::polar(1.0, (inverse ? 2 : -2) * M_PI * phase);
    }
    y.v[static_cast<size_t>(i)] = acc;
  }
  return y;
}

Tensor reference(Op op, const Tensor& x, const Ints& axes_in, const Ints& len, int64_t norm,
                 bool inverse_attr) {
  const auto rank = static_cast<int64_t>(x.shape.size());
  Ints axes;
  for (int64_t a : axes_in) axes.push_back(a < 0 ? a + rank : a);
  double total = 1;
  for (int64_t n : len) total *= static_cast<double>(n);
  const bool inverse = op == Op::fft_c2r || inverse_attr;
  const double scale = norm == 1                                           ? 1 / std::sqrt(total)
                       : (norm == 0 && inverse) || (norm == 2 && !inverse) ? 1 / total
                                                                           : 1.0;
  Tensor y = x;
  if (op == Op::fft_c2r) {
    for (size_t i = 0; i + 1 < axes.size(); ++i)
      y = dft_axis(resize_axis(y, axes[i], len[i]), axes[i], true);
    const int64_t last = axes.back(), n = len.back();
    y = resize_axis(y, last, n / 2 + 1);
    Tensor full{y.shape, {}};
    full.shape[last] = n;
    full.v.assign(static_cast<size_t>(ir::numel(full.shape)), C(0, 0));
    for (int64_t f = 0; f < ir::numel(full.shape); ++f) {
      std::vector<int64_t> idx = unravel(f, full.shape);
      const int64_t k = idx[last];
      const bool mirrored = k > n / 2;
      if (mirrored) idx[last] = n - k;
      int64_t flat = 0;
      for (size_t d = 0; d < idx.size(); ++d) flat = flat * y.shape[d] + idx[d];
      C v = y.v[static_cast<size_t>(flat)];
      if (mirrored) v = std::conj(v);
      if (k == 0 || (n % 2 == 0 && k == n / 2)) v = C(v.real(), 0);
      full.v[static_cast<size_t>(f)] = v;
    }
    y = dft_axis(full, last, true);
    for (C& v : y.v) v = C(v.real() * scale, 0);
    return y;
  }
  for (size_t i = 0; i < axes.size(); ++i)
    y = dft_axis(resize_axis(y, axes[i], len[i]), axes[i], inverse);
  if (op == Op::fft_r2c) y = resize_axis(y, axes.back(), len.back() / 2 + 1);
  for (C& v : y.v) v *= scale;
  return y;
}

// One node through run_fft_plan on the host against the reference. transposed: the input is
// the permute (reversed dims) of a contiguous array, as the conformance table's strided rows.
struct Row {
  Op op;
  ir::Shape shape;
  Ints axes;
  std::optional<Ints> s;
  int64_t norm = 0;
  bool inverse = false;
  bool transposed = false;
  bool real_input = false;  // c2c of a float64 input
};

void check_row(const Row& row, uint32_t seed) {
  const auto rank = static_cast<int64_t>(row.shape.size());
  Ints axes, len;
  for (int64_t a : row.axes) axes.push_back(a < 0 ? a + rank : a);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t m = row.shape[axes[i]];
    len.push_back(row.s                                           ? (*row.s)[i]
                  : row.op == Op::fft_c2r && i + 1 == axes.size() ? 2 * (m - 1)
                                                                  : m);
  }
  const bool real_in = row.op == Op::fft_r2c || row.real_input;
  Tensor x{row.shape, {}};
  uint32_t state = seed;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<double>(static_cast<int>(state >> 16) % 2001 - 1000) / 250.0;
  };
  for (int64_t i = 0; i < ir::numel(row.shape); ++i) {
    const double re = next();
    x.v.push_back(C(re, real_in ? 0.0 : next()));
  }
  // The device copy of the input: contiguous, or the reversed-dims base under permuted strides.
  const DType in_t = real_in ? DType::Float64 : DType::Complex128;
  std::vector<char> in_bytes(static_cast<size_t>(ir::numel(row.shape)) * ir::itemsize(in_t) + 16);
  std::vector<int64_t> strides = ir::contiguous_strides(row.shape);
  if (row.transposed) {
    ir::Shape base(row.shape.rbegin(), row.shape.rend());
    const std::vector<int64_t> bs = ir::contiguous_strides(base);
    for (int64_t d = 0; d < rank; ++d) strides[d] = bs[rank - 1 - d];
  }
  for (int64_t i = 0; i < ir::numel(row.shape); ++i) {
    const std::vector<int64_t> idx = unravel(i, row.shape);
    int64_t off = 0;
    for (int64_t d = 0; d < rank; ++d) off += idx[d] * strides[d];
    store(in_bytes.data(), in_t, off, x.v[static_cast<size_t>(i)]);
  }
  const Tensor want = reference(row.op, x, row.axes, len, row.norm, row.inverse);

  Attrs attrs{{Attr::axes, row.axes}};
  if (row.s) attrs.set(Attr::shape, *row.s);
  if (row.norm) attrs.set(Attr::fft_norm, row.norm);
  if (row.inverse) attrs.set(Attr::inverse, true);
  const DType out_t = row.op == Op::fft_c2r ? DType::Float64 : DType::Complex128;
  const FftPlanSpec spec = plan_fft(row.op, attrs, row.shape, want.shape);
  REQUIRE(spec.out_shape == want.shape);
  const std::vector<char> in_before = in_bytes;
  std::vector<char> y(static_cast<size_t>(ir::numel(want.shape)) * ir::itemsize(out_t) + 16);
  HostRunner runner;
  run_fft_plan(spec, DeviceView{in_bytes.data(), in_t, row.shape, strides}, y.data(), out_t,
               runner);
  CHECK(in_bytes == in_before);  // the user's input is never written
  CHECK(runner.transforms == static_cast<int>(spec.stages.size()));
  double mag = 1e-300, err = 0;
  for (size_t i = 0; i < want.v.size(); ++i) {
    mag = std::max(mag, std::abs(want.v[i]));
    err = std::max(err, std::abs(load(y.data(), out_t, static_cast<int64_t>(i)) - want.v[i]));
  }
  CHECK(err <= 1e-9 * std::max(1.0, mag));
}

TEST_CASE("the FFT stages on the host match the DFT of the node") {
  std::vector<Row> rows;
  for (int64_t n : {1, 2, 3, 5, 8, 12}) {
    for (int64_t norm : {0, 1, 2}) {
      rows.push_back({Op::fft_c2c, {n}, {-1}, std::nullopt, norm, false});
      rows.push_back({Op::fft_c2c, {n}, {0}, std::nullopt, norm, true});
    }
  }
  rows.push_back({Op::fft_c2c, {3, 10}, {-1}, Ints{16}});                    // pad
  rows.push_back({Op::fft_c2c, {3, 10}, {1}, Ints{7}, 0, true});             // truncate
  rows.push_back({Op::fft_c2c, {6, 5}, {0}, std::nullopt, 1, false, true});  // strided
  rows.push_back({Op::fft_c2c, {4, 6}, {0, 1}, std::nullopt});               // fft2
  rows.push_back({Op::fft_c2c, {4, 6}, {-2, -1}, Ints{5, 8}, 2, true});
  rows.push_back({Op::fft_c2c, {3, 4, 5}, {0, 2}, std::nullopt});  // subset
  rows.push_back({Op::fft_c2c, {3, 4, 5}, {2, 0, 1}, std::nullopt, 1, true});
  rows.push_back({Op::fft_c2c, {0}, {0}, Ints{4}});  // empty, padded
  rows.push_back({Op::fft_c2c, {2, 3, 1, 2, 3}, {4, 0, 1, 2, 3}, std::nullopt, 1});  // 2 stages
  rows.push_back({Op::fft_c2c, {3, 4}, {1, 0}, std::nullopt, 0, false, true});
  for (int64_t n : {1, 2, 5, 8, 9}) {
    rows.push_back({Op::fft_r2c, {n}, {0}, std::nullopt});
    Row real{Op::fft_c2c, {n}, {0}, std::nullopt};
    real.real_input = true;
    rows.push_back(real);
  }
  rows.push_back({Op::fft_r2c, {3, 10}, {-1}, Ints{7}, 1});
  rows.push_back({Op::fft_r2c, {4, 6}, {0, 1}, std::nullopt, 2});
  rows.push_back({Op::fft_r2c, {3, 4, 5}, {2, 0}, Ints{6, 3}});
  rows.push_back({Op::fft_r2c, {7, 4}, {0}, std::nullopt, 0, false, true});
  rows.push_back({Op::fft_r2c, {2, 3, 2, 4}, {0, 1, 2, 3}, std::nullopt});  // r2c stage + c2c stage
  rows.push_back({Op::fft_r2c, {3, 1}, {0, 1}, std::nullopt});              // last length 1
  for (int64_t m : {1, 2, 5, 9}) {
    if (m > 1) rows.push_back({Op::fft_c2r, {2, m}, {-1}, std::nullopt, 0, true});
    rows.push_back({Op::fft_c2r, {m}, {0}, Ints{2 * m - 1}, 1, true});
  }
  rows.push_back({Op::fft_c2r, {3, 4, 5}, {1, 2}, std::nullopt});
  rows.push_back({Op::fft_c2r, {3, 4, 5}, {0, 2}, Ints{5, 7}, 2});
  rows.push_back({Op::fft_c2r, {5, 3}, {0}, std::nullopt, 0, false, true});
  rows.push_back({Op::fft_c2r, {3, 4, 5}, {2, 0}, Ints{4, 6}});  // c2r over an outer axis
  rows.push_back({Op::fft_c2r, {2, 3, 2, 3, 4}, {0, 1, 2, 3, 4}, std::nullopt, 1});
  uint32_t seed = 7;
  for (const Row& row : rows) {
    INFO(std::string(ir::name(row.op))
         << " " << ir::to_string(row.shape) << " axes " << ir::to_string(row.axes) << " norm "
         << row.norm << (row.transposed ? " transposed" : ""));
    check_row(row, seed++);
  }
}

TEST_CASE("a c2c over the innermost axis runs in the output: one copy, no scratch") {
  HostRunner runner;
  const FftPlanSpec spec = plan_fft(Op::fft_c2c, Attrs{{Attr::axes, Ints{-1}}}, {2, 4}, {2, 4});
  std::vector<C> in(8, C(1, 0)), y(8);
  run_fft_plan(spec, DeviceView{in.data(), DType::Complex128, {2, 4}, {4, 1}}, y.data(),
               DType::Complex128, runner);
  CHECK(runner.allocations == 0);
  CHECK(runner.copies == 1);  // norm backward, forward: no scale pass
  CHECK(y[0] == C(4, 0));
  CHECK(y[4] == C(4, 0));
}

}  // namespace
}  // namespace tensord::cuda::test
