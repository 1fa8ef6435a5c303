// The fusion pass: which primitive nodes of a graph run together as one generated kernel.
// It runs on the decomposed, simplified graph and knows nothing of backends; what a code
// generator can express is codegen::expressible.
//
// The rule, and why peak memory cannot rise:
//  - A group is a set of elementwise nodes (unary, binary, where, cast; broadcasting inputs;
//    float, bool and integer dtypes) and reductions (sum, prod, max, min, argmax, argmin over
//    trailing axes) sharing one iteration domain: Row nodes have the domain's shape, Outer
//    nodes its shape with the reduced axes set to 1.
//  - Reductions over axes that leave the innermost one (sum(0) of [N, C], a bias gradient)
//    form column groups (FusionGroup::columns): the kept cells are the kernel's lanes, so the
//    innermost axis is read contiguously, and the reduced axes are walked per lane. Such a
//    group takes elementwise nodes feeding its reductions and nodes of the kept shape after
//    them; a node of the domain's shape reading a reduction's result (x - x.mean(0)) is a
//    second pass over the input and starts its own group. A column reduction over axes whose
//    sizes multiply to 1 stays unfused: its result has the domain's shape, and the rule above
//    tells the two apart by shape.
//  - Views (permute, expand, slice, reshape) between a pointwise group and a consumer that
//    fits are pushed down to the group's loads: elementwise ops commute with views, so the
//    group's inputs are read through the composed strides and the consumer joins with the
//    view's shape as the new domain. Only when every value of that group is read inside it
//    (so nothing is computed twice), for expand only over cheap ops (they are recomputed per
//    broadcast element, never stored), and when every reshape has strides for every input at
//    plan time (fusion computes the same static layouts as the planner).
//  - A node joins the group of a producer when its shape fits that group's domain; else it
//    starts its own group. A row value reads a reduction's result (or what follows it) as its
//    row's value, so only when that result broadcasts like the outer shape: a reduction
//    without keepdim of a square domain (x * x.sum(1)) broadcasts along other axes. Nothing is ever computed twice across groups (no node is
//    duplicated, so an expensive producer is never recomputed per consumer) and a node whose
//    shape is smaller than a producer's domain does not join it (it would be recomputed per
//    broadcast element). Constants (`full`) are inlined into every group that reads them.
//  - A group stores only the values that nodes outside it (or the caller) read: values the
//    unfused plan stores too. Intermediates inside a group are never materialised, so the
//    fused plan holds a subset of the unfused plan's buffers at every step.
//  - Inside a group with reductions, a row's elementwise values are recomputed in each pass
//    over the row (cheap arithmetic on data in cache) instead of being stored.
//  - Groups of one non-constant node are dropped: the eager kernel runs them, no compile.
//  - A float32 matmul followed by a chain of elementwise ops that a matmul library can apply
//    as it writes the product (epilogue.h) becomes one group with the chain: FusionGroup::
//    epilogue describes it, and the chain's generated kernel is what runs when the backend
//    measures that the unfused pair is faster. The chain's nodes must not share a kernel with
//    other nodes (they would have to be split); explain shows why a matmul was not fused.
//  - A join that would make the groups' dependency graph cyclic is refused, and so is one past
//    512 nodes per group or past a bounded cycle search: planning stays linear in the graph's
//    size and generated kernels stay quick to compile.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/plan/epilogue.h"

namespace tensord::engine {

struct FusionGroup {
  std::vector<uint32_t> members;  // nodes in topological order, constants not included
  ir::Shape domain;
  int inner = 0;  // trailing dimensions of `domain` that reductions run over
  // Axes of `domain` that a column group's reductions run over: not the innermost one, and
  // set only when `inner` is 0 (a group has one of the two kinds of reduction, or none).
  uint32_t columns = 0;
  // Set for a matmul with its epilogue: members are the matmul, then the chain.
  std::optional<MatmulEpilogue> epilogue;
};

struct FusionResult {
  std::vector<FusionGroup> groups;
  std::vector<int32_t> group_of;  // per node: its group, or -1
  // Per node, why it is not in its producer's group ("" when it is, or has no producer that
  // could fuse); explain shows these as the fusion boundaries.
  std::vector<std::string> boundary;
  // Elementwise ops and reductions the code generator could not take, next to ops it could:
  // each splits what would have been one kernel (the profiler's fusion_break rule).
  std::vector<uint32_t> breaks;
};

// Per node of `nodes`: the first view member of `group` that the node's value passes through
// on the way to the group's domain, or kNoView (also for nodes outside the group). Members
// behind a view compute at the view's indices: their loads go through the pushed layout
// (view_layout.h, pushed_layout) of the views that follow from here.
inline constexpr uint32_t kNoView = 0xffffffffu;
std::vector<uint32_t> view_successors(std::span<const ir::Node> nodes, const FusionGroup& group);
// The views following `first` (view_successors' entry): `first`, its successor, and so on.
std::vector<const ir::Node*> view_chain(std::span<const ir::Node> nodes,
                                        std::span<const uint32_t> successors, uint32_t first);

// Groups the nodes `needed` marks. `nodes` are in topological order with inferred types;
// `outputs` are the values the caller reads.
FusionResult fuse(std::span<const ir::Node> nodes, const std::vector<bool>& needed,
                  std::span<const ir::ValueRef> outputs);

}  // namespace tensord::engine
