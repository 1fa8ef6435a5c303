// The CUDA neural-network family without a GPU: every CUDA C source it compiles at run time
// (each dtype), and the host logic that maps ops onto cuDNN: layouts, padded ranks, convolution
// and pooling parameters, which problems cuDNN can take and which go to the kernels. Output
// sizes are checked against the IR's inference and against cuDNN's documented output formula.
#include <catch2/catch.hpp>

#include <climits>
#include <string>
#include <vector>

#include "engine/backends/cuda/dnn_geometry.h"
#include "engine/backends/cuda/dnn_kernels.h"
#include "engine/backends/cuda/nvrtc_compiler.h"
#include "engine/ir/op.h"

namespace tensord::cuda::dnn::test {
namespace {

using ir::Attr;
using ir::Attrs;
using ir::DType;
using ir::Op;
using I = std::vector<int64_t>;

NvrtcOutput compile(const std::string& source, const std::string& name) {
  NvrtcRequest request;
  request.source = source;
  request.name = name;
  request.arch = 90;
  request.cubin = true;
  request.options = {"-default-device", "-std=c++17"};
  return nvrtc_compile(request);
}

bool is_elf(const std::string& image) {
  return image.size() > 4 && image.compare(0, 4,
                                           "\x7f"
                                           "ELF") == 0;
}

TEST_CASE("the per-dtype kernels compile for sm_90 with every entry point") {
  for (DType t : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16}) {
    INFO(ir::name(t));
    const NvrtcOutput out = compile(kernel_source(t), "dnn.cu");
    REQUIRE(is_elf(out.image));
    for (const char* entry : {kPool, kInterpolate, kConvDirect, kCtcAlpha, kCtcReduce}) {
      CHECK(out.image.find(entry) != std::string::npos);
    }
  }
  // One source per dtype: the cache compiles four texts, not one per op.
  CHECK(kernel_source(DType::Float16) != kernel_source(DType::BFloat16));
  CHECK_THROWS(kernel_source(DType::Int32));
}

TEST_CASE("the copy and bias kernels compile for sm_90") {
  const NvrtcOutput out = compile(copy_source(), "dnn_copy.cu");
  REQUIRE(is_elf(out.image));
  for (size_t bytes : {2u, 4u, 8u}) {
    CHECK(out.image.find(copy_kernel(bytes)) != std::string::npos);
    CHECK(out.image.find(fill_bias_kernel(bytes)) != std::string::npos);
  }
}

TEST_CASE("layouts: row-major, channels-last, other; size-1 axes take any stride") {
  const I shape = {2, 3, 4, 5};
  CHECK(packed_strides(shape, Layout::RowMajor) == I{60, 20, 5, 1});
  CHECK(packed_strides(shape, Layout::ChannelsLast) == I{60, 1, 15, 3});
  CHECK(classify(shape, I{60, 20, 5, 1}) == Layout::RowMajor);
  CHECK(classify(shape, I{60, 1, 15, 3}) == Layout::ChannelsLast);
  CHECK(classify(shape, I{1, 2, 6, 30}) == Layout::Other);     // permuted
  CHECK(classify(shape, I{120, 40, 10, 2}) == Layout::Other);  // stepped
  CHECK(classify(shape, I{0, 20, 5, 1}) == Layout::Other);     // broadcast batch
  // One channel: both layouts hold; a 1x1 kernel's weight too.
  const I one_channel = {2, 1, 4, 5};
  CHECK(has_layout(one_channel, I{20, 20, 5, 1}, Layout::RowMajor));
  CHECK(has_layout(one_channel, I{20, 20, 5, 1}, Layout::ChannelsLast));
  CHECK(has_layout(I{4, 3, 1, 1}, I{3, 1, 1, 1}, Layout::ChannelsLast));
  CHECK(has_layout(I{1, 3, 4, 5}, I{999, 20, 5, 1}, Layout::RowMajor));
  // 3-d (conv1d) and 5-d (conv3d) channels-last.
  CHECK(packed_strides(I{2, 3, 7}, Layout::ChannelsLast) == I{21, 1, 3});
  CHECK(packed_strides(I{2, 3, 4, 5, 6}, Layout::ChannelsLast) == I{360, 1, 90, 18, 3});
}

TEST_CASE("pooling and interpolation inputs as (N, C, H, W) planes") {
  // unbatched 2-d pooling: N = 1 in front
  View v = as_nchw(View{I{3, 7, 8}, I{56, 8, 1}}, 2);
  CHECK(v.shape == I{1, 3, 7, 8});
  CHECK(v.strides == I{0, 56, 8, 1});
  // batched 1-d: height 1
  v = as_nchw(View{I{2, 3, 10}, I{30, 10, 1}}, 1);
  CHECK(v.shape == I{2, 3, 1, 10});
  CHECK(v.strides == I{30, 10, 0, 1});
  // unbatched 1-d: both
  v = as_nchw(View{I{3, 11}, I{1, 3}}, 1);
  CHECK(v.shape == I{1, 3, 1, 11});
  CHECK(v.strides == I{0, 1, 0, 3});
  // a channels-last view stays channels-last once padded
  v = as_nchw(View{I{2, 3, 10}, I{30, 1, 3}}, 1);
  CHECK(has_layout(v.shape, v.strides, Layout::ChannelsLast));
}

ir::Shape inferred(Op op, const std::vector<ir::TensorType>& inputs, const Attrs& attrs) {
  std::vector<const ir::TensorType*> ptrs;
  for (const ir::TensorType& t : inputs) ptrs.push_back(&t);
  return ir::infer(op, ptrs, attrs)[0].shape;
}

// cuDNN's documented output size of a forward convolution (cudnnGetConvolutionNdForwardOutputDim).
int64_t cudnn_forward_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil) {
  return 1 + (in + 2 * pad - ((k - 1) * dil + 1)) / stride;
}

