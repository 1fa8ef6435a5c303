// How a strided matmul maps onto one cuBLASLt call. cuBLASLt is column-major, so row-major
// C = A B is computed as C^T = B^T A^T: cuBLASLt's "A" is our b, its "B" is our a, m = N,
// n = M. An operand qualifies when each matrix is row- or column-major (one unit stride, a
// leading dimension >= the other extent) and its batch dims collapse to one stride (or 0,
// broadcast). Anything else is copied first (CudaBackend::fit_lt_layout).
// Pure arithmetic: tested without a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace tensord::cuda {

// A column-major matrix as cuBLASLt stores it, before its op.
struct LtOperand {
  int64_t rows = 0, cols = 0, ld = 1;
  bool transpose = false;    // op(X) = X^T
  int64_t batch_stride = 0;  // elements; 0: the same matrix for every batch index
};

struct LtProblem {
  int64_t m = 0, n = 0, k = 0;  // cuBLASLt's: m = our N, n = our M
  int64_t batch = 1;
  LtOperand a, b, c;  // cuBLASLt's a (our b), b (our a), c (our out, transposed view)
};

// For out = matmul(a, b) (Array API: 1-D operands are promoted and the dim dropped; batch dims
// broadcast); `out` is contiguous. Returns nullopt and sets `why_not` when a layout does not fit.
std::optional<LtProblem> describe_lt_matmul(std::span<const int64_t> a_shape,
                                            std::span<const int64_t> a_strides,
                                            std::span<const int64_t> b_shape,
                                            std::span<const int64_t> b_strides,
                                            std::span<const int64_t> out_shape,
                                            std::string& why_not);

}  // namespace tensord::cuda
