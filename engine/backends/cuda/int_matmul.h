// Integer matmul on CUDA (cuBLASLt takes only float and complex dtypes): a hand-written tiled
// kernel per integer dtype, compiled by NVRTC through the kernel cache like the other families.
// Semantics as the CPU backend's (engine/backends/cpu/matmul_reference.cpp): operands are cast
// to the output's dtype (the promotion of theirs; bool @ bool is refused by inference), products
// are summed in unsigned arithmetic of at least 32 bits and stored truncated, so the result
// wraps exactly as the output type; an empty sum (k = 0) gives zeros; batch dims broadcast
// (Array API: 1-D operands are promoted and the dim dropped). The family is int_matmul_family.cpp
// (run_int_matmul, cuda_ops.h); the CUDA C is int_matmul_sources.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/backends/cuda/movement_sources.h"
#include "engine/ir/dtype.h"

namespace tensord::cuda {

// The dtypes with an integer matmul kernel: int8, uint8, int16, int32, int64.
std::vector<ir::DType> int_matmul_dtypes();
// The CUDA C for `dtype` (one of the above; throws Error(Internal) otherwise), with one kernel,
// kIntMatmulKernel, launched with blocks of kIntMatmulBlock x kIntMatmulBlock threads.
const std::string& int_matmul_source(ir::DType dtype);
inline constexpr const char* kIntMatmulKernel = "td_int_matmul";
inline constexpr unsigned kIntMatmulBlock = 16;  // threads per side; a block writes 64 x 64
inline constexpr int64_t kIntMatmulTile = 64;
// Every source with its kernel, for the precompile list and the host emulation.
std::vector<KernelSource> int_matmul_kernel_sources();

// The kernel's batch argument (td_batch in the source): the output's broadcast batch dims,
// outermost first, with each operand's element stride along them (0 where it broadcasts).
inline constexpr int kIntMatmulMaxBatch = 16;
struct IntMatmulBatch {
  int64_t rank = 0;
  int64_t size[kIntMatmulMaxBatch] = {};
  int64_t a[kIntMatmulMaxBatch] = {};
  int64_t b[kIntMatmulMaxBatch] = {};
};

// out = a @ b for strided operands, in elements: a is m x k (row stride a_rs, column stride
// a_cs), b is k x n, out is contiguous (batch, m, n).
struct IntMatmulProblem {
  int64_t m = 0, n = 0, k = 0;
  int64_t a_rs = 0, a_cs = 0, b_rs = 0, b_cs = 0;
  int64_t batches = 1;
  IntMatmulBatch batch;
};

// The problem for operands of these shapes and strides and an output of `out_shape`; nullopt
// with `why_not` set when the shapes do not make a matmul (the engine's inference stops those
// first: this is a check, not the user's error).
std::optional<IntMatmulProblem> describe_int_matmul(std::span<const int64_t> a_shape,
                                                    std::span<const int64_t> a_strides,
                                                    std::span<const int64_t> b_shape,
                                                    std::span<const int64_t> b_strides,
                                                    std::span<const int64_t> out_shape,
                                                    std::string& why_not);

}  // namespace tensord::cuda
