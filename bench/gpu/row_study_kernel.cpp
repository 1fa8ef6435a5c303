// Prints the CUDA unit engine/codegen emits for a float32 softmax over the last axis (the
// fusion pass's group: m = max(x), e = exp(x - m), e / sum(e); the CUDA emitter tests' kernel),
// its entry points renamed td_generated_softmax (the loop kernel) and
// td_generated_softmax_registers (the row-register one), and td_generated_register_block(n),
// the host's block for the latter (0: not taken), for bench/gpu/row_study.cu's `gen` variants
// (scripts/gpu-pack).
#include <cstdio>
#include <string>
#include <vector>

#include "engine/codegen/emit_cuda.h"
#include "tests/unit/cuda/loop_kernels.h"

int main() {
  using tensord::codegen::Access;
  const tensord::codegen::CudaEmitter emitter;
  const tensord::codegen::LoopKernel softmax =
      tensord::codegen::test::softmax(tensord::ir::DType::Float32, 1, 1, Access::Contiguous);
  const std::vector<tensord::codegen::EmittedKernel> kernels = emitter.entry_points(softmax);
  std::string unit = emitter.unit(kernels);
  const char* names[] = {"td_generated_softmax", "td_generated_softmax_registers"};
  for (size_t k = 0; k < kernels.size() && k < 2; ++k) {
    for (size_t at = unit.find(kernels[k].name); at != std::string::npos;
         at = unit.find(kernels[k].name, at)) {
      unit.replace(at, kernels[k].name.size(), names[k]);
    }
  }
  std::fputs(unit.c_str(), stdout);
  std::printf("static unsigned td_generated_register_block(long long n) {\n");
  for (const long long n : {4096LL, 32768LL, 262144LL}) {
    std::printf("  if (n == %lld) return %u;\n", n,
                tensord::codegen::cuda_row_register_block(softmax, n));
  }
  std::printf("  return 0;\n}\n");
  return kernels.size() == 2 ? 0 : 1;
}
