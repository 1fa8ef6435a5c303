// Row reductions in generated kernels: full blocks reduce with vector types, the row's tail
// with scalar lanes. Both must keep NaN propagation and infinities, and give the same values
// as the eager kernels whatever the row length.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/codegen/emitter.h"
#include "tests/unit/fusion/fusion_support.h"

using namespace tensord;
using namespace tensord::fusion_test;
using engine::CompileMode;
using ir::Attr;
using ir::Op;

namespace {

bool same_bits_or_both_nan(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

// The largest |a - b| / |b|: softmax's outputs are small, where max_rel_diff's 1 + |b| would
// hide any error.
double relative_error(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = a.size() == b.size() ? 0 : INFINITY;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double d = std::abs(static_cast<double>(a[i]) - b[i]);
    worst = std::max(worst, d / std::max(std::abs(static_cast<double>(b[i])), 1e-30));
  }
  return worst;
}

}  // namespace

TEST_CASE("row max, min and sum keep NaN and infinities in full blocks and the tail", "[fusion]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (int64_t cols : {int64_t{16}, int64_t{37}, int64_t{300}}) {
    INFO("cols " << cols);
    FusedEngine f;
    TestGraph g;
    ir::ValueRef x = g.input({6, cols});
    std::vector<float>& v = g.values[0];
    v[0 * cols + 3] = nan;         // row 0: NaN in the first (full) block
    v[1 * cols + cols - 1] = nan;  // row 1: NaN as the last element (the tail, if any)
    v[2 * cols + 5] = inf;         // row 2: +inf, then -inf: max inf, min -inf, sum NaN
    v[2 * cols + cols - 2] = -inf;
    v[3 * cols + cols / 2] = -inf;  // row 3: only -inf
    const ir::Attrs over_row{{Attr::axes, std::vector<int64_t>{1}}, {Attr::keepdim, true}};
    // Each reduction feeds an elementwise consumer so that it fuses (a lone node runs eagerly).
    auto reduce = [&](Op op) {
      ir::ValueRef e = g.add(Op::mul, {x, g.scalar(1)});
      return g.add(Op::add, {g.add(op, {e}, over_row), g.scalar(0)});
    };
    const std::vector<ir::ValueRef> outs{reduce(Op::max), reduce(Op::min), reduce(Op::sum)};
    const auto fused = run(f.engine, g, outs, CompileMode::Default);
    const auto eager = run(f.engine, g, outs, CompileMode::Eager);
    ir::Graph copy = g.graph;
    const auto plan = f.engine.plan_for(copy, g.types, outs, CompileMode::Default);
    REQUIRE(plan->groups.size() == 1);  // the three reductions share one row kernel
    CHECK(plan->groups[0].kernel.inner_rank == 1);
    for (int r = 0; r < 6; ++r) {
      INFO("row " << r);
      CHECK(same_bits_or_both_nan(fused[0][r], eager[0][r]));  // max
      CHECK(same_bits_or_both_nan(fused[1][r], eager[1][r]));  // min
      if (std::isnan(eager[2][r]) || std::isinf(eager[2][r])) {
        CHECK(same_bits_or_both_nan(fused[2][r], eager[2][r]));
      } else {
        CHECK(std::abs(fused[2][r] - eager[2][r]) <= 1e-5f * (1 + std::abs(eager[2][r])));
      }
    }
    CHECK(std::isnan(fused[0][0]));
    CHECK(std::isnan(fused[1][1]));
    CHECK(fused[0][2] == inf);
    CHECK(fused[1][2] == -inf);
    CHECK(std::isnan(fused[2][2]));
    CHECK(fused[1][3] == -inf);
  }
}

TEST_CASE("outputs past the streaming threshold (non-temporal stores) equal eager", "[fusion]") {
  FusedEngine f;
  // Rows of 2049: most blocks are not 64-byte aligned and take the ordinary stores, some are.
  TestGraph g;
  ir::ValueRef x = g.input({2048, 2049});
  ir::ValueRef sm = g.add(Op::softmax, {x}, {{Attr::axis, int64_t{-1}}});
  ir::ValueRef chain = g.add(Op::mul, {g.add(Op::exp, {g.add(Op::neg, {x})}), g.scalar(3)});
  const std::vector<ir::ValueRef> outs{sm, chain};
  const auto fused = run(f.engine, g, outs, CompileMode::Default);
  const auto eager = run(f.engine, g, outs, CompileMode::Eager);
  CHECK(max_rel_diff(fused[0], eager[0]) <= 1e-6);
  CHECK(max_rel_diff(fused[1], eager[1]) <= 1e-6);
}

