// Strided layouts: where the elements of a value sit in its buffer. Every layout is known at
// plan time (graph inputs are contiguous and kernels write contiguous outputs), so view ops
// cost nothing when a plan runs.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/ir/op.h"

namespace tensord::engine {

// Strides and offset count elements. A stride may be 0 (expand) or negative (slice with a
// negative step); the offset is where element (0, ..., 0) lives.
struct Layout {
  std::vector<int64_t> strides;
  int64_t offset = 0;
  // Issue 4: the elements read as their complex conjugates (a `conj` view, as PyTorch 1.10's
  // conjugate bit). Only ops_reading_conj() consumers see it; the planner materialises a copy
  // for every other consumer and for plan outputs.
  bool conj = false;
  friend bool operator==(const Layout&, const Layout&) = default;
};

// Issue 4: the ops whose kernels read a conj layout themselves (conjugating on load): the
// `contiguous` copy (which materialises it) and matmul.
bool reads_conj(ir::Op op);

Layout contiguous_layout(std::span<const int64_t> shape);

// Row-major order, ignoring the strides of size-1 dimensions (their stride is never used). An
// empty tensor is contiguous, as in PyTorch.
bool is_contiguous(std::span<const int64_t> shape, std::span<const int64_t> strides);

// Strides under which `new_shape` walks the same elements in the same row-major order as
// (`old_shape`, `old_strides`), or nullopt when no strides can (the reshape needs a copy).
// This is PyTorch's computeStride: dimensions are merged into chunks that are contiguous with
// respect to each other, and the new shape must split along chunk boundaries.
std::optional<std::vector<int64_t>> view_strides(std::span<const int64_t> old_shape,
                                                 std::span<const int64_t> old_strides,
                                                 std::span<const int64_t> new_shape);

// Python's slice(start, stop, step).indices(n) resolved to a first index, a step and a length.
struct SliceRange {
  int64_t start = 0;
  int64_t step = 1;
  int64_t length = 0;
};
// `step` must not be 0 (inference rejects it).
SliceRange slice_range(int64_t n, std::optional<int64_t> start, std::optional<int64_t> stop,
                       int64_t step);

// The layouts of the view ops (docs/ops.md). Dimensions and axes are already normalized.
Layout permuted(const Layout& in, std::span<const int64_t> dims);
Layout expanded(std::span<const int64_t> in_shape, const Layout& in,
                std::span<const int64_t> out_shape);
Layout sliced(const Layout& in, int64_t axis, const SliceRange& range);

}  // namespace tensord::engine
