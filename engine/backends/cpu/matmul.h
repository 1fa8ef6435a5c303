// matmul: Array API shapes reduced to a batch of strided (M, K) x (K, N) products, run by
// oneDNN for float32/bfloat16/float16 and by our own blocked loops for float64 and integers.
#pragma once

#include <cstdint>
#include <memory>

#include <span>
#include <string>

#include "engine/backends/cpu/kernels.h"
#include "engine/plan/epilogue.h"

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

// Our own kernels: integers (wrapping), float64 operands OpenBLAS cannot take, and every other
// dtype for completeness.
void matmul_reference(const KernelContext& ctx, const MatmulProblem& p);

// float64, complex64 and complex128 through OpenBLAS's dgemm, cgemm and zgemm (matmul_blas.cpp),
// A and/or B read conjugated for complex; false when the operands are not plain.
bool matmul_blas(const KernelContext& ctx, const MatmulProblem& p, bool conj_a = false,
                 bool conj_b = false);

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

  // out = epilogue(a @ b) as one oneDNN primitive with post-ops; `in` holds a, b, then the
  // tensors the epilogue adds (engine::Backend::run_matmul_epilogue). Returns false, having
  // written nothing, when oneDNN cannot (not float32, operands or added tensors in layouts it
  // does not take, an empty sum, a refused post-op): the caller runs the unfused pair.
  bool run_epilogue(const KernelContext& ctx, std::span<const TensorValue> in,
                    const TensorValue& out, const engine::MatmulEpilogue& epilogue);

  // What decides the speed of that product, for measured decisions' keys: dtype, batch,
  // m, k, n, the operands' orders, the epilogue and the thread count.
  static std::string epilogue_problem(const KernelContext& ctx, std::span<const TensorValue> in,
                                      const TensorValue& out,
                                      const engine::MatmulEpilogue& epilogue);

 private:
  void run_dnnl_or_float32(const KernelContext& ctx, const TensorValue& a, const TensorValue& b,
                           const TensorValue& out);

  std::unique_ptr<DnnlMatmul> dnnl_;
};

}  // namespace tensord::cpu
