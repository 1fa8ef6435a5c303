// The CUDA C emitter: loop IR in, CUDA C for NVRTC out, the sibling of the C++ one
// (emitter.h). Each entry point is
//   extern "C" __global__ void NAME(const td_params p)
// whose one parameter is a block of 8-byte words, in this order: the domain's sizes
// [rank], every operand's strides in elements [operands * rank] (inputs then outputs, as in
// LaunchShape), the operands' device addresses [operands], and the constants
// [max(1, constants)] as doubles. cuda_params() packs it; cuda_launch_config() says how to
// launch it. Pointwise kernels are grid-stride loops over the flat domain; kernels with
// inner dimensions run one block per outer row and reduce within the block.
//
// The generated text includes no header (NVRTC needs nothing but itself); 16-bit floats are
// stored as bits and computed in float with the same rounding as engine/ir/half.h.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/codegen/emitter.h"

namespace tensord::codegen {

class CudaEmitter final : public Emitter {
 public:
  std::string_view target() const override { return "cuda"; }
  EmittedKernel emit(const LoopKernel& kernel) const override;
  // The second entry point of a row kernel that reads its row more than once: the row kept in
  // registers, one block a row (emit_cuda_row_registers.cpp); none for other kernels
  // (cuda_row_register_slots 0).
  std::optional<EmittedKernel> emit_row_registers(const LoopKernel& kernel) const;
  // emit(), then emit_row_registers() where there is one: what a unit of the kernel holds.
  std::vector<EmittedKernel> entry_points(const LoopKernel& kernel) const;
  std::string unit(std::span<const EmittedKernel> kernels) const override;
};

struct CudaLaunchConfig {
  unsigned grid = 1;
  unsigned block = 256;
  size_t shared_bytes = 0;
  // Threads that share one unit of work (an element: 1; a row: its group, or the whole block):
  // what max-autotune needs to size other grids (engine/backends/cuda/launch_tuning.h).
  unsigned threads_per_unit = 1;
  // Launch the kernel's row-register entry point (CudaEmitter::emit_row_registers), not emit()'s.
  bool row_registers = false;
};

// How to launch `kernel` over `launch` on a device with `sm_count` multiprocessors, its
// operands at `ptrs` (inputs then outputs; empty: unknown, which rules out the row-register
// entry point, whose accesses need cuda_row_registers_aligned). An empty domain gives grid 0:
// launch nothing.
CudaLaunchConfig cuda_launch_config(const LoopKernel& kernel, const LaunchShape& launch,
                                    int sm_count, std::span<void* const> ptrs);

// Rows whose row-level inputs several passes read (softmax: max, sum, store; layer_norm: mean,
// variance, store) keep what the first pass loaded in dynamic shared memory when a block takes
// the row and the copy fits in this many bytes, so the row leaves DRAM (or L2) once. Under the
// 48 KiB a launch gets without opting in, with room for td_reduce's static slots.
inline constexpr int64_t kCudaRowCacheBytes = int64_t{40} << 10;

// The dynamic shared memory a block needs to cache a row of `n` elements of `kernel` (each cached
// input in its storage type, 16-byte aligned), or 0 if its kernels read no row input twice.
// The kernel computes the same sum and caches only when the launch gave it that much.
int64_t cuda_row_cache_bytes(const LoopKernel& kernel, int64_t n);

// The row-register entry point: each thread keeps this many slots of every row value, the slots
// of all the row inputs several passes read taking at most kCudaRowRegisterWords 32-bit
// registers (the study's 32 floats a thread at 1024 threads, 64 registers in all); 0 when the
// kernel has no such entry point (not one inner dimension, a strided row input or row output,
// no row input read twice, or too many of them for kCudaLanes slots).
inline constexpr int kCudaRowRegisterWords = 32;
int cuda_row_register_slots(const LoopKernel& kernel);
// The block of the row-register entry point for rows of `n` elements (the least power of two
// from 128 whose slots hold the row), or 0 when the loop kernel serves: rows shorter than
// kCudaRowRegistersMin (where the loop kernel's thread groups share a block between rows; the
// bound is not measured) or longer than 1024 threads hold.
inline constexpr int64_t kCudaRowRegistersMin = 2048;
unsigned cuda_row_register_block(const LoopKernel& kernel, int64_t n);
// Whether every row of `launch` is whole vectors of kCudaLanes elements for the row-register
// entry point, which has no element-wise path (ptxas spilled the registers of one): rows of a
// multiple of kCudaLanes elements, and each contiguous row operand's address and outer strides
// aligned to its vector (td_vec).
bool cuda_row_registers_aligned(const LoopKernel& kernel, const LaunchShape& launch,
                                std::span<void* const> ptrs);

// The parameter block of one launch; `ptrs` are the operands' device addresses, inputs then
// outputs.
std::vector<uint64_t> cuda_params(const LoopKernel& kernel, const LaunchShape& launch,
                                  std::span<void* const> ptrs);

// What the CUDA emitter can express: the elementwise ops and casts the eager CPU kernels define
// on every dtype (complex ones: the ops of emit_cuda_complex.cpp), and sum/prod/max/min and
// argmax/argmin reductions (of complex values: sum). Wider than
// expressible() (which fusion uses for every backend): the CUDA backend also runs single
// unfused nodes through the emitter.
bool cuda_expressible(ir::Op op, std::span<const ir::DType> inputs, ir::DType result);
bool cuda_expressible_reduction(ir::Op op, ir::DType input, ir::DType result);

}  // namespace tensord::codegen
