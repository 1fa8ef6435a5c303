// matmul: Array API shapes reduced to a batch of strided (M, K) x (K, N) products, run by
// oneDNN for float32/bfloat16/float16 and by our own blocked loops for float64 and integers.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/backends/cpu/kernels.h"

namespace tensord::cpu {

// One operand of a batched product: a rows x cols matrix per batch index.
struct MatrixOperand {
  char* data = nullptr;
  int64_t rows = 0, cols = 0;
  int64_t row_stride = 0, col_stride = 0;    // elements
  int64_t batch_strides[ir::kMaxRank] = {};  // elements; 0 where the operand broadcasts
};

// c[batch..., m, n] = sum_k a[batch..., m, k] * b[batch..., k, n], all of `dtype`.
struct MatmulProblem {
  ir::DType dtype = ir::DType::Float32;
  int batch_rank = 0;  // after dropping size-1 dims and merging what merges
  int64_t batch[ir::kMaxRank] = {};
  int64_t m = 0, k = 0, n = 0;
  MatrixOperand a, b, c;

  int64_t batch_count() const;
};

// Describes out = matmul(a, b) for operands already of out's dtype; out is contiguous.
MatmulProblem describe_matmul(const TensorValue& a, const TensorValue& b, const TensorValue& out);

// Our own kernels: float64 and integers (wrapping), and every other dtype for completeness.
void matmul_reference(const KernelContext& ctx, const MatmulProblem& p);

class DnnlMatmul;

// The backend's matmul: owns the oneDNN engine, stream and primitive cache. Not thread-safe
// (the engine calls a backend from one worker thread).
class Matmul {
 public:
  Matmul();
  ~Matmul();
  Matmul(const Matmul&) = delete;
  Matmul& operator=(const Matmul&) = delete;

  void run(const KernelContext& ctx, const TensorValue& a, const TensorValue& b,
           const TensorValue& out);

 private:
  void run_dnnl_or_float32(const KernelContext& ctx, const TensorValue& a, const TensorValue& b,
                           const TensorValue& out);

  std::unique_ptr<DnnlMatmul> dnnl_;
};

}  // namespace tensord::cpu
