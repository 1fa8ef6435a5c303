// Chains of ops that fused backends run as one generated kernel (issue 6): integer arithmetic
// with its defined edge cases (division by zero, MIN / -1, negative and too-wide shifts,
// saturating casts), prod, argmax and argmin between elementwise producers and consumers,
// views inside chains and reductions over leading axes.
// A row of one op never fuses (a group of one node runs the eager kernel), so these rows are
// chains (`then`); unfused backends check the same chains op by op.
#include <optional>

#include "tests/conformance/case.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Attrs;
using ir::Op;

namespace {

constexpr DType kIntDTypes[] = {DType::Int8, DType::UInt8, DType::Int16, DType::Int32,
                                DType::Int64};

// One op after the row's op: unary, or binary with a further input of the row (`with`).
struct Step {
  Op op;
  Attrs attrs = {};
  std::optional<InputSpec> with = std::nullopt;
};

// The table reads a `then` op's second operand from the inputs after the row op's own, so each
// step's `with` is appended there: a step cannot name an input the row op takes.
Case chain(Op op, std::vector<InputSpec> inputs, std::vector<Step> steps,
           Accuracy accuracy = Accuracy::Exact) {
  Case c;
  c.op = op;
  c.inputs = std::move(inputs);
  for (Step& s : steps) {
    int input = -1;
    if (s.with) {
      input = static_cast<int>(c.inputs.size());
      c.inputs.push_back(std::move(*s.with));
    }
    c.then.push_back(Then{s.op, std::move(s.attrs), input});
  }
  c.accuracy = accuracy;
  return c;
}

void add_integer_chains(std::vector<Case>& out) {
  using V = Values;
  const Shape s{7, 19};
  const auto arg = [](DType t, Shape shape, V v, Layout l = Layout::Contiguous) {
    return in(t, std::move(shape), l, v);
  };
  for (DType t : kIntDTypes) {
    const int bits = static_cast<int>(8 * ir::itemsize(t));
    const Attrs to_f16{{Attr::dtype, DType::Float16}}, to_i8{{Attr::dtype, DType::Int8}};
    // MIN // -1 wraps, x // 0 = x % 0 = 0 (Small divisors are in [-4, 4]); products wrap.
    out.push_back(chain(Op::floor_divide, {arg(t, s, V::Special), arg(t, s, V::Small)},
                        {{Op::remainder, {}, arg(t, {19}, V::Small)},
                         {Op::mul, {}, arg(t, s, V::Mixed, Layout::Permuted)},
                         {Op::maximum, {}, arg(t, s, V::Special)}}));
    out.push_back(chain(Op::fmod, {arg(t, s, V::Special), arg(t, s, V::Small)},
                        {{Op::sub, {}, arg(t, s, V::Special)},
                         {Op::neg},
                         {Op::abs},
                         {Op::bitwise_xor, {}, arg(t, s, V::Mixed)}}));
    // Shift amounts below 0 and at or past the width.
    out.push_back(chain(Op::bitwise_left_shift, {arg(t, s, V::Special), in_index(t, s, bits + 3)},
                        {{Op::bitwise_right_shift, {}, in_index(t, s, bits + 3)},
                         {Op::bitwise_or, {}, arg(t, s, V::Mixed)},
                         {Op::bitwise_and, {}, arg(t, s, V::Special)},
                         {Op::bitwise_not}}));
    // gcd and lcm of signs, zeros and the type's extremes (|MIN| wraps, an lcm past the range).
    out.push_back(chain(Op::gcd, {arg(t, s, V::Special), arg(t, s, V::Small)},
                        {{Op::lcm, {}, arg(t, s, V::Special)},
                         {Op::add, {}, arg(t, s, V::Mixed)},
                         {Op::gcd, {}, arg(t, {19}, V::Mixed)}}));
    // Integer pow with negative exponents, sign, square (wrapping).
    out.push_back(chain(Op::pow, {arg(t, s, V::Small), arg(t, s, V::Small)},
                        {{Op::add, {}, arg(t, s, V::Special)},
                         {Op::sign},
                         {Op::minimum, {}, arg(t, s, V::Small)},
                         {Op::mul, {}, arg(t, s, V::Special)},
                         {Op::square}}));
    // Casts that wrap, round once (int64 -> float16) and saturate; a comparison after them.
    out.push_back(
        chain(Op::add, {arg(t, s, V::Special), arg(t, {7, 1}, V::Special)},
              {{Op::cast, to_f16}, {Op::cast, to_i8}, {Op::lt, {}, arg(t, s, V::Mixed)}}));
    // True division of integers (x / 0 is inf or NaN), cast back: truncation, saturation.
    out.push_back(
        chain(Op::div, {arg(t, s, V::Special), arg(t, s, V::Small)},
              {{Op::cast, {{Attr::dtype, t}}}, {Op::remainder, {}, arg(t, s, V::Small)}}));
    // Float functions of an integer: converted to float32 first, as eager does.
    out.push_back(chain(Op::sub, {arg(t, s, V::Small), arg(t, s, V::Mixed)},
                        {{Op::tanh}, {Op::exp}}, Accuracy::Transcendental));
    // Mixed integer and float operands: the integer converts with the cast rules first.
    out.push_back(
        chain(Op::mul, {arg(t, s, V::Special), arg(DType::BFloat16, s, V::Small)},
              {{Op::cast, {{Attr::dtype, DType::Int32}}}, {Op::ge, {}, arg(t, s, V::Special)}}));
  }
}

// Python's // and % and C's fmod on floats inside a chain: x / 0, signed zeros, infinities and
// NaNs (Special), small divisors of either sign.
void add_float_division_chains(std::vector<Case>& out) {
  using V = Values;
  const Shape s{7, 19};
  for (DType t : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
    out.push_back(
        chain(Op::floor_divide,
              {in(t, s, Layout::Contiguous, V::Special), in(t, s, Layout::Contiguous, V::Small)},
              {{Op::remainder, {}, in(t, {19}, Layout::Contiguous, V::Small)},
               {Op::fmod, {}, in(t, s, Layout::Permuted, V::Mixed)},
               {Op::neg}}));
    out.push_back(
        chain(Op::remainder,
              {in(t, s, Layout::Contiguous, V::Mixed), in(t, s, Layout::Contiguous, V::Special)},
              {{Op::floor_divide, {}, in(t, {7, 1}, Layout::Contiguous, V::Small)}, {Op::abs}}));
  }
}

void add_reduction_chains(std::vector<Case>& out) {
  using V = Values;
  const Attrs last{{Attr::axis, int64_t{-1}}, {Attr::keepdim, true}};
  const Attrs row{{Attr::axes, std::vector<int64_t>{1}}, {Attr::keepdim, true}};
  // Counts of trues (sum of bools: int64) over rows and over columns, and prod of bools.
  for (const Attrs& axes : {row, Attrs{{Attr::axes, std::vector<int64_t>{0}}}}) {
    out.push_back(chain(Op::lt,
                        {in(DType::Float32, {9, 37}, Layout::Contiguous, V::Mixed),
                         in(DType::Float32, {9, 37}, Layout::Permuted, V::Special)},
                        {{Op::sum, axes}, {Op::neg}}));
    out.push_back(chain(
        Op::ne,
        {in(DType::Int32, {9, 37}, Layout::Contiguous, V::Small),
         in(DType::Int32, {37}, Layout::Contiguous, V::Small)},
        {{Op::prod, axes}, {Op::add, {}, in(DType::Int64, {1}, Layout::Contiguous, V::Small)}}));
  }
  for (DType t : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64, DType::Int8,
                  DType::Int32, DType::Int64}) {
    const bool f = ir::is_floating(t);
    // argmax / argmin after a producer, before a consumer: ties (Halves), NaN (Special).
    for (Op arg : {Op::argmax, Op::argmin}) {
      for (V v : {V::Halves, V::Special}) {
        out.push_back(chain(
            Op::sub,
            {in(t, {9, 37}, Layout::Contiguous, v), in(t, {37}, Layout::Contiguous, V::Halves)},
            {{arg, last}, {Op::add, {}, in(DType::Int64, {9, 1}, Layout::Contiguous, V::Small)}}));
      }
      // Strided rows, and every axis at once (a flat index over several inner dimensions).
      out.push_back(chain(Op::neg, {in(t, {6, 33}, Layout::Permuted, V::Halves)}, {{arg, last}}));
      out.push_back(chain(Op::abs, {in(t, {3, 4, 5}, Layout::Contiguous, V::Halves)}, {{arg}}));
    }
    // prod between a producer and a consumer; integers wrap (NearOne: 1..3 with signs).
    out.push_back(
        chain(Op::mul,
              {in(t, {7, 23}, Layout::Contiguous, V::NearOne),
               in(t, {7, 23}, Layout::Strided, V::NearOne)},
              {{Op::prod, row},
               {Op::mul, {}, in(f ? t : DType::Int64, {7, 1}, Layout::Contiguous, V::NearOne)}},
              f ? Accuracy::Accumulated : Accuracy::Exact));
    // softmax of logsumexp over every axis of an empty tensor (-inf): the simplifier folds the
    // empty reductions to a constant, and the fused softmax then reduces that constant (its
    // kernel named an undeclared value and did not compile; found by running random graphs).
    for (const Shape& shape : {Shape{0, 3}, Shape{2, 3}}) {
      Case c = chain(Op::logsumexp, {in(t, shape)}, {{Op::softmax, {{Attr::axis, int64_t{-1}}}}},
                     Accuracy::Transcendental);
      c.attrs = {{Attr::keepdim, true}};
      out.push_back(std::move(c));
    }
    // A reduction without keepdim read by a row value of a square domain: (5,) broadcasts along
    // the columns, and a fused kernel read it per row instead (wrong values, found by random
    // graphs: x * x.sum(1)).
    out.push_back(
        chain(Op::abs, {in(t, {5, 5})},
              {{Op::sum, {{Attr::axes, std::vector<int64_t>{1}}}}, {Op::mul, {}, in(t, {5, 5})}},
              f ? Accuracy::Accumulated : Accuracy::Exact));
    out.push_back(chain(
        Op::neg, {in(t, {4, 4, 4})},
        {{Op::max, {{Attr::axes, std::vector<int64_t>{2}}}}, {Op::sub, {}, in(t, {4, 4, 4})}}));
    // signbit after abs of a rounded 16-bit value: GCC 12 stopped with an internal compiler
    // error on the kernel that called __builtin_signbit here (random graphs found it).
    if (f) out.push_back(chain(Op::selu, {in(t, {3, 37})}, {{Op::abs}, {Op::signbit}}));
    if (!f) {  // an integer product, then a row-level consumer and a second reduction
      out.push_back(chain(Op::add,
                          {in(t, {5, 40}, Layout::Contiguous, V::Mixed),
                           in(t, {5, 40}, Layout::Contiguous, V::Small)},
                          {{Op::prod, row},
                           {Op::sub, {}, in(t, {5, 40}, Layout::Contiguous, V::Mixed)},
                           {Op::max, row}}));
      out.push_back(chain(Op::mul,
                          {in(t, {6, 50}, Layout::Permuted, V::Special),
                           in(t, {6, 50}, Layout::Contiguous, V::Mixed)},
                          {{Op::sum, row}, {Op::sub, {}, in(DType::Int64, {6, 1})}}));
    }
  }
}

