// How a session's graphs are compiled, mirroring torch.compile's modes.
//   eager            no fusion: every primitive runs its own kernel (the baseline)
//   default          fuse into generated kernels (engine/plan/fusion.h)
//   reduce-overhead  default, plus capturing repeated plans into CUDA graphs on a GPU; on the
//                    CPU there is nothing to capture, so it plans exactly as default
//   max-autotune     default, plus timing launch configurations of each new fused kernel on
//                    its first run per shape class and keeping the winner: on the CPU the
//                    thread count (engine/backends/cpu/launch_tuning.h, kept in the kernel
//                    cache's directory); on CUDA the block size and grid of generated kernels
//                    (engine/backends/cuda/launch_tuning.h, tune/cuda-*.txt)
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tensord::engine {

enum class CompileMode : uint8_t { Eager, Default, ReduceOverhead, MaxAutotune };

std::string_view name(CompileMode mode);
std::optional<CompileMode> compile_mode_from_name(std::string_view name);

}  // namespace tensord::engine
