// Generated code: the same graph gives the same source and hash; sizes are arguments, so
// shapes of one rank share a kernel; layouts that change the inner loop do not.
#include <catch2/catch.hpp>

#include <cstring>
#include <iterator>
#include <limits>
#include <sstream>

#include "engine/codegen/emitter.h"
#include "tests/unit/fusion/fusion_support.h"

using namespace tensord;
using namespace tensord::fusion_test;
using ir::Attr;
using ir::Op;

namespace {

std::vector<codegen::EmittedKernel> kernels_of(const TestGraph& g, ir::ValueRef out) {
  FusedEngine f;
  ir::Graph copy = g.graph;
  const std::vector<ir::ValueRef> outs{out};
  auto plan = f.engine.plan_for(copy, g.types, outs, engine::CompileMode::Default);
  std::vector<codegen::EmittedKernel> k;
  for (const engine::FusedGroup& grp : plan->groups)
    k.push_back(codegen::CppEmitter{}.emit(grp.kernel));
  return k;
}

TestGraph softmax_graph(const ir::Shape& shape, ir::ValueRef* out, bool transposed = false) {
  TestGraph g;
  ir::ValueRef x = g.input(shape);
  if (transposed) x = g.add(Op::permute, {x}, {{Attr::dims, std::vector<int64_t>{1, 0}}});
  *out = g.add(Op::softmax, {x}, {{Attr::axis, int64_t{-1}}});
  return g;
}

}  // namespace

TEST_CASE("the same graph generates the same source and hash", "[codegen]") {
  ir::ValueRef y;
  TestGraph g = softmax_graph({12, 40}, &y);
  auto a = kernels_of(g, y);
  auto b = kernels_of(g, y);
  REQUIRE(a.size() == 1);
  REQUIRE(b.size() == 1);
  CHECK(a[0].source == b[0].source);
  CHECK(a[0].hash == b[0].hash);
  CHECK(a[0].name == "td_" + codegen::hex64(a[0].hash));
  // No headers: the unit compiles in a fraction of a second.
  CHECK(codegen::CppEmitter{}.unit(a).find("#include") == std::string::npos);
}

TEST_CASE("shapes of one rank share a kernel; a strided inner loop does not", "[codegen]") {
  ir::ValueRef y1, y2, y3;
  auto small = kernels_of(softmax_graph({3, 7}, &y1), y1);
  auto large = kernels_of(softmax_graph({300, 1000}, &y2), y2);
  auto strided = kernels_of(softmax_graph({50, 60}, &y3, true), y3);
  REQUIRE(small.size() == 1);
  REQUIRE(large.size() == 1);
  REQUIRE(strided.size() == 1);
  CHECK(small[0].source == large[0].source);
  CHECK(small[0].source != strided[0].source);
}

TEST_CASE("constants are arguments: mean over different sizes shares a kernel", "[codegen]") {
  auto mean_of = [](int64_t n) {
    TestGraph g;
    ir::ValueRef x = g.input({4, n});
    ir::ValueRef y =
        g.add(Op::mean, {g.add(Op::exp, {x})}, {{Attr::axes, std::vector<int64_t>{1}}});
    return kernels_of(g, y);
  };
  auto a = mean_of(10);
  auto b = mean_of(1000);
  REQUIRE(a.size() == 1);
  REQUIRE(b.size() == 1);
  CHECK(a[0].source == b[0].source);
}

TEST_CASE("describe lists the loop IR", "[codegen]") {
  codegen::LoopKernel k;
  k.inputs.push_back({ir::DType::Float32, codegen::Level::Row, codegen::Access::Contiguous});
  codegen::Instr load;
  load.kind = codegen::Instr::Kind::Load;
  k.body.push_back(load);
  codegen::Instr e;
  e.op = Op::exp;
  e.args = {0};
  k.body.push_back(e);
  k.outputs.push_back({ir::DType::Float32, codegen::Level::Row, codegen::Access::Contiguous});
  k.results = {1};
  const std::string d = codegen::describe(k);
  CHECK(d.find("%1 = exp %0 : float32 row") != std::string::npos);
  CHECK(d.find("out0 = %1") != std::string::npos);
}

