// The CPU kernels by op family, as the backend's dispatch calls them. Inputs are strided
// views; outputs contiguous, allocated, and typed as the node's outputs.
#pragma once

#include <span>

#include "engine/backends/cpu/host_block_cache.h"
#include "engine/backends/cpu/scratch.h"
#include "engine/backends/cpu/strided_iter.h"
#include "engine/exec/tensor_value.h"
#include "engine/ir/graph.h"

namespace tensord::cpu {

using engine::TensorValue;

struct KernelContext {
  int threads = 1;      // OpenMP threads a kernel may use
  ScratchSite scratch;  // where its temporaries are tracked (scratch.h)
  // Where the outputs of data-dependent ops come from, as the engine's tensors do (null: fresh
  // host memory). Scratch stays with malloc, which reuses a block freed within the kernel at
  // once (the daemon fixes its mmap threshold: server/main.cpp); measured slower from here.
  HostBlockCache* blocks = nullptr;
};

// Elementwise: unary ops including cast, binary ops, where.
void run_unary(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
               const TensorValue& out);
// The unary math ops of issue 4 (exp2 ... bitwise_not: kernels_unary_math.cpp), which run_unary
// hands on.
bool is_unary_math(ir::Op op);
void run_unary_math(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
                    const TensorValue& out);
// The binary math ops of issue 4 (atan2 ... shifts: kernels_binary_math.cpp), which
// run_binary hands on.
bool is_binary_math(ir::Op op);
void run_binary_math(const KernelContext& ctx, const ir::Node& node, const TensorValue& a,
                     const TensorValue& b, const TensorValue& out);
void run_binary(const KernelContext& ctx, const ir::Node& node, const TensorValue& a,
                const TensorValue& b, const TensorValue& out);
void run_where(const KernelContext& ctx, const TensorValue& cond, const TensorValue& a,
               const TensorValue& b, const TensorValue& out);

void run_creation(const KernelContext& ctx, const ir::Node& node, const TensorValue& out);
void run_reduction(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
                   const TensorValue& out);
void run_movement(const KernelContext& ctx, const ir::Node& node,
                  std::span<const TensorValue> inputs, const TensorValue& out);
// Scans along an axis (cumsum, cumprod, logcumsumexp: kernels_scan.cpp), which run_movement
// hands on: they are Movement ops in the IR (one input, an output of its shape).
bool is_scan(ir::Op op);
// scatter, scatter_add (kernels_scatter.cpp), which run_movement hands on.
bool is_scatter(ir::Op op);
void run_scatter(const KernelContext& ctx, const ir::Node& node,
                 std::span<const TensorValue> inputs, const TensorValue& out);
// issue 4 (h/datadep): searchsorted, scatter_reduce, index_put, unfold (kernels_index_more.cpp),
// which run_movement hands on; and the ops whose output shapes depend on the data
// (ir::is_data_dependent: kernels_data_dependent.cpp), which allocate their own outputs.
bool is_index_more(ir::Op op);
void run_index_more(const KernelContext& ctx, const ir::Node& node,
                    std::span<const TensorValue> inputs, const TensorValue& out);
std::vector<TensorValue> run_data_dependent(const KernelContext& ctx, const ir::Node& node,
                                            std::span<const TensorValue> inputs);
// A dense row-major copy of `v` in `dtype` in scratch memory, broadcast to `shape` (v's own
// when null): what the index ops compute on.
TensorValue dense_copy(const KernelContext& ctx, const TensorValue& v, ir::DType dtype,
                       const ir::Shape* shape = nullptr);
// The special functions (lgamma ... xlog1py: kernels_special.cpp), which run_unary and
// run_binary hand on.
bool is_special(ir::Op op);
void run_special(const KernelContext& ctx, const ir::Node& node,
                 std::span<const TensorValue> inputs, const TensorValue& out);
// Linear algebra over LAPACK (det ... lstsq: kernels_linalg.cpp) and distances (cdist, pdist:
// kernels_distance.cpp), which run_movement hands on.
bool is_linalg(ir::Op op);
void run_linalg(const KernelContext& ctx, const ir::Node& node, std::span<const TensorValue> inputs,
                const TensorValue& out);
// slogdet, qr, svd, eigh, lstsq (several outputs; run_multi_output hands them on).
void run_linalg_multi(const KernelContext& ctx, const ir::Node& node,
                      std::span<const TensorValue> inputs, std::span<const TensorValue> outputs);
bool is_distance(ir::Op op);
void run_distance(const KernelContext& ctx, const ir::Node& node,
                  std::span<const TensorValue> inputs, const TensorValue& out);
void run_scan(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
              const TensorValue& out);
// issue 4: polygamma ... zeta and logit with eps (kernels_special_more.cpp), which run_special
// hands on; sorting along an axis (kernels_sort.cpp), which run_movement hands on.
bool is_special_more(const ir::Node& node);
void run_special_more(const KernelContext& ctx, const ir::Node& node,
                      std::span<const TensorValue> inputs, const TensorValue& out);
bool is_sort(ir::Op op);
// sort, topk, kthvalue, median_axis, nanmedian_axis, mode, cummax, cummin: (values, indices)
// (kernels_sort_multi.cpp), which run_multi_output hands on.
bool is_sort_multi(ir::Op op);
void run_sort_multi(const KernelContext& ctx, const ir::Node& node,
                    std::span<const TensorValue> inputs, std::span<const TensorValue> outputs);
void run_sort(const KernelContext& ctx, const ir::Node& node, std::span<const TensorValue> inputs,
              const TensorValue& out);
// The ops with several outputs (frexp ...: kernels_multi_output.cpp); the backend hands every
// node with more than one output here.
void run_multi_output(const KernelContext& ctx, const ir::Node& node,
                      std::span<const TensorValue> inputs, std::span<const TensorValue> outputs);
// Issue 4's neural-network kernels (convolutions, pooling, adaptive pooling, interpolation:
// kernels_nn.cpp), which run_movement hands on; convolutions go through oneDNN
// (conv_dnnl.cpp).
bool is_nn(ir::Op op);
void run_nn(const KernelContext& ctx, const ir::Node& node, std::span<const TensorValue> inputs,
            const TensorValue& out);
void run_conv(const KernelContext& ctx, const ir::Node& node, std::span<const TensorValue> inputs,
              const TensorValue& out);
// Window and adaptive pools; a max pool with return_indices writes outputs[1] too
// (kernels_nn.cpp).
void run_pool(const KernelContext& ctx, const ir::Node& node, const TensorValue& in,
              std::span<const TensorValue> outputs);
void run_ctc_loss(const KernelContext& ctx, const ir::Node& node,
                  std::span<const TensorValue> inputs, const TensorValue& out);  // kernels_ctc.cpp

// Shared building blocks.
// dst = cast(src) elementwise; src broadcasts to dst's shape; any dtypes.
void cast_into(const KernelContext& ctx, const Operand& src, const Operand& dst);
// dst = src elementwise for equal dtypes (any strides on both sides).
void copy_into(const KernelContext& ctx, const Operand& src, const Operand& dst);
// A new contiguous value holding `v` converted to `dtype` (or `v` itself when it already is).
TensorValue cast_to(const KernelContext& ctx, const TensorValue& v, ir::DType dtype);
// The view of `v` as `dtype`: `v` itself, or a converted copy that `keep` holds alive. Cheaper
// than cast_to on the common path (no TensorValue copy).
Operand operand_as(const KernelContext& ctx, const TensorValue& v, ir::DType dtype,
                   TensorValue& keep);
// A new contiguous copy of `v` (or `v` itself when it already is contiguous).
TensorValue make_contiguous(const KernelContext& ctx, const TensorValue& v);

}  // namespace tensord::cpu
