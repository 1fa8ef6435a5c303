// Elementwise ops, casts and sum/max/min reductions on CUDA: not wired yet.
#include "engine/backends/cuda/cuda_ops.h"

namespace tensord::cuda {

bool run_loop_ir(CudaContext&, const ir::Node&, Values, Values) {
  return false;
}

}  // namespace tensord::cuda
