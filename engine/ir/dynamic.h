// Data-dependent output shapes (docs/design-notes.md "Data-dependent output shapes"). The ops
// below size their output from the values of their inputs, so inference cannot know one
// dimension: it holds kDynamic. Inference propagates such dimensions through later ops; the
// engine runs a graph up to each data-dependent node, reads the size, and plans the rest with
// it substituted. Nothing else in the IR produces kDynamic.
#pragma once

#include <algorithm>
#include <span>

#include "engine/ir/op.h"

namespace tensord::ir {

// A dimension only known once the graph runs.
inline constexpr int64_t kDynamic = -1;

inline bool has_dynamic(std::span<const int64_t> shape) {
  return std::find(shape.begin(), shape.end(), kDynamic) != shape.end();
}

inline bool is_data_dependent(Op op) {
  switch (op) {
    case Op::nonzero:
    case Op::flatnonzero:
    case Op::masked_select:
    case Op::unique:
    case Op::repeat_interleave_tensor:
      return true;
    default:
      return false;
  }
}

}  // namespace tensord::ir
