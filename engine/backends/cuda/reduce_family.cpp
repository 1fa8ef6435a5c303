// The CUDA kernels of prod, argmax and argmin (sum, max and min are the loop-IR family's). The
// reduced dims of the strided input form each output's line (sort_common.h); the CUDA C is
// reduce_kernels.cpp. Semantics as the CPU's kernels_reduce.cpp / reduce_ops.h: prod of
// integers and bool in wrapping uint64 giving int64, of floats in their compute type, of complex
// in complex128; argmax/argmin the first index of the extreme, the first NaN winning.
#include <algorithm>

#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/sort_common.h"
#include "engine/backends/cuda/sort_sources.h"
#include "engine/ir/axes.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

using ir::Attr;
using ir::DType;
using ir::Op;

constexpr int kThreads = 256;
// Lines at most this long, or this many lines, get one thread each; longer lines a block.
constexpr int64_t kThreadLine = 64;
constexpr int64_t kThreadLines = 65536;
// A line is split into chunks of at least this many elements when there are too few lines to
// fill the device with blocks.
constexpr int64_t kMinChunk = 8192;
constexpr size_t kPartialBytes = 16;  // the largest accumulator: complex128 or (double, index)

}  // namespace

bool run_reduce(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  const Op op = node.op;
  if (op != Op::prod && op != Op::argmax && op != Op::argmin) return false;
  if (in.size() != 1 || out.size() != 1) {
    throw Error(ErrorCode::Internal, std::string(ir::name(op)) + " takes one input and one output");
  }
  const engine::TensorValue& x = in[0];
  const DType t = x.type.dtype;
  const bool arg = op != Op::prod;
  if (arg && ir::is_complex(t)) throw_unsupported_on_cuda(op, t);
  const DType want =
      arg ? DType::Int64 : (ir::is_floating(t) || ir::is_complex(t) ? t : DType::Int64);
  if (out[0].type.dtype != want) {
    throw Error(ErrorCode::Internal, std::string(ir::name(op)) + " output dtype mismatch");
  }
  const auto rank = static_cast<int64_t>(x.type.shape.size());
  bool reduced[ir::kMaxRank] = {};
  if (arg && node.attrs.has(Attr::axis)) {
    reduced[ir::normalize_axis(node.attrs.get_int(Attr::axis), rank)] = true;
  } else if (arg) {
    std::fill(reduced, reduced + rank, true);  // the flattened tensor
  } else {
    const ir::AxisMask mask = ir::reduction_axes(node.attrs, rank);
    for (int64_t d = 0; d < rank; ++d) reduced[d] = ir::has_axis(mask, d);
  }
  LineGeo g = lines_over(x, reduced);
  if (g.lines == 0) return true;
  if (g.n == 0 && arg) {
    throw Error(ErrorCode::Shape, std::string(ir::name(op)) + " of an empty axis");
  }
  const std::string& source = reduce_source(t);
  void* xp = x.buffer->data();
  void* yp = out[0].raw();
  int is_max = op == Op::argmax ? 1 : 0;
  const std::string prefix = arg ? "arg_" : "prod_";
  const int64_t sms = ctx.sm_count;
  if (g.n <= kThreadLine || g.lines >= kThreadLines) {
    void* args[] = {&g, &xp, &yp, &is_max};
    launch_named(ctx, source, (prefix + "thread").c_str(), grid_for(ctx, g.lines, kThreads),
                 dim3(kThreads), args);
    return true;
  }
  int64_t splits = 1;
  if (g.lines < 2 * sms && g.n > 2 * kMinChunk) {
    splits = std::min((g.n + kMinChunk - 1) / kMinChunk, (4 * sms + g.lines - 1) / g.lines);
  }
  int64_t chunk = (g.n + splits - 1) / splits;
  splits = (g.n + chunk - 1) / chunk;
  std::shared_ptr<engine::Buffer> partial;
  void* pp = nullptr;
  if (splits > 1) {
    partial = ctx.scratch(static_cast<size_t>(g.lines * splits) * kPartialBytes);
    pp = partial->data();
  }
  void* block_args[] = {&g, &xp, &yp, &pp, &splits, &chunk, &is_max};
  launch_named(ctx, source, (prefix + "block").c_str(), blocks_for(g.lines * splits, sms * 32),
               dim3(kThreads), block_args);
  if (splits > 1) {
    int64_t lines = g.lines;
    void* finish_args[] = {&lines, &splits, &pp, &yp, &is_max};
    launch_named(ctx, source, (prefix + "finish").c_str(), grid_for(ctx, lines, kThreads),
                 dim3(kThreads), finish_args);
  }
  return true;
}

}  // namespace tensord::cuda
