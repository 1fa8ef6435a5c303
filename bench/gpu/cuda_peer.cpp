#include "bench/gpu/cuda_peer.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "bench/common/figure.h"

#if TENSORD_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace tensord::bench {

#if TENSORD_WITH_CUDA
namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(status) + " (" +
                             cudaGetErrorString(status) + ")");
  }
}

// Frees what the peer measurement took, also when a CUDA call in the middle fails.
struct PeerResources {
  void* src = nullptr;
  void* dst = nullptr;
  void* host = nullptr;  // pinned
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  ~PeerResources() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (stream) cudaStreamDestroy(stream);
    if (src) cudaFree(src);
    if (dst) cudaFree(dst);
    if (host) cudaFreeHost(host);
  }
};

}  // namespace

CudaProbe probe_cuda() {
  CudaProbe p;
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    p.why_not = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
    cudaGetLastError();  // reset the last-error state: later CUDA calls start clean
    return p;
  }
  if (count == 0) {
    p.why_not = "no CUDA device is visible";
    return p;
  }
  cudaDeviceProp prop{};
  status = cudaGetDeviceProperties(&prop, 0);
  if (status != cudaSuccess) {
    p.why_not = std::string("cudaGetDeviceProperties: ") + cudaGetErrorName(status);
    return p;
  }
  p.usable = true;
  p.name = prop.name;
  p.arch = prop.major * 10 + prop.minor;
  return p;
}

double memcpy_d2d_gbps(size_t bytes, int warmup, int repeats, int calls) {
  calls = std::max(1, calls);
  check(cudaSetDevice(0), "cudaSetDevice");
  PeerResources r;
  check(cudaMalloc(&r.src, bytes), "cudaMalloc");
  check(cudaMalloc(&r.dst, bytes), "cudaMalloc");
  check(cudaMemset(r.src, 1, bytes), "cudaMemset");
  check(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaEventCreate(&r.start), "cudaEventCreate");
  check(cudaEventCreate(&r.stop), "cudaEventCreate");
  for (int i = 0; i < warmup; ++i) {
    check(cudaMemcpyAsync(r.dst, r.src, bytes, cudaMemcpyDeviceToDevice, r.stream),
          "cudaMemcpyAsync");
  }
  check(cudaStreamSynchronize(r.stream), "cudaStreamSynchronize");
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    check(cudaEventRecord(r.start, r.stream), "cudaEventRecord");
    for (int c = 0; c < calls; ++c) {
      check(cudaMemcpyAsync(r.dst, r.src, bytes, cudaMemcpyDeviceToDevice, r.stream),
            "cudaMemcpyAsync");
    }
    check(cudaEventRecord(r.stop, r.stream), "cudaEventRecord");
    check(cudaEventSynchronize(r.stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, r.start, r.stop), "cudaEventElapsedTime");
    seconds.push_back(ms * 1e-3 / calls);
  }
  return 2.0 * static_cast<double>(bytes) / median(seconds) / 1e9;
}

double memcpy_pinned_gbps(size_t bytes, bool to_device, int warmup, int repeats) {
  check(cudaSetDevice(0), "cudaSetDevice");
  PeerResources r;
  check(cudaMalloc(&r.dst, bytes), "cudaMalloc");
  check(cudaHostAlloc(&r.host, bytes, cudaHostAllocDefault), "cudaHostAlloc");
  std::memset(r.host, 1, bytes);
  check(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaEventCreate(&r.start), "cudaEventCreate");
  check(cudaEventCreate(&r.stop), "cudaEventCreate");
  auto copy = [&] {
    check(to_device ? cudaMemcpyAsync(r.dst, r.host, bytes, cudaMemcpyHostToDevice, r.stream)
                    : cudaMemcpyAsync(r.host, r.dst, bytes, cudaMemcpyDeviceToHost, r.stream),
          "cudaMemcpyAsync");
  };
  for (int i = 0; i < warmup; ++i) copy();
  check(cudaStreamSynchronize(r.stream), "cudaStreamSynchronize");
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    check(cudaEventRecord(r.start, r.stream), "cudaEventRecord");
    copy();
    check(cudaEventRecord(r.stop, r.stream), "cudaEventRecord");
    check(cudaEventSynchronize(r.stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, r.start, r.stop), "cudaEventElapsedTime");
    seconds.push_back(ms * 1e-3);
  }
  return static_cast<double>(bytes) / median(seconds) / 1e9;
}

#else

CudaProbe probe_cuda() {
  CudaProbe p;
  p.why_not =
      "this build has no CUDA backend (the CUDA toolkit was not found, or TENSORD_CUDA=OFF)";
  return p;
}

double memcpy_d2d_gbps(size_t, int, int, int) {
  throw std::runtime_error("this build has no CUDA backend");
}

double memcpy_pinned_gbps(size_t, bool, int, int) {
  throw std::runtime_error("this build has no CUDA backend");
}

#endif

}  // namespace tensord::bench
