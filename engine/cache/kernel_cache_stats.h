// What a compiled-kernel cache did so far: a value type, apart from the caches themselves so that
// the engine's Backend interface can report a device's own cache without linking one.
#pragma once

#include <cstdint>

namespace tensord::cache {

struct KernelCacheStats {
  uint64_t memory_hits = 0;  // kernels found already loaded
  uint64_t disk_hits = 0;    // kernels loaded from a file another run (or daemon) compiled
  uint64_t misses = 0;       // kernels compiled
  uint64_t compiles = 0;     // compiler runs (each compiles every missing kernel of a plan)
  uint64_t compile_ns = 0;   // wall time spent in the compiler
  uint64_t corrupt = 0;      // disk entries that did not load and were rebuilt
};

}  // namespace tensord::cache