TEST_CASE("row kernels prefetch the next row in their second pass; pointwise ones do not",
          "[codegen]") {
  ir::ValueRef y;
  const auto rows = kernels_of(softmax_graph({8, 64}, &y), y);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].source.find("__builtin_prefetch(n0") != std::string::npos);
  TestGraph g;
  ir::ValueRef x = g.input({8, 64});
  ir::ValueRef e = g.add(Op::mul, {g.add(Op::exp, {x}), g.scalar(2)});
  const auto pointwise = kernels_of(g, e);
  REQUIRE(pointwise.size() == 1);
  CHECK(pointwise[0].source.find("__builtin_prefetch") == std::string::npos);
}

TEST_CASE("16-bit values only stored are not rounded before their store", "[codegen]") {
  // Eager kernels round every 16-bit result; a fused kernel rounds what a later instruction
  // reads, but not what only a store of its dtype reads: the store's conversion rounds alike.
  TestGraph g;
  const ir::Attrs to_f16{{Attr::dtype, ir::DType::Float16}};
  ir::ValueRef h = g.add(Op::cast, {g.input({8, 64})}, to_f16);  // read by exp: rounded
  ir::ValueRef e = g.add(Op::exp, {h});                          // read by mul: rounded
  ir::ValueRef y = g.add(Op::mul, {e, e});                       // only stored
  const auto k = kernels_of(g, y);
  REQUIRE(k.size() == 1);
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = k[0].source.find(what); at != std::string::npos;
         at = k[0].source.find(what, at + 1))
      ++n;
    return n;
  };
  INFO(k[0].source);
  // The body is written once for full blocks and once for the tail: one exp in each.
  const size_t copies = count("td_vexp(");
  CHECK(copies >= 1);
  CHECK(count("td_rh(") == 2 * copies);
}

TEST_CASE("float selects are bit blends, not branches", "[codegen]") {
  // GCC 12 kept `c ? a : b` over a bool lane (where), and two selects in a row (clamp), as
  // branches: a random sign mispredicted every other element (leaky_relu 4.8 ms a million
  // elements against 0.3 as a blend). where, relu, maximum, minimum and sign select by bits.
  TestGraph g;
  ir::ValueRef x = g.input({8, 64});
  ir::ValueRef y = g.add(Op::where, {g.add(Op::gt, {x, g.scalar(0)}), x, g.add(Op::neg, {x})});
  ir::ValueRef z = g.add(Op::minimum, {g.add(Op::maximum, {y, g.scalar(-1)}), g.scalar(1)});
  ir::ValueRef out = g.add(Op::sign, {g.add(Op::relu, {z})});
  const auto k = kernels_of(g, out);
  REQUIRE(k.size() == 1);
  INFO(k[0].source);
  // No lane computes with `?:` (the tail block's loads, `j < m ? ... : 0`, are not values).
  std::istringstream lines(k[0].source);
  for (std::string l; std::getline(lines, l);) {
    if (l.find("[j] = ") != std::string::npos && l.find("j < m ? ") == std::string::npos)
      CHECK(l.find(" ? ") == std::string::npos);
  }
  CHECK(k[0].source.find("td_self(") != std::string::npos);
  // And the values are eager's.
  FusedEngine f;
  const auto fused = run(f.engine, g, {out}, engine::CompileMode::Default);
  const auto eager = run(f.engine, g, {out}, engine::CompileMode::Eager);
  CHECK(fused == eager);
}

