// The block forms of special_blocks.h against their scalar functions (special_functions.h),
// element for element, over grids that cross every branch, and on the edge cases that go
// through the scalar function.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/backends/cpu/convert.h"
#include "engine/backends/cpu/special_blocks.h"
#include "engine/backends/cpu/special_functions.h"

namespace tensord::cpu::special {
namespace {

// f_block over `xs`, a block at a time.
template <void (*Block)(const double*, double*, int64_t)>
std::vector<double> blocks(const std::vector<double>& xs) {
  std::vector<double> out(xs.size());
  for (size_t i = 0; i < xs.size(); i += kBlock) {
    const auto m = static_cast<int64_t>(std::min<size_t>(kBlock, xs.size() - i));
    Block(xs.data() + i, out.data() + i, m);
  }
  return out;
}

TEST_CASE("digamma_block equals digamma within 4e-15 (absolute below 1) on (0, 1e6]") {
  std::vector<double> xs;
  for (int i = 1; i <= 40000; ++i) xs.push_back(i * 0.001);  // every shift, the root at 1.46
  for (double x = 40; x < 1e6; x *= 1.01) xs.push_back(x);
  for (double x : {1e-300, 1e-12, 1e-5, 9.999999999999998, 10.0, 1e300}) xs.push_back(x);
  const std::vector<double> got = blocks<digamma_block>(xs);
  double worst = 0, at = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = digamma(xs[i]);
    const double err = std::fabs(got[i] - want) / std::max(std::fabs(want), 1.0);
    if (err > worst) worst = err, at = xs[i];
  }
  INFO("worst " << worst << " at x = " << at);
  CHECK(worst < 4e-15);
}

TEST_CASE("digamma_block's edge cases are the scalar function's") {
  const double inf = std::numeric_limits<double>::infinity(), nan = NAN;
  const std::vector<double> xs{0.0,     -0.0,  -1,  -2,   -0.5, -2.5,
                               -1e-300, -1e10, inf, -inf, nan,  5e-324};
  const std::vector<double> got = blocks<digamma_block>(xs);
  for (size_t i = 0; i < xs.size(); ++i) {
    INFO("x = " << xs[i]);
    const double want = digamma(xs[i]);
    if (std::isnan(want)) {
      CHECK(std::isnan(got[i]));
    } else {
      CHECK(got[i] == want);
    }
  }
}

}  // namespace
}  // namespace tensord::cpu::special
