// Which CUDA devices this process can use, and why none when none: what `--device auto`
// decides on and logs. Free of CUDA headers so that the server can include it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tensord::cuda {

struct CudaDeviceProperties {
  int index = 0;
  std::string name;
  uint64_t total_memory = 0;  // bytes
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
};

struct CudaDiscovery {
  std::vector<CudaDeviceProperties> devices;
  // Empty when devices were found; otherwise why not, with the CUDA error it got, e.g.
  // "cudaGetDeviceCount: cudaErrorInsufficientDriver (...); driver supports CUDA 12.4, the
  // runtime is 13.0".
  std::string why_none;
  int runtime_version = 0;  // 13000 for CUDA 13.0
  int driver_version = 0;   // 0: no driver (libcuda.so) found
};

CudaDiscovery discover_cuda_devices();

// "CUDA 0: NVIDIA H100 80GB HBM3, 79.1 GiB, compute 9.0, 132 SMs".
std::string describe(const CudaDeviceProperties& device);
// "13.0"
std::string cuda_version_text(int version);

}  // namespace tensord::cuda
