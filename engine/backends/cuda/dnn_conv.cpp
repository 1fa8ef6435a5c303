// conv1d/2d/3d (cudnnConvolutionForward) and conv_transpose1d/2d/3d
// (cudnnConvolutionBackwardData of the forward convolution whose filter is the transposed
// convolution's weight).
//
// Layouts: an input packed row-major or channels-last goes to cuDNN as it is (NCHW or NHWC
// strides); any other view is copied row-major first. The weight is given in the input's layout
// (copied when it is not), the output is the node's contiguous (row-major) tensor. A bias is
// written into the output first and the convolution adds to it (beta = 1), so the result is
// rounded once.
//
// Algorithms: cuDNN's heuristics (cudnnGet*Algorithm_v7) list them for the problem; the first
// that cuDNN accepts is kept per problem in the family state. float32 at precision "highest"
// runs CUDNN_FMA_MATH (no TF32); "high"/"medium" allow tensor ops (TF32), never a conversion to
// float16. When cuDNN declines every algorithm, or cannot describe the problem (sizes beyond
// int, output_padding at or above the stride), the direct kernel of dnn_kernels.cpp runs.
#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/dnn_internal.h"
#include "engine/backends/cuda/dnn_kernels.h"
#include "engine/ir/error.h"

namespace tensord::cuda::dnn {
namespace {

using engine::Float32MatmulPrecision;

// x and w as cuDNN reads them, in one layout.
struct Operands {
  TensorValue x, w;
  Layout layout = Layout::RowMajor;
};

View padded(const TensorValue& v, const ConvProblem& p) {
  View r = view_of(v);
  while (static_cast<int>(r.shape.size()) < p.spatial + 2) r = with_unit_axis(r, 2);
  return r;
}

Operands prepare(CudaContext& ctx, const ConvProblem& p, Values in) {
  Operands o{in[0], in[1], Layout::RowMajor};
  const View xv = padded(in[0], p);
  if (has_layout(xv.shape, xv.strides, Layout::RowMajor)) {
    o.layout = Layout::RowMajor;
  } else if (has_layout(xv.shape, xv.strides, Layout::ChannelsLast)) {
    o.layout = Layout::ChannelsLast;
  } else {
    o.x = to_layout(ctx, in[0], Layout::RowMajor);
  }
  const View wv = padded(in[1], p);
  if (!has_layout(wv.shape, wv.strides, o.layout)) o.w = to_layout(ctx, in[1], o.layout);
  return o;
}

cudnnMathType_t requested_math(ir::DType dtype, Float32MatmulPrecision precision) {
  if (dtype == ir::DType::Float64) return CUDNN_DEFAULT_MATH;
  if (dtype == ir::DType::Float32 && precision == Float32MatmulPrecision::Highest) {
    return CUDNN_FMA_MATH;
  }
  return CUDNN_TENSOR_OP_MATH;
}

// The math type a heuristic's entry runs with, or nullopt when the precision forbids it.
std::optional<cudnnMathType_t> usable_math(cudnnMathType_t listed, ir::DType dtype,
                                           Float32MatmulPrecision precision) {
  if (dtype != ir::DType::Float32) return listed;
  if (listed == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) return std::nullopt;  // float16 inside
  if (precision == Float32MatmulPrecision::Highest) {
    if (listed == CUDNN_TENSOR_OP_MATH) return std::nullopt;
    return CUDNN_FMA_MATH;  // DEFAULT_MATH would permit TF32 on Ampere and later
  }
  return listed;
}

std::string dims_text(std::span<const int64_t> v) {
  std::string s;
  for (int64_t d : v) s += std::to_string(d) + ",";
  return s;
}

// One cuDNN call over `batch` samples starting at x_ptr / y_ptr.
class CudnnConv {
 public:
  CudnnConv(CudaContext& ctx, const ConvProblem& p, const Operands& ops, ir::DType dtype)
      : ctx_(ctx), p_(p), ops_(ops), dtype_(dtype), state_(state(ctx)) {
    handle_ = state_.handle(ctx.stream);
    std::array<int, 5> w{};
    for (size_t d = 0; d < p.w.size(); ++d) w[d] = static_cast<int>(p.w[d]);
    accepted_ =
        accept(cudnnSetFilterNdDescriptor(
                   filter_.d, cudnn_dtype(dtype),
                   ops.layout == Layout::ChannelsLast ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                   static_cast<int>(p.w.size()), w.data()),
               "cudnnSetFilterNdDescriptor");
    std::array<int, 3> pad{}, stride{}, dil{};
    for (int d = 0; d < p.spatial; ++d) {
      pad[d] = static_cast<int>(p.pad[d]);
      stride[d] = static_cast<int>(p.stride[d]);
      dil[d] = static_cast<int>(p.dilation[d]);
    }
    accepted_ =
        accepted_ && accept(cudnnSetConvolutionNdDescriptor(
                                conv_.d, p.spatial, pad.data(), stride.data(), dil.data(),
                                CUDNN_CROSS_CORRELATION,
                                dtype == ir::DType::Float64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT),
                            "cudnnSetConvolutionNdDescriptor");
    accepted_ =
        accepted_ && accept(cudnnSetConvolutionGroupCount(conv_.d, static_cast<int>(p.groups)),
                            "cudnnSetConvolutionGroupCount");
    accepted_ = accepted_ &&
                accept(cudnnSetConvolutionMathType(conv_.d, requested_math(dtype, ctx.precision)),
                       "cudnnSetConvolutionMathType");
  }

