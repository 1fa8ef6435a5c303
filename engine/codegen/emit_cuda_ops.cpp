// The elementwise formulas of the CUDA emitter. First version: the arithmetic of float dtypes
// only; the full table (every unary and binary op of ops.def on every real dtype) replaces it.
#include "engine/codegen/emit_cuda_internal.h"

namespace tensord::codegen {
namespace {

bool is_float(ir::DType t) {
  return t == ir::DType::Float16 || t == ir::DType::BFloat16 || t == ir::DType::Float32 ||
         t == ir::DType::Float64;
}

}  // namespace

std::string_view cuda_compute_type(ir::DType t) {
  switch (t) {
    case ir::DType::Bool:
      return "bool";
    case ir::DType::Float64:
      return "double";
    default:
      return "float";
  }
}

bool cuda_op_supported(ir::Op op, std::span<const ir::DType> inputs, ir::DType result) {
  if (!is_float(result)) return false;
  for (ir::DType t : inputs) {
    if (!is_float(t)) return false;
  }
  return op == ir::Op::add || op == ir::Op::sub || op == ir::Op::mul || op == ir::Op::div ||
         op == ir::Op::neg || op == ir::Op::exp;
}

std::string cuda_expr(ir::Op op, std::span<const std::string> args,
                      std::span<const ir::DType> arg_dtypes, ir::DType result) {
  const std::string t(cuda_compute_type(result));
  auto a = [&](size_t i) { return "((" + t + ")" + args[i] + ")"; };
  switch (op) {
    case ir::Op::add:
      return "(" + a(0) + " + " + a(1) + ")";
    case ir::Op::sub:
      return "(" + a(0) + " - " + a(1) + ")";
    case ir::Op::mul:
      return "(" + a(0) + " * " + a(1) + ")";
    case ir::Op::div:
      return "(" + a(0) + " / " + a(1) + ")";
    case ir::Op::neg:
      return "(-" + a(0) + ")";
    case ir::Op::exp:
      return "exp(" + a(0) + ")";
    default:
      return "/* unsupported */";
  }
}

std::string_view cuda_math_prelude() {
  return "";
}

}  // namespace tensord::codegen
