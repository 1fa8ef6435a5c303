// What the reduce, scan and sort families share: the geometry of "lines" (a strided input seen
// as `lines` independent sequences of `n` elements), its host twin of the device struct, and
// the CUDA C prelude every source of these families starts with (integer and 16-bit float
// types, conversions, offsets). Sources include no toolkit header: NVRTC gets no include path.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "engine/backends/cuda/cuda_context.h"
#include "engine/exec/tensor_value.h"
#include "engine/ir/dtype.h"
#include "engine/ir/op.h"

namespace tensord::cuda {

// Dims of one group in row-major order (the last varies fastest), size-1 dims dropped and
// adjacent dims merged where the strides allow. Mirrors `struct Group` of sort_prelude().
struct LineGroup {
  int32_t rank = 0;
  int32_t pad = 0;
  int64_t size[16] = {};
  int64_t stride[16] = {};  // input elements

  // Appends a dim inside the ones already there.
  void push_inner(int64_t n, int64_t s);
  int64_t count() const;
};

// Element k of line `line` is input element offset + batch(line) + line(k); output element k
// of a line is (line / inner) * m * inner + k * inner + line % inner (the contiguous layout of
// an output whose axis of length m sits at the input axis's place). Mirrors `struct LineGeo`.
struct LineGeo {
  int64_t offset = 0;
  int64_t lines = 1;
  int64_t n = 1;
  int64_t inner = 1;
  int64_t m = 1;
  LineGroup batch, line;
};
static_assert(sizeof(LineGroup) == 264 && sizeof(LineGeo) == 568);

// Lines along `axis` of `x` (batch: the other dims in order; inner: the dims after axis).
LineGeo lines_along(const engine::TensorValue& x, int64_t axis);
// Lines whose elements are the dims marked in `reduced` (row-major), batch the others.
LineGeo lines_over(const engine::TensorValue& x, const bool* reduced);

// CUDA C: types (i64, u64, f16, bf16, c64, c128), LineGroup/LineGeo, in_at/out_at, 16-bit
// float conversions with the CPU's rounding (round to nearest even).
const std::string& sort_prelude();

// CUDA C for one element dtype: typedef In (storage), Cmp (the type values compare and
// accumulate in: float for 16-bit floats, i64 for integers and bool), to_cmp, from_cmp, and
// IS_FLOAT / IS_COMPLEX. Unsupported error for a dtype without a storage type.
std::string dtype_prelude(ir::DType t);

// Loads entry point `name` of `source` through the context's kernel cache and launches it on
// the context's stream (args as cudaLaunchKernel wants them: one pointer per parameter).
void launch_named(CudaContext& ctx, const std::string& source, const char* name, dim3 grid,
                  dim3 block, void** args);

// Test seam: while set, launch_named hands (source, name, grid, block, args) to the hook instead
// of loading and launching (tests/unit/cuda/sort_emulation_families_test.cpp runs the kernels
// on the CPU through it). Not for production use; not thread-safe.
using LaunchHook = std::function<void(const std::string& source, const char* name, dim3 grid,
                                      dim3 block, void** args)>;
void set_launch_hook_for_tests(LaunchHook hook);

// Error(Unsupported): "the CUDA backend has no <op> kernel for <dtype>".
[[noreturn]] void throw_unsupported_on_cuda(ir::Op op, ir::DType dtype);

// At most `cap` blocks (kernels loop over the rest), at least one.
dim3 blocks_for(int64_t units, int64_t cap);

// Smallest power of two >= n (1 for n <= 1).
int64_t next_pow2(int64_t n);

// Sorts every line of `total` = lines * P pairs (keys u64, idx int64; P a power of two) ascending
// by (key, index) with the bitonic network of sort_kernels.cpp. The sort family and unique
// (dynamic_family.cpp) share it.
void sort_pairs(CudaContext& ctx, void* keys, void* idx, int64_t total, int64_t P);

}  // namespace tensord::cuda
