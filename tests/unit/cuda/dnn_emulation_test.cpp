// The neural-network family's CUDA kernels run on the host (dnn_emulation.h), fed with the
// arguments the family's host code builds (dnn_geometry.h), and compared with the CPU backend on
// the conformance table's shapes: strided, channels-last and unbatched inputs, dilation, groups,
// output_padding, NaN/inf, impossible CTC alignments (pooling: dnn_pool_emulation_test.cpp).
// What this cannot check: cuDNN, launches, device memory.
#include "tests/unit/cuda/dnn_emulation.h"

namespace tensord::cuda::dnn::test {
namespace {

constexpr int64_t kNearest = 0, kLinear = 1, kBicubic = 2, kArea = 3, kNearestExact = 4;

Attrs interp(int64_t mode, const I& size) {
  return {{Attr::shape, size}, {Attr::mode, mode}};
}

Attrs interp_corners(int64_t mode, const I& size) {
  return {{Attr::shape, size}, {Attr::mode, mode}, {Attr::align_corners, true}};
}

Attrs interp_scales(int64_t mode, const I& size, const std::vector<double>& scales) {
  return {{Attr::shape, size}, {Attr::mode, mode}, {Attr::scales, scales}};
}

TEST_CASE("interpolation kernel = CPU backend (every mode, 1 to 3 axes, scales, strided input)") {
  struct Row {
    I shape, strides;
    Attrs attrs;
    bool specials = false;
  };
  std::vector<Row> rows;
  // The modes without align_corners, 1 to 3 axes (bicubic: 2), up and down, to size 1.
  for (int64_t m : {kNearest, kLinear, kArea, kNearestExact}) {
    rows.push_back({{2, 3, 5}, {}, interp(m, {10})});
    rows.push_back({{2, 3, 5}, {}, interp(m, {7})});
    rows.push_back({{2, 3, 7}, {}, interp(m, {3})});
    rows.push_back({{2, 3, 7}, {1, 2, 6}, interp(m, {1})});
    rows.push_back({{2, 2, 4, 5}, {40, 1, 10, 2}, interp(m, {3, 7})});
    rows.push_back({{1, 2, 9, 8}, {}, interp(m, {4, 17})});
    rows.push_back({{1, 2, 3, 4, 5}, {}, interp(m, {5, 3, 7})});
    rows.push_back({{2, 3, 4, 3, 5}, {180, 1, 45, 15, 3}, interp(m, {2, 7, 1})});
  }
  rows.push_back({{2, 2, 4, 5}, {}, interp(kBicubic, {7, 9})});
  rows.push_back({{1, 2, 9, 8}, {144, 1, 16, 2}, interp(kBicubic, {4, 3})});
  rows.push_back({{1, 2, 5, 6}, {}, interp(kBicubic, {1, 1})});
  rows.push_back({{2, 3, 1, 4}, {}, interp(kBicubic, {3, 4})});
  // align_corners: linear (1 to 3 axes) and bicubic, output size 1 included.
  rows.push_back({{2, 3, 6}, {}, interp_corners(kLinear, {4})});
  rows.push_back({{2, 3, 6}, {}, interp_corners(kLinear, {11})});
  rows.push_back({{2, 3, 6}, {}, interp_corners(kLinear, {1})});
  rows.push_back({{2, 2, 4, 5}, {1, 2, 20, 4}, interp_corners(kLinear, {7, 9})});
  rows.push_back({{1, 1, 1, 1}, {}, interp_corners(kLinear, {3, 2})});
  rows.push_back({{1, 2, 3, 4, 5}, {}, interp_corners(kLinear, {5, 1, 3})});
  rows.push_back({{2, 2, 4, 5}, {}, interp_corners(kBicubic, {7, 9})});
  rows.push_back({{1, 2, 9, 8}, {144, 1, 16, 2}, interp_corners(kBicubic, {4, 3})});
  rows.push_back({{1, 2, 5, 6}, {}, interp_corners(kBicubic, {1, 2})});
  // scales (PyTorch's scale_factor): the sampling scale is 1 / scale, not in / out; nearest
  // keeps its out = in and out = 2 in special cases whatever the scales.
  for (int64_t m : {kNearest, kLinear, kBicubic, kNearestExact}) {
    rows.push_back({{1, 2, 9, 8}, {}, interp_scales(m, {5, 10}, {0.6, 1.3})});
    rows.push_back({{2, 2, 4, 5}, {40, 1, 10, 2}, interp_scales(m, {4, 10}, {1.1, 2.1})});
    if (m == kBicubic) continue;
    rows.push_back({{2, 3, 5}, {}, interp_scales(m, {8}, {1.7})});
    rows.push_back({{2, 3, 7}, {1, 2, 6}, interp_scales(m, {3}, {0.45})});
    rows.push_back({{1, 2, 3, 4, 5}, {}, interp_scales(m, {5, 3, 7}, {1.7, 0.8, 1.5})});
  }
  // antialias (bilinear and bicubic): down by whole and fractional factors, up (in == out gives
  // bicubic interior taps of weight 0), align_corners, scales, a strided input, NaN and inf.
  for (int64_t m : {kLinear, kBicubic}) {
    Attrs aa = interp(m, {5, 4});
    aa.set(Attr::antialias, true);
    rows.push_back({{2, 2, 17, 23}, {}, aa});
    rows.push_back({{1, 2, 16, 9}, {144, 1, 18, 2}, aa});
    aa.set(Attr::shape, I{16, 9});
    rows.push_back({{1, 2, 16, 9}, {}, aa, true});
    aa.set(Attr::shape, I{7, 20});
    rows.push_back({{1, 2, 16, 9}, {}, aa});
    Attrs corners = interp_corners(m, {5, 4});
    corners.set(Attr::antialias, true);
    rows.push_back({{1, 2, 12, 10}, {}, corners});
    Attrs scaled = interp_scales(m, {4, 3}, {0.4, 0.45});
    scaled.set(Attr::antialias, true);
    rows.push_back({{1, 2, 11, 7}, {}, scaled});
  }
  // NaN and infinities; where a source lands on an element its neighbours get weight 0 and
  // are left out (PyTorch would make NaN of an infinite neighbour).
  for (int64_t m : {kNearest, kLinear, kArea, kNearestExact}) {
    rows.push_back({{2, 3, 6}, {}, interp(m, {11}), true});
  }
  rows.push_back({{2, 3, 6}, {}, interp_corners(kLinear, {11}), true});
  rows.push_back({{2, 3, 6}, {}, interp(kLinear, {6}), true});
  rows.push_back({{1, 2, 5, 6}, {}, interp_corners(kBicubic, {9, 11}), true});
  rows.push_back({{1, 2, 5, 6}, {}, interp(kBicubic, {5, 6}), true});
  for (const Row& r : rows) {
    const int64_t mode = r.attrs.get_int(Attr::mode, 0);
    for (DType t : kDTypes) {
      INFO("mode " << mode << " " << ir::name(t) << " " << r.shape.size() - 2 << " axes, to "
                   << ir::to_string(r.attrs.get_ints(Attr::shape))
                   << (r.attrs.has(Attr::align_corners) ? ", align_corners" : "")
                   << (r.attrs.has(Attr::scales) ? ", scales" : "")
                   << (r.attrs.has(Attr::antialias) ? ", antialias" : "")
                   << (r.strides.empty() ? "" : ", strided")
                   << (r.specials ? ", NaN and inf" : ""));
      const Input x{t, r.shape, r.strides, random_values(ir::numel(r.shape), 2, r.specials)};
      // Nearest picks elements and area sums as the CPU does. Linear and bicubic: the CPU build
      // may contract a multiply-add (-march=native), the kernel does not; a source coordinate
      // one rounding apart moves the result by about 2^-52 * source * |x1 - x0| (< 2^-44 here).
      const bool sampled = mode == kLinear || mode == kBicubic;
      const double tol = sampled ? 4 * ulp(t) + 0x1p-44 : 0;
      compare_with_cpu(
          Op::interpolate, {x}, r.attrs, tol, [&](auto& v, const ir::TensorType& y, char* out) {
            const InterpolateArgs a = interpolate_args(View{v[0].type.shape, v[0].strides}, y.shape,
                                                       ir::interpolate_geometry(r.attrs));
            kernels(t).interpolate(v[0].raw(), out, a);
          });
    }
  }
}

TEST_CASE("direct convolution kernel (cuDNN's fallback) = CPU backend") {
  struct Row {
    Op op;
    I x, x_strides, w;
    Attrs attrs;
    bool bias = true;
  };
  const std::vector<Row> rows = {
      {Op::conv1d, {2, 3, 9}, {}, {4, 3, 3}, {}},
      {Op::conv1d,
       {2, 4, 11},
       {},
       {6, 2, 3},
       {{Attr::stride, I{2}},
        {Attr::padding, I{2}},
        {Attr::dilation, I{2}},
        {Attr::groups, int64_t{2}}}},
      {Op::conv2d, {2, 3, 7, 6}, {126, 1, 18, 3}, {5, 3, 3, 3}, {}},
      {Op::conv2d,
       {2, 6, 9, 7},
       {},
       {4, 3, 3, 2},
       {{Attr::stride, I{2, 1}},
        {Attr::padding, I{1, 2}},
        {Attr::dilation, I{1, 2}},
        {Attr::groups, int64_t{2}}}},
      {Op::conv2d, {1, 2, 5, 6}, {}, {3, 2, 3, 3}, {{Attr::padding, I{4}}}, false},
      {Op::conv3d,
       {2, 4, 5, 4, 5},
       {},
       {4, 2, 3, 1, 3},
       {{Attr::stride, I{2}}, {Attr::padding, I{1}}, {Attr::groups, int64_t{2}}}},
      {Op::conv_transpose2d, {2, 3, 4, 5}, {}, {3, 2, 3, 3}, {}},
      {Op::conv_transpose2d,
       {2, 4, 4, 3},
       {},
       {4, 3, 3, 2},
       {{Attr::stride, I{2}},
        {Attr::padding, I{1}},
        {Attr::output_padding, I{1}},
        {Attr::groups, int64_t{2}}}},
      {Op::conv_transpose2d,
       {1, 2, 3, 3},
       {18, 1, 6, 2},
       {2, 2, 2, 2},
       {{Attr::stride, I{3, 2}}, {Attr::dilation, I{2, 1}}},
       false},
      // output_padding at the stride (below the dilation): the case cuDNN cannot describe
      {Op::conv_transpose2d,
       {1, 2, 3, 3},
       {},
       {2, 2, 2, 2},
       {{Attr::output_padding, I{1}}, {Attr::dilation, I{2}}}},
      {Op::conv_transpose1d,
       {2, 4, 5},
       {},
       {4, 3, 4},
       {{Attr::stride, I{3}},
        {Attr::padding, I{2}},
        {Attr::output_padding, I{1}},
        {Attr::dilation, I{2}},
        {Attr::groups, int64_t{2}}}},
      {Op::conv_transpose3d,
       {2, 4, 3, 2, 3},
       {},
       {4, 1, 3, 2, 3},
       {{Attr::stride, I{2, 1, 2}},
        {Attr::padding, I{1, 0, 1}},
        {Attr::output_padding, I{1, 0, 0}},
        {Attr::groups, int64_t{4}}}},
  };
  for (const Row& r : rows) {
    for (DType t : kDTypes) {
      INFO(ir::name(r.op) << " " << ir::name(t));
      std::vector<Input> in = {{t, r.x, r.x_strides, random_values(ir::numel(r.x), 3)},
                               {t, r.w, {}, random_values(ir::numel(r.w), 4)}};
      const int64_t cout =
          ir::is_conv_transpose(r.op) ? r.w[1] * r.attrs.get_int(Attr::groups, 1) : r.w[0];
      if (r.bias) in.push_back({t, {cout}, {}, random_values(cout, 5)});
      // The CPU sums float32 through oneDNN (float64 in double, as the kernel does).
      const double tol = t == DType::Float64 ? 1e-12 : 64 * ulp(t);
      compare_with_cpu(r.op, in, r.attrs, tol, [&](auto& v, const ir::TensorType& y, char* out) {
        const ConvProblem p = conv_problem(r.op, r.attrs, r.x, r.w, y.shape);
        const ConvArgs a =
            conv_args(p, View{v[0].type.shape, v[0].strides}, View{v[1].type.shape, v[1].strides},
                      r.bias, r.bias ? v[2].strides[0] : 0);
        kernels(t).conv(v[0].raw(), v[1].raw(), r.bias ? v[2].raw() : nullptr, out, a);
      });
    }
  }
}

TEST_CASE("CTC loss kernels = CPU backend (reductions, empty targets, impossible alignments)") {
  struct Row {
    I lp, lp_strides;
    std::vector<double> targets;
    I target_shape;
    std::vector<double> input_lengths, target_lengths;
    Attrs attrs;
  };
  std::vector<Row> rows;
  for (int64_t r = 0; r <= 2; ++r) {
    rows.push_back({{6, 3, 3},
                    {},
                    {1, 1, 2, 2, 0, 0, 2, 1, 9},
                    {3, 3},
                    {6, 5, 4},
                    {3, 0, 2},
                    {{Attr::reduction, r}}});
  }
  for (bool zero_infinity : {false, true}) {
    rows.push_back({{3, 2, 4},
                    {},
                    {1, 1, 1, 2, 3, 1},
                    {2, 3},
                    {3, 3},
                    {3, 2},
                    {{Attr::reduction, int64_t{0}}, {Attr::zero_infinity, zero_infinity}}});
  }
  rows.push_back({{5, 2, 3},
                  {1, 15, 5},
                  {0, 1, 1, 0},
                  {2, 2},
                  {5, 0},
                  {2, 0},
                  {{Attr::blank, int64_t{2}}, {Attr::reduction, int64_t{0}}}});
  for (const Row& r : rows) {
    for (DType t : kDTypes) {
      INFO("ctc_loss " << ir::name(t));
      std::vector<double> lp = random_values(ir::numel(r.lp), 6);
      for (double& x : lp) x = -std::fabs(x) - 0.1;  // log-probabilities
      const int64_t n = r.lp[1];
      const std::vector<Input> in = {{t, r.lp, r.lp_strides, lp},
                                     {DType::Int64, r.target_shape, {}, r.targets},
                                     {DType::Int64, {n}, {}, r.input_lengths},
                                     {DType::Int64, {n}, {}, r.target_lengths}};
      // float64 sums in the same order; 16-bit results round from float, the CPU's from double.
      const double tol = t == DType::Float64 ? 1e-13 : ulp(t);
      compare_with_cpu(
          Op::ctc_loss, in, r.attrs, tol, [&](auto& v, const ir::TensorType& y, char* out) {
            std::vector<long long> ints;
            for (double d : r.targets) ints.push_back(static_cast<long long>(d));
            for (double d : r.input_lengths) ints.push_back(static_cast<long long>(d));
            for (double d : r.target_lengths) ints.push_back(static_cast<long long>(d));
            const int64_t s_max = r.target_shape[1];
            std::vector<double> work(static_cast<size_t>(n * 2 * (2 * s_max + 1))), losses(n);
            const CtcArgs a = ctc_args(r.attrs, View{v[0].type.shape, v[0].strides}, s_max);
            kernels(t).ctc_alpha(v[0].raw(), ints.data(), work.data(), losses.data(), a);
            kernels(t).ctc_reduce(losses.data(), ints.data() + n * s_max + n, out, n,
                                  r.attrs.get_int(Attr::reduction, 1));
            (void)y;
          });
    }
  }
}

int64_t offset(const I& index, const I& strides) {
  int64_t o = 0;
  for (size_t d = 0; d < index.size(); ++d) o += index[d] * strides[d];
  return o;
}

// Every index of `shape` in row-major order.
template <typename Fn>
void for_each_index(const I& shape, Fn&& fn) {
  I index(shape.size(), 0);
  for (int64_t k = 0; k < ir::numel(shape); ++k) {
    fn(index);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

TEST_CASE("strided copies into packed layouts, and the bias broadcast") {
  const I shape = {2, 3, 4, 5};
  // A column-major view, then a flipped one (negative stride, from the last element).
  for (const I& src_strides : {I{1, 2, 6, 24}, I{-60, 20, 5, 1}}) {
    const int64_t base = src_strides[0] < 0 ? 60 : 0;
    for (Layout layout : {Layout::RowMajor, Layout::ChannelsLast}) {
      const I dst_strides = packed_strides(shape, layout);
      CopyArgs a;
      a.n = 120;
      a.rank = 4;
      for (int d = 0; d < 4; ++d) {
        a.size[d] = shape[d];
        a.src[d] = src_strides[d];
        a.dst[d] = dst_strides[d];
      }
      const auto args = bits<emu_copy::CopyArgs>(a);
      std::vector<long long> src8(120), dst8(120);
      for (size_t i = 0; i < 120; ++i) src8[i] = static_cast<long long>(i) * 5;
      emu_copy::dnn_copy_8(src8.data() + base, dst8.data(), args);
      std::vector<unsigned> src4(120), dst4(120);
      for (size_t i = 0; i < 120; ++i) src4[i] = static_cast<unsigned>(i) * 3;
      emu_copy::dnn_copy_4(src4.data() + base, dst4.data(), args);
      std::vector<uint16_t> src2(120), dst2(120);
      for (size_t i = 0; i < 120; ++i) src2[i] = static_cast<uint16_t>(i);
      emu_copy::dnn_copy_2(src2.data() + base, dst2.data(), args);
      int bad = 0;
      for_each_index(shape, [&](const I& index) {
        const int64_t from = base + offset(index, src_strides), to = offset(index, dst_strides);
        bad += dst8[to] != src8[from] || dst4[to] != src4[from] || dst2[to] != src2[from];
      });
      CHECK(bad == 0);
    }
  }
  // y (2, 3, 4) gets bias[c] through a flipped bias view.
  const std::vector<unsigned> bias = {10, 20, 30};
  std::vector<unsigned> y(24, 1);
  BiasArgs b;
  b.n = 24, b.c = 3, b.inner = 4, b.bias_stride = -1;
  emu_copy::dnn_fill_bias_4(bias.data() + 2, y.data(), bits<emu_copy::BiasArgs>(b));
  for (int64_t k = 0; k < 24; ++k) CHECK(y[k] == bias[2 - k / 4 % 3]);
}

}  // namespace
}  // namespace tensord::cuda::dnn::test
