// Host side of the creation, movement and index families: strided views, the copy that every
// movement op reduces to (memcpy when it can, a tiled transpose for permutes, else the strided
// kernel), fills, dense scratch copies in another dtype, and the index checks whose errors are
// read back from the device. Kernel argument structs mirror the prelude's (movement_sources.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/backends/cuda/cuda_context.h"
#include "engine/ir/attrs.h"
#include "engine/ir/op.h"
#include "engine/ir/shape.h"

namespace tensord::cuda::movement {

struct DeviceDims {  // td_dims
  int64_t rank = 0;
  int64_t size[ir::kMaxRank] = {};
};
struct DeviceStrides {  // td_strides
  int64_t s[ir::kMaxRank] = {};
};

// An operand of a copy: the address of element (0, ..., 0), its dtype and element strides over
// the copy's shape.
struct StridedView {
  char* data = nullptr;
  ir::DType dtype = ir::DType::Float32;
  std::vector<int64_t> strides;
};
StridedView view_of(const engine::TensorValue& v);
// `v` restricted to [start, start + size) along `axis` of `shape` (which it updates).
void narrow(StridedView& v, std::vector<int64_t>& shape, int axis, int64_t start, int64_t size);

// dst[p] = src[p] over `shape`, converting by the cast rules when the dtypes differ; `conj`
// conjugates complex source elements.
void copy(CudaContext& ctx, std::span<const int64_t> shape, const StridedView& dst,
          const StridedView& src, bool conj = false);

// The bytes of one element, for fills.
struct Pattern {
  uint64_t lo = 0, hi = 0;
};
// A scalar attribute (int, float or bool) cast to `dtype` by the cast rules; complex dtypes take
// it as the real part (through double, as the CPU's complex fill).
Pattern scalar_pattern(ir::DType dtype, const ir::AttrValue& value);
// `n` items of `itemsize` bytes at dst, dst + stride items, ... set to `pattern`.
void fill(CudaContext& ctx, void* dst, size_t itemsize, int64_t n, int64_t stride,
          const Pattern& pattern);
void zero(CudaContext& ctx, void* dst, size_t bytes);

// A fresh contiguous copy of `v` in `dtype` on scratch memory, broadcast to `shape` when given.
engine::TensorValue dense(CudaContext& ctx, const engine::TensorValue& v, ir::DType dtype,
                          const ir::Shape* shape = nullptr);
// Scratch memory of `bytes` (at least 16), as a raw pointer kept alive by `keep`.
void* scratch(CudaContext& ctx, size_t bytes, std::vector<std::shared_ptr<engine::Buffer>>& keep);

// Element strides of a row-major tensor of `from` broadcast to `to` (0 on broadcast dims).
std::vector<int64_t> broadcast_strides(std::span<const int64_t> from, std::span<const int64_t> to);

// Dense int64 indices to check against an axis of `size`: negatives are wrapped in place; any
// value outside [-size, size) raises the CPU backend's Shape error, "index 7 is out of bounds for
// axis 0 with size 5" (the first such position of the first failing tensor). One device-to-host
// read for all of them.
struct IndexCheck {
  const engine::TensorValue* index;
  int64_t axis;
  int64_t size;
};
void check_indices(CudaContext& ctx, std::span<const IndexCheck> checks);

// The kernel `name` of `source` (one of movement_sources.h's), loaded through ctx.kernels once
// per backend and then found by (source, name) without hashing the source text again: the
// strided copy is on every plan's path, and the cache's key is a hash of the whole text.
cudaKernel_t kernel(CudaContext& ctx, const std::string& source, const std::string& name);

// The dtype's code in the kernels (engine/ir/dtype.h's order).
int dtype_code(ir::DType t);
// Launch shape for `n` grid-stride items.
dim3 grid_of(const CudaContext& ctx, int64_t n);
inline constexpr unsigned kThreads = 256;
// Whether 32-bit index arithmetic covers `n` positions.
inline bool fits_i32(int64_t n) {
  return n <= 0x7fffffff;
}

[[noreturn]] void unsupported(ir::Op op, ir::DType dtype, const std::string& why = "");

}  // namespace tensord::cuda::movement
