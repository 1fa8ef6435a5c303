// Table rows for matmul: 1-D and batched operands, batch broadcasting, zero-size dims,
// transposed and strided operands, promotion, and the shape and dtype errors.
#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Op;

namespace {

Case matmul(InputSpec a, InputSpec b, std::optional<ErrorCode> error = std::nullopt) {
  Case c;
  c.op = Op::matmul;
  c.inputs = {std::move(a), std::move(b)};
  c.accuracy = Accuracy::Accumulated;
  c.error = error;
  return c;
}

void add_epilogue_cases(std::vector<Case>& out);

// Integer matmul's own edges (CUDA runs it with a tiled kernel, not cuBLASLt): sums that wrap
// (values over much of the type's range, long depth), shapes across the kernel's 64 x 64 tiles
// and 16-deep slices, empty batches and empty batched sums, a stride-0 batch dim against a
// permuted one, and operands of other integer dtypes and bool promoted to the output's.
void add_integer_cases(std::vector<Case>& out) {
  using L = Layout;
  for (DType t : {DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64}) {
    out.push_back(matmul(in(t, {40, 70}, L::Contiguous, Values::Mixed),
                         in(t, {70, 30}, L::Contiguous, Values::Mixed)));
    out.push_back(matmul(in(t, {70, 65}, L::Contiguous, Values::Edge),
                         in(t, {65, 130}, L::Strided, Values::Edge)));
    out.push_back(matmul(in(t, {0, 3, 4}, L::Contiguous, Values::Small),
                         in(t, {4, 5}, L::Contiguous, Values::Small)));
    out.push_back(matmul(in(t, {2, 3, 0}, L::Contiguous, Values::Small),
                         in(t, {2, 0, 5}, L::Contiguous, Values::Small)));
    out.push_back(matmul(in(t, {3, 4, 5}, L::Broadcast, Values::Mixed),
                         in(t, {3, 5, 2}, L::Permuted, Values::Mixed)));
    out.push_back(matmul(in(t, {17}, L::Reversed, Values::Mixed),
                         in(t, {2, 17, 3}, L::Mixed, Values::Mixed)));
  }
  for (auto [a, b] : {std::pair{DType::UInt8, DType::Int16},
                      {DType::Bool, DType::Int64},
                      {DType::Int8, DType::Int32},
                      {DType::UInt8, DType::Bool}}) {
    out.push_back(matmul(in(a, {9, 20}, Layout::Contiguous, Values::Mixed),
                         in(b, {20, 7}, Layout::Contiguous, Values::Mixed)));
  }
}

}  // namespace

