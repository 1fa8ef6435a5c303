// Shapes, element counts and broadcasting. Dimensions are int64 like PyTorch's.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/ir/dtype.h"

namespace tensord::ir {

using Shape = std::vector<int64_t>;

// The largest rank any tensor may have; deeper shapes are rejected as invalid.
inline constexpr int kMaxRank = 16;

std::string to_string(std::span<const int64_t> shape);  // "(2, 3)", "()" for 0-d

// Element count, or -1 if a dimension is negative or the product overflows int64.
int64_t checked_numel(std::span<const int64_t> shape);
int64_t numel(std::span<const int64_t> shape);  // for validated shapes

// Row-major strides in elements.
std::vector<int64_t> contiguous_strides(std::span<const int64_t> shape);

// Array API broadcasting; throws tensord::Error(Shape) naming both shapes.
Shape broadcast_shapes(std::span<const int64_t> a, std::span<const int64_t> b);

// Maps a possibly negative axis into [0, rank); throws tensord::Error(Shape) when out of range.
int64_t normalize_axis(int64_t axis, int64_t rank);

// The type of a value in a graph.
struct TensorType {
  DType dtype = DType::Float32;
  Shape shape;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t numel() const { return ir::numel(shape); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * itemsize(dtype); }
  friend bool operator==(const TensorType&, const TensorType&) = default;
};

std::string to_string(const TensorType& t);  // "float32(2, 3)"

}  // namespace tensord::ir