TEST_CASE("convolutions map onto cuDNN with the IR's output sizes") {
  struct Row {
    Op op;
    I x, w;
    Attrs attrs;
  };
  const std::vector<Row> rows = {
      {Op::conv1d, {2, 3, 9}, {4, 3, 3}, {}},
      {Op::conv1d,
       {2, 4, 11},
       {6, 2, 3},
       {{Attr::stride, I{2}},
        {Attr::padding, I{2}},
        {Attr::dilation, I{2}},
        {Attr::groups, int64_t{2}}}},
      {Op::conv1d, {2, 3, 4}, {2, 3, 2}, {{Attr::stride, I{7}}}},
      {Op::conv2d, {2, 3, 7, 6}, {5, 3, 3, 3}, {}},
      {Op::conv2d, {1, 4, 8, 8}, {4, 1, 3, 3}, {{Attr::groups, int64_t{4}}, {Attr::padding, I{1}}}},
      {Op::conv2d,
       {2, 6, 9, 7},
       {4, 3, 3, 2},
       {{Attr::stride, I{2, 1}},
        {Attr::padding, I{1, 2}},
        {Attr::dilation, I{1, 2}},
        {Attr::groups, int64_t{2}}}},
      {Op::conv2d, {1, 2, 5, 6}, {3, 2, 3, 3}, {{Attr::padding, I{4}}}},
      {Op::conv3d, {1, 2, 4, 5, 6}, {3, 2, 2, 3, 2}, {}},
      {Op::conv3d,
       {2, 4, 5, 4, 5},
       {4, 2, 3, 1, 3},
       {{Attr::stride, I{2}}, {Attr::padding, I{1}}, {Attr::groups, int64_t{2}}}},
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
       {{Attr::stride, I{3, 2}}, {Attr::dilation, I{2, 1}}}},
      {Op::conv_transpose1d, {2, 3, 7}, {3, 2, 3}, {{Attr::stride, I{2}}}},
      {Op::conv_transpose3d,
       {1, 2, 3, 4, 3},
       {2, 3, 2, 3, 2},
       {{Attr::padding, I{1}}, {Attr::output_padding, I{0, 1, 0}}, {Attr::stride, I{2}}}},
  };
  for (const Row& r : rows) {
    INFO(ir::name(r.op) << " x " << r.x.size() << "-d");
    const ir::Shape y = inferred(r.op, {{DType::Float32, r.x}, {DType::Float32, r.w}}, r.attrs);
    const ConvProblem p = conv_problem(r.op, r.attrs, r.x, r.w, y);
    const int nd = static_cast<int>(r.x.size()) - 2;
    CHECK(p.spatial == std::max(nd, 2));
    CHECK(p.x.size() == static_cast<size_t>(p.spatial + 2));
    CHECK(p.w.size() == p.x.size());
    CHECK(p.y.size() == p.x.size());
    CHECK(p.transposed == ir::is_conv_transpose(r.op));
    if (nd == 1) {
      // height 1 in front, with the identity window
      CHECK(p.x[2] == 1);
      CHECK(p.w[2] == 1);
      CHECK(p.y[2] == 1);
      CHECK(p.pad[0] == 0);
      CHECK(p.stride[0] == 1);
      CHECK(p.dilation[0] == 1);
    }
    CHECK(p.groups == r.attrs.get_int(Attr::groups, 1));
    REQUIRE(cudnn_describes(p, p.x[0]));
    CHECK(conv_batch_chunk(p) == p.x[0]);
    // cuDNN computes the forward convolution's size itself: it must be the IR's (forward), or
    // give back x's size from y's (transposed: backward data of that convolution).
    for (int d = 0; d < p.spatial; ++d) {
      const std::vector<int64_t>& from = p.transposed ? p.y : p.x;
      const std::vector<int64_t>& to = p.transposed ? p.x : p.y;
      CHECK(cudnn_forward_size(from[2 + d], p.w[2 + d], p.pad[d], p.stride[d], p.dilation[d]) ==
            to[2 + d]);
    }
  }
}

