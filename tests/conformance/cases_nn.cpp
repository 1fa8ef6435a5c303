// Table rows for the neural-network ops of issue 4: every float dtype, channels-last and other
// strided inputs, groups, strides, padding, dilation, 1x1 kernels, strides above the input
// size, empty batches, NaN/inf (Values::Special / Edge), and the errors docs/ops.md lists (wrong
// rank, channel mismatch, groups not dividing the channels, padding above half the kernel,
// integer inputs).
#include <cmath>
#include <limits>

#include "engine/ir/nn_geometry.h"
#include "tests/conformance/case.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Attrs;
using ir::AttrValue;
using ir::Op;

namespace {

Case make(Op op, std::vector<InputSpec> inputs, Attrs attrs = {},
          Accuracy accuracy = Accuracy::Accumulated) {
  Case c;
  c.op = op;
  c.inputs = std::move(inputs);
  c.attrs = std::move(attrs);
  c.accuracy = accuracy;
  return c;
}

Case error(Op op, std::vector<InputSpec> inputs, Attrs attrs, ErrorCode code, std::string note) {
  Case c = make(op, std::move(inputs), std::move(attrs));
  c.error = code;
  c.note = std::move(note);
  return c;
}

using I = std::vector<int64_t>;

void add_conv(std::vector<Case>& out) {
  struct Row {
    Op op;
    Shape x, w;
    Attrs attrs;
    bool bias = true;
    Layout layout = Layout::Contiguous;
    Values values = Values::Small;
  };
  const Row rows[] = {
      {Op::conv1d, {2, 3, 9}, {4, 3, 3}, {}},
      {Op::conv1d,
       {2, 4, 11},
       {6, 2, 3},
       {{Attr::stride, I{2}},
        {Attr::padding, I{2}},
        {Attr::dilation, I{2}},
        {Attr::groups, int64_t{2}}}},
      {Op::conv1d, {1, 2, 5}, {3, 2, 1}, {}, false},               // 1x1 kernel, no bias
      {Op::conv1d, {2, 3, 4}, {2, 3, 2}, {{Attr::stride, I{7}}}},  // stride > size
      {Op::conv2d, {2, 3, 7, 6}, {5, 3, 3, 3}, {}},
      {Op::conv2d, {2, 3, 7, 6}, {5, 3, 3, 3}, {}, true, Layout::ChannelsLast},
      {Op::conv2d,
       {1, 4, 8, 8},
       {4, 1, 3, 3},
       {{Attr::groups, int64_t{4}}, {Attr::padding, I{1}}},
       true,
       Layout::ChannelsLast},  // depthwise
      {Op::conv2d,
       {2, 6, 9, 7},
       {4, 3, 3, 2},
       {{Attr::stride, I{2, 1}},
        {Attr::padding, I{1, 2}},
        {Attr::dilation, I{1, 2}},
        {Attr::groups, int64_t{2}}}},
      {Op::conv2d, {2, 3, 5, 5}, {4, 3, 1, 1}, {}, false, Layout::ChannelsLast},  // 1x1
      {Op::conv2d, {0, 3, 5, 5}, {4, 3, 3, 3}, {}},                               // empty batch
      {Op::conv2d, {1, 3, 4, 4}, {2, 3, 2, 2}, {{Attr::stride, I{9}}}},           // stride > size
      {Op::conv2d, {1, 2, 5, 6}, {3, 2, 3, 3}, {{Attr::padding, I{4}}}},  // padding > kernel
      {Op::conv2d, {2, 3, 6, 5}, {4, 3, 3, 3}, {}, true, Layout::Permuted},
      {Op::conv2d, {2, 3, 6, 5}, {4, 3, 3, 3}, {}, true, Layout::Strided},
      {Op::conv2d, {1, 3, 6, 6}, {2, 3, 3, 3}, {}, true, Layout::Contiguous, Values::Edge},
      {Op::conv2d,
       {1, 16, 12, 12},
       {8, 16, 3, 3},
       {{Attr::padding, I{1}}},
       true,
       Layout::ChannelsLast},
      {Op::conv3d, {1, 2, 4, 5, 6}, {3, 2, 2, 3, 2}, {}},
      {Op::conv3d,
       {2, 4, 5, 4, 5},
       {4, 2, 3, 1, 3},
       {{Attr::stride, I{2}}, {Attr::padding, I{1}}, {Attr::groups, int64_t{2}}},
       true,
       Layout::ChannelsLast},
      {Op::conv_transpose2d, {2, 3, 4, 5}, {3, 2, 3, 3}, {}},
      {Op::conv_transpose2d,
       {2, 4, 4, 3},
       {4, 3, 3, 2},
       {{Attr::stride, I{2}},
        {Attr::padding, I{1}},
        {Attr::output_padding, I{1}},
        {Attr::groups, int64_t{2}}}},
      {Op::conv_transpose2d,
       {1, 2, 3, 3},
       {2, 2, 2, 2},
       {{Attr::stride, I{3, 2}}, {Attr::dilation, I{2, 1}}},
       false,
       Layout::ChannelsLast},
      {Op::conv_transpose2d, {0, 2, 3, 3}, {2, 3, 1, 1}, {}},
      {Op::conv_transpose1d, {2, 3, 7}, {3, 2, 3}, {}},
      {Op::conv_transpose1d,
       {2, 4, 5},
       {4, 3, 4},
       {{Attr::stride, I{3}},
        {Attr::padding, I{2}},
        {Attr::output_padding, I{1}},
        {Attr::dilation, I{2}},
        {Attr::groups, int64_t{2}}},
       true},
      {Op::conv_transpose1d,
       {1, 2, 6},
       {2, 3, 2},
       {{Attr::stride, I{2}}},
       false,
       Layout::ChannelsLast},
      {Op::conv_transpose3d, {1, 2, 3, 4, 3}, {2, 3, 2, 3, 2}, {}},
      {Op::conv_transpose3d,
       {2, 4, 3, 2, 3},
       {4, 1, 3, 2, 3},
       {{Attr::stride, I{2, 1, 2}},
        {Attr::padding, I{1, 0, 1}},
        {Attr::output_padding, I{1, 0, 0}},
        {Attr::groups, int64_t{4}}},
       true,
       Layout::ChannelsLast},
      {Op::conv_transpose3d,
       {1, 2, 2, 3, 2},
       {2, 2, 2, 2, 2},
       {{Attr::dilation, I{2}}},
       false,
       Layout::Permuted},
  };
  for (const Row& r : rows) {
    for (DType t : kFloatDTypes) {
      // float16/bfloat16 rows only on the first layouts, to keep the table fast.
      std::vector<InputSpec> in{InputSpec{t, r.x, r.layout, r.values, 0, {}},
                                InputSpec{t, r.w, Layout::Contiguous, Values::Small, 0, {}}};
      const int64_t cout =
          ir::is_conv_transpose(r.op) ? r.w[1] * r.attrs.get_int(Attr::groups, 1) : r.w[0];
      if (r.bias) in.push_back(in_values(t, {cout}, {0.5, -1.0, 0.25, 2.0}));
      out.push_back(make(r.op, std::move(in), r.attrs));
    }
  }
  const DType f = DType::Float32;
  out.push_back(error(Op::conv2d, {in(f, {3, 5, 5}), in(f, {2, 3, 3, 3})}, {}, ErrorCode::Shape,
                      "3-d input"));
  out.push_back(error(Op::conv2d, {in(f, {1, 4, 5, 5}), in(f, {2, 3, 3, 3})}, {}, ErrorCode::Shape,
                      "4 channels, weight takes 3"));
  out.push_back(error(Op::conv2d, {in(f, {1, 6, 5, 5}), in(f, {4, 2, 3, 3})},
                      {{Attr::groups, int64_t{4}}}, ErrorCode::Shape, "groups 4 of 6 channels"));
  out.push_back(error(Op::conv2d, {in(f, {1, 3, 2, 2}), in(f, {2, 3, 3, 3})}, {}, ErrorCode::Shape,
                      "kernel larger than the input"));
  out.push_back(error(Op::conv2d, {in(f, {1, 3, 5, 5}), in(f, {2, 3, 3, 3}), in(f, {3})}, {},
                      ErrorCode::Shape, "bias of 3 for 2 channels"));
  out.push_back(error(Op::conv2d, {in(f, {1, 3, 5, 5}), in(f, {2, 3, 3, 3})},
                      {{Attr::stride, I{0}}}, ErrorCode::InvalidGraph, "stride 0"));
  out.push_back(error(Op::conv2d, {in(f, {1, 3, 5, 5}), in(f, {2, 3, 3, 3})},
                      {{Attr::padding, I{1, 1, 1}}}, ErrorCode::InvalidGraph, "3 paddings"));
  out.push_back(error(Op::conv1d, {in(DType::Int32, {1, 3, 5}), in(DType::Int32, {2, 3, 3})}, {},
                      ErrorCode::DType, "integers"));
  out.push_back(error(Op::conv1d, {in(f, {1, 3, 5}), in(DType::Float64, {2, 3, 3})}, {},
                      ErrorCode::DType, "mixed dtypes"));
  out.push_back(error(Op::conv_transpose2d, {in(f, {1, 2, 3, 3}), in(f, {2, 2, 3, 3})},
                      {{Attr::output_padding, I{1}}}, ErrorCode::InvalidGraph,
                      "output_padding 1 with stride 1"));
  out.push_back(error(Op::conv3d, {in(f, {1, 2, 3, 3}), in(f, {2, 2, 1, 1, 1})}, {},
                      ErrorCode::Shape, "4-d input to conv3d"));
  out.push_back(error(Op::conv_transpose1d, {in(f, {1, 2, 3, 3}), in(f, {2, 2, 3})}, {},
                      ErrorCode::Shape, "4-d input to conv_transpose1d"));
  out.push_back(error(Op::conv_transpose3d, {in(f, {1, 3, 3, 3, 3}), in(f, {2, 2, 1, 1, 1})}, {},
                      ErrorCode::Shape, "weight for 2 input channels, input has 3"));
  out.push_back(error(Op::conv_transpose3d, {in(f, {1, 2, 3, 3, 3}), in(f, {2, 2, 1, 1, 1})},
                      {{Attr::stride, I{2}}, {Attr::output_padding, I{0, 2, 0}}},
                      ErrorCode::InvalidGraph, "output_padding 2 with stride 2"));
}

void add_interpolate(std::vector<Case>& out) {
  struct Row {
    Shape x;
    Attrs attrs;
    Layout layout = Layout::Contiguous;
  };
  using M = ir::InterpolateMode;
  auto mode = [](M m) { return std::pair{Attr::mode, AttrValue{static_cast<int64_t>(m)}}; };
  using F = std::vector<double>;
  const Row rows[] = {
      {{2, 3, 5}, {{Attr::shape, I{10}}}},
      {{2, 3, 5}, {{Attr::shape, I{7}}}},
      {{2, 3, 7}, {{Attr::shape, I{3}}}},
      {{2, 2, 4, 5}, {{Attr::shape, I{8, 10}}}},
      {{2, 2, 4, 5}, {{Attr::shape, I{3, 7}}}, Layout::ChannelsLast},
      {{2, 3, 6}, {{Attr::shape, I{11}}, mode(M::Linear)}},
      {{2, 3, 6}, {{Attr::shape, I{4}}, mode(M::Linear), {Attr::align_corners, true}}},
      {{2, 2, 4, 5}, {{Attr::shape, I{7, 9}}, mode(M::Linear)}},
      {{2, 2, 4, 5},
       {{Attr::shape, I{7, 9}}, mode(M::Linear), {Attr::align_corners, true}},
       Layout::Permuted},
      {{1, 2, 5, 6}, {{Attr::shape, I{2, 3}}, mode(M::Linear)}},
      {{1, 1, 1, 1}, {{Attr::shape, I{3, 2}}, mode(M::Linear), {Attr::align_corners, true}}},
      {{0, 2, 3, 3}, {{Attr::shape, I{6, 6}}, mode(M::Linear)}},
      // three spatial axes (trilinear, nearest)
      {{1, 2, 3, 4, 5}, {{Attr::shape, I{6, 8, 10}}}},
      {{1, 2, 4, 4, 4}, {{Attr::shape, I{2, 3, 5}}}, Layout::Permuted},
      {{1, 2, 3, 4, 5}, {{Attr::shape, I{5, 7, 3}}, mode(M::Linear)}},
      {{2, 1, 3, 2, 4},
       {{Attr::shape, I{4, 5, 2}}, mode(M::Linear), {Attr::align_corners, true}},
       Layout::Permuted},
      // bicubic: up, down, align_corners, a single row, channels-last
      {{2, 2, 4, 5}, {{Attr::shape, I{7, 9}}, mode(M::Bicubic)}},
      {{1, 2, 9, 8}, {{Attr::shape, I{4, 3}}, mode(M::Bicubic)}},
      {{1, 2, 4, 5}, {{Attr::shape, I{3, 8}}, mode(M::Bicubic), {Attr::align_corners, true}}},
      {{1, 3, 1, 6}, {{Attr::shape, I{2, 13}}, mode(M::Bicubic)}},
      {{1, 3, 5, 6}, {{Attr::shape, I{10, 12}}, mode(M::Bicubic)}, Layout::ChannelsLast},
      // area: windows that overlap, divide evenly, and upsample
      {{2, 3, 7}, {{Attr::shape, I{3}}, mode(M::Area)}},
      {{2, 2, 7, 9}, {{Attr::shape, I{3, 4}}, mode(M::Area)}, Layout::ChannelsLast},
      {{1, 2, 6, 6}, {{Attr::shape, I{3, 2}}, mode(M::Area)}},
      {{1, 2, 3, 4}, {{Attr::shape, I{7, 9}}, mode(M::Area)}},
      {{1, 2, 5, 6, 7}, {{Attr::shape, I{2, 3, 4}}, mode(M::Area)}},
      // nearest-exact
      {{2, 3, 5}, {{Attr::shape, I{7}}, mode(M::NearestExact)}},
      {{2, 2, 4, 5}, {{Attr::shape, I{3, 8}}, mode(M::NearestExact)}, Layout::Permuted},
      {{1, 1, 3, 4, 5}, {{Attr::shape, I{5, 2, 9}}, mode(M::NearestExact)}},
      {{1, 2, 4, 4}, {{Attr::shape, I{8, 8}}, mode(M::NearestExact)}},
      // more output rows than the CPU kernel's block of 16
      {{1, 1, 9, 5}, {{Attr::shape, I{37, 6}}, mode(M::Bicubic)}},
      {{1, 2, 40, 7}, {{Attr::shape, I{17, 3}}, mode(M::Area)}},
      {{1, 1, 2, 20, 3}, {{Attr::shape, I{3, 35, 4}}, mode(M::Linear)}, Layout::Permuted},
      // the user's scale factors in place of in / out (PyTorch's scale_factor)
      {{2, 3, 5}, {{Attr::shape, I{8}}, {Attr::scales, F{1.7}}}},
      {{2, 3, 5}, {{Attr::shape, I{5}}, {Attr::scales, F{1.1}}}},
      {{2, 3, 5}, {{Attr::shape, I{7}}, mode(M::NearestExact), {Attr::scales, F{1.5}}}},
      {{2, 2, 5, 7}, {{Attr::shape, I{3, 9}}, mode(M::Linear), {Attr::scales, F{0.6, 1.3}}}},
      {{1, 1, 3, 4, 5},
       {{Attr::shape, I{7, 2, 7}}, mode(M::Linear), {Attr::scales, F{2.5, 0.5, 1.5}}}},
      {{1, 2, 5, 6}, {{Attr::shape, I{8, 3}}, mode(M::Bicubic), {Attr::scales, F{1.7, 0.6}}}},
      // antialias: downsampling stretches the filter over scale inputs; upsampling keeps it
      {{2, 2, 17, 23}, {{Attr::shape, I{5, 4}}, mode(M::Linear), {Attr::antialias, true}}},
      {{1, 3, 16, 9},
       {{Attr::shape, I{3, 13}}, mode(M::Bicubic), {Attr::antialias, true}},
       Layout::ChannelsLast},
      {{1, 2, 12, 10},
       {{Attr::shape, I{5, 4}},
        mode(M::Bicubic),
        {Attr::antialias, true},
        {Attr::align_corners, true}}},
      {{1, 2, 11, 7},
       {{Attr::shape, I{4, 3}},
        mode(M::Linear),
        {Attr::antialias, true},
        {Attr::scales, F{0.4, 0.45}}}},
      {{1, 1, 40, 3}, {{Attr::shape, I{18, 6}}, mode(M::Bicubic), {Attr::antialias, true}}},
  };
  for (const Row& r : rows) {
    const auto m = static_cast<M>(r.attrs.get_int(Attr::mode, 0));
    const bool exact = m == M::Nearest || m == M::NearestExact;
    for (DType t : kFloatDTypes) {
      out.push_back(make(Op::interpolate, {in(t, r.x, r.layout)}, r.attrs,
                         exact ? Accuracy::Exact : Accuracy::Accumulated));
    }
  }
  // A tap of weight 0 is left out: an inf or NaN beside an exact sample point stays out of it
  // (linear's first output sits on x[0]; bicubic's on whole source coordinates).
  const double inf = std::numeric_limits<double>::infinity();
  for (DType t : kFloatDTypes) {
    out.push_back(make(Op::interpolate, {in_values(t, {1, 1, 4}, {1, inf, -2, std::nan("")})},
                       {{Attr::shape, I{8}}, mode(M::Linear)}, Accuracy::Accumulated));
    out.push_back(make(Op::interpolate, {in_values(t, {1, 1, 1, 5}, {1, -inf, 3, 4, inf})},
                       {{Attr::shape, I{1, 9}}, mode(M::Bicubic), {Attr::align_corners, true}},
                       Accuracy::Accumulated));
    out.push_back(make(Op::interpolate, {in_values(t, {1, 1, 2, 3}, {-0.0, -0.0, -0.0, 1, 2, 3})},
                       {{Attr::shape, I{3, 5}}, mode(M::Linear), {Attr::align_corners, true}},
                       Accuracy::Accumulated));
  }
  const DType f = DType::Float32;
  const Attrs size1{{Attr::shape, I{8}}};
  out.push_back(error(Op::interpolate, {in(f, {3, 4})}, size1, ErrorCode::Shape, "2-d input"));
  out.push_back(error(Op::interpolate, {in(f, {1, 1, 1, 1, 1, 4})}, {{Attr::shape, I{1, 1, 1, 8}}},
                      ErrorCode::Shape, "4 spatial axes"));
  out.push_back(error(Op::interpolate, {in(f, {1, 3, 4})}, {{Attr::shape, I{8}}, mode(M::Bicubic)},
                      ErrorCode::Shape, "bicubic of one spatial axis"));
  out.push_back(error(Op::interpolate, {in(f, {1, 3, 4})}, {{Attr::shape, I{8, 8}}},
                      ErrorCode::InvalidGraph, "two sizes for one axis"));
  out.push_back(error(Op::interpolate, {in(f, {1, 3, 4})},
                      {{Attr::shape, I{8}}, {Attr::align_corners, true}}, ErrorCode::InvalidGraph,
                      "align_corners with nearest"));
  out.push_back(error(Op::interpolate, {in(f, {1, 3, 4})},
                      {{Attr::shape, I{8}}, mode(M::Area), {Attr::align_corners, false}},
                      ErrorCode::InvalidGraph, "align_corners with area"));
  out.push_back(error(Op::interpolate, {in(f, {1, 3, 4})},
                      {{Attr::shape, I{8}}, {Attr::mode, int64_t{5}}}, ErrorCode::InvalidGraph,
                      "mode 5"));
  out.push_back(error(Op::interpolate, {in(f, {1, 3, 4, 4})},
                      {{Attr::shape, I{2, 2}}, mode(M::Area), {Attr::antialias, true}},
                      ErrorCode::InvalidGraph, "antialias with area"));
  out.push_back(error(Op::interpolate, {in(f, {1, 3, 8})},
                      {{Attr::shape, I{2}}, mode(M::Linear), {Attr::antialias, true}},
                      ErrorCode::InvalidGraph, "antialias on one axis"));
  out.push_back(error(Op::interpolate, {in(f, {1, 3, 4})},
                      {{Attr::shape, I{8}}, {Attr::scales, F{2, 2}}}, ErrorCode::InvalidGraph,
                      "two scales for one axis"));
  out.push_back(error(Op::interpolate, {in(f, {1, 3, 4})},
                      {{Attr::shape, I{8}}, {Attr::scales, F{0}}}, ErrorCode::InvalidGraph,
                      "scale 0"));
  out.push_back(error(Op::interpolate, {in(f, {1, 3, 4})},
                      {{Attr::shape, I{8}}, {Attr::scales, F{std::nan("")}}},
                      ErrorCode::InvalidGraph, "scale NaN"));
  out.push_back(error(Op::interpolate, {in(f, {1, 3, 4})},
                      {{Attr::shape, I{2}}, mode(M::Area), {Attr::scales, F{0.5}}},
                      ErrorCode::InvalidGraph, "scales with area"));
  out.push_back(error(
      Op::interpolate, {in(f, {1, 3, 4})},
      {{Attr::shape, I{8}}, mode(M::Linear), {Attr::align_corners, true}, {Attr::scales, F{2}}},
      ErrorCode::InvalidGraph, "scales with align_corners"));
}

void add_composites(std::vector<Case>& out) {
  for (DType t : kFloatDTypes) {
    // linear
    out.push_back(make(Op::linear, {in(t, {4, 5}), in(t, {3, 5}), in(t, {3})}));
    out.push_back(make(Op::linear, {in(t, {2, 3, 5}, Layout::Permuted), in(t, {6, 5})}));
    out.push_back(make(Op::linear, {in(t, {5}), in(t, {2, 5}, Layout::Strided), in(t, {2})}));
    out.push_back(make(Op::linear, {in(t, {0, 5}), in(t, {3, 5}), in(t, {3})}));
    // embedding
    out.push_back(make(Op::embedding, {in_index(DType::Int64, {3, 4}, 6), in(t, {6, 5})}, {},
                       Accuracy::Exact));
    out.push_back(make(Op::embedding,
                       {in_index(DType::Int32, {}, 6), in(t, {6, 3}, Layout::Permuted)}, {},
                       Accuracy::Exact));
    out.push_back(
        make(Op::embedding, {in_index(DType::Int64, {0}, 6), in(t, {6, 3})}, {}, Accuracy::Exact));
    // rms_norm
    out.push_back(make(Op::rms_norm, {in(t, {3, 8})}, {{Attr::normalized_ndim, int64_t{1}}}));
    out.push_back(make(Op::rms_norm, {in(t, {2, 3, 4}), in(t, {3, 4})},
                       {{Attr::normalized_ndim, int64_t{2}}, {Attr::eps, 1e-3}}));
    out.push_back(make(Op::rms_norm, {in(t, {4, 6}, Layout::Permuted, Values::Edge)},
                       {{Attr::normalized_ndim, int64_t{1}}}));
    // batch_norm: inference with running statistics, training with the batch's
    const std::vector<double> mean = {0.5, -1.0, 0.0, 2.0}, var = {1.0, 0.25, 4.0, 0.5};
    for (bool training : {false, true}) {
      Attrs a{{Attr::training, training}};
      out.push_back(make(Op::batch_norm,
                         {in(t, {3, 4, 5}), in_values(t, {4}, mean), in_values(t, {4}, var),
                          in(t, {4}), in(t, {4})},
                         a));
      out.push_back(make(Op::batch_norm,
                         {in(t, {2, 4, 3, 3}, Layout::ChannelsLast), in_values(t, {4}, mean),
                          in_values(t, {4}, var), in(t, {4}), in(t, {4})},
                         {{Attr::training, training}, {Attr::eps, 1e-3}}));
      out.push_back(make(
          Op::batch_norm,
          {in(t, {5, 4}), in_values(t, {4}, mean), in_values(t, {4}, var), in(t, {4}), in(t, {4})},
          a));
      out.push_back(make(Op::batch_norm,
                         {in(t, {0, 4, 3}), in_values(t, {4}, mean), in_values(t, {4}, var),
                          in(t, {4}), in(t, {4})},
                         a));
    }
    // group_norm, instance_norm
    out.push_back(make(Op::group_norm, {in(t, {2, 6, 5}), in(t, {6}), in(t, {6})},
                       {{Attr::groups, int64_t{3}}}));
    out.push_back(make(Op::group_norm, {in(t, {2, 4, 3, 3}, Layout::ChannelsLast)},
                       {{Attr::groups, int64_t{1}}, {Attr::eps, 1e-3}}));
    out.push_back(make(Op::group_norm, {in(t, {3, 4}), in(t, {4})}, {{Attr::groups, int64_t{4}}}));
    out.push_back(make(Op::group_norm, {in(t, {0, 4, 2})}, {{Attr::groups, int64_t{2}}}));
    out.push_back(make(Op::instance_norm, {in(t, {2, 3, 7}), in(t, {3}), in(t, {3})}));
    out.push_back(make(Op::instance_norm, {in(t, {2, 3, 4, 4}, Layout::ChannelsLast)}));
    out.push_back(make(Op::instance_norm, {in(t, {1, 2, 5}, Layout::Contiguous, Values::Edge)}));
    // scaled_dot_product_attention
    out.push_back(make(Op::scaled_dot_product_attention,
                       {in(t, {2, 3, 4}), in(t, {2, 5, 4}), in(t, {2, 5, 6})}));
    out.push_back(make(Op::scaled_dot_product_attention,
                       {in(t, {2, 2, 4, 8}), in(t, {2, 2, 4, 8}), in(t, {2, 2, 4, 8})},
                       {{Attr::is_causal, true}}));
    out.push_back(make(Op::scaled_dot_product_attention,
                       {in(t, {3, 5}), in(t, {6, 5}, Layout::Permuted), in(t, {6, 2})},
                       {{Attr::is_causal, true}, {Attr::scale, 0.3}}));
    out.push_back(make(Op::scaled_dot_product_attention, {in(t, {2, 3, 4}), in(t, {1, 5, 4}),
                                                          in(t, {5, 4}), in(DType::Bool, {3, 5})}));
    out.push_back(make(Op::scaled_dot_product_attention,
                       {in(t, {2, 3, 4}), in(t, {2, 5, 4}), in(t, {2, 5, 4}), in(t, {2, 1, 5})}));
    // a fully masked row gives NaN; -inf float masks
    out.push_back(make(Op::scaled_dot_product_attention,
                       {in(t, {3, 4}), in(t, {2, 4}), in(t, {2, 3}),
                        in_values(DType::Bool, {3, 2}, {1, 0, 0, 0, 1, 1})}));
    out.push_back(make(Op::scaled_dot_product_attention,
                       {in(t, {3, 4}), in(t, {2, 4}), in(t, {2, 3}),
                        in_values(t, {3, 2}, {0.0, -INFINITY, -INFINITY, -INFINITY, 1.0, 0.0})}));
    out.push_back(make(Op::scaled_dot_product_attention,
                       {in(t, {0, 3, 4}), in(t, {0, 5, 4}), in(t, {0, 5, 4})}));
    out.push_back(
        make(Op::scaled_dot_product_attention,
             {in(t, {2, 4}, Layout::Contiguous, Values::Edge), in(t, {3, 4}), in(t, {3, 4})}));
    // dropout
    out.push_back(make(Op::dropout, {in(t, {1000})}, {{Attr::p, 0.3}, {Attr::seed, int64_t{7}}}));
    out.push_back(make(Op::dropout, {in(t, {4, 5}, Layout::Permuted, Values::Special)},
                       {{Attr::p, 0.5}, {Attr::seed, int64_t{1}}}));
    out.push_back(make(Op::dropout, {in(t, {4, 5})}, {{Attr::p, 0.5}, {Attr::training, false}},
                       Accuracy::Exact));
    out.push_back(make(Op::dropout, {in(t, {4, 5})}, {{Attr::p, 1.0}}));
    out.push_back(make(Op::dropout, {in(t, {0, 5})}, {{Attr::p, 0.2}}));
    // pixel_shuffle / pixel_unshuffle
    out.push_back(make(Op::pixel_shuffle, {in(t, {2, 8, 3, 2})}, {{Attr::factor, int64_t{2}}},
                       Accuracy::Exact));
    out.push_back(make(Op::pixel_shuffle, {in(t, {9, 2, 2}, Layout::Permuted)},
                       {{Attr::factor, int64_t{3}}}, Accuracy::Exact));
    out.push_back(make(Op::pixel_unshuffle, {in(t, {2, 2, 4, 6})}, {{Attr::factor, int64_t{2}}},
                       Accuracy::Exact));
    out.push_back(make(Op::pixel_unshuffle, {in(t, {1, 3, 3, 3}, Layout::ChannelsLast)},
                       {{Attr::factor, int64_t{1}}}, Accuracy::Exact));
  }
  const DType f = DType::Float32;
  out.push_back(error(Op::linear, {in(f, {4, 5}), in(f, {3, 4})}, {}, ErrorCode::Shape,
                      "5 features, weight takes 4"));
  out.push_back(error(Op::linear, {in(DType::Int32, {4, 5}), in(DType::Int32, {3, 5})}, {},
                      ErrorCode::DType, "integers"));
  out.push_back(
      error(Op::embedding, {in(f, {3}), in(f, {6, 5})}, {}, ErrorCode::DType, "float indices"));
  Case oob = make(Op::embedding, {in_values(DType::Int64, {2}, {1, 9}), in(f, {6, 5})});
  oob.error = ErrorCode::Shape;
  oob.note = "index 9 of 6 rows";
  out.push_back(std::move(oob));
  out.push_back(error(Op::batch_norm,
                      {in(f, {3, 4}), in(f, {3}), in(f, {3}), in(f, {3}), in(f, {3})}, {},
                      ErrorCode::Shape, "statistics of 3 for 4 channels"));
  out.push_back(error(Op::batch_norm,
                      {in(f, {1, 4}), in(f, {4}), in(f, {4}), in(f, {4}), in(f, {4})},
                      {{Attr::training, true}}, ErrorCode::Shape, "one value per channel"));
  out.push_back(error(Op::batch_norm, {in(f, {4}), in(f, {4}), in(f, {4}), in(f, {4}), in(f, {4})},
                      {}, ErrorCode::Shape, "1-d input"));
  out.push_back(error(Op::group_norm, {in(f, {2, 6, 3})}, {{Attr::groups, int64_t{4}}},
                      ErrorCode::Shape, "groups 4 of 6 channels"));
  out.push_back(
      error(Op::instance_norm, {in(f, {2, 6, 1})}, {}, ErrorCode::Shape, "one spatial element"));
  out.push_back(error(Op::instance_norm, {in(f, {2, 6})}, {}, ErrorCode::Shape, "2-d input"));
  out.push_back(error(Op::rms_norm, {in(f, {2, 6}), in(f, {5})},
                      {{Attr::normalized_ndim, int64_t{1}}}, ErrorCode::Shape,
                      "weight of 5 for 6"));
  out.push_back(error(Op::scaled_dot_product_attention,
                      {in(f, {3, 4}), in(f, {5, 3}), in(f, {5, 2})}, {}, ErrorCode::Shape,
                      "key width 3, query 4"));
  out.push_back(error(Op::scaled_dot_product_attention,
                      {in(f, {3, 4}), in(f, {5, 4}), in(f, {5, 2}), in(DType::Bool, {3, 5})},
                      {{Attr::is_causal, true}}, ErrorCode::InvalidGraph, "mask and causal"));
  out.push_back(error(Op::scaled_dot_product_attention,
                      {in(f, {3, 4}), in(f, {5, 4}), in(f, {5, 2}), in(DType::Int32, {3, 5})}, {},
                      ErrorCode::DType, "integer mask"));
  out.push_back(
      error(Op::dropout, {in(f, {3})}, {{Attr::p, 1.5}}, ErrorCode::InvalidGraph, "p 1.5"));
  out.push_back(error(Op::pixel_shuffle, {in(f, {1, 6, 2, 2})}, {{Attr::factor, int64_t{2}}},
                      ErrorCode::Shape, "6 channels, factor 2"));
  out.push_back(error(Op::pixel_unshuffle, {in(f, {1, 1, 3, 4})}, {{Attr::factor, int64_t{2}}},
                      ErrorCode::Shape, "height 3, factor 2"));
}

// Class weights of cross_entropy and nll_loss (issue 4).
void add_weighted_losses(std::vector<Case>& out) {
  const std::vector<double> w = {0.5, 2.0, 1.0, 0.0, 3.0};
  for (DType t : kFloatDTypes) {
    for (int64_t r = 0; r <= 2; ++r) {
      for (Op op : {Op::cross_entropy, Op::nll_loss}) {
        out.push_back(make(op,
                           {in(t, {6, 5}), in_index(DType::Int64, {6}, 5), in_values(t, {5}, w)},
                           {{Attr::reduction, r}}));
        out.push_back(
            make(op, {in(t, {2, 5, 3}), in_index(DType::Int64, {2, 3}, 5), in_values(t, {5}, w)},
                 {{Attr::reduction, r}, {Attr::ignore_index, int64_t{2}}}));
      }
      out.push_back(make(Op::cross_entropy,
                         {in(t, {4, 5}), in_index(DType::Int64, {4}, 5), in_values(t, {5}, w)},
                         {{Attr::reduction, r}, {Attr::label_smoothing, 0.2}}));
      out.push_back(make(Op::cross_entropy,
                         {in(t, {4, 5}), in(t, {4, 5}, Layout::Contiguous, Values::Positive),
                          in_values(t, {5}, w)},
                         {{Attr::reduction, r}}));
    }
  }
  out.push_back(
      error(Op::cross_entropy,
            {in(DType::Float32, {4, 5}), in_index(DType::Int64, {4}, 5), in(DType::Float32, {4})},
            {}, ErrorCode::Shape, "weight of 4 for 5 classes"));
  out.push_back(
      error(Op::nll_loss,
            {in(DType::Float32, {4, 5}), in_index(DType::Int64, {4}, 5), in(DType::Int64, {5})}, {},
            ErrorCode::DType, "integer weight"));
}

// ctc_loss: small T and C (the reference enumerates every alignment).
void add_ctc(std::vector<Case>& out) {
  const DType i64 = DType::Int64;
  for (DType t : kFloatDTypes) {
    for (int64_t r = 0; r <= 2; ++r) {
      // Three samples: a repeat in the target (needs a blank between), an empty target, and
      // a shorter input; targets padded with junk past their lengths.
      out.push_back(make(Op::ctc_loss,
                         {in(t, {6, 3, 3}, Layout::Contiguous, Values::Small),
                          in_values(i64, {3, 3}, {1, 1, 2, 2, 0, 0, 2, 1, 9}),
                          in_values(i64, {3}, {6, 5, 4}), in_values(i64, {3}, {3, 0, 2})},
                         {{Attr::reduction, r}}));
    }
    // Impossible alignment (target longer than the input allows): inf, or 0 with zero_infinity.
    for (bool zi : {false, true}) {
      out.push_back(make(Op::ctc_loss,
                         {in(t, {3, 2, 4}, Layout::Contiguous, Values::Small),
                          in_values(i64, {2, 3}, {1, 1, 1, 2, 3, 1}), in_values(i64, {2}, {3, 3}),
                          in_values(i64, {2}, {3, 2})},
                         {{Attr::reduction, int64_t{0}}, {Attr::zero_infinity, zi}}));
    }
    // blank 2, a permuted (non-contiguous) log_probs, zero input length with an empty target
    out.push_back(make(
        Op::ctc_loss,
        {in(t, {5, 2, 3}, Layout::Permuted, Values::Small), in_values(i64, {2, 2}, {0, 1, 1, 0}),
         in_values(i64, {2}, {5, 0}), in_values(i64, {2}, {2, 0})},
        {{Attr::blank, int64_t{2}}, {Attr::reduction, int64_t{0}}}));
  }
  const DType f = DType::Float32;
  Case len = make(Op::ctc_loss, {in(f, {3, 1, 3}), in_values(i64, {1, 2}, {1, 2}),
                                 in_values(i64, {1}, {4}), in_values(i64, {1}, {2})});
  len.error = ErrorCode::Shape;
  len.note = "input length 4 of 3 steps";
  out.push_back(std::move(len));
  Case cls = make(Op::ctc_loss, {in(f, {3, 1, 3}), in_values(i64, {1, 2}, {1, 5}),
                                 in_values(i64, {1}, {3}), in_values(i64, {1}, {2})});
  cls.error = ErrorCode::Shape;
  cls.note = "class 5 of 3";
  out.push_back(std::move(cls));
  out.push_back(error(Op::ctc_loss, {in(f, {3, 2, 3}), in(i64, {3, 2}), in(i64, {2}), in(i64, {2})},
                      {}, ErrorCode::Shape, "targets for 3 samples, log_probs has 2"));
  out.push_back(error(Op::ctc_loss, {in(f, {3, 2, 3}), in(f, {2, 2}), in(i64, {2}), in(i64, {2})},
                      {}, ErrorCode::DType, "float targets"));
  out.push_back(error(Op::ctc_loss, {in(f, {3, 2, 3}), in(i64, {2, 2}), in(i64, {2}), in(i64, {2})},
                      {{Attr::blank, int64_t{3}}}, ErrorCode::InvalidGraph, "blank 3 of 3"));
  out.push_back(error(Op::ctc_loss, {in(f, {3, 3}), in(i64, {2, 2}), in(i64, {2}), in(i64, {2})},
                      {}, ErrorCode::Shape, "2-d log_probs"));
}

}  // namespace

void add_nn_cases(std::vector<Case>& out) {
  add_ctc(out);
  add_conv(out);
  add_interpolate(out);
  add_composites(out);
  add_weighted_losses(out);
}

}  // namespace tensord::conformance
