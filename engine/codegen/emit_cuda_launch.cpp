// The host side of the CUDA emitter that has to agree with the kernels it writes: the launch
// configuration (grid, block, threads per row), the parameter block's words, and which ops and
// reductions the emitter can express (cuda_expressible, asked by fusion before any kernel is
// written).
#include <algorithm>
#include <bit>
#include <span>
#include <string>
#include <vector>

#include "engine/codegen/emit_cuda.h"
#include "engine/codegen/emit_cuda_structure.h"
#include "engine/codegen/emit_cuda_writer.h"
#include "engine/ir/error.h"

namespace tensord::codegen {

using ir::DType;
using ir::Op;

uint32_t cuda_constant_count(const LoopKernel& k) {
  uint32_t n = 0;
  for (const Instr& in : k.body) {
    if (in.kind == Instr::Kind::Const) n = std::max(n, in.arg + 1);
  }
  return n;
}

// Every dtype the emitter can hold in a register (all of them, complex ones included).
bool cuda_has_compute_type(DType t) {
  return !cuda_compute_type(t).empty();
}

// Rows read across their innermost stride and no row written: neighbouring threads then take
// neighbouring rows (td_group's `strided`).
bool cuda_strided_rows(const LoopKernel& k) {
  for (const Operand& o : k.outputs) {
    if (o.level == Level::Row) return false;
  }
  for (const Operand& o : k.inputs) {
    if (o.level == Level::Row && o.access == Access::Strided) return true;
  }
  return false;
}

CudaLaunchConfig cuda_launch_config(const LoopKernel& kernel, const LaunchShape& launch,
                                    int sm_count, std::span<void* const> ptrs) {
  const int64_t sm = std::max(1, sm_count);
  const int64_t cap = sm * 32;
  CudaLaunchConfig c;
  c.shared_bytes = 0;  // the reduction slots are static shared memory; row caches below
  if (kernel.inner_rank == 0) {
    int64_t total = 1;
    for (int64_t s : launch.sizes) total *= s;
    c.block = 256;
    if (total <= 0) {
      c.grid = 0;
      return c;
    }
    // One element per thread while that fills the device; beyond, TD_U per thread and step
    // (more loads in flight), at least eight blocks per multiprocessor, then grid-stride.
    const int64_t one = (total + 255) / 256;
    int64_t grid = one;
    if (one > sm * 8) {
      grid = std::clamp<int64_t>((total + 256 * kCudaLanes - 1) / (256 * kCudaLanes), sm * 8, cap);
      grid = std::min(grid, one);
    }
    c.grid = static_cast<unsigned>(grid);
    return c;
  }
  const int64_t rows = launch.outer_count();
  const int64_t n = launch.inner_count();
  if (rows <= 0) {
    c.grid = 0;
    return c;
  }
  if (kernel.columns) {  // one thread per outer cell
    c.block = 256;
    c.grid = static_cast<unsigned>(std::min((rows + 255) / 256, cap));
    return c;
  }
  if (const unsigned block = cuda_row_register_block(kernel, n);
      block > 0 && cuda_row_registers_aligned(kernel, launch, ptrs)) {
    c.block = block;
    c.threads_per_unit = block;
    c.grid = static_cast<unsigned>(std::min(rows, cap));
    c.row_registers = true;
    return c;
  }
  const int g = cuda_row_group(n, rows, cuda_strided_rows(kernel));
  if (g > 0) {
    c.block = 256;
    c.threads_per_unit = static_cast<unsigned>(g);
    const int64_t per_block = 256 / g;
    c.grid = static_cast<unsigned>(std::min((rows + per_block - 1) / per_block, cap));
  } else {
    // About two steps of TD_U elements per thread.
    unsigned block = 64;
    while (block < 512 && static_cast<int64_t>(block) * 2 * kCudaLanes < n) block *= 2;
    c.block = block;
    c.threads_per_unit = block;
    c.grid = static_cast<unsigned>(std::min(rows, cap));
    const int64_t cache = cuda_row_cache_bytes(kernel, n);
    if (cache > 0 && cache <= kCudaRowCacheBytes) c.shared_bytes = static_cast<size_t>(cache);
  }
  return c;
}

std::vector<uint64_t> cuda_params(const LoopKernel& kernel, const LaunchShape& launch,
                                  std::span<void* const> ptrs) {
  const int rank = kernel.rank();
  const int ops = static_cast<int>(kernel.operands());
  if (launch.sizes.size() != static_cast<size_t>(rank) ||
      launch.strides.size() != static_cast<size_t>(rank * ops) ||
      ptrs.size() != static_cast<size_t>(ops)) {
    throw Error(ErrorCode::Internal,
                "cuda_params: the launch shape or the operand addresses do "
                "not match the kernel (rank " +
                    std::to_string(rank) + ", " + std::to_string(ops) + " operands)");
  }
  const uint32_t nc = cuda_constant_count(kernel);
  const CudaParamWords w{rank, ops};
  std::vector<uint64_t> words(static_cast<size_t>(w.total(nc)), 0);
  for (int d = 0; d < rank; ++d) words[d] = static_cast<uint64_t>(launch.sizes[d]);
  for (int i = 0; i < rank * ops; ++i) words[rank + i] = static_cast<uint64_t>(launch.strides[i]);
  for (int o = 0; o < ops; ++o) words[w.ptr(o)] = reinterpret_cast<uintptr_t>(ptrs[o]);
  for (uint32_t i = 0; i < nc; ++i) {
    const double v = i < launch.constants.size() ? launch.constants[i] : 0.0;
    words[w.constant(i)] = std::bit_cast<uint64_t>(v);
  }
  return words;
}

bool cuda_expressible(Op op, std::span<const DType> inputs, DType result) {
  if (!cuda_has_compute_type(result)) return false;
  for (DType t : inputs) {
    if (!cuda_has_compute_type(t)) return false;
  }
  switch (ir::op_info(op).kind) {
    case ir::OpKind::Unary:
    case ir::OpKind::Binary:
    case ir::OpKind::Ternary:
      return cuda_op_supported(op, inputs, result);
    case ir::OpKind::Reduction:
      return inputs.size() == 1 && cuda_expressible_reduction(op, inputs[0], result);
    default:
      return false;
  }
}

bool cuda_expressible_reduction(Op op, DType input, DType result) {
  if (!cuda_has_compute_type(input) || !cuda_has_compute_type(result)) return false;
  if (ir::is_complex(input)) return op == Op::sum && result == input;
  if (op == Op::sum || op == Op::prod) {
    return ir::is_floating(input) ? result == input : result == DType::Int64;
  }
  if (op == Op::argmax || op == Op::argmin) return input != DType::Bool && result == DType::Int64;
  return (op == Op::max || op == Op::min) && result == input;
}

}  // namespace tensord::codegen