  // False when cuDNN declines every algorithm for this batch size.
  bool run(int64_t batch, const void* x_ptr, void* y_ptr, double beta) {
    if (!accepted_) return false;
    std::vector<int64_t> xd = p_.x, yd = p_.y;
    xd[0] = yd[0] = batch;
    TensorDesc x, y;
    if (!x.set(dtype_, xd, packed_strides(xd, ops_.layout)) ||
        !y.set(dtype_, yd, packed_strides(yd, Layout::RowMajor))) {
      return false;
    }
    const std::string key = std::string(p_.transposed ? "T" : "F") + std::string(ir::name(dtype_)) +
                            "|" + dims_text(xd) + "|" + dims_text(p_.w) + "|" + dims_text(yd) +
                            "|" + dims_text(p_.pad) + dims_text(p_.stride) +
                            dims_text(p_.dilation) + "|" + std::to_string(p_.groups) + "|" +
                            std::to_string(static_cast<int>(ops_.layout)) + "|" +
                            std::to_string(static_cast<int>(ctx_.precision));
    std::vector<ConvChoice> tries;
    {
      std::lock_guard<std::mutex> lock(state_.mutex);
      auto it = state_.choices.find(key);
      if (it != state_.choices.end()) tries.push_back(it->second);
    }
    bool listed = false;
    for (size_t i = 0;; ++i) {
      if (i == tries.size()) {
        if (listed) break;
        listed = true;
        for (const ConvChoice& c : candidates(x, y)) tries.push_back(c);
        if (i == tries.size()) break;
      }
      const cudnnStatus_t status = run_one(tries[i], x, y, x_ptr, y_ptr, beta);
      if (status == CUDNN_STATUS_SUCCESS) {
        std::lock_guard<std::mutex> lock(state_.mutex);
        state_.choices[key] = tries[i];
        return true;
      }
      if (!declined(status)) {
        check(status, p_.transposed ? "cudnnConvolutionBackwardData" : "cudnnConvolutionForward");
      }
    }
    return false;
  }

 private:
  // Winograd and FFT transform the operands: their rounding is far from a sum of products, and
  // one inf input turns a whole tile (FFT: the whole plane) into NaN. Precision "highest" (the
  // default) keeps to the algorithms that sum products; "high"/"medium" take any.
  bool exact_sums(cudnnConvolutionFwdAlgo_t algo) const {
    return ctx_.precision != Float32MatmulPrecision::Highest ||
           algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
           algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
           algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
  }
  bool exact_sums(cudnnConvolutionBwdDataAlgo_t algo) const {
    return ctx_.precision != Float32MatmulPrecision::Highest ||
           algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 || algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
  }

