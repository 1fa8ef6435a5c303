// The kernel cache's two figures of issue 5, measured on the backend's own CudaKernelCache
// (not through the daemon, whose round trip would hide them):
//   nvrtc_compile_ms     cold: a plan's worth of generated kernels no cache holds, compiled
//                        the way CudaBackend::prepare compiles a new plan's (loop_ir_batch.h:
//                        several to an NVRTC program, programs on several threads), then each
//                        loaded by its own unit (load()); wall time per kernel
//   nvrtc_compile_single_ms  one unit alone, timed around load() (NVRTC compile, sealed write,
//                        cudaLibraryLoadData): what a kernel outside a plan costs; per kernel
//   kernel_cache_hit_us  warm from disk: a fresh cache object on the directory holding the
//                        CUBINs (as a restarted daemon), timed around load() (key, lookup, read,
//                        seal check, cudaLibraryLoadData); per kernel
// and, needing no device (this CPU-only machine measures them too): nvrtc_compile_only_ms, one
// fresh unit alone through precompile() (NVRTC and the write, no load), and
// nvrtc_compile_plan_only_ms, the plan's kernels batched as above without the loads; each also
// as CPU time (of the process: the batch's threads), steadier on a loaded machine.
//
// The units are real: the loop-IR family's unit of one elementwise node over float32 (neg, exp,
// add, ...: what a first eager run compiles), each made fresh by a salt comment at its end (the
// text is the cache key; a comment changes no code), so no cache, in memory or on disk, holds it.
// The plan's kernels are those twelve ops over float32 then float16, bfloat16 and float64 (24
// by default: distinct kernels, as an eager plan of 24 nodes has), made fresh by a new cache
// directory for each repeat. With a dtype (--dtype), the units and the plan are all of it, the
// plan's kernels 24 ops in turn (the twelve and twelve more): the 16-bit kernels' cost apart.
#pragma once

#include <string>
#include <vector>

namespace tensord::bench {

struct KernelCacheBenchOptions {
  int kernels = 12;       // timed units per figure (medians)
  int plan_kernels = 24;  // kernels of the plan-sized batch (at most 48; 24 with a dtype)
  // "" the mixed plan above; else a dtype name (float32, float16, bfloat16, float64): every
  // unit and plan kernel over it
  std::string dtype;
  // Not "": the plan's sources are written there (unit-<i>.cu: each kernel's own unit, its key;
  // program-<j>.cu: the NVRTC programs of the batch), to compile them by hand (nvrtc --time)
  std::string dump_dir;
  int plan_repeats = 3;  // batches timed (medians)
  // The batch's shape (loop_ir_batch.h BatchOptions): the backend's by default; --plan-batch 1
  // --plan-threads 1 compiles the plan as before batching (one program a kernel, one thread).
  int plan_threads = 0;
  int plan_min_batch = 4, plan_max_batch = 16;
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
  // Per repeat, per kernel: the plan's batch (compile_loop_kernels), wall and process CPU
  // time; on a device also the batch and every member's load(), wall.
  std::vector<double> plan_compile_s, plan_compile_cpu_s, plan_load_s;
  size_t plan_programs = 0;    // NVRTC programs of one batch
  int plan_threads = 0;        // threads they compiled on
  double first_compile_s = 0;  // the process's first NVRTC compile (untimed warm-up)
  size_t source_bytes = 0;     // mean text size of a unit
  std::string identity;        // the cache key's non-source part
};

// Whether this build has the CUDA backend (and so NVRTC).
bool have_nvrtc();

// `n` fresh units (source texts), different ops in turn over `dtype` (a name; "" float32);
// `salt` makes them unique. Throws std::runtime_error on a dtype that is none of the four.
std::vector<std::string> fresh_elementwise_units(int n, const std::string& salt,
                                                 const std::string& dtype = "");

// The most plan kernels options allow: 48 for the mixed plan, 24 with a dtype.
int max_plan_kernels(const std::string& dtype);

// Throws std::runtime_error (or tensord::Error) when a unit does not compile or CUDA fails;
// without the CUDA backend in the build, std::runtime_error saying so.
KernelCacheFigures measure_kernel_cache(const KernelCacheBenchOptions& options);

// Splits "-a -b  -c" at blanks into options (--nvrtc-options).
std::vector<std::string> split_options(const std::string& text);

}  // namespace tensord::bench
