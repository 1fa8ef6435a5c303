// Pooling kernels (kernels_pool.cpp), called by run_nn (kernels_nn.cpp) on contiguous float32
// or float64 buffers: window pools (max, average) and adaptive pools (max, average) over one
// to three spatial axes. `indices`, when not null, receives each maximum's position in its
// plane (max pools only).
#pragma once

#include <cstdint>

#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/spatial_volume.h"
#include "engine/ir/nn_geometry.h"

namespace tensord::cpu {

enum class PoolKind { Max, Average };

void window_pool(const KernelContext& ctx, PoolKind kind, const ir::PoolGeometry& g,
                 const Volume& v, const float* x, float* y, int64_t* indices);
void window_pool(const KernelContext& ctx, PoolKind kind, const ir::PoolGeometry& g,
                 const Volume& v, const double* x, double* y, int64_t* indices);

void adaptive_pool(const KernelContext& ctx, PoolKind kind, const Volume& v, const float* x,
                   float* y, int64_t* indices);
void adaptive_pool(const KernelContext& ctx, PoolKind kind, const Volume& v, const double* x,
                   double* y, int64_t* indices);

}  // namespace tensord::cpu
