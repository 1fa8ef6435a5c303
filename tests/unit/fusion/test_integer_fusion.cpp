// Integer elementwise ops (and the division family, //, % and fmod, on floats too) and
// prod/argmax/argmin in generated kernels (issue 6): what the code
// generators can express, that such chains become one kernel, that the kernel gives the eager
// kernels' bits (division by zero, MIN / -1, out-of-range shifts, saturating casts, first index
// on ties, the first NaN), and the reasons explain gives where they still cannot fuse.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/codegen/emit_cuda.h"
#include "engine/codegen/loop_ir.h"
#include "tests/unit/fusion/fusion_support.h"

using namespace tensord;
using namespace tensord::fusion_test;
using engine::CompileMode;
using ir::Attr;
using ir::DType;
using ir::Op;

namespace {

// A graph with inputs of any dtype, given as raw bytes.
struct RawGraph {
  ir::Graph graph;
  std::vector<std::vector<char>> bytes;
  std::vector<ir::TensorType> types;

  template <typename T>
  ir::ValueRef input(DType t, ir::Shape shape, const std::vector<T>& values) {
    const ir::TensorType type{t, std::move(shape)};
    REQUIRE(static_cast<int64_t>(values.size()) == type.numel());
    REQUIRE(sizeof(T) == ir::itemsize(t));
    std::vector<char> b(values.size() * sizeof(T));
    std::memcpy(b.data(), values.data(), b.size());
    const auto index = static_cast<uint32_t>(bytes.size());
    bytes.push_back(std::move(b));
    types.push_back(type);
    return graph.add_input(index, type);
  }
  ir::ValueRef add(Op op, std::vector<ir::ValueRef> in, ir::Attrs attrs = {}) {
    return graph.add(op, std::move(in), std::move(attrs));
  }
  ir::ValueRef constant(DType t, ir::AttrValue v) {
    return graph.add(Op::full, {},
                     {{Attr::shape, ir::Shape{}}, {Attr::value, std::move(v)}, {Attr::dtype, t}});
  }
  ir::ValueRef cast(ir::ValueRef x, DType t) { return add(Op::cast, {x}, {{Attr::dtype, t}}); }
};

std::vector<std::vector<char>> run_raw(engine::Engine& e, const RawGraph& g,
                                       const std::vector<ir::ValueRef>& outputs, CompileMode mode) {
  std::vector<engine::TensorValue> inputs;
  for (size_t i = 0; i < g.bytes.size(); ++i) {
    auto buffer = e.backend().allocate(std::max<size_t>(1, g.bytes[i].size()));
    e.backend().write(*buffer, 0, g.bytes[i].data(), g.bytes[i].size());
    inputs.push_back(engine::TensorValue::contiguous(std::move(buffer), g.types[i]));
  }
  std::vector<engine::TensorValue> out = e.run(g.graph, inputs, outputs, mode);
  std::vector<std::vector<char>> result;
  for (const engine::TensorValue& v : out) {
    std::vector<char> host(v.nbytes());
    e.backend().read(*v.buffer, 0, host.data(), host.size());
    result.push_back(std::move(host));
  }
  return result;
}

std::shared_ptr<const engine::Plan> plan_of(engine::Engine& e, const RawGraph& g,
                                            std::vector<ir::ValueRef> outputs) {
  ir::Graph copy = g.graph;
  return e.plan_for(copy, g.types, outputs, CompileMode::Default);
}

template <typename T>
std::vector<T> as(const std::vector<char>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

// Runs `outs` fused and eager and checks that every output has the same bytes; the fused ones.
std::vector<std::vector<char>> fused_like_eager(engine::Engine& e, const RawGraph& g,
                                                const std::vector<ir::ValueRef>& outs) {
  const auto fused = run_raw(e, g, outs, CompileMode::Default);
  const auto eager = run_raw(e, g, outs, CompileMode::Eager);
  REQUIRE(fused.size() == eager.size());
  for (size_t i = 0; i < fused.size(); ++i) {
    INFO("output " << i);
    CHECK(fused[i] == eager[i]);
  }
  return fused;
}

// Every boundary reason of a plan, one per line.
std::string reasons(const engine::Plan& p) {
  std::string s;
  for (const std::string& b : p.boundaries) {
    if (!b.empty()) s += b + "\n";
  }
  return s;
}

constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();

}  // namespace

TEST_CASE("integer ops, prod, argmax and argmin are expressible; what is not stays out",
          "[fusion][codegen]") {
  using codegen::expressible;
  using codegen::expressible_reduction;
  const DType i32[] = {DType::Int32, DType::Int32};
  CHECK(expressible(Op::add, i32, DType::Int32));
  CHECK(expressible(Op::floor_divide, i32, DType::Int32));
  CHECK(expressible(Op::remainder, i32, DType::Int32));
  CHECK(expressible(Op::bitwise_left_shift, i32, DType::Int32));
  CHECK(expressible(Op::lt, i32, DType::Bool));
  CHECK(expressible(Op::div, i32, DType::Float32));  // true division
  const DType i8_u8[] = {DType::Int8, DType::UInt8};
  CHECK(expressible(Op::mul, i8_u8, DType::Int16));  // the promoted dtype
  const DType i64[] = {DType::Int64};
  CHECK(expressible(Op::cast, i64, DType::Float16));
  CHECK(expressible(Op::neg, i64, DType::Int64));
  const DType f32[] = {DType::Float32};
  CHECK(expressible(Op::cast, f32, DType::UInt8));
  // Wrong result dtypes, float-only ops on integers and complex stay out.
  CHECK_FALSE(expressible(Op::add, i32, DType::Int64));
  CHECK_FALSE(expressible(Op::exp, i64, DType::Int64));
  CHECK(expressible(Op::exp, i64, DType::Float32));  // converted first, as eager does
  const DType f32x2[] = {DType::Float32, DType::Float32};
  CHECK_FALSE(expressible(Op::floor_divide, f32x2, DType::Int32));
  const DType c64[] = {DType::Complex64};
  CHECK_FALSE(expressible(Op::neg, c64, DType::Complex64));

  CHECK(expressible_reduction(Op::prod, DType::Float32, DType::Float32));
  CHECK(expressible_reduction(Op::prod, DType::Int8, DType::Int64));
  CHECK(expressible_reduction(Op::sum, DType::Int32, DType::Int64));
  CHECK(expressible_reduction(Op::max, DType::Int16, DType::Int16));
  CHECK(expressible_reduction(Op::argmax, DType::Float16, DType::Int64));
  CHECK(expressible_reduction(Op::argmin, DType::UInt8, DType::Int64));
  CHECK_FALSE(expressible_reduction(Op::argmax, DType::Bool, DType::Int64));
  CHECK(expressible_reduction(Op::sum, DType::Bool, DType::Int64));
  CHECK_FALSE(expressible_reduction(Op::prod, DType::Int32, DType::Int32));
  CHECK_FALSE(expressible_reduction(Op::any, DType::Bool, DType::Bool));

  // Fusion uses expressible() for every backend: the CUDA emitter must take all of it.
  for (Op op : {Op::add, Op::sub, Op::mul, Op::floor_divide, Op::remainder, Op::fmod, Op::pow,
                Op::bitwise_and, Op::bitwise_xor, Op::bitwise_left_shift, Op::bitwise_right_shift,
                Op::maximum, Op::minimum, Op::eq, Op::ge}) {
    for (DType t : {DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64}) {
      const DType in[] = {t, t};
      const DType out = op == Op::eq || op == Op::ge ? DType::Bool : t;
      INFO(ir::name(op) << " " << ir::name(t));
      CHECK(expressible(op, in, out));
      CHECK(codegen::cuda_expressible(op, in, out));
    }
  }
  for (Op op : {Op::sum, Op::prod, Op::max, Op::min, Op::argmax, Op::argmin}) {
    for (DType t : {DType::Int8, DType::Int64, DType::Float16, DType::Float64}) {
      const DType out = op == Op::argmax || op == Op::argmin                   ? DType::Int64
                        : ir::is_floating(t) || op == Op::max || op == Op::min ? t
                                                                               : DType::Int64;
      INFO(ir::name(op) << " " << ir::name(t));
      CHECK(expressible_reduction(op, t, out));
      CHECK(codegen::cuda_expressible_reduction(op, t, out));
    }
  }
}

TEST_CASE(
    "an integer chain with division by zero, MIN / -1 and wide shifts is one kernel "
    "with eager's bits",
    "[fusion]") {
  FusedEngine f;
  RawGraph g;
  // Pairs (a, b) meeting every defined edge: b = 0, MIN / -1, negative operands of either sign.
  const std::vector<int32_t> a{kMin32, kMin32, 7, -7, 7, -7, 0, kMax32, 5, -1, 1 << 30, 123456};
  const std::vector<int32_t> b{-1, 0, 2, 2, -2, -2, 0, -1, 31, 32, 33, -3};
  ir::ValueRef x = g.input(DType::Int32, {3, 4}, a);
  ir::ValueRef y = g.input(DType::Int32, {3, 4}, b);
  ir::ValueRef q = g.add(Op::floor_divide, {x, y});
  ir::ValueRef r = g.add(Op::remainder, {x, y});
  ir::ValueRef m = g.add(Op::fmod, {x, y});
  ir::ValueRef s = g.add(Op::bitwise_xor, {g.add(Op::bitwise_left_shift, {x, y}),
                                           g.add(Op::bitwise_right_shift, {x, y})});
  ir::ValueRef w = g.add(Op::mul, {g.add(Op::add, {q, r}), g.add(Op::sub, {m, s})});  // wraps
  ir::ValueRef n = g.add(Op::abs, {g.add(Op::neg, {w})});
  ir::ValueRef p = g.add(Op::pow, {y, g.constant(DType::Int32, int64_t{3})});
  ir::ValueRef c = g.add(
      Op::where, {g.add(Op::lt, {x, y}), g.add(Op::maximum, {n, p}), g.add(Op::minimum, {n, p})});
  // Casts: int32 -> int8 wraps, -> float16 rounds once, float -> uint8 truncates and saturates.
  ir::ValueRef c8 = g.cast(c, DType::Int8);
  ir::ValueRef h = g.cast(x, DType::Float16);
  ir::ValueRef u = g.cast(g.add(Op::div, {x, y}), DType::UInt8);  // true division, then cast
  ir::ValueRef out = g.add(Op::add, {g.cast(c8, DType::Int64), g.cast(u, DType::Int64)});
  const std::vector<ir::ValueRef> outs{out, h, q, r};
  const auto plan = plan_of(f.engine, g, outs);
  INFO(reasons(*plan));
  CHECK(plan->groups.size() == 1);
  CHECK(plan->fusion_breaks.empty());
  const auto fused = fused_like_eager(f.engine, g, outs);
  // Python's semantics, with the defined cases: MIN // -1 wraps to MIN, x // 0 = x % 0 = 0.
  const auto fq = as<int32_t>(fused[2]), fr = as<int32_t>(fused[3]);
  CHECK(fq[0] == kMin32);
  CHECK(fq[1] == 0);
  CHECK(fr[1] == 0);
  CHECK(fq[3] == -4);  // -7 // 2
  CHECK(fr[3] == 1);   // -7 % 2
  CHECK(fr[4] == -1);  // 7 % -2
}

// Python's // and % and C's fmod on floats: the quotient in double, rounded once; x / 0, signed
// zeros, infinities and NaNs as eager gives them (docs/ops.md).
TEST_CASE("float floor_divide, remainder and fmod fuse with eager's bits", "[fusion]") {
  for (DType t : {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64}) {
    INFO(ir::name(t));
    const DType in[] = {t, t};
    CHECK(codegen::expressible(Op::floor_divide, in, t));
    CHECK(codegen::expressible(Op::remainder, in, t));
    CHECK(codegen::expressible(Op::fmod, in, t));
    CHECK(codegen::cuda_expressible(Op::floor_divide, in, t));
    CHECK(codegen::cuda_expressible(Op::remainder, in, t));
    CHECK(codegen::cuda_expressible(Op::fmod, in, t));
  }
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> a{7,    -7,  7, -7,   5.5,    -0.0, 0.0, 1,    -1,  inf,
                              -inf, nan, 3, 1e30, -1e-30, 7.5,  2.5, -2.5, 0.1, 123456.789};
  const std::vector<double> b{2, 2, -2,  -2, 0.0, 3,    -3,  0.0, -0.0, 2,
                              3, 1, inf, 3,  7,   -inf, 0.5, 0.5, 0.03, -0.7};
  for (DType t : {DType::Float32, DType::Float16, DType::Float64}) {
    INFO(ir::name(t));
    FusedEngine f;
    RawGraph g;
    const auto n = static_cast<int64_t>(a.size());
    ir::ValueRef x, y;
    if (t == DType::Float64) {
      x = g.input(t, {n}, a);
      y = g.input(t, {n}, b);
    } else {  // float32 inputs, cast inside the graph
      std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
      x = g.cast(g.input(DType::Float32, {n}, af), t);
      y = g.cast(g.input(DType::Float32, {n}, bf), t);
    }
    ir::ValueRef q = g.add(Op::floor_divide, {x, y});
    ir::ValueRef r = g.add(Op::remainder, {x, y});
    ir::ValueRef m = g.add(Op::fmod, {g.add(Op::mul, {x, q}), y});
    ir::ValueRef z = g.add(Op::add, {g.add(Op::remainder, {r, g.add(Op::abs, {y})}), m});
    const std::vector<ir::ValueRef> outs{q, r, m, z};
    const auto plan = plan_of(f.engine, g, outs);
    INFO(reasons(*plan));
    CHECK(plan->groups.size() == 1);
    CHECK(plan->fusion_breaks.empty());
    const auto fused = fused_like_eager(f.engine, g, outs);
    if (t == DType::Float64) {  // Python's answers
      const auto fq = as<double>(fused[0]), fr = as<double>(fused[1]);
      CHECK(fq[1] == -4);          // -7 // 2
      CHECK(fr[1] == 1);           // -7 % 2
      CHECK(fr[2] == -1);          // 7 % -2
      CHECK(std::isinf(fq[4]));    // 5.5 // 0
      CHECK(std::isnan(fr[4]));    // 5.5 % 0
      CHECK(std::signbit(fq[5]));  // -0.0 // 3
      CHECK(fq[16] == 5);          // 2.5 // 0.5
    }
  }
}

// exp of an int32 and the like: eager converts the input to the float result first, a fused
// kernel does the same with a cast instruction (lower_group.cpp).
TEST_CASE("float functions of integer and bool inputs fuse with eager's bits", "[fusion]") {
  const std::vector<int32_t> ints{0,          1, -1, 2, -7, 100, -100, 3, 16777217, -2147483647 - 1,
                                  2147483647, 42};
  const std::vector<uint8_t> bools{0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1};
  const auto n = static_cast<int64_t>(ints.size());
  int fused_ops = 0;
  for (Op op : {Op::exp, Op::log, Op::sqrt, Op::rsqrt, Op::sin, Op::cos, Op::tanh, Op::sigmoid,
                Op::erf, Op::reciprocal, Op::exp2, Op::expm1, Op::log2, Op::log10, Op::log1p}) {
    for (DType t : {DType::Int32, DType::Int64, DType::UInt8, DType::Bool}) {
      INFO(ir::name(op) << " of " << ir::name(t));
      FusedEngine f;
      RawGraph g;
      ir::ValueRef x = t == DType::Bool ? g.input(DType::Bool, {n}, bools)
                                        : g.cast(g.input(DType::Int32, {n}, ints), t);
      ir::ValueRef y = g.add(op, {x});
      if (!ir::is_floating(g.graph.type(y).dtype)) continue;  // an integer function
      // A consumer in the same kernel, and a 16-bit result from an int64 (rounded once).
      ir::ValueRef z = g.add(Op::mul, {y, g.add(op, {g.cast(x, DType::Float16)})});
      const std::vector<ir::ValueRef> outs{y, z};
      const auto plan = plan_of(f.engine, g, outs);
      INFO(reasons(*plan));
      CHECK(plan->fusion_breaks.empty());
      fused_like_eager(f.engine, g, outs);
      ++fused_ops;
    }
  }
  CHECK(fused_ops >= 40);
}

// The C++ emitter takes mixed integer/float formulas from the CUDA emitter, whose float sums,
// differences and products are CUDA's rounded intrinsics (__fmul_rn ...): the host prelude
// must give them, or these kernels never compile and their graphs run unfused.
TEST_CASE("sums, differences and products of integers and floats fuse with eager's bits",
          "[fusion]") {
  const std::vector<int32_t> ints{0, 1, -1, 7, -100, 127, -128, 33, 2, -3};
  const std::vector<float> floats{0.5f, -1.25f, 3.0f, 1e-3f, -7.5f, 2.5f, 100.f, -0.f, 1.f, 9.f};
  const auto n = static_cast<int64_t>(ints.size());
  for (Op op : {Op::add, Op::sub, Op::mul}) {
    for (auto [i, f] : {std::pair{DType::Int8, DType::BFloat16},
                        {DType::Int32, DType::Float32},
                        {DType::Int16, DType::Float64},
                        {DType::UInt8, DType::Float16}}) {
      INFO(ir::name(op) << " of " << ir::name(i) << " and " << ir::name(f));
      FusedEngine e;
      RawGraph g;
      ir::ValueRef x = g.cast(g.input(DType::Int32, {n}, ints), i);
      ir::ValueRef y = g.cast(g.input(DType::Float32, {n}, floats), f);
      // A consumer in the same kernel: the float result saturated to int32 and compared.
      ir::ValueRef z = g.add(op, {x, y});
      ir::ValueRef w = g.add(Op::ge, {g.cast(z, DType::Int32), x});
      const std::vector<ir::ValueRef> outs{z, w};
      const auto plan = plan_of(e.engine, g, outs);
      INFO(reasons(*plan));
      CHECK(plan->fusion_breaks.empty());
      fused_like_eager(e.engine, g, outs);
    }
  }
}

// sum and prod of bools: a count of trues (and whether all are), int64 as eager gives them.
TEST_CASE("sums and products of bools fuse with their producers and match eager", "[fusion]") {
  CHECK(codegen::expressible_reduction(Op::sum, DType::Bool, DType::Int64));
  CHECK(codegen::expressible_reduction(Op::prod, DType::Bool, DType::Int64));
  CHECK_FALSE(codegen::expressible_reduction(Op::max, DType::Bool, DType::Bool));
  CHECK(codegen::cuda_expressible_reduction(Op::sum, DType::Bool, DType::Int64));
  const int64_t rows = 37, cols = 53;
  std::vector<float> a(rows * cols), b(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) {
    a[i] = static_cast<float>((i * 37) % 11) - 5;
    b[i] = static_cast<float>((i * 13) % 7) - 3;
  }
  for (const std::vector<int64_t>& axes :
       {std::vector<int64_t>{1}, std::vector<int64_t>{0}, std::vector<int64_t>{0, 1}}) {
    for (Op op : {Op::sum, Op::prod}) {
      INFO(ir::name(op) << " over " << axes.size() << " axes, first " << axes[0]);
      FusedEngine f;
      RawGraph g;
      ir::ValueRef x = g.input(DType::Float32, {rows, cols}, a);
      ir::ValueRef y = g.input(DType::Float32, {rows, cols}, b);
      ir::ValueRef m = g.add(op == Op::sum ? Op::lt : Op::ne, {g.add(Op::mul, {x, y}), y});
      ir::ValueRef r = g.add(op, {m}, {{Attr::axes, axes}});
      REQUIRE(g.graph.type(r).dtype == DType::Int64);
      ir::ValueRef out = g.add(Op::mul, {r, g.constant(DType::Int64, int64_t{3})});
      const std::vector<ir::ValueRef> outs{out};
      const auto plan = plan_of(f.engine, g, outs);
      INFO(reasons(*plan));
      CHECK(plan->groups.size() == 1);
      fused_like_eager(f.engine, g, outs);
    }
  }
}

TEST_CASE("prod, argmax and argmin fuse with their producers and match eager", "[fusion]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t cols : {int64_t{5}, int64_t{16}, int64_t{37}}) {
    INFO("cols " << cols);
    FusedEngine f;
    RawGraph g;
    std::vector<float> v(static_cast<size_t>(6 * cols));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7919) % 13) / 8 - 0.7f;
    for (int64_t c = 0; c < cols; ++c) v[static_cast<size_t>(1 * cols + c)] = 2;  // all ties
    v[static_cast<size_t>(2 * cols + cols - 1)] = nan;  // the first NaN wins, even last
    v[static_cast<size_t>(3 * cols + 1)] = nan;
    v[static_cast<size_t>(3 * cols + cols - 1)] = nan;
    ir::ValueRef x = g.input(DType::Float32, {6, cols}, v);
    ir::ValueRef e = g.add(Op::mul, {x, g.constant(DType::Float32, 1.5)});
    const ir::Attrs last{{Attr::axis, int64_t{-1}}, {Attr::keepdim, true}};
    const ir::Attrs row{{Attr::axes, std::vector<int64_t>{1}}, {Attr::keepdim, true}};
    ir::ValueRef one = g.constant(DType::Int64, int64_t{1});
    ir::ValueRef amax = g.add(Op::add, {g.add(Op::argmax, {e}, last), one});
    ir::ValueRef amin = g.add(Op::add, {g.add(Op::argmin, {e}, last), one});
    ir::ValueRef prod = g.add(Op::sub, {g.add(Op::prod, {e}, row), g.constant(DType::Float32, 1)});
    // An integer product wraps in uint64: the same bits in any order.
    ir::ValueRef ip = g.add(
        Op::prod, {g.add(Op::add, {g.cast(e, DType::Int32), g.constant(DType::Int32, int64_t{7})})},
        row);
    ir::ValueRef ipo = g.add(Op::mul, {ip, g.constant(DType::Int64, int64_t{3})});
    const std::vector<ir::ValueRef> outs{amax, amin, prod, ipo};
    const auto plan = plan_of(f.engine, g, outs);
    INFO(reasons(*plan));
    REQUIRE(plan->groups.size() == 1);
    CHECK(plan->groups[0].kernel.inner_rank == 1);
    const auto fused = run_raw(f.engine, g, outs, CompileMode::Default);
    const auto eager = run_raw(f.engine, g, outs, CompileMode::Eager);
    CHECK(fused[0] == eager[0]);
    CHECK(fused[1] == eager[1]);
    CHECK(fused[3] == eager[3]);
    const auto fp = as<float>(fused[2]), ep = as<float>(eager[2]);
    for (size_t i = 0; i < fp.size(); ++i) {
      if (std::isnan(ep[i])) {
        CHECK(std::isnan(fp[i]));
      } else {
        CHECK(std::fabs(fp[i] - ep[i]) <= 1e-5f * (1 + std::fabs(ep[i])));
      }
    }
    const auto am = as<int64_t>(fused[0]);
    CHECK(am[1] == 1);     // ties: the first index (+1)
    CHECK(am[2] == cols);  // the NaN in the last column
    CHECK(am[3] == 2);     // the first of two NaNs
    CHECK(as<int64_t>(fused[1])[1] == 1);
  }
}

