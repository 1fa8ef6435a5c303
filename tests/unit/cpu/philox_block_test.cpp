// The block generator gives ir::philox_element's words bit for bit, across the 2^32 boundary of
// the counter's low word and at any starting offset.
#include <catch2/catch.hpp>

#include <cstdint>
#include <initializer_list>

#include "engine/backends/cpu/philox_block.h"
#include "engine/ir/philox.h"

namespace tensord::cpu {
namespace {

TEST_CASE("philox_block equals philox_element lane for lane") {
  for (uint64_t seed : {uint64_t{0}, uint64_t{7}, uint64_t{0x0123456789abcdefull}}) {
    for (uint64_t first : {uint64_t{0}, uint64_t{3}, (uint64_t{1} << 32) - 5, uint64_t{1} << 40}) {
      PhiloxBlock w;
      philox_block(seed, first, w);
      for (int i = 0; i < kPhiloxLanes; ++i) {
        const ir::Philox4x32 e = ir::philox_element(seed, first + static_cast<uint64_t>(i));
        for (int j = 0; j < 4; ++j) REQUIRE(w.r[j][i] == e.r[j]);
      }
    }
  }
}

}  // namespace
}  // namespace tensord::cpu
