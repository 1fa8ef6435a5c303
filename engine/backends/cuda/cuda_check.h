// CUDA runtime and cuBLASLt status codes as tensord::Error.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <string>

namespace tensord::cuda {

// "cudaErrorNoDevice (no CUDA-capable device is detected)".
std::string error_text(cudaError_t status);

// Throws tensord::Error(Internal, or OutOfMemory for cudaErrorMemoryAllocation) naming `what`.
void check(cudaError_t status, const char* what);
void check(cublasStatus_t status, const char* what);

}  // namespace tensord::cuda