// Values computed with a transcendental function in a reduction's pass and needed again later
// are kept in a scratch row when the row (all inner rows of one outer row) has at most 8192
// cells, and recomputed when it is longer; both variants, with and without a tail block, must
// equal eager.
TEST_CASE("scratch rows: softmax and a three-pass sigmoid kernel equal eager, kept or not",
          "[fusion]") {
  const ir::Attrs over_last{{Attr::axes, std::vector<int64_t>{-1}}, {Attr::keepdim, true}};
  const ir::Attrs over_last2{{Attr::axes, std::vector<int64_t>{-2, -1}}, {Attr::keepdim, true}};
  struct Case {
    ir::Shape shape;
    bool two_inner;  // reduce over the last two dimensions of a transposed input: they do
                     // not merge into one, so a row has several inner rows
  };
  for (const Case& c : {Case{{5, 37}, false}, Case{{3, 4096}, false}, Case{{2, 9000}, false},
                        Case{{3, 7, 100}, true}, Case{{2, 90, 100}, true}}) {
    INFO("shape " << c.shape.size() << "d, last " << c.shape.back() << ", two_inner "
                  << c.two_inner);
    FusedEngine f;
    TestGraph g;
    ir::ValueRef x = g.input(c.shape, -4, 4);
    if (c.two_inner) x = g.add(Op::permute, {x}, {{Attr::dims, std::vector<int64_t>{0, 2, 1}}});
    const ir::Attrs& over = c.two_inner ? over_last2 : over_last;
    // sigmoid(x) is summed (pass 1), its max taken (pass 2), then stored scaled (pass 3).
    ir::ValueRef s = g.add(Op::sigmoid, {x});
    ir::ValueRef sum = g.add(Op::sum, {s}, over);
    ir::ValueRef mx = g.add(Op::max, {g.add(Op::div, {s, sum})}, over);
    ir::ValueRef y = g.add(Op::mul, {g.add(Op::div, {s, sum}), mx});
    std::vector<ir::ValueRef> outs{y};
    if (!c.two_inner) outs.push_back(g.add(Op::softmax, {x}, {{Attr::axis, int64_t{-1}}}));
    const auto fused = run(f.engine, g, outs, CompileMode::Default);
    const auto eager = run(f.engine, g, outs, CompileMode::Eager);
    for (size_t o = 0; o < outs.size(); ++o) CHECK(relative_error(fused[o], eager[o]) <= 1e-5);

    ir::Graph copy = g.graph;
    const auto plan = f.engine.plan_for(copy, g.types, outs, CompileMode::Default);
    bool keeps = false;
    for (const engine::FusedGroup& grp : plan->groups) {
      const std::string src = codegen::CppEmitter{}.emit(grp.kernel).source;
      keeps = keeps || src.find("td_keep") != std::string::npos;
    }
    CHECK(keeps);
    if (c.two_inner) CHECK(plan->groups.back().kernel.inner_rank == 2);
  }
}

TEST_CASE("a row of only cheap values (layer_norm) keeps no scratch row", "[fusion]") {
  FusedEngine f;
  TestGraph g;
  ir::ValueRef x = g.input({4, 300});
  ir::ValueRef w = g.input({300});
  ir::ValueRef b = g.input({300});
  ir::ValueRef y = g.add(Op::layer_norm, {x, w, b}, {{Attr::normalized_ndim, int64_t{1}}});
  const std::vector<ir::ValueRef> outs{y};
  ir::Graph copy = g.graph;
  const auto plan = f.engine.plan_for(copy, g.types, outs, CompileMode::Default);
  REQUIRE(plan->groups.size() == 1);
  const std::string src = codegen::CppEmitter{}.emit(plan->groups[0].kernel).source;
  CHECK(src.find("td_keep") == std::string::npos);
  const auto fused = run(f.engine, g, outs, CompileMode::Default);
  const auto eager = run(f.engine, g, outs, CompileMode::Eager);
  CHECK(max_rel_diff(fused[0], eager[0]) <= 1e-5);
}
