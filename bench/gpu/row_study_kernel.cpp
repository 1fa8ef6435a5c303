// Prints the CUDA unit engine/codegen emits for a float32 softmax over the last axis (the
// fusion pass's group: m = max(x), e = exp(x - m), e / sum(e); the CUDA emitter tests' kernel),
// its kernel renamed td_generated_softmax, for bench/gpu/row_study.cu's `gen` variants
// (scripts/gpu-pack).
#include <cstdio>
#include <string>
#include <vector>

#include "engine/codegen/emit_cuda.h"
#include "tests/unit/cuda/loop_kernels.h"

int main() {
  using tensord::codegen::Access;
  const tensord::codegen::CudaEmitter emitter;
  const std::vector<tensord::codegen::EmittedKernel> kernels{emitter.emit(
      tensord::codegen::test::softmax(tensord::ir::DType::Float32, 1, 1, Access::Contiguous))};
  std::string unit = emitter.unit(kernels);
  for (size_t at = unit.find(kernels[0].name); at != std::string::npos;
       at = unit.find(kernels[0].name, at)) {
    unit.replace(at, kernels[0].name.size(), "td_generated_softmax");
  }
  std::fputs(unit.c_str(), stdout);
  return 0;
}