TEST_CASE("argmax over every axis fuses with its producer and counts in row-major order",
          "[fusion]") {
  FusedEngine f;
  RawGraph g;
  std::vector<int16_t> v(2 * 3 * 5);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int16_t>((i * 37) % 11);
  ir::ValueRef x = g.input(DType::Int16, {2, 3, 5}, v);
  ir::ValueRef e = g.add(Op::neg, {x});
  ir::ValueRef a = g.add(Op::argmin, {e});  // every axis: the flat index of the first max of x
  ir::ValueRef out = g.add(Op::mul, {a, g.constant(DType::Int64, int64_t{2})});
  const auto plan = plan_of(f.engine, g, {out});
  INFO(reasons(*plan));
  CHECK(plan->groups.size() == 1);
  const auto fused = run_raw(f.engine, g, {out}, CompileMode::Default);
  const auto eager = run_raw(f.engine, g, {out}, CompileMode::Eager);
  CHECK(fused == eager);
  CHECK(as<int64_t>(fused[0])[0] == 2 * 8);  // (i * 37) % 11 first reaches 10 at i = 8
}

TEST_CASE("explain says why integer ops and arg reductions still break a chain", "[fusion]") {
  FusedEngine f;
  RawGraph g;
  ir::ValueRef x = g.input(DType::Int64, {4, 6}, std::vector<int64_t>(24, 3));
  ir::ValueRef y = g.add(Op::add, {x, x});
  // A constant a double cannot hold.
  ir::ValueRef big = g.add(Op::add, {y, g.constant(DType::Int64, (int64_t{1} << 60) + 1)});
  // A complex result: not taken.
  ir::ValueRef ex = g.add(Op::neg, {g.cast(g.add(Op::mul, {y, y}), DType::Complex64)});
  // argmax over the leading axis: not the trailing ones (sum/max/min/prod form columns).
  ir::ValueRef lead = g.add(Op::argmax, {g.add(Op::sub, {y, x})}, {{Attr::axis, int64_t{0}}});
  const std::vector<ir::ValueRef> outs{big, ex, lead};
  const auto plan = plan_of(f.engine, g, outs);
  const std::string why = reasons(*plan);
  INFO(why);
  CHECK(why.find("beyond 2^53") != std::string::npos);
  CHECK(why.find("cast on int64 is not expressible") != std::string::npos);
  CHECK(why.find("argmax/argmin over axes that are not the trailing ones") != std::string::npos);
  const auto fused = fused_like_eager(f.engine, g, outs);
  CHECK(as<int64_t>(fused[0])[0] == (int64_t{1} << 60) + 7);
}

