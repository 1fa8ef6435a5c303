// Issue 6: views inside an elementwise chain are pushed down to the group's loads, and
// reductions over leading (or middle) axes fuse as column kernels. Which groups form, why the
// others do not, that results equal eager's, that peak memory does not rise, and that the
// generated source is one kernel per access pattern (sizes are arguments).
#include <catch2/catch.hpp>

#include <numeric>

#include "engine/codegen/emitter.h"
#include "tests/unit/fusion/fusion_support.h"

using namespace tensord;
using namespace tensord::fusion_test;
using engine::CompileMode;
using engine::Plan;
using ir::Attr;
using ir::Op;
using Ints = std::vector<int64_t>;

namespace {

std::shared_ptr<const Plan> plan_of(engine::Engine& e, const TestGraph& g,
                                    std::vector<ir::ValueRef> outputs,
                                    CompileMode mode = CompileMode::Default) {
  ir::Graph copy = g.graph;
  return e.plan_for(copy, g.types, outputs, mode);
}

size_t slot_bytes(const Plan& p) {
  return std::accumulate(p.slot_bytes.begin(), p.slot_bytes.end(), size_t{0});
}

std::string reasons(const Plan& p) {
  std::string s;
  for (const std::string& b : p.boundaries) {
    if (!b.empty()) s += b + "\n";
  }
  return s;
}

// Fused equals eager, and the fused plan's buffers are no larger.
void check_same(FusedEngine& f, const TestGraph& g, const std::vector<ir::ValueRef>& outs,
                double tol = 1e-5) {
  const auto fused = run(f.engine, g, outs, CompileMode::Default);
  const auto eager = run(f.engine, g, outs, CompileMode::Eager);
  REQUIRE(fused.size() == eager.size());
  for (size_t i = 0; i < fused.size(); ++i) CHECK(max_rel_diff(fused[i], eager[i]) <= tol);
  CHECK(slot_bytes(*plan_of(f.engine, g, outs)) <=
        slot_bytes(*plan_of(f.engine, g, outs, CompileMode::Eager)));
}

ir::ValueRef T(TestGraph& g, ir::ValueRef x) {
  return g.add(Op::permute, {x}, {{Attr::dims, Ints{1, 0}}});
}

}  // namespace

TEST_CASE("a transpose inside a chain joins the group: (a * b).T * c is one kernel", "[fusion]") {
  FusedEngine f;
  TestGraph g;
  ir::ValueRef a = g.input({13, 29});
  ir::ValueRef b = g.input({29});  // broadcast before the transpose
  ir::ValueRef c = g.input({29, 13});
  ir::ValueRef y = g.add(Op::mul, {T(g, g.add(Op::mul, {a, b})), c});
  ir::ValueRef z = g.add(Op::exp, {y});
  auto plan = plan_of(f.engine, g, {z});
  INFO(reasons(*plan));
  REQUIRE(plan->groups.size() == 1);
  CHECK(plan->steps.size() == 1);
  CHECK(plan->groups[0].members.size() == 4);  // mul, permute, mul, exp
  CHECK(reasons(*plan).empty());
  // a is read through the transpose: strided along the innermost dimension.
  bool strided = false;
  for (const auto& in : plan->groups[0].kernel.inputs)
    strided |= in.access == codegen::Access::Strided;
  CHECK(strided);
  check_same(f, g, {z});
}

