// What the emulated families' unit tests share (movement_emulated_test.cpp,
// solver_emulated_test.cpp): a CPU backend for references and memory, and a CUDA context whose
// kernel cache and launches movement_emulation.cpp runs on the host.
#pragma once

#include <algorithm>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/backends/cuda/cuda_ops.h"

namespace tensord::cuda::test {

struct Harness {
  cpu::CpuBackend cpu{1};
  CudaKernelCache kernels{CudaKernelCacheOptions{}};
  FamilyStates states;
  CudaContext ctx{0,
                  90,
                  1,
                  nullptr,
                  kernels,
                  states,
                  engine::Float32MatmulPrecision::Highest,
                  [this](size_t bytes) { return cpu.allocate(bytes); },
                  true};  // launch_programmatic, run as a plain launch
};

// The dynamic shared memory a loop-IR kernel's last emulated launch used (what a block left
// there), or null for other kernels (movement_emulation.cpp).
const unsigned char* emulated_shared_memory(cudaKernel_t kernel);

// One per test binary (device memory is the CPU backend's).
inline Harness& h() {
  static Harness harness;
  return harness;
}

// A contiguous vector of `n` elements in the emulated device's memory (never a null buffer).
inline engine::TensorValue emulated_vector(ir::DType t, int64_t n) {
  ir::TensorType type{t, ir::Shape{n}};
  return engine::TensorValue::contiguous(h().cpu.allocate(std::max<size_t>(8, type.nbytes())),
                                         type);
}

}  // namespace tensord::cuda::test
