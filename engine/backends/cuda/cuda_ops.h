// The op families of the CUDA backend. Each runs the nodes of its ops and returns false for any
// other op, so that CudaBackend::run asks them in turn; none includes another. Inputs are
// strided views (TensorValue::strides, offset); outputs are fresh, contiguous and typed as the
// node's outputs. A family throws Error(Unsupported) naming op and dtype for a combination it
// lacks, so that the conformance table reports it.
#pragma once

#include <span>
#include <vector>

#include "engine/backends/cuda/cuda_context.h"
#include "engine/codegen/loop_ir.h"
#include "engine/ir/graph.h"

namespace tensord::cuda {

using Values = std::span<const engine::TensorValue>;

// Elementwise ops, casts and sum/max/min reductions: CUDA C generated from the loop IR
// (engine/codegen/emit_cuda.h), one node at a time. loop_ir_family.cpp.
bool run_loop_ir(CudaContext& ctx, const ir::Node& node, Values in, Values out);
// The loop-IR kernels run_loop_ir compiles for `node` on operands of these types and strides
// (their addresses are not read), in launch order; none when the family does not run the node.
// No device needed: tensord-precompile fills a kernel cache with their units (loop_unit).
std::vector<codegen::LoopKernel> loop_ir_kernels(const ir::Node& node, Values in, Values out,
                                                 int sm_count);

// full, arange, eye, rand, randn (Philox, the same numbers as the CPU). creation_family.cpp.
bool run_creation(CudaContext& ctx, const ir::Node& node, Values in, Values out);

// contiguous (strided copy, conj), concat, pad, unfold, and the gather/scatter ops:
// index_select, gather, scatter, scatter_add, scatter_reduce, index_put, searchsorted.
// movement_family.cpp, index_family.cpp (sources: movement_sources.h).
bool run_movement(CudaContext& ctx, const ir::Node& node, Values in, Values out);
bool run_index(CudaContext& ctx, const ir::Node& node, Values in, Values out);

// prod, argmax, argmin; cumsum, cumprod, logcumsumexp. reduce_family.cpp, scan_family.cpp.
bool run_reduce(CudaContext& ctx, const ir::Node& node, Values in, Values out);
bool run_scan(CudaContext& ctx, const ir::Node& node, Values in, Values out);

// matmul with an integer output (int8, uint8, int16, int32, int64): a tiled kernel, wrapping as
// the CPU's (int_matmul.h); false for any other dtype (cuBLASLt's). int_matmul_family.cpp.
bool run_int_matmul(CudaContext& ctx, const ir::Node& node, Values in, Values out);

// sort, argsort, topk and the other per-row order statistics. sort_family.cpp.
bool run_sort(CudaContext& ctx, const ir::Node& node, Values in, Values out);

// Convolutions and pooling through cuDNN. dnn_family.cpp.
bool run_dnn(CudaContext& ctx, const ir::Node& node, Values in, Values out);

// The data-dependent ops (ir::is_data_dependent): nonzero, flatnonzero, masked_select,
// repeat_interleave_tensor, and unique (four outputs, through the sort family's network); it
// sizes, allocates and returns the outputs (one read to the host). dynamic_family.cpp.
std::vector<engine::TensorValue> run_dynamic(CudaContext& ctx, const ir::Node& node, Values in);

// FFT through cuFFT; linear algebra through cuSOLVER. fft_family.cpp, solver_family.cpp.
bool run_fft(CudaContext& ctx, const ir::Node& node, Values in, Values out);
bool run_solver(CudaContext& ctx, const ir::Node& node, Values in, Values out);

}  // namespace tensord::cuda