TEST_CASE("slices, expand of cheap ops and reshapes with strides join; the rest say why",
          "[fusion]") {
  FusedEngine f;
  SECTION("slice with a step, then a consumer of the sliced shape") {
    TestGraph g;
    ir::ValueRef a = g.input({11, 9});
    ir::ValueRef s = g.add(Op::slice, {g.add(Op::add, {a, g.scalar(1)})},
                           {{Attr::axis, int64_t{0}},
                            {Attr::start, int64_t{1}},
                            {Attr::stop, int64_t{-1}},
                            {Attr::step, int64_t{3}}});
    ir::ValueRef y = g.add(Op::mul, {s, g.input({3, 9})});
    auto plan = plan_of(f.engine, g, {y});
    CHECK(plan->groups.size() == 1);
    check_same(f, g, {y});
  }
  SECTION("expand of a cheap chain is recomputed; of exp it is a boundary") {
    TestGraph g;
    ir::ValueRef a = g.input({1, 17});
    ir::ValueRef cheap = g.add(Op::expand, {g.add(Op::mul, {a, a})}, {{Attr::shape, Ints{6, 17}}});
    ir::ValueRef y = g.add(Op::sub, {cheap, g.input({6, 17})});
    ir::ValueRef costly =
        g.add(Op::expand, {g.add(Op::exp, {g.add(Op::neg, {a})})}, {{Attr::shape, Ints{6, 17}}});
    ir::ValueRef z = g.add(Op::add, {costly, g.input({6, 17})});
    auto plan = plan_of(f.engine, g, {y, z});
    const std::string why = reasons(*plan);
    INFO(why);
    CHECK(why.find("expand of a fused exp") != std::string::npos);
    CHECK(plan->groups.size() == 2);  // mul+expand+sub; exp(neg a) (the add runs alone)
    check_same(f, g, {y, z});
  }
  SECTION("a reshape with strides joins; one that needs a copy says so") {
    TestGraph g;
    ir::ValueRef a = g.input({6, 10});
    ir::ValueRef r =
        g.add(Op::reshape, {g.add(Op::mul, {a, g.scalar(2)})}, {{Attr::shape, Ints{3, 20}}});
    ir::ValueRef y = g.add(Op::add, {r, g.input({3, 20})});
    // x.T * 2 viewed as [60]: the transposed input has no strides for that reshape.
    ir::ValueRef x = g.input({10, 6});
    ir::ValueRef flat =
        g.add(Op::reshape, {g.add(Op::mul, {T(g, x), g.scalar(2)})}, {{Attr::shape, Ints{60}}});
    ir::ValueRef z = g.add(Op::add, {flat, g.input({60})});
    auto plan = plan_of(f.engine, g, {y, z});
    const std::string why = reasons(*plan);
    INFO(why);
    CHECK(why.find("reshape that has no strides") != std::string::npos);
    bool y_fused = false;
    for (const auto& grp : plan->groups) y_fused |= grp.members.size() == 3;
    CHECK(y_fused);
    check_same(f, g, {y, z});
  }
  SECTION("a view of a value that is also read elsewhere is not pushed down") {
    TestGraph g;
    ir::ValueRef a = g.input({7, 7});
    ir::ValueRef p = g.add(Op::exp, {a});
    ir::ValueRef y = g.add(Op::add, {T(g, p), g.input({7, 7})});
    auto plan = plan_of(f.engine, g, {y, p});  // p is an output too
    CHECK(reasons(*plan).find("compute it twice") != std::string::npos);
    check_same(f, g, {y, p});
  }
}

