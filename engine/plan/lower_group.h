// Lowering a fusion group to the loop IR, with this plan's sizes and strides as the launch.
#pragma once

#include <span>
#include <vector>

#include "engine/plan/fusion.h"
#include "engine/plan/plan.h"

namespace tensord::engine {

// `inputs` are the values the group reads from outside (not constants), `input_values` their
// plan values (types and layouts); `outputs` the member nodes whose values leave the group,
// each written contiguously (a column group's domain is its kept axes, then the reduced ones;
// sizes and strides follow that order). Dimensions every operand walks contiguously across are
// merged, so the kernel's ranks are those of the layouts, not of the shapes. `input_via` (empty:
// none) gives per input the view member (fusion.h's view_successors) its readers' values pass
// through: such an input is read by the members behind that view, and its plan value is the pushed
// layout over the group's domain (view_layout.h), not the input's own.
FusedGroup lower_group(std::span<const ir::Node> nodes, const FusionGroup& group,
                       std::span<const ir::ValueRef> inputs,
                       std::span<const PlanValue* const> input_values,
                       std::span<const uint32_t> outputs, std::span<const uint32_t> input_via = {});

}  // namespace tensord::engine
