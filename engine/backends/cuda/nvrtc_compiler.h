// CUDA C source -> PTX or CUBIN with NVRTC, at run time. Compiling needs no GPU (only loading
// the result does, through the driver API: not written yet), so this part is tested anywhere
// the toolkit is. The kernel generator (CUDA C from the fusion branch's loop IR, or from one
// description per op) and the kernel cache (keyed by source hash, arch, nvrtc_version() and
// options) are to be built on it: docs/cuda.md.
#pragma once

#include <string>
#include <vector>

namespace tensord::cuda {

struct NvrtcOutput {
  std::string image;  // PTX text, or CUBIN bytes
  std::string log;    // the compiler's messages (warnings), may be empty
};

struct NvrtcRequest {
  std::string source;
  std::string name = "kernel.cu";    // appears in messages
  int arch = 90;                     // compute capability, e.g. 90 for sm_90 (Hopper)
  bool cubin = false;                // false: PTX for compute_<arch>; true: CUBIN for sm_<arch>
  std::vector<std::string> options;  // extra nvrtc options, e.g. "-default-device"
};

// Throws tensord::Error(Internal) with the compile log when the source does not compile.
NvrtcOutput nvrtc_compile(const NvrtcRequest& request);

// NVRTC's version as major * 1000 + minor * 10 (13000 for 13.0): part of a kernel cache key.
int nvrtc_version();

}  // namespace tensord::cuda