TEST_CASE("exp in generated kernels is the eager kernels' exp, bit for bit", "[codegen]") {
  // One text for both (engine/codegen/cpu_expf.inc): elementwise blocks (exp, sigmoid), a row
  // kernel (exp(x - max): a max is the same in any order, unlike softmax's sum), and the
  // specials, with tail blocks.
  TestGraph g;
  ir::ValueRef x = g.input({7, 61}, -110.0f, 95.0f);
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            inf,
                            -inf,
                            0.0f,
                            -0.0f,
                            88.72283f,
                            88.722839f,
                            -87.33655f,
                            -103.98f,
                            1e-40f};
  for (size_t i = 0; i < std::size(specials); ++i) g.values[0][i * 7] = specials[i];
  const ir::ValueRef e = g.add(Op::mul, {g.add(Op::exp, {x}), g.scalar(0.5)});
  const ir::ValueRef s = g.add(Op::add, {g.add(Op::sigmoid, {x}), g.scalar(1)});
  const ir::ValueRef row_max =
      g.add(Op::max, {x}, {{Attr::axes, std::vector<int64_t>{1}}, {Attr::keepdim, true}});
  const ir::ValueRef shifted = g.add(Op::exp, {g.add(Op::sub, {x, row_max})});
  FusedEngine f;
  int which = 0;
  for (ir::ValueRef out : {e, s, shifted}) {
    INFO("output " << which++ << " (exp, sigmoid, exp(x - max))");
    CHECK(kernels_of(g, out).size() == 1);  // fused, so the generated exp is the one run
    const auto fused = run(f.engine, g, {out}, engine::CompileMode::Default);
    const auto eager = run(f.engine, g, {out}, engine::CompileMode::Eager);
    REQUIRE(fused[0].size() == eager[0].size());
    size_t differ = 0;
    for (size_t i = 0; i < fused[0].size(); ++i) {
      differ += std::memcmp(&fused[0][i], &eager[0][i], sizeof(float)) != 0;
    }
    CHECK(differ == 0);
  }
}

TEST_CASE("long kernels keep their lane loops; they compute what eager does", "[codegen]") {
  // 100 elementwise ops and a row sum: one kernel of more than kLanesUnpeeledFrom
  // instructions, whose lane loops GCC must not peel (compile time), with the same results.
  TestGraph g;
  ir::ValueRef x = g.input({37, 70});
  ir::ValueRef y = x;
  for (int i = 0; i < 50; ++i) {
    y = g.add(Op::mul, {y, g.scalar(i % 2 ? 0.9 : 1.1)});
    y = g.add(i % 5 == 0 ? Op::maximum : Op::add, {y, i % 3 ? x : g.scalar(0.25)});
  }
  ir::ValueRef s = g.add(Op::sum, {y}, {{Attr::axes, std::vector<int64_t>{1}}});
  const auto k = kernels_of(g, s);
  REQUIRE(k.size() == 1);
  const std::string unpeeled = "#define TD_LANES _Pragma(\"GCC unroll 1\")";
  CHECK(k[0].source.find(unpeeled) != std::string::npos);
  ir::ValueRef z;
  const auto small = kernels_of(softmax_graph({12, 40}, &z), z);
  REQUIRE(small.size() == 1);
  CHECK(small[0].source.find(unpeeled) == std::string::npos);

  FusedEngine f;
  const auto fused = run(f.engine, g, {s, y});
  const auto eager = run(f.engine, g, {s, y}, engine::CompileMode::Eager);
  CHECK(fused[1] == eager[1]);
  CHECK(max_rel_diff(fused[0], eager[0]) < 1e-5);
}

TEST_CASE("large row outputs are stored non-temporally with the same values", "[codegen]") {
  // 4M cells and up take streaming stores for full blocks at a 64-byte boundary (the rest store
  // as usual): rows of 4096 are all aligned, rows of 1025 move in and out of alignment. x - max
  // is the same in any order, so fused equals eager bit for bit.
  for (const ir::Shape& shape : {ir::Shape{1024, 4096}, ir::Shape{4099, 1025}}) {
    INFO("shape " << shape[0] << " x " << shape[1]);
    TestGraph g;
    ir::ValueRef x = g.input(shape);
    const ir::ValueRef row_max =
        g.add(Op::max, {x}, {{Attr::axes, std::vector<int64_t>{1}}, {Attr::keepdim, true}});
    const ir::ValueRef out = g.add(Op::sub, {x, row_max});
    const std::vector<codegen::EmittedKernel> k = kernels_of(g, out);
    REQUIRE(k.size() == 1);
    CHECK(k[0].source.find("movntps") != std::string::npos);
    FusedEngine f;
    const auto fused = run(f.engine, g, {out}, engine::CompileMode::Default);
    const auto eager = run(f.engine, g, {out}, engine::CompileMode::Eager);
    CHECK(fused == eager);
  }
}
