// What bench/gpu's studies (*_study.cu, built with nvcc by scripts/gpu-pack) share: a CUDA
// call's check and the timing of back-to-back calls, as bench/gpu times the daemon.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

// Exits with the call's text and CUDA's message when `x` returns an error.
#define CHECK_CUDA(x) ::study::check_cuda((x), #x, __FILE__, __LINE__)

namespace study {

inline void check_cuda(cudaError_t status, const char* what, const char* file, int line) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "%s:%d: %s: %s\n", file, line, what, cudaGetErrorString(status));
  std::exit(1);
}

// Milliseconds per call: the median over `samples` of `calls` back-to-back calls, timed with
// CUDA events on the default stream after three untimed calls.
inline double ms_per_call(const std::function<void()>& call, int samples, int calls) {
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) call();
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int s = 0; s < samples; ++s) {
    CHECK_CUDA(cudaEventRecord(a));
    for (int i = 0; i < calls; ++i) call();
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    CHECK_CUDA(cudaGetLastError());
    float t = 0;
    CHECK_CUDA(cudaEventElapsedTime(&t, a, b));
    ms.push_back(static_cast<double>(t) / calls);
  }
  CHECK_CUDA(cudaEventDestroy(a));
  CHECK_CUDA(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace study
