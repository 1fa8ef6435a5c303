// Elementwise ops, casts and sum/max/min reductions on CUDA, one node at a time: the node is
// lowered to the loop IR exactly as a fused group of one (engine/plan/lower_group.h), written
// as CUDA C by the CUDA emitter and compiled once per kernel shape class (ranks, dtypes,
// access patterns: sizes and strides are launch arguments). Reductions over any axes become
// reductions over the trailing dimensions of a permuted view of the input.
#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_map>

#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/loop_ir_launch.h"
#include "engine/codegen/emit_cuda.h"
#include "engine/ir/axes.h"
#include "engine/plan/lower_group.h"

namespace tensord::cuda {
namespace {

bool is_elementwise(ir::OpKind k) {
  return k == ir::OpKind::Unary || k == ir::OpKind::Binary || k == ir::OpKind::Ternary;
}

// The reduced axes of a sum/max/min node, in increasing order (all axes when none are named).
std::vector<int> reduced_axes(const ir::Node& node, int rank) {
  std::vector<bool> reduced(rank, !node.attrs.has(ir::Attr::axes));
  if (node.attrs.has(ir::Attr::axes)) {
    for (int64_t a : node.attrs.get_ints(ir::Attr::axes)) {
      reduced[ir::normalize_axis(a, rank)] = true;
    }
  }
  std::vector<int> axes;
  for (int d = 0; d < rank; ++d) {
    if (reduced[d]) axes.push_back(d);
  }
  return axes;
}

}  // namespace

bool run_loop_ir(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  const ir::OpKind kind = ir::op_info(node.op).kind;
  const bool reduce = kind == ir::OpKind::Reduction &&
                      (node.op == ir::Op::sum || node.op == ir::Op::max || node.op == ir::Op::min);
  if (!is_elementwise(kind) && !reduce) return false;
  if (out.size() != 1) return false;
  // The formula table sees no attributes: its logit is the one without eps (the clamp).
  if (node.op == ir::Op::logit && node.attrs.has(ir::Attr::eps)) return false;
  std::vector<ir::DType> dtypes;
  for (const engine::TensorValue& v : in) dtypes.push_back(v.type.dtype);
  const ir::DType result = out[0].type.dtype;
  if (reduce ? !codegen::cuda_expressible_reduction(node.op, dtypes[0], result)
             : !codegen::cuda_expressible(node.op, dtypes, result)) {
    return false;
  }

  // A graph of the node's inputs and the node itself, as the planner would hand it over.
  std::vector<ir::Node> nodes(in.size() + 1);
  std::vector<engine::PlanValue> values(in.size());
  std::vector<const engine::PlanValue*> value_ptrs;
  std::vector<ir::ValueRef> refs;
  engine::FusionGroup group;
  group.members = {static_cast<uint32_t>(in.size())};
  ir::Node& self = nodes.back();
  self.op = node.op;
  self.outputs = {out[0].type};
  for (size_t i = 0; i < in.size(); ++i) {
    nodes[i].op = ir::Op::input;
    nodes[i].outputs = {in[i].type};
    values[i].type = in[i].type;
    values[i].layout.strides = in[i].strides;
    self.inputs.push_back({static_cast<uint32_t>(i), 0});
    refs.push_back({static_cast<uint32_t>(i), 0});
  }
  if (reduce) {
    // Kept axes first, reduced axes last: the output's row-major order is unchanged.
    const int rank = static_cast<int>(in[0].type.shape.size());
    const std::vector<int> axes = reduced_axes(node, rank);
    std::vector<int> order;
    for (int d = 0; d < rank; ++d) {
      if (!std::binary_search(axes.begin(), axes.end(), d)) order.push_back(d);
    }
    order.insert(order.end(), axes.begin(), axes.end());
    ir::Shape shape;
    std::vector<int64_t> strides;
    for (int d : order) {
      shape.push_back(in[0].type.shape[d]);
      strides.push_back(in[0].strides[d]);
    }
    // Reducing over no axis (axes=() or a scalar) is the reduction over one of size 1.
    if (axes.empty()) {
      shape.push_back(1);
      strides.push_back(0);
    }
    values[0].type.shape = shape;
    values[0].layout.strides = strides;
    nodes[0].outputs[0].shape = shape;
    group.domain = shape;
    group.inner = std::max<int>(1, static_cast<int>(axes.size()));
  } else {
    group.domain = out[0].type.shape;
  }
  for (const engine::PlanValue& v : values) value_ptrs.push_back(&v);
  const uint32_t outputs[] = {static_cast<uint32_t>(in.size())};
  const engine::FusedGroup fused = engine::lower_group(nodes, group, refs, value_ptrs, outputs);

  cudaKernel_t kernel = loop_kernel(ctx, fused.kernel);
  std::vector<void*> ptrs;
  for (const engine::TensorValue& v : in) ptrs.push_back(v.raw());
  ptrs.push_back(out[0].raw());
  launch_loop_kernel(ctx, kernel, fused, ptrs, ir::name(node.op));
  return true;
}

}  // namespace tensord::cuda
