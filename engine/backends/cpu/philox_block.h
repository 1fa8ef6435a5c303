// ir::philox_element for a block of consecutive elements at once: the same ten rounds over
// vectors of lanes (AVX-512 or AVX2, a scalar loop elsewhere). One element at a time the
// generator ran 3.7x slower than NumPy's (rand of 4M float32: 23 ms, NumPy 6.3).
// The words are those of ir::philox_element, bit for bit (philox_block_test.cpp).
#pragma once

#include <cstdint>

#include "engine/ir/philox.h"

namespace tensord::cpu {

inline constexpr int kPhiloxLanes = 16;

// Word j of element first + i is r[j][i].
struct PhiloxBlock {
  uint32_t r[4][kPhiloxLanes];

  ir::Philox4x32 lane(int i) const { return {{r[0][i], r[1][i], r[2][i], r[3][i]}}; }
};

// The words of elements first ... first + kPhiloxLanes - 1 under `seed`. Compiled once, in
// philox_block.cpp, with the backend's instruction set.
void philox_block(uint64_t seed, uint64_t first, PhiloxBlock& w);

}  // namespace tensord::cpu
