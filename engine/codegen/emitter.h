// Code generators: loop IR in, source text out. One Emitter per target: the C++ one is here
// (emit_cpp*.cpp, its kernel writer in emit_cpp_writer.h), the CUDA C one for NVRTC in
// emit_cuda.h (emit_cuda*.cpp, its writer in emit_cuda_writer.h). Sources are
// deterministic (same kernel, same text, same hash), which the compiled-kernel cache relies on.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/codegen/loop_ir.h"

namespace tensord::codegen {

struct EmittedKernel {
  std::string name;    // the entry point: "td_" + 16 hex digits of `hash`
  std::string source;  // the kernel's definition, without the unit's shared prelude
  uint64_t hash = 0;   // of the kernel's text with its name left out
};

class Emitter {
 public:
  virtual ~Emitter() = default;
  virtual std::string_view target() const = 0;  // "cpp", later "cuda"
  virtual EmittedKernel emit(const LoopKernel& kernel) const = 0;
  // One translation unit: the target's prelude, then `kernels` in the order given.
  virtual std::string unit(std::span<const EmittedKernel> kernels) const = 0;
};

// Host C++ compiled with -O3 -march=native into a shared object. Each entry point is
//   extern "C" void NAME(const int64_t* sizes, const int64_t* strides, char* const* ptrs,
//                        const double* constants, int64_t begin, int64_t end)
// running the flat element range [begin, end) of a pointwise kernel, or the outer rows
// [begin, end) of a kernel with inner dimensions; callers split that range over threads.
// The source includes no header, so compiles take a fraction of a second.
class CppEmitter final : public Emitter {
 public:
  std::string_view target() const override { return "cpp"; }
  EmittedKernel emit(const LoopKernel& kernel) const override;
  std::string unit(std::span<const EmittedKernel> kernels) const override;
};

using CpuKernelFn = void (*)(const int64_t* sizes, const int64_t* strides, char* const* ptrs,
                             const double* constants, int64_t begin, int64_t end);

// 64-bit FNV-1a of text, the hash sources and cache keys use.
uint64_t text_hash(std::string_view text);
std::string hex64(uint64_t v);

}  // namespace tensord::codegen
