// The compiled-kernel cache: generated sources in, entry points out. Kernels are looked up in
// memory by name (their source hash), then on disk by the key of the translation unit that
// holds them, and compiled only when neither has them. One cache serves every engine of a
// daemon (it is thread-safe); a second daemon on the same directory loads what the first
// compiled. The compiler runs without the cache's lock, so a compile in the background never
// stalls another thread's lookups. Disk entries are written under a temporary name and renamed
// into place, so a reader sees a whole file or none; a file that does not load (truncated,
// corrupt, from another machine) is ignored and rebuilt.
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/cache/kernel_cache_stats.h"
#include "engine/codegen/emitter.h"

namespace tensord::cache {

// -O3 -march=native -fno-math-errno -shared -fPIC; a sanitizer build adds its sanitizer flags.
std::vector<std::string> default_compiler_flags();

// Flags the compiler gets after `flags` when it accepts them (probed once): GCC's copy width as
// wide as this CPU's vector registers. Tuned for AMD Zen, GCC 12 copies a generated kernel's
// stack blocks 16 bytes at a time, and the 32-byte loads that read them back then wait on store
// forwarding (a 4096 x 4096 softmax ran 42% slower). Clang has no such flags and needs none.
std::vector<std::string> default_tuning_flags();

struct CompilerOptions {
  std::string command = "c++";  // a path, or a name looked up on PATH
  std::vector<std::string> flags = default_compiler_flags();
  std::vector<std::string> tuning = default_tuning_flags();
  std::vector<std::string> libs = {"-lmvec", "-lm"};
};

struct KernelCacheOptions {
  std::string dir;  // "" keeps compiled objects in memory only (a private temporary directory)
  CompilerOptions compiler;
};

// The default directory: $XDG_CACHE_HOME/tensord, else $HOME/.cache/tensord ("" if neither).
std::string default_cache_dir();

class KernelCache {
 public:
  explicit KernelCache(KernelCacheOptions options);
  ~KernelCache();
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  // The entry point of each kernel, in order. Throws tensord::Error(Internal) with the
  // compiler's message when the unit does not compile; `failed_source` then holds it.
  std::vector<void*> load(const codegen::Emitter& emitter,
                          std::span<const codegen::EmittedKernel> kernels,
                          std::string* failed_source = nullptr);

  // Whether every kernel is loaded already (explain: "cached"), without compiling.
  bool has(std::span<const codegen::EmittedKernel> kernels) const;

  KernelCacheStats stats() const;
  const KernelCacheOptions& options() const { return options_; }
  const std::string& dir() const { return dir_; }
  // Whether dir() is a temporary directory of this cache's own (no --cache-dir): removed with it.
  bool private_dir() const { return private_dir_; }
  // What besides the source decides an entry: compiler, its version, flags and target CPU.
  const std::string& identity();
  // The flags a compile passes: options().compiler.flags and the tuning flags it accepts.
  const std::vector<std::string>& flags();
  // Whether the compiler runs at all (`--version` succeeds); without it nothing compiles.
  // Runs `--version` only (the daemon asks at startup); identity() also probes the flags.
  bool compiler_available();

 private:
  struct CompileResult {
    std::string object;  // the compiled shared object's temporary path; "" on failure
    std::string error;   // why not, when it failed
    uint64_t ns = 0;     // wall time in the compiler
  };

  void* open(const std::string& path, std::span<const codegen::EmittedKernel> kernels,
             std::vector<void*>& fns);
  CompileResult compile(const std::string& source, const std::string& key) const;
  // The loaded entry point of each kernel; the caller holds mutex_.
  std::vector<void*> entry_points(std::span<const codegen::EmittedKernel> kernels) const;

  KernelCacheOptions options_;
  std::string dir_;
  bool private_dir_ = false;
  // The compiler's `--version` line ("unavailable" when it does not run), run once.
  std::string version();

  std::string version_;
  std::string identity_;
  std::vector<std::string> flags_;  // set with identity_
  mutable std::mutex mutex_;
  std::unordered_map<std::string, void*> loaded_;  // kernel name -> entry point
  std::vector<void*> handles_;                     // dlopen handles, closed with the cache
  KernelCacheStats stats_;
};

}  // namespace tensord::cache
