// Pieces of the C++ emitter shared by its files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/codegen/loop_ir.h"

namespace tensord::codegen {

std::string_view cpp_prelude();

// emit_cpp_expr.cpp: the compute type of a dtype (bool, float or double), its storage type,
// a literal of `type`, a value as an operand (a lane `vN[j]`, an outer scalar `oN`, a constant
// `cN`), and the right-hand side of one elementwise instruction.
std::string cpp_type(ir::DType t);
std::string cpp_storage(ir::DType t);
std::string cpp_literal(double v, const std::string& type);
std::string cpp_ref(const LoopKernel& k, uint32_t v);
std::string cpp_expr(const LoopKernel& k, const Instr& in);

}  // namespace tensord::codegen
