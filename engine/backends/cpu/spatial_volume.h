// The shape the spatial kernels (pooling, interpolate) work on: a contiguous (planes,
// spatial...) tensor with its spatial axes padded to three by leading size-1 axes.
#pragma once

#include <cstdint>

#include "engine/ir/shape.h"

namespace tensord::cpu {

// (planes, in[0], in[1], in[2]) read, (planes, out[0], out[1], out[2]) written.
struct Volume {
  int nd = 0;  // the real spatial axes: the last nd of the three
  int64_t planes = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};

  int64_t in_volume() const { return in[0] * in[1] * in[2]; }
  int64_t out_volume() const { return out[0] * out[1] * out[2]; }
};

// The last nd axes of `in` and `out` are spatial, the others planes.
inline Volume volume_of(const ir::Shape& in, const ir::Shape& out, int nd) {
  Volume v;
  v.nd = nd;
  const size_t first = in.size() - static_cast<size_t>(nd);
  for (size_t d = 0; d < first; ++d) v.planes *= in[d];
  for (int d = 0; d < nd; ++d) {
    v.in[3 - nd + d] = in[first + static_cast<size_t>(d)];
    v.out[3 - nd + d] = out[first + static_cast<size_t>(d)];
  }
  return v;
}

}  // namespace tensord::cpu
