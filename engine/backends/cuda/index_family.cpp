// The CUDA kernels of: index_select, gather, scatter, scatter_add. Not written yet: every op of
// this family is Unsupported on CUDA (CudaBackend::run reports it by name).
#include "engine/backends/cuda/cuda_ops.h"

namespace tensord::cuda {

bool run_index(CudaContext&, const ir::Node&, Values, Values) {
  return false;
}

}  // namespace tensord::cuda
