// Pieces of the C++ emitter shared by its files.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/codegen/loop_ir.h"
#include "engine/ir/dtype.h"
#include "engine/ir/op.h"

namespace tensord::codegen {

std::string cpp_prelude();

// emit_cpp_expr.cpp: the compute type of a dtype (bool, float, double or an integer type), its
// storage type, a literal of `type`, a value as an operand (a lane `vN[j]`, an outer scalar `oN`, a
// constant `cN`), and the right-hand side of one elementwise instruction: rounded to a 16-bit
// result dtype, as the eager kernels round, unless `round` is false (only_stored(k): a store
// rounds alike).
std::string cpp_type(ir::DType t);
std::string cpp_storage(ir::DType t);
std::string cpp_literal(double v, const std::string& type);
std::string cpp_ref(const LoopKernel& k, uint32_t v);
std::string cpp_expr(const LoopKernel& k, const Instr& in, bool round);

// Ops with an integer operand or result (emit_cpp_int.cpp): the formula of `op` on `args`
// (expressions of `arg_dtypes`' compute types), in `result`'s compute type, not rounded to a
// 16-bit result; the helpers it calls are cpp_int_prelude()'s, which cpp_prelude() includes.
std::string cpp_int_expr(ir::Op op, std::span<const std::string> args,
                         std::span<const ir::DType> arg_dtypes, ir::DType result);
std::string_view cpp_int_prelude();
// The register type of an integer dtype ("signed char" ... "long long"), as the formulas use.
std::string_view cpp_compute_type(ir::DType t);

}  // namespace tensord::codegen
