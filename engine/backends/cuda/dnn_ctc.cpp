// ctc_loss: the alpha recursion in log space, in double, one sample per block; then PyTorch's
// reduction in the CPU's order (kernels_ctc.cpp). Targets and lengths are small integer tensors
// that the CPU checks before computing (Shape errors for lengths and classes out of range): they
// are read to the host (one stream synchronization), checked with the CPU's messages, and sent
// back packed as int64.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/dnn_internal.h"
#include "engine/backends/cuda/dnn_kernels.h"
#include "engine/ir/error.h"

namespace tensord::cuda::dnn {
namespace {

[[noreturn]] void bad(const std::string& why) {
  throw Error(ErrorCode::Shape, "ctc_loss: " + why);
}

int64_t read_int(const char* p, ir::DType dtype) {
  switch (dtype) {
    case ir::DType::Int8: {
      int8_t v;
      std::memcpy(&v, p, 1);
      return v;
    }
    case ir::DType::UInt8: {
      uint8_t v;
      std::memcpy(&v, p, 1);
      return v;
    }
    case ir::DType::Int16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case ir::DType::Int32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case ir::DType::Int64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
    default:
      throw Error(ErrorCode::Unsupported,
                  "the CUDA backend does not run ctc_loss with targets or lengths of " +
                      std::string(ir::name(dtype)));
  }
}

// The elements of an integer view in row-major order, as int64, read through the bytes it spans.
std::vector<int64_t> read_ints(CudaContext& ctx, const TensorValue& v) {
  const ir::DType dtype = v.type.dtype;
  const int64_t n = v.type.numel();
  std::vector<int64_t> out(static_cast<size_t>(n));
  if (n == 0) return out;
  const size_t item = ir::itemsize(dtype);
  const size_t rank = v.type.shape.size();
  int64_t lo = 0, hi = 0;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t extent = (v.type.shape[d] - 1) * v.strides[d];
    (extent < 0 ? lo : hi) += extent;
  }
  std::vector<char> bytes(static_cast<size_t>(hi - lo + 1) * item);
  const char* first = static_cast<const char*>(v.raw()) + lo * static_cast<int64_t>(item);
  check(cudaMemcpyAsync(bytes.data(), first, bytes.size(), cudaMemcpyDeviceToHost, ctx.stream),
        "cudaMemcpyAsync (ctc_loss lengths to host)");
  check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize (ctc_loss)");
  std::vector<int64_t> index(rank, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = -lo;
    for (size_t d = 0; d < rank; ++d) off += index[d] * v.strides[d];
    out[static_cast<size_t>(k)] = read_int(bytes.data() + off * static_cast<int64_t>(item), dtype);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < v.type.shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace

void run_ctc(CudaContext& ctx, const ir::Node& node, Values in, const TensorValue& out) {
  const TensorValue& lp = in[0];
  const ir::DType dtype = lp.type.dtype;
  const int64_t t_max = lp.type.shape[0], n = lp.type.shape[1], c = lp.type.shape[2];
  const int64_t s_max = in[1].type.shape[1];
  for (size_t i = 1; i < 4; ++i) {
    switch (in[i].type.dtype) {
      case ir::DType::Int8:
      case ir::DType::UInt8:
      case ir::DType::Int16:
      case ir::DType::Int32:
      case ir::DType::Int64:
        break;
      default:
        unsupported(node, in[i].type.dtype, "targets and lengths must be integers");
    }
  }
  std::vector<int64_t> ints = read_ints(ctx, in[1]);
  const std::vector<int64_t> in_len = read_ints(ctx, in[2]), tgt_len = read_ints(ctx, in[3]);
  for (int64_t b = 0; b < n; ++b) {
    const int64_t steps = in_len[b], len = tgt_len[b];
    if (steps < 0 || steps > t_max) {
      bad("input length " + std::to_string(steps) + " outside [0, " + std::to_string(t_max) + "]");
    }
    if (len < 0 || len > s_max) {
      bad("target length " + std::to_string(len) + " outside [0, " + std::to_string(s_max) + "]");
    }
    for (int64_t s = 0; s < len; ++s) {
      const int64_t k = ints[static_cast<size_t>(b * s_max + s)];
      if (k < 0 || k >= c) {
        bad("target class " + std::to_string(k) + " outside [0, " + std::to_string(c) + ")");
      }
    }
  }
  ints.insert(ints.end(), in_len.begin(), in_len.end());
  ints.insert(ints.end(), tgt_len.begin(), tgt_len.end());

  // One scratch block: the int64 block, the alpha buffers, the per-sample losses.
  const int64_t full = 2 * s_max + 1;
  const size_t int_bytes = ints.size() * sizeof(int64_t);
  const size_t work_bytes = static_cast<size_t>(n * 2 * full) * sizeof(double);
  const size_t loss_bytes = static_cast<size_t>(n) * sizeof(double);
  std::shared_ptr<engine::Buffer> scratch =
      ctx.scratch(std::max<size_t>(int_bytes + work_bytes + loss_bytes, 1));
  char* base = static_cast<char*>(scratch->data());
  auto* dev_ints = reinterpret_cast<int64_t*>(base);
  auto* work = reinterpret_cast<double*>(base + int_bytes);
  auto* losses = reinterpret_cast<double*>(base + int_bytes + work_bytes);
  if (int_bytes > 0) {
    // Pageable source: the call returns once the bytes are staged, so `ints` may go after it.
    check(cudaMemcpyAsync(dev_ints, ints.data(), int_bytes, cudaMemcpyHostToDevice, ctx.stream),
          "cudaMemcpyAsync (ctc_loss targets to device)");
  }

  CtcArgs a = ctc_args(node.attrs, view_of(lp), s_max);
  const void* x = lp.raw();
  const int64_t* ints_arg = dev_ints;
  void* args[] = {&x, &ints_arg, &work, &losses, &a};
  const int threads = static_cast<int>(std::min<int64_t>(256, (full + 31) / 32 * 32));
  const auto blocks = static_cast<unsigned>(std::min<int64_t>(n, 65535));
  launch(typed_kernel(ctx, dtype, kCtcAlpha), dim3(blocks), dim3(threads), args, 0, ctx.stream,
         "ctc_loss alpha");

  int64_t reduction = node.attrs.get_int(ir::Attr::reduction, 1);
  const int64_t* tl_arg = dev_ints + n * s_max + n;
  const double* losses_arg = losses;
  void* y = out.raw();
  void* rargs[] = {&losses_arg, &tl_arg, &y, &a.n, &reduction};
  launch(typed_kernel(ctx, dtype, kCtcReduce), dim3(1), dim3(1), rargs, 0, ctx.stream,
         "ctc_loss reduction");
}

}  // namespace tensord::cuda::dnn
