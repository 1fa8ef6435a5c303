// The CUDA kernels of sorting along an axis: sort (values, indices), argsort, topk, kthvalue,
// median_axis, nanmedian_axis, mode (values, indices), quantile, nanquantile, and median,
// nanmedian of all elements. Each line (sort_common.h) is sorted as (key, position) pairs by
// the bitonic network of sort_kernels.cpp, then a per-op kernel reads its outputs off the sorted
// lines. Semantics as the CPU's kernels_sort.cpp and kernels_sort_multi.cpp: stable in both
// directions, NaN the largest value, -0.0 equal to 0.0.
#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/sort_common.h"
#include "engine/backends/cuda/sort_sources.h"
#include "engine/ir/error.h"
#include "engine/ir/half.h"

namespace tensord::cuda {
namespace {

using engine::TensorValue;
using ir::Attr;
using ir::DType;
using ir::Op;

constexpr int kThreads = 256;

// q as float64 on the host (it is small; its values decide whether the graph fails), checked
// to lie in [0, 1] as the CPU does.
std::vector<double> read_q(CudaContext& ctx, Op op, const TensorValue& q) {
  const int64_t n = q.type.numel();
  std::vector<double> out;
  if (n == 0) return out;
  const int64_t stride = q.type.shape.empty() ? 0 : q.strides[0];
  const int64_t lo = q.offset + std::min<int64_t>(0, (n - 1) * stride);
  const int64_t hi = q.offset + std::max<int64_t>(0, (n - 1) * stride);
  const size_t item = ir::itemsize(q.type.dtype);
  std::vector<char> host(static_cast<size_t>(hi - lo + 1) * item);
  check(cudaMemcpyAsync(host.data(), static_cast<const char*>(q.buffer->data()) + lo * item,
                        host.size(), cudaMemcpyDeviceToHost, ctx.stream),
        "cudaMemcpyAsync (quantile's q to the host)");
  check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize (quantile's q)");
  for (int64_t i = 0; i < n; ++i) {
    const char* p = host.data() + static_cast<size_t>(q.offset + i * stride - lo) * item;
    double v = 0;
    uint16_t bits = 0;
    switch (q.type.dtype) {
      case DType::Float16:
        std::memcpy(&bits, p, 2);
        v = ir::Float16::to_float(bits);
        break;
      case DType::BFloat16:
        std::memcpy(&bits, p, 2);
        v = ir::BFloat16::to_float(bits);
        break;
      case DType::Float32: {
        float f = 0;
        std::memcpy(&f, p, 4);
        v = f;
        break;
      }
      case DType::Float64:
        std::memcpy(&v, p, 8);
        break;
      default:
        throw_unsupported_on_cuda(op, q.type.dtype);
    }
    if (!(v >= 0 && v <= 1)) {
      throw Error(ErrorCode::Shape, std::string(ir::name(op)) +
                                        "'s q values must be in [0, 1], got " + std::to_string(v));
    }
    out.push_back(v);
  }
  return out;
}

bool is_sort_op(Op op) {
  switch (op) {
    case Op::sort:
    case Op::argsort:
    case Op::topk:
    case Op::kthvalue:
    case Op::median_axis:
    case Op::nanmedian_axis:
    case Op::mode:
    case Op::quantile:
    case Op::nanquantile:
    case Op::median:
    case Op::nanmedian:
      return true;
    default:
      return false;
  }
}

size_t outputs_of(Op op) {
  switch (op) {
    case Op::argsort:
    case Op::quantile:
    case Op::nanquantile:
    case Op::median:
    case Op::nanmedian:
      return 1;
    default:
      return 2;
  }
}

}  // namespace

bool run_sort(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  const Op op = node.op;
  if (!is_sort_op(op)) return false;
  const bool quantile = op == Op::quantile || op == Op::nanquantile;
  if (in.size() != (quantile ? 2u : 1u) || out.size() != outputs_of(op)) {
    throw Error(ErrorCode::Internal,
                std::string(ir::name(op)) + ": unexpected number of inputs or outputs");
  }
  const TensorValue& x = in[0];
  const DType t = x.type.dtype;
  if (ir::is_complex(t) || (quantile && !ir::is_floating(t))) throw_unsupported_on_cuda(op, t);
  if (out[0].type.dtype != (op == Op::argsort ? DType::Int64 : t) ||
      (out.size() == 2 && out[1].type.dtype != DType::Int64)) {
    throw Error(ErrorCode::Internal, std::string(ir::name(op)) + " output dtype mismatch");
  }
  const auto rank = static_cast<int64_t>(x.type.shape.size());
  const bool all_elements =
      op == Op::median || op == Op::nanmedian || (quantile && !node.attrs.has(Attr::axis));
  LineGeo g;
  if (all_elements) {
    bool every[ir::kMaxRank];
    std::fill(every, every + ir::kMaxRank, true);
    g = lines_over(x, every);
  } else {
    g = lines_along(x, ir::normalize_axis(node.attrs.get_int(Attr::axis, -1), rank));
  }
  std::vector<double> q;
  if (quantile) q = read_q(ctx, op, in[1]);  // errors first, as the CPU
  int64_t first = 0;
  switch (op) {
    case Op::sort:
    case Op::argsort:
      g.m = g.n;
      break;
    case Op::topk:
      g.m = node.attrs.get_int(Attr::k);
      break;
    case Op::kthvalue:
      g.m = 1;
      first = node.attrs.get_int(Attr::k) - 1;
      if (first < 0 || first >= g.n) {
        throw Error(ErrorCode::Shape, "kthvalue's k is outside [1, " + std::to_string(g.n) + "]");
      }
      break;
    default:
      g.m = 1;
      break;
  }
  if (g.m > g.n && !quantile) {
    throw Error(ErrorCode::Shape, std::string(ir::name(op)) + "'s k is larger than the axis");
  }
  if (g.lines == 0 || (quantile ? q.empty() : g.n == 0 || g.m == 0)) return true;

  const int descending = op == Op::topk ? node.attrs.get_bool(Attr::largest, true)
                         : (op == Op::sort || op == Op::argsort)
                             ? node.attrs.get_bool(Attr::descending, false)
                             : false;
  int64_t P = next_pow2(std::max<int64_t>(g.n, 1));
  int64_t total = g.lines * P;
  const auto bytes = static_cast<size_t>(total) * 8;
  const std::shared_ptr<engine::Buffer> key_buf = ctx.scratch(bytes), idx_buf = ctx.scratch(bytes);
  void* keys = key_buf->data();
  void* idx = idx_buf->data();
  void* xp = x.buffer->data();
  const std::string& source = sort_source(t);
  int desc = descending;
  void* load_args[] = {&g, &xp, &keys, &idx, &P, &desc};
  launch_named(ctx, source, "sort_load", grid_for(ctx, total, kThreads), dim3(kThreads), load_args);
  sort_pairs(ctx, keys, idx, total, P);

  switch (op) {
    case Op::sort:
    case Op::argsort:
    case Op::topk:
    case Op::kthvalue: {
      void* values = op == Op::argsort ? nullptr : out[0].raw();
      void* indices = op == Op::argsort ? out[0].raw() : out[1].raw();
      void* args[] = {&g, &xp, &idx, &P, &first, &values, &indices};
      launch_named(ctx, source, "sort_gather", grid_for(ctx, g.lines * g.m, kThreads),
                   dim3(kThreads), args);
      return true;
    }
    case Op::quantile:
    case Op::nanquantile: {
      int64_t nq = static_cast<int64_t>(q.size());
      const std::shared_ptr<engine::Buffer> q_buf = ctx.scratch(q.size() * sizeof(double));
      void* qp = q_buf->data();
      // From pageable memory: returns once q is staged, so the vector may go.
      check(cudaMemcpyAsync(qp, q.data(), q.size() * sizeof(double), cudaMemcpyHostToDevice,
                            ctx.stream),
            "cudaMemcpyAsync (quantile's q to the device)");
      int mode = static_cast<int>(node.attrs.get_int(Attr::interpolation, 0));
      int skip_nan = op == Op::nanquantile ? 1 : 0;
      void* y = out[0].raw();
      void* args[] = {&g, &xp, &keys, &idx, &P, &qp, &nq, &mode, &skip_nan, &y};
      launch_named(ctx, source, "sort_quantile", grid_for(ctx, g.lines * nq, kThreads),
                   dim3(kThreads), args);
      return true;
    }
    default: {
      int code = op == Op::median_axis      ? 0
                 : op == Op::nanmedian_axis ? 1
                 : op == Op::mode           ? 2
                 : op == Op::median         ? 3
                                            : 4;
      void* values = out[0].raw();
      void* indices = out.size() == 2 ? out[1].raw() : nullptr;
      void* args[] = {&g, &xp, &keys, &idx, &P, &code, &values, &indices};
      launch_named(ctx, source, "sort_select", grid_for(ctx, g.lines, kThreads), dim3(kThreads),
                   args);
      return true;
    }
  }
}

}  // namespace tensord::cuda
