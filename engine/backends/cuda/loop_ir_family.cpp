// Elementwise ops, casts and sum/max/min reductions on CUDA, one node at a time: the node is
// lowered to the loop IR exactly as a fused group of one (engine/plan/lower_group.h), written
// as CUDA C by the CUDA emitter and compiled once per kernel shape class (ranks, dtypes,
// access patterns: sizes and strides are launch arguments). Reductions over any axes become
// reductions over the trailing dimensions of a permuted view of the input.
#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>

#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/loop_ir_launch.h"
#include "engine/codegen/emit_cuda.h"
#include "engine/ir/axes.h"
#include "engine/plan/layout.h"
#include "engine/plan/lower_group.h"

namespace tensord::cuda {
namespace {

// An input of a node: its type and strides as this launch sees them, and its address.
struct Operand {
  ir::TensorType type;
  std::vector<int64_t> strides;
  void* data = nullptr;
};

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

// One node lowered as the planner would hand it over (a graph of its inputs and itself, a
// group of one): `domain` is the iteration space, its last `inner` dimensions reduced.
engine::FusedGroup lower_node(const ir::Node& node, std::span<const Operand> in,
                              const ir::TensorType& out_type, const ir::Shape& domain, int inner) {
  std::vector<ir::Node> nodes(in.size() + 1);
  std::vector<engine::PlanValue> values(in.size());
  std::vector<const engine::PlanValue*> value_ptrs;
  std::vector<ir::ValueRef> refs;
  engine::FusionGroup group;
  group.members = {static_cast<uint32_t>(in.size())};
  group.domain = domain;
  group.inner = inner;
  ir::Node& self = nodes.back();
  self.op = node.op;
  // The attribute a formula takes as an argument (polygamma's n, ...): the lowering reads it.
  if (codegen::attribute_operand(node)) self.attrs = node.attrs;
  self.outputs = {out_type};
  for (size_t i = 0; i < in.size(); ++i) {
    nodes[i].op = ir::Op::input;
    nodes[i].outputs = {in[i].type};
    values[i].type = in[i].type;
    values[i].layout.strides = in[i].strides;
    self.inputs.push_back({static_cast<uint32_t>(i), 0});
    refs.push_back({static_cast<uint32_t>(i), 0});
  }
  for (const engine::PlanValue& v : values) value_ptrs.push_back(&v);
  const uint32_t outputs[] = {static_cast<uint32_t>(in.size())};
  return engine::lower_group(nodes, group, refs, value_ptrs, outputs);
}

// What running a node takes: its launches in order, each a lowered group with the operands'
// addresses. Scratch memory (partial results of a split reduction) comes from `scratch`.
struct Launch {
  engine::FusedGroup fused;
  std::vector<void*> ptrs;
};
using Scratch = std::function<void*(size_t bytes)>;

// The launches of `node`, or nullopt when this family does not run it: the one place that
// decides, shared by run_loop_ir and loop_ir_kernels (a precompiled cache then holds exactly
// the units a device run asks for).
std::optional<std::vector<Launch>> plan_node(const ir::Node& node, Values in, Values out,
                                             int sm_count, const Scratch& scratch) {
  const ir::OpKind kind = ir::op_info(node.op).kind;
  const bool reduce = kind == ir::OpKind::Reduction &&
                      (node.op == ir::Op::sum || node.op == ir::Op::max || node.op == ir::Op::min);
  if (!is_elementwise(kind) && !reduce) return std::nullopt;
  // frexp: a kernel per output (mantissa, exponent), the others have one output.
  const bool frexp = node.op == ir::Op::frexp && out.size() == 2;
  if (out.size() != 1 && !frexp) return std::nullopt;
  std::vector<ir::DType> dtypes;
  for (const engine::TensorValue& v : in) dtypes.push_back(v.type.dtype);
  if (codegen::attribute_operand(node)) dtypes.push_back(ir::DType::Float64);
  for (const engine::TensorValue& o : out) {
    if (reduce ? !codegen::cuda_expressible_reduction(node.op, dtypes[0], o.type.dtype)
               : !codegen::cuda_expressible(node.op, dtypes, o.type.dtype)) {
      return std::nullopt;
    }
  }

  std::vector<Operand> ops;
  for (const engine::TensorValue& v : in) ops.push_back({v.type, v.strides, v.raw()});
  std::vector<Launch> launches;
  auto add = [&](std::span<const Operand> operands, const ir::TensorType& out_type, void* dst,
                 const ir::Shape& domain, int inner) {
    Launch l{lower_node(node, operands, out_type, domain, inner), {}};
    for (const Operand& v : operands) l.ptrs.push_back(v.data);
    l.ptrs.push_back(dst);
    launches.push_back(std::move(l));
  };
  if (!reduce) {
    for (const engine::TensorValue& o : out) add(ops, o.type, o.raw(), o.type.shape, 0);
    return launches;
  }
  // Kept axes first, reduced axes last: the output's row-major order is unchanged.
  const int rank = static_cast<int>(in[0].type.shape.size());
  const std::vector<int> axes = reduced_axes(node, rank);
  std::vector<int> order;
  for (int d = 0; d < rank; ++d) {
    if (!std::binary_search(axes.begin(), axes.end(), d)) order.push_back(d);
  }
  order.insert(order.end(), axes.begin(), axes.end());
  Operand& x = ops[0];
  x.type.shape.clear();
  x.strides.clear();
  for (int d : order) {
    x.type.shape.push_back(in[0].type.shape[d]);
    x.strides.push_back(in[0].strides[d]);
  }
  // Reducing over no axis (axes=() or a scalar) is the reduction over one of size 1.
  const int inner = std::max<int>(1, static_cast<int>(axes.size()));
  if (axes.empty()) {
    x.type.shape.push_back(1);
    x.strides.push_back(0);
  }
  const RowSplit split = split_rows(x.type.shape, x.strides, inner, node.op, in[0].type.dtype,
                                    out[0].type.dtype, sm_count);
  if (split.chunks <= 1) {
    add(ops, out[0].type, out[0].raw(), x.type.shape, inner);
    return launches;
  }
  // Few long rows: each row in `chunks` pieces reduced by their own blocks into a scratch
  // row of partial results, then the partial rows reduced (the same op: sums of partial sums,
  // maxima of maxima).
  Operand pieces = x;
  pieces.type.shape.resize(x.type.shape.size() - inner);
  pieces.strides.resize(pieces.type.shape.size());
  const int64_t per_chunk = split.row_length / split.chunks;
  pieces.type.shape.push_back(split.chunks);
  pieces.type.shape.push_back(per_chunk);
  pieces.strides.push_back(per_chunk * split.step);
  pieces.strides.push_back(split.step);
  ir::TensorType partial{out[0].type.dtype, pieces.type.shape};
  partial.shape.pop_back();
  void* partial_data = scratch(partial.nbytes());
  const Operand first[] = {pieces};
  add(first, partial, partial_data, pieces.type.shape, 1);
  const Operand second[] = {
      {partial, engine::contiguous_layout(partial.shape).strides, partial_data}};
  add(second, out[0].type, out[0].raw(), partial.shape, 1);
  return launches;
}

}  // namespace

bool run_loop_ir(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  // The caching allocator orders the scratch's reuse on the stream: it may go once the
  // launches using it are enqueued.
  std::shared_ptr<engine::Buffer> scratch;
  const std::optional<std::vector<Launch>> launches =
      plan_node(node, in, out, ctx.sm_count, [&](size_t bytes) {
        scratch = ctx.scratch(bytes);
        return scratch->data();
      });
  if (!launches) return false;
  for (const Launch& l : *launches) {
    launch_loop_kernel(ctx, loop_kernel(ctx, l.fused.kernel), l.fused, l.ptrs, ir::name(node.op));
  }
  return true;
}

std::vector<codegen::LoopKernel> loop_ir_kernels(const ir::Node& node, Values in, Values out,
                                                 int sm_count) {
  const std::optional<std::vector<Launch>> launches =
      plan_node(node, in, out, sm_count, [](size_t) -> void* { return nullptr; });
  std::vector<codegen::LoopKernel> kernels;
  if (launches) {
    for (const Launch& l : *launches) kernels.push_back(l.fused.kernel);
  }
  return kernels;
}

}  // namespace tensord::cuda
