#include "engine/backends/cuda/cuda_check.h"

#include "engine/ir/error.h"

namespace tensord::cuda {

std::string error_text(cudaError_t status) {
  return std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")";
}

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  const ErrorCode code =
      status == cudaErrorMemoryAllocation ? ErrorCode::OutOfMemory : ErrorCode::Internal;
  throw Error(code, std::string(what) + " failed: " + error_text(status));
}

void check(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const ErrorCode code = status == CUBLAS_STATUS_NOT_SUPPORTED  ? ErrorCode::Unsupported
                         : status == CUBLAS_STATUS_ALLOC_FAILED ? ErrorCode::OutOfMemory
                                                                : ErrorCode::Internal;
  // cublasGetStatusName lives in libcublas, which this backend does not otherwise need.
  throw Error(code, std::string(what) + " failed: cublasStatus_t " +
                        std::to_string(static_cast<int>(status)));
}

void check_range(size_t buffer_bytes, size_t offset, size_t n) {
  if (offset > buffer_bytes || n > buffer_bytes - offset) {
    throw Error(ErrorCode::Internal, "byte range [" + std::to_string(offset) + ", " +
                                         std::to_string(offset) + " + " + std::to_string(n) +
                                         ") is outside a buffer of " +
                                         std::to_string(buffer_bytes) + " bytes");
  }
}

}  // namespace tensord::cuda
