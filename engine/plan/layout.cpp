#include "engine/plan/layout.h"

#include <algorithm>

#include "engine/ir/shape.h"

namespace tensord::engine {

bool reads_conj(ir::Op op) {
  return op == ir::Op::contiguous || op == ir::Op::matmul;
}

Layout contiguous_layout(std::span<const int64_t> shape) {
  return Layout{ir::contiguous_strides(shape), 0};
}

bool is_contiguous(std::span<const int64_t> shape, std::span<const int64_t> strides) {
  int64_t expected = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) return true;
  }
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

std::optional<std::vector<int64_t>> view_strides(std::span<const int64_t> old_shape,
                                                 std::span<const int64_t> old_strides,
                                                 std::span<const int64_t> new_shape) {
  const int64_t numel = ir::numel(old_shape);
  // With at most one element every stride is unused; with none there is nothing to walk.
  if (numel <= 1) return ir::contiguous_strides(new_shape);

  std::vector<int64_t> new_strides(new_shape.size());
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();  // stride of the chunk's innermost dimension
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(old_shape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= old_shape[tensor_d];
    // A chunk ends at dimension 0 or where the next outer dimension is not laid out right
    // after this chunk.
    const bool chunk_ends =
        tensor_d == 0 || (old_shape[tensor_d - 1] != 1 &&
                          old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
      new_strides[view_d] = view_numel * chunk_base_stride;
      view_numel *= new_shape[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (tensor_d > 0) {
      chunk_base_stride = old_strides[tensor_d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
}

SliceRange slice_range(int64_t n, std::optional<int64_t> start, std::optional<int64_t> stop,
                       int64_t step) {
  // CPython's PySlice_GetIndicesEx, with the bounds it clamps to.
  const int64_t lower = step < 0 ? -1 : 0;
  const int64_t upper = step < 0 ? n - 1 : n;
  auto clamp = [&](std::optional<int64_t> index, int64_t fallback) {
    if (!index) return fallback;
    int64_t i = *index;
    if (i < 0) {
      i += n;  // cannot overflow: n >= 0
      return std::max(i, lower);
    }
    return std::min(i, upper);
  };
  SliceRange r;
  r.step = step;
  r.start = clamp(start, step < 0 ? upper : lower);
  const int64_t end = clamp(stop, step < 0 ? lower : upper);
  // start and end lie in [-1, n], so the differences below cannot overflow; the step's
  // magnitude is taken unsigned because -INT64_MIN does not fit.
  if (step > 0) {
    r.length = end > r.start ? (end - r.start - 1) / step + 1 : 0;
  } else {
    const uint64_t magnitude = uint64_t{0} - static_cast<uint64_t>(step);
    r.length = r.start > end
                   ? static_cast<int64_t>(static_cast<uint64_t>(r.start - end - 1) / magnitude) + 1
                   : 0;
  }
  return r;
}

Layout permuted(const Layout& in, std::span<const int64_t> dims) {
  Layout out{std::vector<int64_t>(dims.size()), in.offset};
  for (size_t i = 0; i < dims.size(); ++i) out.strides[i] = in.strides[dims[i]];
  return out;
}

Layout expanded(std::span<const int64_t> in_shape, const Layout& in,
                std::span<const int64_t> out_shape) {
  const size_t lead = out_shape.size() - in_shape.size();
  Layout out{std::vector<int64_t>(out_shape.size(), 0), in.offset};
  for (size_t i = 0; i < in_shape.size(); ++i) {
    // A size-1 dimension broadcast to another size repeats its one element: stride 0.
    out.strides[lead + i] = in_shape[i] == out_shape[lead + i] ? in.strides[i] : 0;
  }
  return out;
}

Layout sliced(const Layout& in, int64_t axis, const SliceRange& range) {
  Layout out = in;
  if (range.length == 0) return out;  // callers give empty values a layout of their own
  out.offset += range.start * in.strides[axis];
  // With one element the stride is never used; keeping it avoids overflowing stride * step
  // for a huge step.
  if (range.length > 1) out.strides[axis] = in.strides[axis] * range.step;
  return out;
}

}  // namespace tensord::engine
