// The CUDA C sources of the reduce, scan and sort families, one per element dtype (plus one
// dtype-free sorting network), with the entry points each holds: the families load them through
// CudaKernelCache, and tests/unit/cuda/sort_sources_test.cpp compiles every one of them.
#pragma once

#include <string>
#include <vector>

#include "engine/ir/dtype.h"

namespace tensord::cuda {

// prod (all dtypes but complex: prod_thread, prod_block, prod_finish; complex the same three),
// argmax/argmin (real dtypes: arg_thread, arg_block, arg_finish). reduce_kernels.cpp.
const std::string& reduce_source(ir::DType in);
std::vector<std::string> reduce_kernel_names(ir::DType in);

// cumsum/cumprod (cum_thread, cum_block), logcumsumexp (lcse_thread, lcse_block), cummax/cummin
// (cmx_thread, cmx_block), for every real dtype. scan_kernels.cpp.
const std::string& scan_source(ir::DType in);
std::vector<std::string> scan_kernel_names(ir::DType in);

// The bitonic network over (key, index) pairs: sort_chunks, sort_step, sort_merge.
const std::string& sort_network_source();
std::vector<std::string> sort_network_kernel_names();
// Per dtype: sort_load (keys), sort_gather (sort/argsort/topk/kthvalue), sort_select (medians,
// mode), sort_quantile (floats). sort_kernels.cpp.
const std::string& sort_source(ir::DType in);
std::vector<std::string> sort_kernel_names(ir::DType in);

// Every dtype a source exists for (the real ones and complex64/complex128 for reduce).
std::vector<ir::DType> sort_family_dtypes();

}  // namespace tensord::cuda
