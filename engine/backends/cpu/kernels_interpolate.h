// interpolate's kernel (kernels_interpolate.cpp), called by run_nn (kernels_nn.cpp) on
// contiguous float32 or float64 buffers.
#pragma once

#include <cstdint>

#include "engine/backends/cpu/kernels.h"
#include "engine/ir/nn_geometry.h"

namespace tensord::cpu {

// A contiguous (planes, spatial...) tensor with its spatial axes padded to three by leading
// size-1 axes: (planes, in[0], in[1], in[2]) read, (planes, out[0], out[1], out[2]) written.
struct Volume {
  int nd = 0;  // the real spatial axes: the last nd of the three
  int64_t planes = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
};

void interpolate(const KernelContext& ctx, const ir::InterpolateGeometry& g, const Volume& v,
                 const float* x, float* y);
void interpolate(const KernelContext& ctx, const ir::InterpolateGeometry& g, const Volume& v,
                 const double* x, double* y);

}  // namespace tensord::cpu
