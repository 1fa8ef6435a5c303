#include "engine/ir/shape.h"

#include "engine/ir/error.h"

namespace tensord::ir {

std::string to_string(std::span<const int64_t> shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::string to_string(const TensorType& t) {
  return std::string(name(t.dtype)) + to_string(t.shape);
}

int64_t checked_numel(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d != 0 && n > INT64_MAX / d) return -1;
    n *= d;
  }
  return n;
}

int64_t numel(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<int64_t> contiguous_strides(std::span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i] > 0 ? shape[i] : 1;
  }
  return strides;
}

Shape broadcast_shapes(std::span<const int64_t> a, std::span<const int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw Error(ErrorCode::Shape,
                  "shapes " + to_string(a) + " and " + to_string(b) + " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t normalize_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    throw Error(ErrorCode::Shape, "axis " + std::to_string(axis) + " is out of range for rank " +
                                      std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

}  // namespace tensord::ir
