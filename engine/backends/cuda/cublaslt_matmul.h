// matmul through cuBLASLt: float32 (with the session's precision: full, TF32 or bfloat16
// inputs), float16, bfloat16 and float64, batched and broadcast when the layout fits
// (matmul_layout.h). Not thread-safe: one per backend, called from its worker.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <string>
#include <unordered_map>

#include "engine/backends/cuda/lt_epilogue.h"
#include "engine/exec/matmul_precision.h"
#include "engine/exec/tensor_value.h"

namespace tensord::cuda {

class LtMatmul {
 public:
  LtMatmul();
  ~LtMatmul();
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;

  // Queues out = a @ b on `stream`, with `workspace` (device memory of `workspace_bytes` that
  // no other stream uses meanwhile: the caller keeps one per stream). Operands share out's
  // dtype. Throws Error(Unsupported) for another dtype or a layout that needs a copy first.
  void run(const engine::TensorValue& a, const engine::TensorValue& b,
           const engine::TensorValue& out, engine::Float32MatmulPrecision precision,
           cudaStream_t stream, void* workspace, size_t workspace_bytes);

  // Queues out = epilogue(a @ b) (lt_epilogue.h; `bias` a contiguous vector of out's last
  // extent and dtype, when the epilogue has one). Returns false, having queued nothing, when
  // cuBLASLt has no algorithm for it or the sum is empty (the caller runs the unfused pair).
  bool run_epilogue(const engine::TensorValue& a, const engine::TensorValue& b,
                    const engine::TensorValue& out, engine::Float32MatmulPrecision precision,
                    cudaStream_t stream, void* workspace, size_t workspace_bytes,
                    const LtEpilogue& epilogue, const void* bias);

 private:
  bool queue(const engine::TensorValue& a, const engine::TensorValue& b,
             const engine::TensorValue& out, engine::Float32MatmulPrecision precision,
             cudaStream_t stream, void* workspace, size_t workspace_bytes,
             const LtEpilogue* epilogue, const void* bias);

  // Of cuBLASLt's first kCandidates heuristic answers, the one measured fastest for each
  // problem (its dtype, compute type, sizes, layouts, epilogue), in memory for the backend's
  // life. Why: the first answer for the 8 x 256 x 256 float32 products of bench/fusion's
  // mlp_step_small was a split-K kernel over 264 blocks taking 32 us (Nsight Compute on the
  // H200, 2026-11-30, bench/results/2026-11-30-h200-second).
  static constexpr int kCandidates = 8;
  std::unordered_map<std::string, cublasLtMatmulAlgo_t> chosen_;
  cublasLtHandle_t handle_ = nullptr;
};

}  // namespace tensord::cuda
