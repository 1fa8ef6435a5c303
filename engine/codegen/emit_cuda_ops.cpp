// The elementwise formulas of the CUDA emitter: every unary, binary and ternary op of ops.def on
// every real dtype, with the CPU backend's semantics (engine/backends/cpu/kernels_unary*.cpp,
// kernels_binary*.cpp, kernels_cast.cpp, kernels_special*.cpp). As there, an op computes in its
// result's dtype (inputs converted first, with the cast rules), comparisons in the promoted
// input dtype, predicates in the input's own dtype; 16-bit floats compute in float and special
// functions in double. The helpers the expressions call are in emit_cuda_math.cpp.
//
// polygamma, multigammaln and logit with eps take their attribute as a last Float64 argument
// (codegen::attribute_operand); frexp is two formulas, its mantissa (a result of the input's
// dtype) and its exponent (an int32 result), one per output. Ops with a complex operand or
// result are emit_cuda_complex.cpp's.
#include <initializer_list>
#include <optional>
#include <string_view>

#include "engine/codegen/emit_cuda_internal.h"
#include "engine/ir/error.h"

namespace tensord::codegen {
namespace {

using ir::DType;
using ir::Op;

bool half16(DType t) {
  return t == DType::Float16 || t == DType::BFloat16;
}
bool is_int(DType t) {
  return ir::is_integral(t);
}
bool is_signed_int(DType t) {
  return t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64;
}
std::string ct(DType t) {
  return std::string(cuda_compute_type(t));
}
// The unsigned type integer arithmetic wraps in (the CPU's WrapT: 32 bits below 4 bytes).
std::string wrap(DType t) {
  return t == DType::Int64 ? "unsigned long long" : "unsigned";
}
std::string bits(DType t) {
  return std::to_string(8 * ir::itemsize(t));
}
std::string sgn(DType t) {
  return is_signed_int(t) ? "true" : "false";
}
// Concatenation without operator+ chains on temporaries (GCC 12 warns falsely about them).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (std::string_view p : parts) s += p;
  return s;
}
std::string paren(const std::string& x) {
  return "(" + x + ")";
}
std::string cast_to(const std::string& type, const std::string& x) {
  return "((" + type + ")(" + x + "))";
}

// The float functions with a float and a double version in CUDA (expf / exp).
const char* libm_name(Op op) {
  switch (op) {
    case Op::exp:
      return "exp";
    case Op::log:
      return "log";
    case Op::sqrt:
      return "sqrt";
    case Op::sin:
      return "sin";
    case Op::cos:
      return "cos";
    case Op::tanh:
      return "tanh";
    case Op::erf:
      return "erf";
    case Op::exp2:
      return "exp2";
    case Op::expm1:
      return "expm1";
    case Op::log2:
      return "log2";
    case Op::log10:
      return "log10";
    case Op::log1p:
      return "log1p";
    case Op::tan:
      return "tan";
    case Op::asin:
      return "asin";
    case Op::acos:
      return "acos";
    case Op::atan:
      return "atan";
    case Op::sinh:
      return "sinh";
    case Op::cosh:
      return "cosh";
    case Op::asinh:
      return "asinh";
    case Op::acosh:
      return "acosh";
    case Op::atanh:
      return "atanh";
    case Op::erfc:
      return "erfc";
    case Op::floor:
      return "floor";
    case Op::ceil:
      return "ceil";
    case Op::trunc:
      return "trunc";
    case Op::round:
      return "rint";  // half to even, as nearbyint in the default rounding mode
    case Op::abs:
      return "fabs";
    case Op::pow:
      return "pow";
    case Op::atan2:
      return "atan2";
    case Op::hypot:
      return "hypot";
    case Op::copysign:
      return "copysign";
    case Op::fmod:
      return "fmod";
    default:
      return nullptr;
  }
}

// The special functions, evaluated in double for every float dtype (td_* of the prelude).
const char* special_name(Op op) {
  switch (op) {
    case Op::lgamma:
      return "td_lgamma";
    case Op::digamma:
      return "td_digamma";
    case Op::erfinv:
      return "td_erfinv";
    case Op::erfcx:
      return "td_erfcx";
    case Op::i0:
      return "td_i0";
    case Op::i0e:
      return "td_i0e";
    case Op::i1:
      return "td_i1";
    case Op::i1e:
      return "td_i1e";
    case Op::ndtr:
      return "td_ndtr";
    case Op::ndtri:
      return "td_ndtri";
    case Op::log_ndtr:
      return "td_log_ndtr";
    case Op::sinc:
      return "td_sinc";
    case Op::entr:
      return "td_entr";
    case Op::logit:
      return "td_logit";
    case Op::bessel_j0:
      return "td_bessel_j0";
    case Op::bessel_j1:
      return "td_bessel_j1";
    case Op::xlogy:
      return "td_xlogy";
    case Op::xlog1py:
      return "td_xlog1py";
    case Op::gammainc:
      return "td_gammainc";
    case Op::gammaincc:
      return "td_gammaincc";
    case Op::zeta:
      return "td_zeta";
    default:
      return nullptr;
  }
}

// Unary ops whose result is a float (the default float for integer and bool inputs).
bool float_unary(Op op) {
  if (special_name(op) != nullptr) return true;
  switch (op) {
    case Op::exp:
    case Op::log:
    case Op::sqrt:
    case Op::rsqrt:
    case Op::sin:
    case Op::cos:
    case Op::tanh:
    case Op::sigmoid:
    case Op::erf:
    case Op::exp2:
    case Op::expm1:
    case Op::log2:
    case Op::log10:
    case Op::log1p:
    case Op::tan:
    case Op::asin:
    case Op::acos:
    case Op::atan:
    case Op::sinh:
    case Op::cosh:
    case Op::asinh:
    case Op::acosh:
    case Op::atanh:
    case Op::erfc:
    case Op::reciprocal:
    case Op::angle:
      return true;
    default:
      return false;
  }
}

// The result dtype of `op` on real `in`, as ir::infer gives it, for the ops written here;
// nullopt for what infer rejects and for what is not expressible.
std::optional<DType> result_of(Op op, std::span<const DType> in) {
  const ir::OpKind kind = ir::op_info(op).kind;
  if (kind == ir::OpKind::Unary && in.size() == 1) {
    const DType t = in[0];
    if (op == Op::real || op == Op::imag || op == Op::frexp || op == Op::polygamma ||
        op == Op::multigammaln || op == Op::cast) {
      return std::nullopt;
    }
    switch (op) {
      case Op::neg:
      case Op::abs:
      case Op::relu:
      case Op::floor:
      case Op::ceil:
      case Op::round:
      case Op::sign:
      case Op::square:
      case Op::trunc:
        if (t == DType::Bool) return std::nullopt;
        return t;
      case Op::frac:
        if (!ir::is_floating(t)) return std::nullopt;
        return t;
      case Op::bitwise_not:
        if (ir::is_floating(t)) return std::nullopt;
        return t;
      case Op::logical_not:
      case Op::isnan:
      case Op::isinf:
      case Op::isfinite:
      case Op::signbit:
        return DType::Bool;
      default:
        if (float_unary(op)) return ir::is_floating(t) ? t : ir::kDefaultFloat;
        return std::nullopt;
    }
  }
  if (kind == ir::OpKind::Binary && in.size() == 2) {
    const DType t = ir::promote(in[0], in[1]);
    switch (op) {
      case Op::add:
      case Op::sub:
      case Op::mul:
      case Op::pow:
      case Op::fmod:
      case Op::remainder:
      case Op::floor_divide:
        if (t == DType::Bool) return std::nullopt;
        return t;
      case Op::div:
      case Op::atan2:
      case Op::hypot:
      case Op::logaddexp:
      case Op::logaddexp2:
      case Op::copysign:
      case Op::xlogy:
      case Op::xlog1py:
      case Op::gammainc:
      case Op::gammaincc:
      case Op::zeta:
        return ir::is_floating(t) ? t : ir::kDefaultFloat;
      case Op::nextafter:
        if (!ir::is_floating(t)) return std::nullopt;
        return t;
      case Op::bitwise_and:
      case Op::bitwise_or:
      case Op::bitwise_xor:
        if (ir::is_floating(t)) return std::nullopt;
        return t;
      case Op::bitwise_left_shift:
      case Op::bitwise_right_shift:
      case Op::gcd:
      case Op::lcm:
        if (!is_int(t)) return std::nullopt;
        return t;
      case Op::maximum:
      case Op::minimum:
        return t;
      case Op::eq:
      case Op::ne:
      case Op::lt:
      case Op::le:
      case Op::gt:
      case Op::ge:
      case Op::logical_and:
      case Op::logical_or:
        return DType::Bool;
      default:
        return std::nullopt;  // complex (a complex result)
    }
  }
  if (op == Op::where && in.size() == 3) return ir::promote(in[1], in[2]);
  return std::nullopt;
}

// `x` (an expression of `from`'s compute type) converted to `to`'s compute type by the cast
// rules of scalar_cast.h; a 16-bit `to` is rounded to its grid here (once).
std::string convert(const std::string& x, DType from, DType to) {
  if (from == to) return x;
  if (to == DType::Bool) return "(" + x + " != 0)";
  if (from == DType::Bool) return cast_to(ct(to), x);
  if (is_int(to)) {
    if (is_int(from)) return cast_to(ct(to), x);
    switch (to) {  // from a float: truncation, saturation, NaN -> 0
      case DType::Int8:
        return "td_op_f2i8(" + x + ")";
      case DType::UInt8:
        return "td_op_f2u8(" + x + ")";
      case DType::Int16:
        return "td_op_f2i16(" + x + ")";
      case DType::Int32:
        return "td_op_f2i32(" + x + ")";
      default:
        return "td_op_f2i64(" + x + ")";
    }
  }
  if (to == DType::Float64) return cast_to("double", x);
  if (to == DType::Float32) return half16(from) ? x : cast_to("float", x);
  // to float16 / bfloat16: from float exactly or by round-to-odd, then rounded once.
  const std::string round = to == DType::Float16 ? "td_rh(" : "td_rb(";
  if (from == DType::Float32 || half16(from)) return round + x + ")";
  if (from == DType::Int8 || from == DType::UInt8 || from == DType::Int16) {
    return round + cast_to("float", x) + ")";  // exact in float
  }
  return round + "td_op_rto(" + cast_to("double", x) + "))";
}

std::string call(const std::string& fn, const std::string& x) {
  return fn + "(" + x + ")";
}
std::string call(const std::string& fn, const std::string& x, const std::string& y) {
  return fn + "(" + x + ", " + y + ")";
}
std::string call(const std::string& fn, const std::string& x, const std::string& y,
                 const std::string& z) {
  return fn + "(" + x + ", " + y + ", " + z + ")";
}

// A float function of CUDA's math library in the compute type of `t` (float or double).
std::string libm(const char* name, DType t, const std::string& x) {
  return call(std::string(name) + (t == DType::Float64 ? "" : "f"), x);
}
std::string libm(const char* name, DType t, const std::string& x, const std::string& y) {
  return call(std::string(name) + (t == DType::Float64 ? "" : "f"), x, y);
}
// A double special function, rounded to the compute type of `t`.
std::string special(const char* name, DType t, const std::string& x) {
  if (t == DType::Float64) return call(name, x);
  return cast_to("float", call(name, cast_to("double", x)));
}
std::string special(const char* name, DType t, const std::string& x, const std::string& y) {
  if (t == DType::Float64) return call(name, x, y);
  return cast_to("float", call(name, cast_to("double", x), cast_to("double", y)));
}

std::string int_template(const std::string& fn, DType t, bool with_wrap, bool with_sign,
                         bool with_bits) {
  std::string s = fn + "<" + ct(t);
  if (with_wrap) s += ", " + wrap(t);
  if (with_sign) s += ", " + sgn(t);
  if (with_bits) s += ", " + bits(t);
  return s + ">";
}

std::string unary(Op op, const std::string& x, DType t) {
  const bool f = ir::is_floating(t);
  const std::string type = ct(t);
  if (const char* s = special_name(op)) return special(s, t, x);
  switch (op) {
    case Op::neg:
      return f ? "(-" + x + ")" : call(int_template("td_op_ineg", t, true, false, false), x);
    case Op::abs:
      if (f) return libm("fabs", t, x);
      return is_signed_int(t) ? call(int_template("td_op_iabs", t, true, false, false), x) : x;
    case Op::relu:
      return call("td_op_relu<" + type + ">", x);
    case Op::sign:
      return call((f                  ? "td_op_fsign<"
                   : is_signed_int(t) ? "td_op_isign<"
                                      : "td_op_usign<") +
                      type + ">",
                  x);
    case Op::floor:
    case Op::ceil:
    case Op::round:
    case Op::trunc:
      return f ? libm(libm_name(op), t, x) : x;  // the identity on integers
    case Op::square:
      return f ? call("td_op_square<" + type + ">", x)
               : call(int_template("td_op_isquare", t, true, false, false), x);
    case Op::frac:
      return call("td_op_frac", x);
    case Op::bitwise_not:
      return t == DType::Bool ? cat({"(!", x, ")"}) : cast_to(type, cat({"~", paren(x)}));
    case Op::rsqrt:
      return cat({"(", cast_to(type, "1"), " / ", libm("sqrt", t, x), ")"});
    case Op::reciprocal:
      return cat({"(", cast_to(type, "1"), " / ", x, ")"});
    case Op::sigmoid:
      return call("td_op_sigmoid", x);
    case Op::angle:  // of a real number: atan2(0, x)
      return libm("atan2", t, cast_to(type, "0"), x);
    default:
      return libm(libm_name(op), t, x);
  }
}

// Predicates on the input's own dtype (bool results).
std::string predicate(Op op, const std::string& x, DType t) {
  const bool f = ir::is_floating(t);
  switch (op) {
    case Op::isnan:
      return f ? call("td_op_isnan<" + ct(t) + ">", x) : "false";
    case Op::isinf:
      return f ? call("td_op_isinf", x) : "false";
    case Op::isfinite:
      return f ? call("td_op_isfinite", x) : "true";
    case Op::signbit:
      if (f) return call("td_op_signbit", x);
      return is_signed_int(t) ? "(" + x + " < 0)" : "false";
    default:  // logical_not
      return "(" + x + " == 0)";
  }
}

const char* comparison(Op op) {
  switch (op) {
    case Op::eq:
      return " == ";
    case Op::ne:
      return " != ";
    case Op::lt:
      return " < ";
    case Op::le:
      return " <= ";
    case Op::gt:
      return " > ";
    case Op::ge:
      return " >= ";
    default:
      return nullptr;
  }
}

std::string binary(Op op, const std::string& x, const std::string& y, DType t) {
  const bool f = ir::is_floating(t);
  const std::string type = ct(t);
  if (const char* s = special_name(op)) return special(s, t, x, y);
  auto infix = [&](const char* o) {
    if (f || t == DType::Bool) return cast_to(type, x + o + y);
    return cast_to(type, cat({"(", wrap(t), ")", paren(x), o, "(", wrap(t), ")", paren(y)}));
  };
  // Float sums, differences and products round once each, as the eager kernels' do: the _rn
  // intrinsics are never contracted into an FMA with a neighbouring op of a fused kernel (the
  // H200's cuda-fused table found x * y + z one ulp off the CPU's with plain operators).
  auto rounded = [&](const char* name, const char* o) {
    if (!f) return infix(o);
    return call(std::string(t == DType::Float64 ? "__d" : "__f") + name + "_rn", x, y);
  };
  switch (op) {
    case Op::add:
      return rounded("add", " + ");
    case Op::sub:
      return rounded("sub", " - ");
    case Op::mul:
      return rounded("mul", " * ");
    case Op::div:
      return "(" + x + " / " + y + ")";
    case Op::pow:
      return f ? libm("pow", t, x, y)
               : call(int_template("td_op_ipow", t, true, true, false), x, y);
    case Op::maximum:
      return call("td_op_maximum<" + type + ">", x, y);
    case Op::minimum:
      return call("td_op_minimum<" + type + ">", x, y);
    case Op::fmod:
      return f ? libm("fmod", t, x, y)
               : call(int_template("td_op_imod", t, false, true, false), x, y);
    case Op::remainder:
      return f ? call("td_op_remainder", x, y)
               : call(int_template("td_op_irem", t, false, true, false), x, y);
    case Op::floor_divide:
      if (f)
        return cast_to(type, call("td_op_floordiv", cast_to("double", x), cast_to("double", y)));
      return call(int_template("td_op_ifloordiv", t, true, true, false), x, y);
    case Op::bitwise_and:
      return cast_to(type, paren(x) + " & " + paren(y));
    case Op::bitwise_or:
      return cast_to(type, paren(x) + " | " + paren(y));
    case Op::bitwise_xor:
      return cast_to(type, paren(x) + " ^ " + paren(y));
    case Op::bitwise_left_shift:
      return call(int_template("td_op_shl", t, true, true, true), x, y);
    case Op::bitwise_right_shift:
      return call(int_template("td_op_shr", t, false, true, true), x, y);
    case Op::gcd:
      return call(int_template("td_op_gcd", t, true, true, false), x, y);
    case Op::lcm:
      return call(int_template("td_op_lcm", t, true, true, false), x, y);
    case Op::hypot:
      return call("td_op_hypot", x, y);
    case Op::logaddexp:
      return call("td_op_logaddexp", x, y);
    case Op::logaddexp2:
      return call("td_op_logaddexp2", x, y);
    case Op::nextafter:
      if (t == DType::Float16) return call("td_op_nextafter_h", x, y);
      if (t == DType::BFloat16) return call("td_op_nextafter_b", x, y);
      return libm("nextafter", t, x, y);
    default:  // atan2, copysign
      return libm(libm_name(op), t, x, y);
  }
}

}  // namespace

