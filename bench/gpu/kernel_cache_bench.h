// The kernel cache's two figures of issue 5, measured on the backend's own CudaKernelCache
// (not through the daemon, whose round trip would hide them):
//   nvrtc_compile_ms     cold: a generated unit no cache holds, timed around load() (NVRTC
//                        compile, sealed write to disk, cudaLibraryLoadData); per kernel
//   kernel_cache_hit_us  warm from disk: a fresh cache object on the directory holding the
//                        CUBINs (as a restarted daemon), timed around load() (key, lookup, read,
//                        seal check, cudaLibraryLoadData); per kernel
// and, needing no device, nvrtc_compile_only_ms: the same fresh units through precompile()
// (NVRTC and the write, no load), which this CPU-only machine can measure too.
//
// The units are real: the loop-IR family's unit of one elementwise node over float32 (neg, exp,
// add, ...: what a first eager run compiles), each made fresh by a salt comment at its end (the
// text is the cache key; a comment changes no code), so no cache, in memory or on disk, holds it.
#pragma once

#include <string>
#include <vector>

namespace tensord::bench {

struct KernelCacheBenchOptions {
  int kernels = 12;    // timed units per figure (medians)
  int arch = 90;       // the device's compute capability; 90 without one
  bool device = true;  // false: compile only (nvrtc_compile_only_ms), no CUDA device touched
  std::string dir;     // cache directory; "" a fresh one under $TMPDIR, removed afterwards
  // NVRTC options instead of CudaKernelCacheOptions' defaults (experiments: another identity)
  std::vector<std::string> nvrtc_options;
  bool use_default_options = true;
};

struct KernelCacheFigures {
  std::vector<double> compile_only_s;      // precompile(): NVRTC and the sealed write
  std::vector<double> compile_only_cpu_s;  // the same, CPU time of the compiling thread (NVRTC
                                           // runs on it): steadier on a loaded machine
  std::vector<double> cold_load_s;         // load() of a fresh unit: compile, write, load (device)
  std::vector<double> disk_hit_s;  // load() on a fresh cache over the same directory (device)
  double first_compile_s = 0;      // the process's first NVRTC compile (untimed warm-up)
  size_t source_bytes = 0;         // mean text size of a unit
  std::string identity;            // the cache key's non-source part
};

// Whether this build has the CUDA backend (and so NVRTC).
bool have_nvrtc();

// `n` fresh units (source texts), different ops in turn; `salt` makes them unique.
std::vector<std::string> fresh_elementwise_units(int n, const std::string& salt);

// Throws std::runtime_error (or tensord::Error) when a unit does not compile or CUDA fails;
// without the CUDA backend in the build, std::runtime_error saying so.
KernelCacheFigures measure_kernel_cache(const KernelCacheBenchOptions& options);

// Splits "-a -b  -c" at blanks into options (--nvrtc-options).
std::vector<std::string> split_options(const std::string& text);

}  // namespace tensord::bench
