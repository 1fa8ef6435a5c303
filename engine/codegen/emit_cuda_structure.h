// Pieces of the CUDA emitter's structure (emit_cuda_writer.h) shared by its files and by host code
// that has to agree with the generated kernels.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tensord::codegen {

// What every CUDA unit starts with, before cuda_math_prelude(): types, the parameter block,
// 16-bit float conversions, group reductions and td_group.
std::string_view cuda_structure_prelude();

// The prelude of a unit whose kernels' text is `kernels`: the structure prelude, then the math
// prelude (cuda_math_prelude) when the kernels name one of its td_ identifiers, and the complex
// one (which calls the math prelude) when they name one of its own. NVRTC parses every line it
// is given: the two are 30 KB, about a tenth of a small kernel's compile; a kernel naming
// neither has no use for them (their definitions are static, their macros #undef'd).
std::string cuda_unit_prelude(std::string_view kernels);

// Elements one thread takes per step of a pass (independent loads in flight): TD_U.
inline constexpr int kCudaLanes = 4;

// How many threads work on one outer row of a kernel with inner dimensions: 1..32 (a power of
// two; several rows per warp), or 0 for the whole block. `strided` says that the rows are read
// across the innermost stride and written nowhere, where neighbouring threads on neighbouring
// rows coalesce better. The device function td_group of the prelude computes the same; the
// kernels are correct for any answer, the launch configuration merely assumes this one.
int cuda_row_group(int64_t inner, int64_t rows, bool strided);

}  // namespace tensord::codegen