std::string_view cuda_compute_type(DType t) {
  switch (t) {
    case DType::Bool:
      return "bool";
    case DType::Int8:
      return "signed char";
    case DType::UInt8:
      return "unsigned char";
    case DType::Int16:
      return "short";
    case DType::Int32:
      return "int";
    case DType::Int64:
      return "long long";
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32:
      return "float";
    case DType::Float64:
      return "double";
    case DType::Complex64:
      return "td_c64";
    case DType::Complex128:
      return "td_c128";
    default:
      return "";
  }
}

std::string cuda_real_convert(const std::string& x, DType from, DType to) {
  return convert(x, from, to);
}

namespace {
// The ops with a formula attribute (codegen::attribute_operand) as their last argument.
bool takes_attribute(Op op) {
  return op == Op::polygamma || op == Op::multigammaln || op == Op::logit;
}
bool involves_complex(std::span<const DType> inputs, DType result) {
  if (ir::is_complex(result)) return true;
  for (DType t : inputs) {
    if (ir::is_complex(t)) return true;
  }
  return false;
}
}  // namespace

bool cuda_op_supported(Op op, std::span<const DType> inputs, DType result) {
  if (involves_complex(inputs, result)) return cuda_complex_op_supported(op, inputs, result);
  if (op == Op::cast) return inputs.size() == 1;
  if (op == Op::frexp) {
    return inputs.size() == 1 && ir::is_floating(inputs[0]) &&
           (result == inputs[0] || result == DType::Int32);
  }
  if (takes_attribute(op) && inputs.size() == 2) {
    if (inputs[1] != DType::Float64) return false;
    const DType x[] = {inputs[0]};
    const std::optional<DType> expected = result_of(op == Op::logit ? op : Op::lgamma, x);
    return expected && *expected == result;
  }
  if (op == Op::polygamma || op == Op::multigammaln) return false;  // without their attribute
  const std::optional<DType> expected = result_of(op, inputs);
  return expected && *expected == result;
}

