#include "engine/ir/axes.h"

#include <string>

#include "engine/ir/error.h"
#include "engine/ir/shape.h"

namespace tensord::ir {

AxisMask axis_mask(std::span<const int64_t> axes, int64_t rank, std::string_view what) {
  AxisMask mask = 0;
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      throw Error(ErrorCode::Shape, std::string(what) + " " + to_string(axes) + ": axis " +
                                        std::to_string(axis) + " is out of range for rank " +
                                        std::to_string(rank));
    }
    int64_t a = axis < 0 ? axis + rank : axis;
    if (has_axis(mask, a)) {
      throw Error(ErrorCode::Shape, std::string(what) + " " + to_string(axes) + ": axis " +
                                        std::to_string(a) + " is repeated");
    }
    mask |= AxisMask{1} << a;
  }
  return mask;
}

AxisMask reduction_axes(const Attrs& attrs, int64_t rank) {
  if (const AttrValue* v = attrs.find(Attr::axes)) {
    return axis_mask(std::get<std::vector<int64_t>>(*v), rank, "axes");
  }
  return rank == 0 ? 0 : static_cast<AxisMask>((uint64_t{1} << rank) - 1);
}

SliceRange resolve_slice(std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step,
                         int64_t dim) {
  if (step == 0) throw Error(ErrorCode::Shape, "slice step cannot be zero");
  // CPython's PySlice_AdjustIndices: clamp into [lower, upper], then count.
  const int64_t lower = step > 0 ? 0 : -1;
  const int64_t upper = step > 0 ? dim : dim - 1;
  auto adjust = [&](std::optional<int64_t> index, int64_t fallback) {
    if (!index) return fallback;
    int64_t i = *index;
    if (i < 0) {
      i += dim;  // cannot overflow: i < 0 <= dim
      return i < lower ? lower : i;
    }
    return i > upper ? upper : i;
  };
  SliceRange r;
  r.step = step;
  r.start = adjust(start, step > 0 ? lower : upper);
  int64_t end = adjust(stop, step > 0 ? upper : lower);
  // start and end lie in [-1, dim], so their difference cannot overflow; the step can be as
  // large as |INT64_MIN|, so divide in unsigned arithmetic.
  if (step > 0) {
    r.length = end > r.start ? static_cast<int64_t>(static_cast<uint64_t>(end - r.start - 1) /
                                                    static_cast<uint64_t>(step)) +
                                   1
                             : 0;
  } else {
    uint64_t magnitude = uint64_t{0} - static_cast<uint64_t>(step);
    r.length = r.start > end
                   ? static_cast<int64_t>(static_cast<uint64_t>(r.start - end - 1) / magnitude) + 1
                   : 0;
  }
  return r;
}

SliceRange resolve_slice(const Attrs& attrs, int64_t dim) {
  auto optional_int = [&](Attr a) -> std::optional<int64_t> {
    if (!attrs.has(a)) return std::nullopt;
    return attrs.get_int(a);
  };
  return resolve_slice(optional_int(Attr::start), optional_int(Attr::stop),
                       attrs.get_int(Attr::step, 1), dim);
}

}  // namespace tensord::ir
