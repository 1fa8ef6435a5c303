// Non-contiguous inputs made inside the graph: an input node of a "base" shape followed by view
// ops (permute, slice with a step, expand) that give the op its logical shape.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "engine/ir/attrs.h"
#include "engine/ir/op.h"
#include "engine/ir/shape.h"

namespace tensord::conformance {

enum class Layout : uint8_t {
  Contiguous,
  Permuted,   // input of the reversed shape, permuted back (rank >= 2)
  Strided,    // last axis taken with slice(start 1, step 2) from a longer input
  Reversed,   // axis 0 taken with slice(step -1)
  Broadcast,  // the first axis of size != 1 is expanded from size 1 (stride 0)
  Mixed,      // slice(step -2) on one axis, then a reversing permute (rank >= 2)
  ChannelsLast,  // issue 4: (N, spatial..., C) permuted to (N, C, spatial...) (rank >= 3)
};
std::string_view name(Layout l);

struct ViewStep {
  ir::Op op;
  ir::Attrs attrs;
};

struct LayoutPlan {
  ir::Shape base;               // the graph input's shape
  std::vector<ViewStep> steps;  // applied in order, they give the logical shape
};

// How to produce `logical` with layout `l`; nullopt when the layout does not apply (a permute
// of a 0-d tensor, a broadcast of a tensor without a dim to broadcast).
std::optional<LayoutPlan> plan_layout(Layout l, const ir::Shape& logical);

}  // namespace tensord::conformance
