#include "engine/backends/cuda/device_discovery.h"

#include <cuda_runtime_api.h>

#include <cstdio>

#include "engine/backends/cuda/cuda_check.h"

namespace tensord::cuda {

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

CudaDiscovery discover_cuda_devices() {
  CudaDiscovery found;
  cudaRuntimeGetVersion(&found.runtime_version);
  cudaDriverGetVersion(&found.driver_version);  // 0 when libcuda.so is missing
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    found.why_none = status != cudaSuccess ? "cudaGetDeviceCount: " + error_text(status)
                                           : "cudaGetDeviceCount found no device";
    if (found.driver_version == 0) {
      found.why_none += "; no CUDA driver (libcuda.so) is loaded";
    } else if (found.driver_version < found.runtime_version) {
      found.why_none += "; the driver supports CUDA " + cuda_version_text(found.driver_version) +
                        ", older than this build's runtime " +
                        cuda_version_text(found.runtime_version);
    }
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return found;
  }
  std::string failures;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    status = cudaGetDeviceProperties(&prop, i);
    if (status != cudaSuccess) {
      failures += "device " + std::to_string(i) + ": " + error_text(status) + "; ";
      continue;
    }
    CudaDeviceProperties d;
    d.index = i;
    d.name = prop.name;
    d.total_memory = prop.totalGlobalMem;
    d.compute_major = prop.major;
    d.compute_minor = prop.minor;
    d.sm_count = prop.multiProcessorCount;
    found.devices.push_back(std::move(d));
  }
  if (found.devices.empty()) found.why_none = "no usable device: " + failures;
  return found;
}

std::string describe(const CudaDeviceProperties& d) {
  char memory[32];
  std::snprintf(memory, sizeof memory, "%.1f GiB", static_cast<double>(d.total_memory) / (1 << 30));
  return "CUDA " + std::to_string(d.index) + ": " + d.name + ", " + memory + ", compute " +
         std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor) + ", " +
         std::to_string(d.sm_count) + " SMs";
}

}  // namespace tensord::cuda
