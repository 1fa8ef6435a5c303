// The CUDA kernels of the scans along an axis: cumsum, cumprod, logcumsumexp, and cummax, cummin
// (values and int64 positions). Lines along the axis of the strided input (sort_common.h); the
// CUDA C is scan_kernels.cpp. Semantics as the CPU's kernels_scan.cpp and the cummax/cummin
// part of kernels_sort_multi.cpp.
#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/sort_common.h"
#include "engine/backends/cuda/sort_sources.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

using ir::Attr;
using ir::DType;
using ir::Op;

constexpr int kThreads = 256;
// Lines at most this long, or this many lines, get one thread each (the CPU's exact sequence of
// steps); longer lines one block each (chunked: sort_sources.h).
constexpr int64_t kThreadLine = 64;
constexpr int64_t kThreadLinesPerSm = 256;

void expect(const engine::TensorValue& v, DType want, Op op) {
  if (v.type.dtype != want) {
    throw Error(ErrorCode::Internal, std::string(ir::name(op)) + " output dtype mismatch");
  }
}

}  // namespace

bool run_scan(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  const Op op = node.op;
  const bool cmx = op == Op::cummax || op == Op::cummin;
  if (op != Op::cumsum && op != Op::cumprod && op != Op::logcumsumexp && !cmx) return false;
  if (in.size() != 1 || out.size() != (cmx ? 2u : 1u)) {
    throw Error(ErrorCode::Internal,
                std::string(ir::name(op)) + ": unexpected number of inputs or outputs");
  }
  const engine::TensorValue& x = in[0];
  const DType t = x.type.dtype;
  if (ir::is_complex(t) && op != Op::cumsum && op != Op::cumprod) throw_unsupported_on_cuda(op, t);
  const auto rank = static_cast<int64_t>(x.type.shape.size());
  const int64_t axis = ir::normalize_axis(
      cmx ? node.attrs.get_int(Attr::axis, -1) : node.attrs.get_int(Attr::axis), rank);
  LineGeo g = lines_along(x, axis);
  if (g.lines == 0 || g.n == 0) return true;
  const bool floating = ir::is_floating(t) || ir::is_complex(t);  // keeps its dtype
  void* xp = x.buffer->data();
  void* y0 = out[0].raw();
  void* y1 = cmx ? out[1].raw() : nullptr;
  int flag = 0;
  const char* base = nullptr;
  switch (op) {
    case Op::cumsum:
    case Op::cumprod:
      expect(out[0], floating ? t : DType::Int64, op);
      base = "cum";
      flag = op == Op::cumprod ? 1 : 0;
      break;
    case Op::logcumsumexp:
      expect(out[0], floating ? t : DType::Float32, op);
      base = "lcse";
      break;
    default:
      expect(out[0], t, op);
      expect(out[1], DType::Int64, op);
      base = "cmx";
      flag = op == Op::cummax ? 1 : 0;
      break;
  }
  const bool per_thread = g.n <= kThreadLine || g.lines >= kThreadLinesPerSm * ctx.sm_count;
  const std::string name = std::string(base) + (per_thread ? "_thread" : "_block");
  const dim3 grid =
      per_thread ? grid_for(ctx, g.lines, kThreads) : blocks_for(g.lines, ctx.sm_count * 32);
  const std::string& source = scan_source(t);
  if (cmx) {
    void* args[] = {&g, &xp, &y0, &y1, &flag};
    launch_named(ctx, source, name.c_str(), grid, dim3(kThreads), args);
  } else if (op == Op::logcumsumexp) {
    void* args[] = {&g, &xp, &y0};
    launch_named(ctx, source, name.c_str(), grid, dim3(kThreads), args);
  } else {
    void* args[] = {&g, &xp, &y0, &flag};
    launch_named(ctx, source, name.c_str(), grid, dim3(kThreads), args);
  }
  return true;
}

}  // namespace tensord::cuda