TEST_CASE("integer constants enter kernels as eager's full makes them: wrapped or saturated",
          "[fusion]") {
  FusedEngine f;
  RawGraph g;
  ir::ValueRef x = g.input(DType::Int8, {2, 9}, std::vector<int8_t>(18, 5));
  ir::ValueRef u = g.input(DType::UInt8, {2, 9}, std::vector<uint8_t>(18, 250));
  // 300 wraps to 44 in int8; -3.7 saturates to 0 in uint8, 1e10 to 255.
  ir::ValueRef a = g.add(Op::add, {g.add(Op::neg, {x}), g.constant(DType::Int8, int64_t{300})});
  ir::ValueRef b =
      g.add(Op::maximum, {g.add(Op::bitwise_not, {u}), g.constant(DType::UInt8, -3.7)});
  ir::ValueRef c = g.add(Op::minimum, {g.add(Op::neg, {u}), g.constant(DType::UInt8, 1e10)});
  const std::vector<ir::ValueRef> outs{a, b, c};
  const auto plan = plan_of(f.engine, g, outs);
  INFO(reasons(*plan));
  CHECK(plan->groups.size() == 3);  // three chains, each into its output
  const auto fused = fused_like_eager(f.engine, g, outs);
  CHECK(as<int8_t>(fused[0])[0] == 39);  // -5 + 44
  CHECK(as<uint8_t>(fused[1])[0] == 5);  // max(~250, 0)
  CHECK(as<uint8_t>(fused[2])[0] == 6);  // min(-250 mod 256, 255)
}

