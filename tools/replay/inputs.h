// Inputs for a replayed graph: the bytes the reproducer kept, else values from a fixed seed.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/exec/reproducer.h"
#include "engine/ir/shape.h"

namespace tensord::replay {

// Row-major bytes of a tensor of `type`: floats uniform in [-2, 2], integers in [-8, 8]
// (unsigned: [0, 16]), bools alternating; the same for the same (type, index).
std::vector<std::byte> input_bytes(const ir::TensorType& type, size_t index);

// Input `index` of `r`: its kept bytes, else input_bytes(type, index).
std::vector<std::byte> input_bytes(const engine::Reproducer& r, size_t index);

}  // namespace tensord::replay
