// Between the CUDA emitter's structure (emit_cuda.cpp: loops, loads, stores, reductions,
// parameters) and its table of elementwise formulas (emit_cuda_ops.cpp). Values live in
// registers in their dtype's compute type (cuda_compute_type); 16-bit floats compute in float
// and the structure rounds every result of such a dtype to it.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "engine/codegen/loop_ir.h"

namespace tensord::codegen {

// "bool", "signed char", "short", "int", "long long", "unsigned char", "float" (float16,
// bfloat16 and float32) or "double". Complex dtypes have none (not expressible).
std::string_view cuda_compute_type(ir::DType t);

// Whether cuda_expr can write elementwise `op` (unary, binary, where, cast) on inputs of these
// dtypes giving `result`.
bool cuda_op_supported(ir::Op op, std::span<const ir::DType> inputs, ir::DType result);

// The CUDA C expression of `op` applied to `args` (expressions of their dtypes' compute types,
// `arg_dtypes`), of `result`'s compute type; not rounded to a 16-bit result dtype.
std::string cuda_expr(ir::Op op, std::span<const std::string> args,
                      std::span<const ir::DType> arg_dtypes, ir::DType result);

// Device functions the expressions call (td_* helpers), once per translation unit.
std::string_view cuda_math_prelude();

}  // namespace tensord::codegen