TEST_CASE("a transposed convolution with output_padding at the stride goes to the kernel") {
  // output_padding 1 < dilation 2, = stride 1: valid in PyTorch, not a backward-data shape.
  const Attrs attrs{{Attr::output_padding, I{1}}, {Attr::dilation, I{2}}};
  const I x = {1, 2, 3, 3}, w = {2, 2, 2, 2};
  const ir::Shape y =
      inferred(Op::conv_transpose2d, {{DType::Float32, x}, {DType::Float32, w}}, attrs);
  const ConvProblem p = conv_problem(Op::conv_transpose2d, attrs, x, w, y);
  CHECK_FALSE(cudnn_describes(p, 1));
}

TEST_CASE("convolutions beyond cuDNN's int sizes are split by batch or go to the kernel") {
  ConvProblem p;
  p.x = {512, 64, 512, 512};  // 16 Mi elements per sample, 8 Gi in all
  p.w = {64, 64, 3, 3};
  p.y = {512, 64, 512, 512};
  p.pad = {1, 1, 0};
  const int64_t chunk = conv_batch_chunk(p);
  CHECK(chunk == INT_MAX / (64 * 512 * 512));
  CHECK(cudnn_describes(p, chunk));
  CHECK_FALSE(cudnn_describes(p, 512));
  p.x = {1, 1, 70000, 70000};  // one sample above 2^31 elements
  p.y = p.x;
  CHECK(conv_batch_chunk(p) == 0);
  CHECK_FALSE(cudnn_describes(p, 1));
}

