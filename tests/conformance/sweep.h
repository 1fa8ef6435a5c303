// The input sweeps rows share: which shapes, layouts and value families an op is run on.
#pragma once

#include <vector>

#include "tests/conformance/case.h"

namespace tensord::conformance {

// Contiguous shapes: 0-d, zero-size dims, size 1, odd sizes past a SIMD width, ranks 1-4.
inline std::vector<Shape> sweep_shapes() {
  return {{}, {0}, {1}, {7}, {33}, {3, 5}, {4, 0, 3}, {1, 1}, {2, 3, 4, 5}};
}

// A shape with more than 64K elements (67,591), so that threaded paths run.
inline Shape big_shape() {
  return {257, 263};
}

inline constexpr Layout kStridedLayouts[] = {Layout::Permuted, Layout::Strided, Layout::Reversed,
                                             Layout::Broadcast, Layout::Mixed};

// One input of `t` over every sweep shape, every non-contiguous layout on two shapes, the
// special values (NaN, inf, -0.0, huge, integer min/max) and two large tensors.
inline std::vector<InputSpec> single_input_sweep(DType t, Values v) {
  std::vector<InputSpec> out;
  for (const Shape& s : sweep_shapes()) out.push_back(in(t, s, Layout::Contiguous, v));
  for (Layout l : kStridedLayouts) {
    out.push_back(in(t, {5, 7}, l, v));
    out.push_back(in(t, {3, 4, 9}, l, v));
  }
  out.push_back(in(t, {67}, Layout::Contiguous, Values::Special));
  out.push_back(in(t, {5, 13}, Layout::Permuted, Values::Special));
  out.push_back(in(t, big_shape(), Layout::Contiguous, v));
  out.push_back(in(t, big_shape(), Layout::Mixed, v));
  return out;
}

// A shorter sweep for attribute variants after the first: one odd size, one zero-size, one
// non-contiguous layout and the special values.
inline std::vector<InputSpec> short_sweep(DType t, Values v) {
  return {in(t, {33}, Layout::Contiguous, v), in(t, {2, 0}, Layout::Contiguous, v),
          in(t, {5, 7}, Layout::Permuted, v), in(t, {67}, Layout::Contiguous, Values::Special)};
}

}  // namespace tensord::conformance
