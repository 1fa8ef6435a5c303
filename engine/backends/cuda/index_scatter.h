// The writing index ops of the CUDA backend (index_family.cpp dispatches to them): scatter,
// scatter_add, scatter_reduce, index_put, and searchsorted, on dense float64/int64 copies of
// their operands as the CPU backend computes them. The argument structs mirror td_index.cu's.
#pragma once

#include "engine/backends/cuda/cuda_ops.h"

namespace tensord::cuda::index_ops {

struct ScatterGeom {  // td_scatter_geom
  int64_t rank = 0, axis = 0;
  int64_t size[ir::kMaxRank] = {}, xs[ir::kMaxRank] = {}, ss[ir::kMaxRank] = {};
};

struct PutGeom {  // td_put_geom
  int64_t k = 0, brank = 0, rrank = 0, tail = 1;
  int64_t bsize[ir::kMaxRank] = {}, rsize[ir::kMaxRank] = {};
  int64_t vb[ir::kMaxRank] = {}, vr[ir::kMaxRank] = {}, xs[ir::kMaxRank] = {};
  int64_t istr[ir::kMaxRank][ir::kMaxRank] = {};
  const int64_t* index[ir::kMaxRank] = {};
};

// `acc` is float64 for floating outputs, int64 otherwise.
void run_scatter(CudaContext& ctx, const ir::Node& node, Values in, const engine::TensorValue& out,
                 ir::DType acc);
void run_index_put(CudaContext& ctx, const ir::Node& node, Values in,
                   const engine::TensorValue& out, ir::DType acc);
void run_searchsorted(CudaContext& ctx, const ir::Node& node, Values in,
                      const engine::TensorValue& out);

}  // namespace tensord::cuda::index_ops
