// What tensord-bench-gpu asks of CUDA directly (through cudart, not through tensord): whether a
// device is usable at all, and the cudaMemcpy bandwidths its copy and transfer figures are
// compared with. Built without the toolkit, both say so.
#pragma once

#include <cstddef>
#include <string>

namespace tensord::bench {

struct CudaProbe {
  bool usable = false;
  std::string why_not;  // the cudaError, or "this build has no CUDA backend"
  std::string name;     // the first device's name, e.g. "NVIDIA H100 80GB HBM3"
  int arch = 0;         // its compute capability, major * 10 + minor: 90 for sm_90
};

CudaProbe probe_cuda();

// Median GB/s (bytes read + bytes written, as for a kernel) of cudaMemcpyAsync
// device-to-device of `bytes` on device 0: CUDA events around `calls` copies queued back to
// back (as many as the figure it is the peer of makes), the time divided by `calls`; throws
// std::runtime_error naming the failing CUDA call.
double memcpy_d2d_gbps(size_t bytes, int warmup, int repeats, int calls);

// Median GB/s of one cudaMemcpyAsync of `bytes` between pinned host memory (cudaHostAlloc) and
// device 0, host to device or device to host, timed with CUDA events: the bus's speed, the
// peer of the daemon's staged uploads and downloads. Throws as memcpy_d2d_gbps.
double memcpy_pinned_gbps(size_t bytes, bool to_device, int warmup, int repeats);

}  // namespace tensord::bench