void add_matmul_cases(std::vector<Case>& out) {
  struct Pair {
    Shape a, b;
    Layout la = Layout::Contiguous, lb = Layout::Contiguous;
  };
  using L = Layout;
  const Pair kPairs[] = {
      {{3, 4}, {4, 5}},
      {{4}, {4}},
      {{4}, {4, 5}},
      {{3, 4}, {4}},
      {{2, 3, 4}, {4, 5}},
      {{2, 3, 4}, {2, 4, 5}},
      {{2, 1, 3, 4}, {5, 4, 6}},
      {{3, 4}, {2, 4, 6}},
      {{0, 4}, {4, 5}},
      {{3, 0}, {0, 5}},  // an empty sum: zeros
      {{1, 1}, {1, 1}},
      {{17, 33}, {33, 19}},
      {{7, 9}, {9, 5}, L::Permuted, L::Permuted},
      {{7, 9}, {9, 5}, L::Strided, L::Reversed},
      {{7, 9}, {9, 5}, L::Mixed, L::Broadcast},
      {{2, 7, 9}, {9, 5}, L::Permuted, L::Contiguous},
      {{260, 260}, {260, 260}},  // > 64K elements per operand
      {{260, 260}, {260, 260}, L::Permuted, L::Strided},
  };
  for (DType t : kAllDTypes) {
    if (t == DType::Bool) {
      out.push_back(matmul(in(t, {2, 3}), in(t, {3, 2}), ErrorCode::DType));
      continue;
    }
    for (const Pair& p : kPairs) {
      out.push_back(matmul(in(t, p.a, p.la, Values::Small), in(t, p.b, p.lb, Values::Small)));
    }
    out.push_back(matmul(in(t, {5, 13}, L::Contiguous, Values::Edge),
                         in(t, {13, 3}, L::Contiguous, Values::Edge)));
    out.push_back(matmul(in(t, {3, 4}), in(t, {5, 6}), ErrorCode::Shape));
    out.push_back(matmul(in(t, {4}), in(t, {5}), ErrorCode::Shape));
    out.push_back(matmul(in(t, {2, 3, 4}), in(t, {3, 4, 5}), ErrorCode::Shape));
    out.push_back(matmul(in(t, {}), in(t, {3}), ErrorCode::Shape));
  }
  for (auto [a, b] : {std::pair{DType::Int8, DType::UInt8},
                      {DType::Float16, DType::Float32},
                      {DType::Int32, DType::Float32},
                      {DType::BFloat16, DType::Float16},
                      {DType::Int64, DType::Float64}}) {
    out.push_back(matmul(in(a, {3, 4}, Layout::Contiguous, Values::Small),
                         in(b, {4, 5}, Layout::Contiguous, Values::Small)));
  }
  out.push_back(matmul(in(DType::Float32, {2, 3}), in(DType::Bool, {3, 2})));  // promotes
  out.push_back(matmul(in(DType::Bool, {2, 3}), in(DType::Int8, {3})));
  add_integer_cases(out);
  add_epilogue_cases(out);
}

namespace {

// Matmuls with elementwise chains after them (engine/plan/epilogue.h): fused backends run the
// float32 ones as one matmul with an epilogue, or the pair, as they measure; float64 is never
// fused and checks the same chains unfused.
void add_epilogue_cases(std::vector<Case>& out) {
  using L = Layout;
  const auto small = [](DType t, Shape s, L l = L::Contiguous) {
    return in(t, std::move(s), l, Values::Small);
  };
  const ir::Attrs tanh_gelu = {{ir::Attr::tanh, true}};
  for (DType t : {DType::Float32, DType::Float64}) {
    const auto row = [&](InputSpec a, InputSpec b, std::vector<InputSpec> more,
                         std::vector<Then> then) {
      Case c = matmul(std::move(a), std::move(b));
      for (InputSpec& m : more) c.inputs.push_back(std::move(m));
      c.then = std::move(then);
      out.push_back(std::move(c));
    };
    const Then bias{Op::add, {}, 2};
    row(small(t, {17, 33}), small(t, {33, 19}), {small(t, {19})}, {bias, {Op::gelu}});
    row(small(t, {17, 33}), small(t, {33, 19}), {small(t, {19})}, {bias, {Op::gelu, tanh_gelu}});
    row(small(t, {17, 33}), small(t, {33, 19}), {small(t, {1, 19})}, {bias, {Op::relu}});
    row(small(t, {17, 33}), small(t, {33, 19}), {small(t, {19})}, {bias, {Op::silu}});
    row(small(t, {2, 7, 9}), small(t, {2, 9, 5}), {small(t, {5})}, {bias, {Op::sigmoid}});
    row(small(t, {7, 9}, L::Permuted), small(t, {9, 5}), {small(t, {5})}, {bias, {Op::tanh}});
    row(small(t, {17, 33}), small(t, {33, 19}), {small(t, {17, 19})},
        {{Op::add, {}, 2}, {Op::relu}});  // a residual
    row(small(t, {17, 33}), small(t, {33, 19}), {small(t, {19})}, {{Op::tanh}, bias});
    row(small(t, {260, 260}), small(t, {260, 260}), {small(t, {260})}, {bias, {Op::gelu}});
    // Not an epilogue: a column bias, then exp.
    row(small(t, {17, 33}), small(t, {33, 19}), {small(t, {17, 1})}, {bias, {Op::relu}});
    row(small(t, {17, 33}), small(t, {33, 19}), {}, {{Op::exp}});
  }
}

}  // namespace

}  // namespace tensord::conformance
