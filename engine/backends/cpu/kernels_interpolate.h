// interpolate's kernel (kernels_interpolate.cpp), called by run_nn (kernels_nn.cpp) on
// contiguous float32 or float64 buffers.
#pragma once

#include <cstdint>

#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/spatial_volume.h"
#include "engine/ir/nn_geometry.h"

namespace tensord::cpu {

void interpolate(const KernelContext& ctx, const ir::InterpolateGeometry& g, const Volume& v,
                 const float* x, float* y);
void interpolate(const KernelContext& ctx, const ir::InterpolateGeometry& g, const Volume& v,
                 const double* x, double* y);

}  // namespace tensord::cpu
