#include "engine/codegen/loop_ir.h"

#include <algorithm>
#include <cstdio>

namespace tensord::codegen {
namespace {

using ir::DType;
using ir::Op;

bool float_or_bool(DType t) {
  return ir::is_floating(t) || t == DType::Bool;
}

bool all_float_or_bool(std::span<const DType> ts) {
  return std::all_of(ts.begin(), ts.end(), float_or_bool);
}

// Real dtypes: what both emitters hold in registers. Complex values are not fused.
bool real(DType t) {
  return float_or_bool(t) || ir::is_integral(t);
}

// Integer ops: the emitters write them with the eager kernels' wrapping and their defined
// results for division by zero, MIN / -1 and out-of-range shifts (emit_cpp_int.cpp and
// emit_cuda_math.cpp); an op computes in its result's dtype, as the eager kernels do.
bool int_expressible(Op op, std::span<const DType> in, DType out) {
  const DType first = in[0];
  const bool same = std::all_of(in.begin(), in.end(), [&](DType t) { return t == out; });
  const bool promoted = in.size() == 2 && ir::promote(in[0], in[1]) == out;
  switch (op) {
    case Op::neg:
    case Op::abs:
    case Op::sign:
    case Op::square:
    case Op::relu:
    case Op::floor:
    case Op::ceil:
    case Op::round:
    case Op::trunc:
      return ir::is_integral(first) && same;
    case Op::bitwise_not:
      return (ir::is_integral(first) || first == DType::Bool) && same;
    case Op::add:
    case Op::sub:
    case Op::mul:
      return promoted && out != DType::Bool;
    case Op::div:  // true division: converted to the float result first
      return ir::is_floating(out) && in.size() == 2 &&
             out == (ir::is_floating(ir::promote(in[0], in[1])) ? ir::promote(in[0], in[1])
                                                                : ir::kDefaultFloat);
    case Op::maximum:
    case Op::minimum:
      return promoted;
    case Op::pow:
    case Op::floor_divide:
    case Op::remainder:
    case Op::fmod:
    case Op::bitwise_left_shift:
    case Op::bitwise_right_shift:
    case Op::gcd:
    case Op::lcm:
      return promoted && ir::is_integral(out);
    case Op::bitwise_and:
    case Op::bitwise_or:
    case Op::bitwise_xor:
      return promoted && (ir::is_integral(out) || out == DType::Bool);
    case Op::where:
      return in[0] == DType::Bool && in.size() == 3 && ir::promote(in[1], in[2]) == out;
    case Op::cast:
      return true;
    default:
      return false;
  }
}

// Unary float functions: a float input, its own dtype out.
bool float_function(Op op) {
  switch (op) {
    case Op::neg:
    case Op::abs:
    case Op::exp:
    case Op::log:
    case Op::sqrt:
    case Op::rsqrt:
    case Op::sin:
    case Op::cos:
    case Op::tanh:
    case Op::sigmoid:
    case Op::relu:
    case Op::erf:
    case Op::floor:
    case Op::ceil:
    case Op::round:
    case Op::sign:
    case Op::square:
    case Op::reciprocal:
    case Op::trunc:
    case Op::frac:
    case Op::exp2:
    case Op::expm1:
    case Op::log2:
    case Op::log10:
    case Op::log1p:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool casts_input_first(Op op, std::span<const DType> in, DType out) {
  return in.size() == 1 && (ir::is_integral(in[0]) || in[0] == DType::Bool) &&
         ir::is_floating(out) && float_function(op);
}

int64_t LaunchShape::outer_count() const {
  int64_t n = 1;
  for (size_t d = 0; d + inner_rank < sizes.size(); ++d) n *= sizes[d];
  return n;
}

int64_t LaunchShape::inner_count() const {
  int64_t n = 1;
  for (size_t d = sizes.size() - inner_rank; d < sizes.size(); ++d) n *= sizes[d];
  return n;
}

bool expressible(Op op, std::span<const DType> in, DType out) {
  if (in.empty() || !std::all_of(in.begin(), in.end(), real) || !real(out)) return false;
  switch (op) {  // comparisons and logical ops, on any real operands: a bool
    case Op::logical_not:
    case Op::logical_and:
    case Op::logical_or:
    case Op::eq:
    case Op::ne:
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge:
      return out == DType::Bool;
    default:
      break;
  }
  if (casts_input_first(op, in, out)) return true;  // the cast, then the float function
  if (!all_float_or_bool(in) || !float_or_bool(out)) return int_expressible(op, in, out);
  if (float_function(op)) return ir::is_floating(in[0]) && out == in[0];
  switch (op) {
    case Op::isnan:
    case Op::isinf:
    case Op::isfinite:
    case Op::signbit:
      return ir::is_floating(in[0]) && out == DType::Bool;
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::div:
    case Op::maximum:
    case Op::minimum:
    case Op::pow:
    case Op::fmod:
    case Op::remainder:
    case Op::floor_divide:
      return ir::is_floating(out);
    case Op::where:
      return in[0] == DType::Bool;
    case Op::cast:
      return true;
    default:
      return false;
  }
}

std::optional<double> attribute_operand(const ir::Node& node) {
  switch (node.op) {
    case Op::polygamma:
      return static_cast<double>(node.attrs.get_int(ir::Attr::n));
    case Op::multigammaln:
      return static_cast<double>(node.attrs.get_int(ir::Attr::p));
    case Op::logit:
      if (!node.attrs.has(ir::Attr::eps)) return std::nullopt;
      return node.attrs.get_float(ir::Attr::eps);
    default:
      return std::nullopt;
  }
}

bool wraps_in_uint64(Op op, DType input) {
  return (op == Op::sum || op == Op::prod) && (ir::is_integral(input) || input == DType::Bool);
}

bool expressible_reduction(Op op, DType input, DType result) {
  if (input == DType::Bool) return wraps_in_uint64(op, input) && result == DType::Int64;
  const bool f = ir::is_floating(input);
  if (!f && !ir::is_integral(input)) return false;  // complex inputs are not fused
  switch (op) {
    case Op::sum:
    case Op::prod:  // integers accumulate in wrapping uint64 and give int64, as eager
      return result == (f ? input : DType::Int64);
    case Op::max:
    case Op::min:
      return result == input;
    case Op::argmax:
    case Op::argmin:
      return result == DType::Int64;
    default:
      return false;
  }
}

std::vector<bool> only_stored(const LoopKernel& k) {
  std::vector<bool> only(k.body.size(), false);
  for (uint32_t v : k.results) only[v] = true;
  for (size_t o = 0; o < k.results.size(); ++o) {
    const uint32_t v = k.results[o];
    if (k.outputs[o].dtype != k.body[v].dtype) only[v] = false;
  }
  for (const Instr& in : k.body) {
    for (uint32_t a : in.args) only[a] = false;
  }
  return only;
}

std::string describe(const LoopKernel& k) {
  std::string s = "kernel outer_rank=" + std::to_string(k.outer_rank) +
                  " inner_rank=" + std::to_string(k.inner_rank) + (k.columns ? " columns" : "") +
                  "\n";
  auto level = [](Level l) { return l == Level::Row ? "row" : "outer"; };
  auto access = [](Access a) {
    return a == Access::Contiguous  ? "contiguous"
           : a == Access::Broadcast ? "broadcast"
                                    : "strided";
  };
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    s += "  in" + std::to_string(i) + ": " + std::string(ir::name(k.inputs[i].dtype)) + " " +
         level(k.inputs[i].level) + " " + access(k.inputs[i].access) + "\n";
  }
  for (size_t v = 0; v < k.body.size(); ++v) {
    const Instr& in = k.body[v];
    s += "  %" + std::to_string(v) + " = ";
    switch (in.kind) {
      case Instr::Kind::Load:
        s += "load in" + std::to_string(in.arg);
        break;
      case Instr::Kind::Const:
        s += "const #" + std::to_string(in.arg);
        break;
      case Instr::Kind::Op:
      case Instr::Kind::Reduce:
        s += std::string(in.kind == Instr::Kind::Reduce ? "reduce " : "") +
             std::string(ir::name(in.op));
        for (uint32_t a : in.args) s += " %" + std::to_string(a);
        break;
    }
    s += " : " + std::string(ir::name(in.dtype)) + " " + level(in.level) + "\n";
  }
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    s += "  out" + std::to_string(o) + " = %" + std::to_string(k.results[o]) + " : " +
         std::string(ir::name(k.outputs[o].dtype)) + " " + level(k.outputs[o].level) + "\n";
  }
  return s;
}

}  // namespace tensord::codegen
