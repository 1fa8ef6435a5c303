// Between the CUDA emitter's structure (emit_cuda_writer.h and its files: loops, loads, stores,
// reductions, parameters) and its table of elementwise formulas (emit_cuda_ops.cpp). Values
// live in registers in their dtype's compute type (cuda_compute_type); 16-bit floats compute in
// float and the structure rounds every result of such a dtype to it.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "engine/codegen/loop_ir.h"

namespace tensord::codegen {

// "bool", "signed char", "short", "int", "long long", "unsigned char", "float" (float16,
// bfloat16 and float32), "double", or td_c64 / td_c128 (complex64 / complex128, structs of
// cuda_complex_prelude()).
std::string_view cuda_compute_type(ir::DType t);

// Whether cuda_expr can write elementwise `op` (unary, binary, where, cast) on inputs of these
// dtypes giving `result`.
bool cuda_op_supported(ir::Op op, std::span<const ir::DType> inputs, ir::DType result);

// The CUDA C expression of `op` applied to `args` (expressions of their dtypes' compute types,
// `arg_dtypes`), of `result`'s compute type; not rounded to a 16-bit result dtype.
std::string cuda_expr(ir::Op op, std::span<const std::string> args,
                      std::span<const ir::DType> arg_dtypes, ir::DType result);

// Device functions the expressions call (td_* helpers), once per translation unit, after
// cuda_half_prelude() (which cuda_structure_prelude() starts with).
std::string_view cuda_math_prelude();
// The integer part of cuda_math_prelude() (emit_cuda_int.cpp).
std::string_view cuda_int_prelude();

// `x` (of `from`'s compute type) converted to `to`'s by the cast rules of scalar_cast.h; the
// real-only part (emit_cuda_ops.cpp) and the one that also takes complex dtypes
// (emit_cuda_complex.cpp: the imaginary part dropped, or 0).
std::string cuda_real_convert(const std::string& x, ir::DType from, ir::DType to);
std::string cuda_convert(const std::string& x, ir::DType from, ir::DType to);

// The formulas of ops with a complex operand or result (emit_cuda_complex.cpp): cuda_op_supported
// and cuda_expr hand such ops here.
bool cuda_complex_op_supported(ir::Op op, std::span<const ir::DType> inputs, ir::DType result);
std::string cuda_complex_expr(ir::Op op, std::span<const std::string> args,
                              std::span<const ir::DType> arg_dtypes, ir::DType result);
// The complex types, their arithmetic (cuda_complex_arithmetic) and functions
// (cuda_complex_math_prelude, emit_cuda_complex_math.cpp); after cuda_math_prelude() (it calls
// td_op_hypot).
std::string_view cuda_complex_prelude();
std::string_view cuda_complex_arithmetic();
std::string_view cuda_complex_math_prelude();
// The td_c* function of an elementwise complex function (sin ... isfinite, pow), or null.
const char* cuda_complex_math_function(ir::Op op);

}  // namespace tensord::codegen
