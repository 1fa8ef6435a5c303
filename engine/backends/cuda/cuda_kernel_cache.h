// The CUDA half of the compiled-kernel cache: CUDA C source in, loaded kernels out. A source is
// compiled once by NVRTC to a CUBIN for the device's architecture, kept in memory (loaded into
// the device with cudaLibraryLoadData) and on disk under `dir`, keyed by the source's hash,
// the architecture, NVRTC's version and the compile options; a second daemon on the same
// directory loads what the first compiled. Disk entries are written under a temporary name
// and renamed into place, and carry a seal (size and hash): a torn or foreign file is
// ignored, counted as corrupt and rebuilt.
//
// Several units may be compiled as one NVRTC program (compile_together: NVRTC's fixed cost per
// program is about half of a small kernel's, docs/cuda.md "Batched compiles"). The CUBIN of
// such a program holds every member's kernels, and it is stored under each member's own key:
// in memory, and on disk as one sealed file (written under a private name) with a hard link
// under each member's name (a copy where the filesystem has no links). A member's entry is then a
// whole sealed CUBIN like any other, so lookups, the seal check, precompiled caches and a second
// daemon on the directory work as for a unit compiled alone; members that share a CUBIN share its
// loaded library.
//
// Sources include no toolkit header, so NVRTC needs nothing but itself, and every generated or
// hand-written kernel of the backend goes through this one cache.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/cache/kernel_cache.h"

namespace tensord::cuda {

struct CudaKernelCacheOptions {
  std::string dir;  // "" keeps compiled kernels in memory only
  int arch = 90;    // compute capability of the device, 90 for sm_90
  // 177: "declared but never referenced", for every prelude helper a kernel does not call:
  // formatting those warnings took a third of a small kernel's compile. -minimal: NVRTC leaves
  // out what no source here uses (texture and surface functions, the device runtime's cuda*
  // functions, launches from the device, the runtime API's types): about 5 ms of CPU a kernel
  // (bench/gpu --compile-only, docs/cuda.md).
  std::vector<std::string> options = {"-default-device", "-std=c++17", "--diag-suppress=177",
                                      "-minimal"};
};

class CudaKernelCache {
 public:
  explicit CudaKernelCache(CudaKernelCacheOptions options);
  ~CudaKernelCache();
  CudaKernelCache(const CudaKernelCache&) = delete;
  CudaKernelCache& operator=(const CudaKernelCache&) = delete;

  // The kernels `names` (extern "C" __global__ entry points) of `source`, in order, compiling
  // and loading the source if this process has not yet. Throws tensord::Error(Internal) with
  // NVRTC's log when it does not compile, and naming the entry point when one is missing.
  std::vector<cudaKernel_t> load(const std::string& source, std::span<const std::string> names);
  cudaKernel_t kernel(const std::string& source, const std::string& name);

  // Whether `source` is loaded already (explain: "cached").
  bool has(const std::string& source) const;

  // Compiles `source` into the disk cache without loading it, so that it needs no device:
  // tensord-precompile warms a cache directory on a build machine for a daemon that will run
  // with the same architecture, NVRTC version and options (the same key). Returns true when it
  // compiled, false when the CUBIN was in memory or on disk already. Thread-safe; compiles run
  // in parallel (NVRTC is reentrant). Throws as load() does when the source does not compile.
  bool precompile(const std::string& source);
  // Compiles `combined`, one CUDA C unit holding the kernels of every unit in `members`, as one
  // NVRTC program, and stores its CUBIN under each member's key (memory, and disk when the
  // cache has a directory), so that load(member, its names) finds it. No device needed;
  // thread-safe, compiles run in parallel. Counts one compile and a miss per member. Throws as
  // load() does when `combined` does not compile (nothing is stored then). The caller vouches
  // that `combined` defines every entry point of every member, with the same code.
  void compile_together(const std::string& combined, std::span<const std::string> members);
  // Whether `source`'s CUBIN is loaded, compiled in memory (compile_together) or on disk whole
  // (its size as its seal says; load() checks the hash): load() would not compile it. A torn
  // file on disk counts as corrupt, not held.
  bool holds(const std::string& source);
  // The CUBIN load() would take for `source` without compiling: "" when there is none.
  std::string stored_image(const std::string& source);
  // Where `source`'s CUBIN is (or would be) on disk; "" for a cache without a directory.
  std::string file_of(const std::string& source) const { return path_of(key_of(source)); }

  cache::KernelCacheStats stats() const;
  const CudaKernelCacheOptions& options() const { return options_; }
  // The part of every key that is not the source: "sm_90 nvrtc 13000 <options>".
  const std::string& identity() const { return identity_; }

 private:
  struct Library;
  Library& library_for(const std::string& source);
  // The cache key of `source`: its hash, and the hash of identity_ and the source.
  std::string key_of(const std::string& source) const;
  std::string path_of(const std::string& key) const;
  // The sealed CUBIN at `path`; "" when there is none, `corrupt` set when one is torn.
  static std::string read_image(const std::string& path, bool& corrupt);
  // NVRTC's CUBIN of `source`, written to `path` when that is not "" (no lock needed).
  std::string compile(const std::string& key, const std::string& source,
                      const std::string& path) const;
  // The library of `image` (loaded once per distinct image: batch-mates share it).
  Library& library_of(const std::string& key, const std::string& image);

  CudaKernelCacheOptions options_;
  std::string identity_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Library*> loaded_;    // key -> library
  std::unordered_map<std::string, Library*> by_image_;  // image hash -> library
  // key -> CUBIN compiled by compile_together and not loaded yet (a cache without a directory
  // keeps them nowhere else); shared by the members of one program.
  std::unordered_map<std::string, std::shared_ptr<const std::string>> images_;
  std::vector<Library*> libraries_;  // owned; unloaded with the cache
  cache::KernelCacheStats stats_;
};

// Launches `kernel` with one argument block per parameter (`args[i]` points at parameter i's
// bytes, as cudaLaunchKernel wants) and checks the launch; `what` names it in errors.
void launch(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared_bytes,
            cudaStream_t stream, const char* what);
// The same as a programmatic dependent launch (compute capability 9.0 and later): the kernel
// may start while the one before it on `stream` finishes, and must wait for it (the emitter's
// kernels do: TD_GRID_WAIT) before touching memory. In a stream capture it becomes a
// programmatic edge of the graph. What it saves is the gap between two short kernels.
void launch_programmatic(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                         size_t shared_bytes, cudaStream_t stream, const char* what);

}  // namespace tensord::cuda