TEST_CASE("a group reading two outputs of one node loads each of them", "[fusion][codegen]") {
  // frexp's mantissa and its exponent (int32, cast: an integer op) feed one kernel; each must
  // be a load of its own (one load per node once read the exponent twice).
  RawGraph g;
  auto x = g.input<float>(DType::Float32, {5}, {8.0f, -3.0f, 0.0f, 0.375f, 1e-3f});
  auto parts = g.add(Op::frexp, {x});
  const ir::ValueRef mantissa{parts.node, 0}, exponent{parts.node, 1};
  auto y = g.add(Op::mul, {mantissa, g.add(Op::exp2, {g.cast(exponent, DType::Float32)})});
  FusedEngine f;
  engine::Engine& e = f.engine;
  auto plan = plan_of(e, g, {y});
  REQUIRE(plan->groups.size() == 1);
  int loads = 0;
  for (const auto& in : plan->groups[0].kernel.body) loads += in.kind == codegen::Instr::Kind::Load;
  CHECK(loads == 2);
  const auto fused = as<float>(run_raw(e, g, {y}, CompileMode::Default)[0]);
  CHECK(fused == std::vector<float>{8.0f, -3.0f, 0.0f, 0.375f, 1e-3f});
}

// float32 pow goes through libmvec in both the eager kernel and the fused loop (td_vpow): the
// same bits, for tensor exponents, a constant exponent, a constant base, 16-bit floats, and
// special values (negative bases, zeros, infinities, NaN).
TEST_CASE("float pow fuses with eager's bits", "[fusion]") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<float> a, b;
  for (int i = 0; i < 40; ++i) {  // past one block of the fused loop, with a tail
    a.push_back(0.37f * static_cast<float>(i) - 3.0f);
    b.push_back(0.21f * static_cast<float>(i % 13) - 1.1f);
  }
  const float special_a[] = {
      -2, -0.0f, 0, 1, static_cast<float>(inf), static_cast<float>(-inf), static_cast<float>(nan),
      2};
  const float special_b[] = {3,  -1, 0.5f, static_cast<float>(nan),
                             -2, 3,  0,    static_cast<float>(inf)};
  a.insert(a.end(), std::begin(special_a), std::end(special_a));
  b.insert(b.end(), std::begin(special_b), std::end(special_b));
  const auto n = static_cast<int64_t>(a.size());
  for (DType t : {DType::Float32, DType::Float16, DType::BFloat16}) {
    INFO(ir::name(t));
    FusedEngine f;
    RawGraph g;
    const ir::ValueRef x = g.cast(g.input(DType::Float32, {n}, a), t);
    const ir::ValueRef y = g.cast(g.input(DType::Float32, {n}, b), t);
    const ir::ValueRef abs_x = g.add(Op::abs, {x});
    const std::vector<ir::ValueRef> outs{
        g.add(Op::pow, {x, y}), g.add(Op::pow, {abs_x, g.constant(t, 1.5)}),
        g.add(Op::pow, {g.constant(t, 2.5), y}), g.add(Op::add, {g.add(Op::pow, {abs_x, y}), x})};
    const auto plan = plan_of(f.engine, g, outs);
    INFO(reasons(*plan));
    CHECK(plan->groups.size() == 1);
    fused_like_eager(f.engine, g, outs);
  }
}
