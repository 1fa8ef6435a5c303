#include <catch2/catch.hpp>

#include "engine/ir/philox.h"

namespace tensord::ir {
namespace {

TEST_CASE("philox4x32-10 matches the Random123 known-answer vectors") {
  Philox4x32 zero = philox4x32_10(Philox4x32{{0, 0, 0, 0}}, 0, 0);
  CHECK(zero.r[0] == 0x6627e8d5u);
  CHECK(zero.r[1] == 0xe169c58du);
  CHECK(zero.r[2] == 0xbc57ac4cu);
  CHECK(zero.r[3] == 0x9b00dbd8u);

  Philox4x32 ones = philox4x32_10(Philox4x32{{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}},
                                  0xffffffffu, 0xffffffffu);
  CHECK(ones.r[0] == 0x408f276du);
  CHECK(ones.r[1] == 0x41c83b0eu);
  CHECK(ones.r[2] == 0xa20bc7c6u);
  CHECK(ones.r[3] == 0x6d5451fdu);

  Philox4x32 pi = philox4x32_10(Philox4x32{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}},
                                0xa4093822u, 0x299f31d0u);
  CHECK(pi.r[0] == 0xd16cfe09u);
  CHECK(pi.r[1] == 0x94fdccebu);
  CHECK(pi.r[2] == 0x5001e420u);
  CHECK(pi.r[3] == 0x24126ea1u);
}

TEST_CASE("philox elements use the index as counter and the seed as key") {
  uint64_t seed = 0x0123456789abcdefull, index = 0x0000000500000007ull;
  Philox4x32 direct = philox4x32_10(Philox4x32{{7, 5, 0, 0}}, 0x89abcdefu, 0x01234567u);
  Philox4x32 element = philox_element(seed, index);
  for (int i = 0; i < 4; ++i) CHECK(element.r[i] == direct.r[i]);
}

TEST_CASE("philox samples follow the documented formulas") {
  Philox4x32 w{{0xffffffffu, 0xffffffffu, 0, 0}};
  CHECK(philox_uniform24(w) == 1.0f - 0x1p-24f);
  CHECK(philox_uniform53(w) == 1.0 - 0x1p-53);
  Philox4x32 zero{{0, 0, 0, 0}};
  CHECK(philox_uniform24(zero) == 0.0f);
  // u1 = 2^-53, u2 = 0: z = sqrt(-2 ln 2^-53).
  CHECK(philox_normal(zero) == Approx(std::sqrt(106.0 * std::log(2.0))));
}

}  // namespace
}  // namespace tensord::ir