  std::vector<ConvChoice> candidates(const TensorDesc& x, const TensorDesc& y) {
    std::vector<ConvChoice> out;
    int count = 0;
    if (!p_.transposed) {
      cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
      if (!accept(cudnnGetConvolutionForwardAlgorithm_v7(handle_, x.d, filter_.d, conv_.d, y.d,
                                                         CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count,
                                                         perf),
                  "cudnnGetConvolutionForwardAlgorithm_v7")) {
        return out;
      }
      for (int i = 0; i < count; ++i) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS || !exact_sums(perf[i].algo)) continue;
        if (auto m = usable_math(perf[i].mathType, dtype_, ctx_.precision)) {
          out.push_back(ConvChoice{static_cast<int>(perf[i].algo), *m});
        }
      }
    } else {
      cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      if (!accept(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle_, filter_.d, x.d, conv_.d, y.d,
                                                              CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                                              &count, perf),
                  "cudnnGetConvolutionBackwardDataAlgorithm_v7")) {
        return out;
      }
      for (int i = 0; i < count; ++i) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS || !exact_sums(perf[i].algo)) continue;
        if (auto m = usable_math(perf[i].mathType, dtype_, ctx_.precision)) {
          out.push_back(ConvChoice{static_cast<int>(perf[i].algo), *m});
        }
      }
    }
    return out;
  }

  cudnnStatus_t run_one(const ConvChoice& c, const TensorDesc& x, const TensorDesc& y,
                        const void* x_ptr, void* y_ptr, double beta) {
    cudnnStatus_t status = cudnnSetConvolutionMathType(conv_.d, c.math);
    if (status != CUDNN_STATUS_SUCCESS) return status;
    size_t bytes = 0;
    if (!p_.transposed) {
      status = cudnnGetConvolutionForwardWorkspaceSize(
          handle_, x.d, filter_.d, conv_.d, y.d, static_cast<cudnnConvolutionFwdAlgo_t>(c.algo),
          &bytes);
    } else {
      status = cudnnGetConvolutionBackwardDataWorkspaceSize(
          handle_, filter_.d, x.d, conv_.d, y.d, static_cast<cudnnConvolutionBwdDataAlgo_t>(c.algo),
          &bytes);
    }
    if (status != CUDNN_STATUS_SUCCESS) return status;
    std::shared_ptr<engine::Buffer> workspace;
    if (bytes > 0) {
      try {
        workspace = ctx_.scratch(bytes);
      } catch (const Error& e) {
        if (e.code() != ErrorCode::OutOfMemory) throw;
        return CUDNN_STATUS_NOT_SUPPORTED;  // an algorithm with a smaller workspace may follow
      }
    }
    void* ws = workspace ? workspace->data() : nullptr;
    const Scale one(1.0), b(beta);
    const void* w_ptr = ops_.w.raw();
    if (!p_.transposed) {
      return cudnnConvolutionForward(handle_, one.of(dtype_), x.d, x_ptr, filter_.d, w_ptr, conv_.d,
                                     static_cast<cudnnConvolutionFwdAlgo_t>(c.algo), ws, bytes,
                                     b.of(dtype_), y.d, y_ptr);
    }
    // The transposed convolution's input is the gradient (dy) of the forward one.
    return cudnnConvolutionBackwardData(handle_, one.of(dtype_), filter_.d, w_ptr, x.d, x_ptr,
                                        conv_.d, static_cast<cudnnConvolutionBwdDataAlgo_t>(c.algo),
                                        ws, bytes, b.of(dtype_), y.d, y_ptr);
  }

  CudaContext& ctx_;
  const ConvProblem& p_;
  const Operands& ops_;
  ir::DType dtype_;
  DnnState& state_;
  cudnnHandle_t handle_ = nullptr;
  FilterDesc filter_;
  ConvDesc conv_;
  bool accepted_ = true;  // false: cuDNN declined the descriptors, the kernel runs
};

bool run_cudnn(CudaContext& ctx, const ConvProblem& p, Values in, const TensorValue& y,
               int64_t chunk) {
  const ir::DType dtype = y.type.dtype;
  const Operands ops = prepare(ctx, p, in);
  const bool has_bias = in.size() > 2;
  if (has_bias) fill_bias(ctx, in[2], y);
  CudnnConv conv(ctx, p, ops, dtype);
  const size_t item = ir::itemsize(dtype);
  int64_t x_sample = 1, y_sample = 1;
  for (size_t d = 1; d < p.x.size(); ++d) x_sample *= p.x[d];
  for (size_t d = 1; d < p.y.size(); ++d) y_sample *= p.y[d];
  const int64_t n = p.x[0];
  for (int64_t b0 = 0; b0 < n; b0 += chunk) {
    const int64_t batch = std::min(chunk, n - b0);
    const auto* x_ptr = static_cast<const char*>(ops.x.raw()) + b0 * x_sample * item;
    auto* y_ptr = static_cast<char*>(y.raw()) + b0 * y_sample * item;
    if (!conv.run(batch, x_ptr, y_ptr, has_bias ? 1.0 : 0.0)) return false;
  }
  return true;
}

// The CPU's direct loop on the GPU (three spatial axes, leading ones of size 1): any layout,
// any size, sums in double.
void run_direct(CudaContext& ctx, const ConvProblem& p, Values in, const TensorValue& y) {
  const bool has_bias = in.size() > 2;
  ConvArgs a =
      conv_args(p, view_of(in[0]), view_of(in[1]), has_bias, has_bias ? in[2].strides[0] : 0);
  const void* x = in[0].raw();
  const void* w = in[1].raw();
  const void* bias = has_bias ? in[2].raw() : nullptr;
  void* out = y.raw();
  void* args[] = {&x, &w, &bias, &out, &a};
  launch(typed_kernel(ctx, y.type.dtype, kConvDirect), grid_for(ctx, y.type.numel()), dim3(256),
         args, 0, ctx.stream, "dnn direct convolution");
}

}  // namespace

void run_conv(CudaContext& ctx, const ir::Node& node, Values in, const TensorValue& out) {
  const ConvProblem p =
      conv_problem(node.op, node.attrs, in[0].type.shape, in[1].type.shape, out.type.shape);
  if (p.x[1] == 0) {
    // No input channels: the output is the bias (or zeros); cuDNN takes no empty channels.
    if (in.size() > 2) {
      fill_bias(ctx, in[2], out);
    } else {
      check(cudaMemsetAsync(out.raw(), 0, out.nbytes(), ctx.stream), "cudaMemsetAsync");
    }
    return;
  }
  const int64_t chunk = conv_batch_chunk(p);
  if (chunk > 0 && cudnn_describes(p, chunk) && run_cudnn(ctx, p, in, out, chunk)) return;
  run_direct(ctx, p, in, out);
}

}  // namespace tensord::cuda::dnn