// Views inside a chain (pushed down to the group's loads when fused) and reductions over
// leading or middle axes (column kernels): odd sizes, broadcasting, zero-size dimensions, and
// a reshape of a non-contiguous input (which stays a boundary: it would need a copy).
void add_view_and_column_chains(std::vector<Case>& out) {
  using V = Values;
  using Ints = std::vector<int64_t>;
  const Attrs t2{{Attr::dims, Ints{1, 0}}};
  for (DType t :
       {DType::Float16, DType::Float32, DType::Float64, DType::Int8, DType::Int32, DType::Int64}) {
    const bool f = ir::is_floating(t);
    const DType acc = f ? t : DType::Int64;  // what sum gives
    const Accuracy sum_accuracy = f ? Accuracy::Accumulated : Accuracy::Exact;
    // (a * b).T + c, b broadcast before the transpose.
    out.push_back(chain(Op::mul, {in(t, {13, 29}, Layout::Contiguous, V::Mixed), in(t, {29})},
                        {{Op::permute, t2}, {Op::add, {}, in(t, {29, 13})}, {Op::neg}}));
    // expand of a cheap chain, then a consumer of the expanded shape.
    out.push_back(chain(Op::mul, {in(t, {1, 17}), in(t, {1, 17})},
                        {{Op::expand, {{Attr::shape, Ints{6, 17}}}},
                         {Op::sub, {}, in(t, {6, 17}, Layout::Permuted)}}));
    // A slice with a step and a negative stop.
    out.push_back(chain(Op::add, {in(t, {11, 9}), in(t, {11, 9}, Layout::Strided)},
                        {{Op::slice,
                          {{Attr::axis, int64_t{0}},
                           {Attr::start, int64_t{1}},
                           {Attr::stop, int64_t{-1}},
                           {Attr::step, int64_t{3}}}},
                         {Op::mul, {}, in(t, {3, 9})}}));
    // Reshapes: of a contiguous chain (a view), and of a chain over a transposed input.
    out.push_back(
        chain(Op::mul, {in(t, {6, 10}), in(t, {6, 10})},
              {{Op::reshape, {{Attr::shape, Ints{3, 20}}}}, {Op::add, {}, in(t, {3, 20})}}));
    out.push_back(chain(Op::mul, {in(t, {6, 10}, Layout::Permuted), in(t, {6, 10})},
                        {{Op::reshape, {{Attr::shape, Ints{60}}}}, {Op::sub, {}, in(t, {60})}}));
    // Zero-size dimensions through a transpose.
    out.push_back(chain(Op::add, {in(t, {0, 5}), in(t, {0, 5})},
                        {{Op::permute, t2}, {Op::mul, {}, in(t, {5, 0})}}));
    // Column sums and maxima: keepdim or not, a broadcast consumer after them.
    out.push_back(chain(Op::mul, {in(t, {37, 19}), in(t, {19})},
                        {{Op::sum, {{Attr::axes, Ints{0}}}}, {Op::add, {}, in(acc, {19})}},
                        sum_accuracy));
    out.push_back(chain(Op::sub, {in(t, {23, 3, 18}, Layout::Strided, V::Special), in(t, {18})},
                        {{Op::max, {{Attr::axes, Ints{0, 1}}, {Attr::keepdim, true}}},
                         {Op::maximum, {}, in(t, {1, 1, 18})}}));
    // The middle axis, and a transpose in the chain before a column sum.
    out.push_back(chain(Op::abs, {in(t, {5, 7, 9})},
                        {{Op::sum, {{Attr::axes, Ints{1}}, {Attr::keepdim, true}}},
                         {Op::mul, {}, in(acc, {5, 1, 9})}},
                        sum_accuracy));
    out.push_back(chain(Op::mul, {in(t, {21, 35}), in(t, {21, 35})},
                        {{Op::permute, t2}, {Op::sum, {{Attr::axes, Ints{0}}}}, {Op::neg}},
                        sum_accuracy));
    // A zero-size kept axis, and an empty reduced axis (that reduction stays unfused).
    out.push_back(chain(Op::neg, {in(t, {6, 0})},
                        {{Op::sum, {{Attr::axes, Ints{0}}}}, {Op::add, {}, in(acc, {0})}}));
    out.push_back(chain(Op::neg, {in(t, {0, 4})},
                        {{Op::sum, {{Attr::axes, Ints{0}}}}, {Op::add, {}, in(acc, {4})}}));
  }
}

}  // namespace

void add_fused_chain_cases(std::vector<Case>& out) {
  add_integer_chains(out);
  add_float_division_chains(out);
  add_reduction_chains(out);
  add_view_and_column_chains(out);
}

}  // namespace tensord::conformance
