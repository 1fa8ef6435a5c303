// Axis and slice attributes resolved against a rank or a dimension. Inference and the kernels
// both read attributes through these, so they cannot disagree about what an attribute means.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "engine/ir/attrs.h"

namespace tensord::ir {

// A set of axes of a tensor of rank <= kMaxRank, bit i for axis i.
using AxisMask = uint32_t;

inline bool has_axis(AxisMask mask, int64_t axis) {
  return (mask >> axis) & 1u;
}

// Normalizes possibly negative axes against `rank`; out-of-range or repeated axes throw
// tensord::Error(Shape) naming `what` ("axes", "dims").
AxisMask axis_mask(std::span<const int64_t> axes, int64_t rank, std::string_view what);

// The axes a reduction (sum, prod, max, min, mean, var) reduces: the `axes` attribute, or
// every axis when it is absent. A listed empty `axes` reduces nothing.
AxisMask reduction_axes(const Attrs& attrs, int64_t rank);

// The elements a Python slice `start:stop:step` selects from a dimension of size `dim`, as
// range(*slice(start, stop, step).indices(dim)): the first index, the step and the count.
struct SliceRange {
  int64_t start = 0;
  int64_t step = 1;
  int64_t length = 0;
};

// Throws tensord::Error(Shape) for step 0.
SliceRange resolve_slice(std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step,
                         int64_t dim);
// From a slice node's attributes (start, stop and step; `axis` is the caller's business).
SliceRange resolve_slice(const Attrs& attrs, int64_t dim);

}  // namespace tensord::ir
