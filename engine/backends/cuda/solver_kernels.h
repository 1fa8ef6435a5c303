// The small CUDA C kernels around the cuSOLVER calls of solver_family.cpp (identity matrices,
// determinants from LU factors, pseudo-inverses and ranks from singular values, a batched
// product and the residuals for lstsq) and the distance kernels (cdist, pdist). One source
// text, float and double entry points ("<kernel>_float32", "<kernel>_float64"), compiled once
// per device.
#pragma once

#include <string>
#include <vector>

#include "engine/backends/cuda/cuda_context.h"
#include "engine/ir/dtype.h"

namespace tensord::cuda {

const std::string& solver_kernels_source();
// Every entry point of the source (the unit test checks each is in the CUBIN).
std::vector<std::string> solver_kernel_names();

// The kernel `base` + "_" + dtype name (float32 or float64) of the source, loaded.
cudaKernel_t solver_kernel(CudaContext& ctx, const std::string& base, ir::DType t);

}  // namespace tensord::cuda
