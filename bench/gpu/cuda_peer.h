// What tensord-bench-gpu asks of CUDA directly (through cudart, not through tensord): whether a
// device is usable at all, and the cudaMemcpy device-to-device bandwidth its copy figure is
// compared with. Built without the toolkit, both say so.
#pragma once

#include <cstddef>
#include <string>

namespace tensord::bench {

struct CudaProbe {
  bool usable = false;
  std::string why_not;  // the cudaError, or "this build has no CUDA backend"
  std::string name;     // the first device's name, e.g. "NVIDIA H100 80GB HBM3"
};

CudaProbe probe_cuda();

// Median GB/s (bytes read + bytes written, as for a kernel) of cudaMemcpyAsync
// device-to-device of `bytes` on device 0, timed with CUDA events; throws std::runtime_error
// naming the failing CUDA call.
double memcpy_d2d_gbps(size_t bytes, int warmup, int repeats);

}  // namespace tensord::bench