TEST_CASE("pooling: cuDNN where it gives PyTorch's result, the kernel otherwise") {
  auto problem = [](Op op, I x, Attrs attrs) {
    const ir::Shape y = inferred(op, {{DType::Float32, x}}, attrs);
    return pool_problem(op, attrs, x, y);
  };
  PoolProblem p = problem(Op::max_pool2d, {2, 3, 7, 8}, {{Attr::kernel, I{2}}});
  CHECK(p.is_max);
  CHECK(p.n == 2);
  CHECK(p.c == 3);
  CHECK(p.oh == 3);
  CHECK(p.ow == 4);
  CHECK(p.stride == std::array<int64_t, 2>{2, 2});  // stride defaults to the kernel
  CHECK(cudnn_pools(p));
  // 1-d: the identity window in height
  p = problem(Op::avg_pool1d, {2, 3, 10}, {{Attr::kernel, I{3}}, {Attr::padding, I{1}}});
  CHECK_FALSE(p.is_max);
  CHECK(p.kernel == std::array<int64_t, 2>{1, 3});
  CHECK(p.pad == std::array<int64_t, 2>{0, 1});
  CHECK(p.ih == 1);
  CHECK(p.oh == 1);
  CHECK(p.ow == 4);
  CHECK(cudnn_pools(p));
  // unbatched
  p = problem(Op::max_pool2d, {2, 5, 5}, {{Attr::kernel, I{3}}, {Attr::stride, I{9}}});
  CHECK(p.n == 1);
  CHECK(p.c == 2);
  CHECK(cudnn_pools(p));
  // dilation: the kernel
  p = problem(Op::max_pool2d, {1, 2, 9, 9},
              {{Attr::kernel, I{3}}, {Attr::dilation, I{2}}, {Attr::padding, I{1}}});
  CHECK_FALSE(cudnn_pools(p));
  // ceil_mode adding a window (7 rows, kernel 3, stride 2, padding 1: 4 windows, not 3+1)
  p = problem(Op::avg_pool2d, {2, 3, 7, 8},
              {{Attr::kernel, I{3}},
               {Attr::stride, I{2}},
               {Attr::padding, I{1}},
               {Attr::count_include_pad, false},
               {Attr::ceil_mode, true}});
  CHECK(p.ceil_mode);
  CHECK_FALSE(p.count_include_pad);
  CHECK(p.ow == 5);  // ceil((8 + 2 - 3) / 2) + 1
  CHECK_FALSE(cudnn_pools(p));
  // ceil_mode that adds nothing: cuDNN
  p = problem(Op::max_pool2d, {1, 1, 8, 8}, {{Attr::kernel, I{2}}, {Attr::ceil_mode, true}});
  CHECK(cudnn_pools(p));
}

TEST_CASE("pool arguments: spatial axes last of three, a unit batch for unbatched input") {
  // unbatched max_pool1d: N = 1 (stride 0), the window on the last axis, identity before it
  PoolArgs a = pool_args(Op::max_pool1d, {{Attr::kernel, I{3}}, {Attr::padding, I{1}}},
                         View{I{4, 10}, I{1, 4}}, I{4, 3});
  CHECK(a.n == 1);
  CHECK(a.c == 4);
  CHECK(a.sn == 0);
  CHECK(a.sc == 1);
  CHECK(a.max == 1);
  CHECK(a.adaptive == 0);
  CHECK(a.in[2] == 10);
  CHECK(a.out[2] == 3);
  CHECK(a.st[2] == 4);
  CHECK(a.k[2] == 3);
  CHECK(a.s[2] == 3);  // stride defaults to the kernel
  CHECK(a.pad[2] == 1);
  for (int e = 0; e < 2; ++e) {
    CHECK(a.in[e] == 1);
    CHECK(a.k[e] == 1);
    CHECK(a.st[e] == 0);
  }
  // adaptive 3-d average: every axis real, no window attributes
  a = pool_args(Op::adaptive_avg_pool3d, {{Attr::shape, I{2, 3, 4}}},
                View{I{2, 3, 5, 6, 7}, I{630, 210, 42, 7, 1}}, I{2, 3, 2, 3, 4});
  CHECK(a.adaptive == 1);
  CHECK(a.max == 0);
  CHECK(a.n == 2);
  CHECK(a.in[0] == 5);
  CHECK(a.out[0] == 2);
  CHECK(a.out[2] == 4);
  CHECK(a.st[1] == 7);
}

TEST_CASE("argument blocks have the device structs' layout: 64-bit fields, no padding") {
  CHECK(sizeof(PoolArgs) == (8 + 7 * 3) * 8);
  CHECK(sizeof(InterpolateArgs) == 20 * 8);
  CHECK(sizeof(ConvArgs) == 35 * 8);
  CHECK(sizeof(CtcArgs) == 9 * 8);
  CHECK(sizeof(CopyArgs) == (2 + 3 * kCopyRank) * 8);
  CHECK(sizeof(BiasArgs) == 4 * 8);
}

}  // namespace
}  // namespace tensord::cuda::dnn::test