std::string cuda_expr(Op op, std::span<const std::string> args, std::span<const DType> arg_dtypes,
                      DType result) {
  if (!cuda_op_supported(op, arg_dtypes, result) || args.size() != arg_dtypes.size()) {
    std::string in;
    for (DType t : arg_dtypes) in += (in.empty() ? "" : ", ") + std::string(ir::name(t));
    throw Error(ErrorCode::Unsupported, "the CUDA backend has no kernel for " +
                                            std::string(ir::name(op)) + " on (" + in + ") -> " +
                                            std::string(ir::name(result)));
  }
  if (involves_complex(arg_dtypes, result)) return cuda_complex_expr(op, args, arg_dtypes, result);
  auto as = [&](size_t i, DType t) { return convert(paren(args[i]), arg_dtypes[i], t); };
  if (op == Op::cast) return as(0, result);
  if (op == Op::frexp) {
    return call(result == DType::Int32 ? "td_frexp_exponent" : "td_frexp_mantissa", args[0]);
  }
  if (takes_attribute(op) && args.size() == 2) {
    const std::string x = as(0, result), a = paren(args[1]);
    if (op == Op::polygamma) return special("td_polygamma", result, a, x);
    if (op == Op::multigammaln) return special("td_multigammaln", result, x, a);
    // logit's clamp as the CPU's: lo = eps and hi = 1 - lo, each rounded to the result dtype.
    const std::string lo = cast_to("double", convert(a, DType::Float64, result));
    const std::string hi = cast_to("double", convert("(1.0 - " + lo + ")", DType::Float64, result));
    if (result == DType::Float64) return call("td_logit_clamped", x, lo, hi);
    return cast_to("float", call("td_logit_clamped", cast_to("double", x), lo, hi));
  }
  if (op == Op::where)
    return cat({"(", as(0, DType::Bool), " ? ", as(1, result), " : ", as(2, result), ")"});
  switch (op) {
    case Op::logical_not:
    case Op::isnan:
    case Op::isinf:
    case Op::isfinite:
    case Op::signbit:
      return predicate(op, paren(args[0]), arg_dtypes[0]);
    case Op::logical_and:
    case Op::logical_or:
      return "((" + paren(args[0]) + " != 0)" + (op == Op::logical_and ? " && " : " || ") + "(" +
             paren(args[1]) + " != 0))";
    default:
      break;
  }
  if (const char* cmp = comparison(op)) {
    // In the promoted dtype, as the CPU converts both sides to it first.
    const DType t =
        arg_dtypes[0] == arg_dtypes[1] ? arg_dtypes[0] : ir::promote(arg_dtypes[0], arg_dtypes[1]);
    return cat({"(", as(0, t), cmp, as(1, t), ")"});
  }
  if (args.size() == 1) return unary(op, as(0, result), result);
  return binary(op, as(0, result), as(1, result), result);
}

}  // namespace tensord::codegen
