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

}  // namespace

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
  if (!all_float_or_bool(in) || !float_or_bool(out)) return false;
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
      return ir::is_floating(in[0]) && out == in[0];
    case Op::isnan:
    case Op::isinf:
    case Op::isfinite:
    case Op::signbit:
      return ir::is_floating(in[0]) && out == DType::Bool;
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
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::div:
    case Op::maximum:
    case Op::minimum:
    case Op::pow:
      return ir::is_floating(out);
    case Op::where:
      return in[0] == DType::Bool;
    case Op::cast:
      return true;
    default:
      return false;
  }
}

bool expressible_reduction(Op op, DType input, DType result) {
  return (op == Op::sum || op == Op::max || op == Op::min) && ir::is_floating(input) &&
         result == input;
}

std::string describe(const LoopKernel& k) {
  std::string s = "kernel outer_rank=" + std::to_string(k.outer_rank) +
                  " inner_rank=" + std::to_string(k.inner_rank) + "\n";
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
