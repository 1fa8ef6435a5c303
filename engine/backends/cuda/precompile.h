// Filling a CUDA kernel cache directory without a device: a build machine with NVRTC compiles
// the CUBINs a daemon (or a test run) on a GPU of the given architecture will ask for, so that
// the GPU host finds them on disk instead of spending 70-120 ms of NVRTC per kernel. The keys
// match because the same CudaKernelCache computes them from the same source text, architecture,
// NVRTC version and options (CudaKernelCache::identity); the sources come from the functions
// the families load them with. Used by tools/precompile (tensord-precompile) and by
// tests/conformance/precompile_cuda.cpp (the conformance table's loop-IR units).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/backends/cuda/cuda_kernel_cache.h"
#include "engine/codegen/loop_ir.h"

namespace tensord::cuda {

struct PrecompileUnit {
  PrecompileUnit(std::string family, std::string source,
                 std::optional<codegen::LoopKernel> kernel = std::nullopt)
      : family(std::move(family)), source(std::move(source)), kernel(std::move(kernel)) {}
  std::string family;  // for the report: "movement", "sort", "loop-ir", ...
  std::string source;
  // A loop-IR unit's kernel (source is loop_unit(*kernel).source): such units may compile
  // several to an NVRTC program (precompile_units' `batch`), each still under its own key.
  std::optional<codegen::LoopKernel> kernel;
};

// Every hand-written source of the op families (creation, movement, index, dynamic, reduce,
// scan, sort, dnn, fft, solver, integer matmul), one unit each, in that order. The loop-IR family's
// units depend on the graphs run (loop_ir_kernels, fused_unit) and are not in it.
std::vector<PrecompileUnit> family_kernel_units();

struct PrecompileResult {
  size_t compiled = 0;  // compiled now
  size_t cached = 0;    // on disk already
  size_t failed = 0;    // NVRTC rejected the source (errors holds the first few)
  size_t left = 0;      // not reached before the deadline
  double seconds = 0;
  std::vector<std::string> errors;
  std::vector<std::string> files;  // the CUBINs of the units compiled or cached, in unit order
};

// Compiles `units` in their order on `jobs` threads into `cache` (which must have a directory),
// starting no unit after `deadline_s` seconds (0: no deadline). Duplicate texts compile once.
// Runs of up to `batch` consecutive units that carry their kernel compile as one NVRTC program
// (CudaKernelCache::compile_together: a CUBIN stored under each member's key, as a device's
// CudaBackend::prepare stores them); a program NVRTC rejects is compiled again unit by unit, so
// that the error names its unit. Results count units either way.
PrecompileResult precompile_units(CudaKernelCache& cache, std::span<const PrecompileUnit> units,
                                  int jobs, double deadline_s = 0, size_t batch = 8);

// Writes <cache_dir>/precompiled.txt: the cache's identity on the first line, then the CUBINs
// `result` holds, relative to cache_dir (cuda/<key>.cubin), one a line. What to ship (gpu-pack
// packs exactly these), and what the GPU host compares its own identity with.
void write_manifest(const CudaKernelCache& cache, const std::string& cache_dir,
                    const PrecompileResult& result);

}  // namespace tensord::cuda
