// The CUDA kernels of: full, arange, eye, rand, randn. Not written yet: every op of this family is
// Unsupported on CUDA (CudaBackend::run reports it by name).
#include "engine/backends/cuda/cuda_ops.h"

namespace tensord::cuda {

bool run_creation(CudaContext&, const ir::Node&, Values, Values) {
  return false;
}

}  // namespace tensord::cuda
