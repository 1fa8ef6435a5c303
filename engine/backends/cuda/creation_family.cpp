// The CUDA kernels of: full, arange, eye, rand, randn (docs/ops.md "Creation"), with the CPU
// backend's semantics (engine/backends/cpu/kernels_creation.cpp). full and eye are pattern fills
// of a value cast on the host; arange and rand/randn run td_creation.cu, whose Philox generator
// and transforms are engine/ir/philox.h's. rand gives the CPU's numbers bit for bit in every
// float dtype. randn computes the same Box-Muller formula with correctly rounded log and cos
// (double-double): glibc's, which the CPU calls, misround about one call in a thousand, so about
// 0.15% of float64 randn values differ from the CPU's in the last bit (measured on the host by
// tensord_unit_cuda_movement_emulated); float32/float16/bfloat16 values are equal after rounding
// (a last-bit difference in double almost never crosses a rounding boundary of the narrower type).
#include <algorithm>

#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/movement_launch.h"
#include "engine/backends/cuda/movement_sources.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

using ir::Attr;
using ir::DType;
using ir::Op;
using namespace movement;

void run_full(CudaContext& ctx, const ir::Node& node, const engine::TensorValue& out) {
  const ir::AttrValue* value = node.attrs.find(Attr::value);
  if (value == nullptr) throw Error(ErrorCode::InvalidGraph, "full needs a value");
  fill(ctx, out.raw(), ir::itemsize(out.type.dtype), out.type.numel(), 1,
       scalar_pattern(out.type.dtype, *value));
}

void run_arange(CudaContext& ctx, const ir::Node& node, const engine::TensorValue& out) {
  double start = node.attrs.get_float(Attr::start), step = node.attrs.get_float(Attr::step);
  if (step == 0) throw Error(ErrorCode::Shape, "arange step must not be zero");
  int64_t n = out.type.numel();
  if (n == 0) return;
  char* p = static_cast<char*>(out.raw());
  int code = dtype_code(out.type.dtype);
  void* args[] = {&p, &code, &n, &start, &step};
  launch(movement::kernel(ctx, creation_kernel_source(), "td_arange"), grid_of(ctx, n),
         dim3(kThreads), args, 0, ctx.stream, "td_arange");
}

void run_eye(CudaContext& ctx, const ir::Node& node, const engine::TensorValue& out) {
  const int64_t rows = out.type.shape.at(0), cols = out.type.shape.at(1);
  const int64_t k = node.attrs.get_int(Attr::k, 0);
  const size_t item = ir::itemsize(out.type.dtype);
  zero(ctx, out.raw(), out.nbytes());
  if (k >= cols || k <= -rows) return;  // no diagonal inside (and no overflow below)
  const int64_t first = std::max<int64_t>(0, -k);
  const int64_t count = std::min(rows - first, cols - k - first);
  char* start =
      static_cast<char*>(out.raw()) + (first * cols + first + k) * static_cast<int64_t>(item);
  fill(ctx, start, item, count, cols + 1, scalar_pattern(out.type.dtype, ir::AttrValue{true}));
}

void run_random(CudaContext& ctx, const ir::Node& node, const engine::TensorValue& out) {
  const DType t = out.type.dtype;
  if (!ir::is_floating(t)) {
    throw Error(ErrorCode::DType, std::string(ir::name(node.op)) + " needs a float dtype, not " +
                                      std::string(ir::name(t)));
  }
  int64_t n = out.type.numel();
  if (n == 0) return;
  auto seed = static_cast<uint64_t>(node.attrs.get_int(Attr::seed));
  char* p = static_cast<char*>(out.raw());
  int code = dtype_code(t), normal = node.op == Op::randn ? 1 : 0;
  void* args[] = {&p, &code, &n, &seed, &normal};
  launch(movement::kernel(ctx, creation_kernel_source(), "td_random"), grid_of(ctx, n),
         dim3(kThreads), args, 0, ctx.stream, "td_random");
}

}  // namespace

bool run_creation(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  switch (node.op) {
    case Op::full:
    case Op::arange:
    case Op::eye:
    case Op::rand:
    case Op::randn:
      break;
    default:
      return false;
  }
  if (!in.empty() || out.size() != 1) {
    throw Error(ErrorCode::Internal, std::string(ir::name(node.op)) + " takes no inputs");
  }
  const engine::TensorValue& o = out[0];
  // Complex tensors are only filled (the CPU's run_complex): arange, eye, rand and randn of a
  // complex dtype are rejected before they reach a backend.
  if (ir::is_complex(o.type.dtype) && node.op != Op::full) unsupported(node.op, o.type.dtype);
  switch (node.op) {
    case Op::full:
      run_full(ctx, node, o);
      break;
    case Op::arange:
      run_arange(ctx, node, o);
      break;
    case Op::eye:
      run_eye(ctx, node, o);
      break;
    default:
      run_random(ctx, node, o);
      break;
  }
  return true;
}

}  // namespace tensord::cuda