TEST_CASE("reductions over leading and middle axes fuse as column kernels", "[fusion]") {
  FusedEngine f;
  SECTION("mean over axis 0 after a chain, keepdim false, odd sizes") {
    TestGraph g;
    ir::ValueRef x = g.input({37, 19});
    ir::ValueRef e = g.add(Op::mul, {g.add(Op::exp, {x}), g.input({19})});
    ir::ValueRef m = g.add(Op::mean, {e}, {{Attr::axes, Ints{0}}});
    ir::ValueRef y = g.add(Op::add, {m, g.input({19})});
    auto plan = plan_of(f.engine, g, {y});
    INFO(reasons(*plan));
    REQUIRE(plan->groups.size() == 1);
    CHECK(plan->groups[0].kernel.columns);
    CHECK(plan->steps.size() == 1);
    check_same(f, g, {y});
  }
  SECTION("sum over the middle axis, and a bias gradient with the row output stored too") {
    TestGraph g;
    ir::ValueRef x = g.input({5, 7, 33});
    ir::ValueRef s = g.add(Op::sum, {g.add(Op::relu, {x})}, {{Attr::axes, Ints{1}}});
    ir::ValueRef y = g.add(Op::mul, {s, g.scalar(0.5)});
    ir::ValueRef d = g.input({40, 21});
    ir::ValueRef grad = g.add(Op::mul, {d, g.scalar(3)});
    ir::ValueRef bias = g.add(Op::sum, {grad}, {{Attr::axes, Ints{0}}, {Attr::keepdim, true}});
    auto plan = plan_of(f.engine, g, {y, bias, grad});
    REQUIRE(plan->groups.size() == 2);
    CHECK(plan->groups[0].kernel.columns);
    CHECK(plan->groups[1].kernel.columns);
    CHECK(plan->groups[1].kernel.outputs.size() == 2);  // grad (row) and bias (per column)
    check_same(f, g, {y, bias, grad});
  }
  SECTION("a row value reading the column result starts its own group") {
    TestGraph g;
    ir::ValueRef x = g.input({9, 12});
    ir::ValueRef m =
        g.add(Op::sum, {g.add(Op::exp, {x})}, {{Attr::axes, Ints{0}}, {Attr::keepdim, true}});
    ir::ValueRef y = g.add(Op::sub, {g.add(Op::exp, {x}), m});
    auto plan = plan_of(f.engine, g, {y});
    CHECK(plan->groups.size() == 1);  // exp+sum; the sub runs alone (it reads x twice)
    check_same(f, g, {y});
  }
  SECTION("logsumexp over axis 0: the max's group and the sum's stay apart (one pass each)") {
    // log(sum(exp(x - max))) + max: the final add reads both column groups; merged, the
    // sub would read the max inside the kernel that computes it (a second pass).
    TestGraph g;
    ir::ValueRef x = g.input({57, 63});
    ir::ValueRef m = g.add(Op::max, {x}, {{Attr::axes, Ints{0}}, {Attr::keepdim, true}});
    ir::ValueRef e = g.add(Op::exp, {g.add(Op::sub, {x, m})});
    ir::ValueRef s = g.add(Op::sum, {e}, {{Attr::axes, Ints{0}}, {Attr::keepdim, true}});
    ir::ValueRef y = g.add(Op::add, {g.add(Op::log, {s}), m});
    auto plan = plan_of(f.engine, g, {y});
    INFO(reasons(*plan));
    CHECK(plan->groups.size() == 1);  // exp(x - max) summed, log, + max; the max runs alone
    CHECK(plan->steps.size() == 2);
    CHECK(reasons(*plan).find("one pass") != std::string::npos);
    check_same(f, g, {y});
  }
  SECTION("transpose in the middle, then a column sum: one kernel") {
    TestGraph g;
    ir::ValueRef a = g.input({21, 35});
    ir::ValueRef t = T(g, g.add(Op::exp, {g.add(Op::mul, {a, g.scalar(0.5)})}));
    ir::ValueRef s =
        g.add(Op::sum, {g.add(Op::add, {t, g.input({35, 21})})}, {{Attr::axes, Ints{0}}});
    auto plan = plan_of(f.engine, g, {s});
    INFO(reasons(*plan));
    REQUIRE(plan->groups.size() == 1);
    CHECK(plan->steps.size() == 1);
    CHECK(plan->groups[0].kernel.columns);
    check_same(f, g, {s});
  }
}

TEST_CASE("view and column kernels: one source per access pattern, stable text", "[fusion]") {
  FusedEngine f;
  auto kernel_of = [&](int64_t n, int64_t c) {
    TestGraph g;
    ir::ValueRef a = g.input({n, c});
    ir::ValueRef t = T(g, g.add(Op::exp, {a}));
    ir::ValueRef s =
        g.add(Op::sum, {g.add(Op::mul, {t, g.input({c, n})})}, {{Attr::axes, Ints{0}}});
    auto plan = plan_of(f.engine, g, {s});
    REQUIRE(plan->groups.size() == 1);
    return codegen::CppEmitter().emit(plan->groups[0].kernel);
  };
  const codegen::EmittedKernel k1 = kernel_of(37, 19), k2 = kernel_of(64, 33);
  CHECK(k1.name == k2.name);  // sizes and strides are arguments
  CHECK(k1.source == kernel_of(37, 19).source);
  CHECK(k1.source.find("inner_cells") != std::string::npos);
}
