// How the neural-network ops map onto cuDNN's legacy API and onto the family's own kernels:
// layouts, padded ranks, the convolution and pooling parameters cuDNN gets, and when cuDNN
// cannot give PyTorch's result (then a kernel runs). Plain host logic, tested without a GPU.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/backends/cuda/dnn_kernels.h"
#include "engine/ir/attrs.h"
#include "engine/ir/nn_geometry.h"
#include "engine/ir/op.h"
#include "engine/ir/shape.h"

namespace tensord::cuda::dnn {

// A (N, C, spatial...) view: packed row-major (NCHW), packed channels-last (NHWC: C varies
// fastest, then the spatial axes, then N), or anything else. Size-1 axes may have any stride.
enum class Layout : uint8_t { RowMajor, ChannelsLast, Other };

Layout classify(std::span<const int64_t> shape, std::span<const int64_t> strides);
// Whether the view is packed in `layout` (a view may be both: size-1 channels or spatial axes).
bool has_layout(std::span<const int64_t> shape, std::span<const int64_t> strides, Layout layout);
// The strides of `shape` packed in `layout` (RowMajor or ChannelsLast).
std::vector<int64_t> packed_strides(std::span<const int64_t> shape, Layout layout);

// A shape and its strides.
struct View {
  std::vector<int64_t> shape, strides;
};

// Inserts a size-1 axis before `axis` (conv1d as a 2-d convolution of height 1).
View with_unit_axis(const View& v, size_t axis);

// A pooling input as (N, C, H, W): rank nd + 1 (unbatched) gets N = 1, one spatial axis gets
// H = 1. Strides of inserted axes are 0.
View as_nchw(const View& v, int nd);

// A convolution as cuDNN sees it: 2 or 3 spatial axes (conv1d gets a leading height of 1).
// Forward: x (N, Cin, ...) * w (Cout, Cin / G, k...) -> y. Transposed (backward data of the
// forward convolution y -> x): w (Cin, Cout / G, k...) is that convolution's filter.
struct ConvProblem {
  bool transposed = false;
  int spatial = 2;
  std::vector<int64_t> x, w, y;  // shapes, spatial + 2 axes each
  std::array<int64_t, 3> pad{0, 0, 0}, stride{1, 1, 1}, dilation{1, 1, 1};
  int64_t groups = 1;
};

ConvProblem conv_problem(ir::Op op, const ir::Attrs& attrs, const ir::Shape& x, const ir::Shape& w,
                         const ir::Shape& y);

// Whether cuDNN's descriptors (int fields) hold the problem for `batch` samples per call, and
// (transposed) whether the forward convolution of y gives x's size, which fails when
// output_padding reaches the stride (PyTorch allows it below the dilation).
bool cudnn_describes(const ConvProblem& p, int64_t batch);

// Samples per cuDNN call: the most that keep x and y below 2^31 elements; 0 when one sample
// is already too large (the direct kernel runs).
int64_t conv_batch_chunk(const ConvProblem& p);

// A 1-d or 2-d window pool on (N, C, H, W) (as_nchw), its window per (height, width): what
// cuDNN may take (pool_args below describes every pool to the kernel).
struct PoolProblem {
  bool is_max = true, ceil_mode = false, count_include_pad = true;
  int64_t n = 1, c = 1, ih = 1, iw = 1, oh = 1, ow = 1;
  std::array<int64_t, 2> kernel{1, 1}, stride{1, 1}, pad{0, 0}, dilation{1, 1};
};

PoolProblem pool_problem(ir::Op op, const ir::Attrs& attrs, const ir::Shape& x, const ir::Shape& y);

// Whether cuDNN's pooling computes PyTorch's result: no dilation, ceil_mode adds no window
// (so the average divisor of count_include_pad is the whole window), int-sized.
bool cudnn_pools(const PoolProblem& p);

// The family's kernel arguments (dnn_kernels.h), from the problems above and the input views.
// x views are the op's own (pool: ([N,] C, spatial...), conv and interpolate: padded inside;
// ctc: (T, N, C)).
PoolArgs pool_args(ir::Op op, const ir::Attrs& attrs, const View& x, const ir::Shape& y);
// x (N, C, spatial...) with 1 to 3 spatial axes, y its output shape.
InterpolateArgs interpolate_args(const View& x, const ir::Shape& y,
                                 const ir::InterpolateGeometry& g);
ConvArgs conv_args(const ConvProblem& p, const View& x, const View& w, bool has_bias,
                   int64_t bias_stride);
CtcArgs ctc_args(const ir::Attrs& attrs, const View& log_probs, int64_t s_max);

}  // namespace tensord::cuda::dnn
