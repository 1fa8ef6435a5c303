// The layouts that the view ops (reshape, permute, expand, slice) give their outputs.
#pragma once

#include <optional>
#include <span>

#include "engine/ir/graph.h"
#include "engine/plan/layout.h"

namespace tensord::engine {

// The layout of `node`'s output over the buffer of its input, which has type `in_type` and
// layout `in`; nullopt when the node is a reshape that no strides can express (the input needs
// a contiguous copy first). Empty outputs get a contiguous layout at offset 0. `node` must be a
// validated node of kind View.
std::optional<Layout> view_layout(const ir::Node& node, const ir::TensorType& in_type,
                                  const Layout& in);

// A view pushed down to a fused group's load (fusion.h): the layout under which the value `x`
// (type and layout), broadcast to `shape` (the shape of the group member reading it) and then
// seen through `views` in order, is read; nullopt when some reshape among them has no strides
// for it (it would need a copy). Elementwise ops commute with views, so loading the group's
// inputs this way computes the view of the group's value without storing that value.
std::optional<Layout> pushed_layout(std::span<const ir::Node* const> views, const ir::TensorType& x,
                                    const Layout& x_layout, const ir::Shape& shape);

}  // namespace tensord::engine
