// CUDA runtime and cuBLASLt status codes, and byte ranges of device buffers, as tensord::Error.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace tensord::cuda {

// "cudaErrorNoDevice (no CUDA-capable device is detected)".
std::string error_text(cudaError_t status);

// Throws tensord::Error(Internal, or OutOfMemory for cudaErrorMemoryAllocation) naming `what`.
void check(cudaError_t status, const char* what);
void check(cublasStatus_t status, const char* what);

// Throws Error(Internal) when [offset, offset + n) is not inside a buffer of `buffer_bytes`.
void check_range(size_t buffer_bytes, size_t offset, size_t n);

}  // namespace tensord::cuda
