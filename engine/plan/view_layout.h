// The layouts that the view ops (reshape, permute, expand, slice) give their outputs.
#pragma once

#include <optional>

#include "engine/ir/graph.h"
#include "engine/plan/layout.h"

namespace tensord::engine {

// The layout of `node`'s output over the buffer of its input, which has type `in_type` and
// layout `in`; nullopt when the node is a reshape that no strides can express (the input needs
// a contiguous copy first). Empty outputs get a contiguous layout at offset 0. `node` must be a
// validated node of kind View.
std::optional<Layout> view_layout(const ir::Node& node, const ir::TensorType& in_type,
                                  const Layout& in);

}  // namespace tensord::engine
