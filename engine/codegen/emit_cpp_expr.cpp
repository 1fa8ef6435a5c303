// The C++ emitter's expressions: types, literals and one elementwise instruction as C++ text
// (emit_cpp_writer.h writes the loops around them).
#include <cmath>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "engine/codegen/emit_cpp_internal.h"
#include "engine/codegen/storage_text.h"

namespace tensord::codegen {

using ir::DType;
using ir::Op;
using Kind = Instr::Kind;

std::string cpp_type(DType t) {
  if (ir::is_integral(t)) return std::string(cpp_compute_type(t));
  return t == DType::Bool ? "bool" : t == DType::Float64 ? "double" : "float";
}

std::string cpp_storage(DType t) {
  switch (t) {
    case DType::Float32:
      return "float";
    case DType::Float64:
      return "double";
    case DType::Float16:
    case DType::BFloat16:
      return "td_u16";
    case DType::Bool:
      return "unsigned char";
    default:
      return cpp_type(t);  // integers are stored as they compute
  }
}

std::string cpp_literal(double v, const std::string& type) {
  if (type == "bool") return v != 0 ? "true" : "false";
  const bool f = type == "float";
  if (std::isnan(v)) return f ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")";
  if (std::isinf(v))
    return std::string(v < 0 ? "-" : "") + (f ? "__builtin_inff()" : "__builtin_inf()");
  char buf[48];
  std::snprintf(buf, sizeof buf, "%a", v);
  return "(" + type + ")" + buf;
}

// A value as an operand in a lane loop (j) or in outer scalar code. Strings are built by
// appending: GCC 12 warns (-Wrestrict, a false positive) on "c" + std::to_string(v) here.
std::string cpp_ref(const LoopKernel& k, uint32_t v) {
  const Instr& in = k.body[v];
  std::string s(1, in.kind == Kind::Const ? 'c' : in.level == Level::Row ? 'v' : 'o');
  s += std::to_string(v);
  // In a column kernel outer values vary per lane too.
  if (in.kind != Kind::Const && (in.level == Level::Row || k.columns)) s += "[j]";
  return s;
}

namespace {

// An op with an integer operand or result: its formula is cpp_int_expr's (emit_cpp_int.cpp).
bool integer_op(DType result, std::span<const DType> args) {
  if (ir::is_integral(result)) return true;
  for (DType t : args) {
    if (ir::is_integral(t)) return true;
  }
  return false;
}

std::string conv(const LoopKernel& k, uint32_t v, const std::string& to) {
  const std::string from = cpp_type(k.body[v].dtype);
  if (from == to) return cpp_ref(k, v);
  std::string s = "(";
  if (to == "bool") {
    s += cpp_ref(k, v);
    s += " != 0)";
    return s;
  }
  s += to;
  s += ")(";
  s += cpp_ref(k, v);
  s += ")";
  return s;
}

// c ? a : b in compute type t; float and double by bits (td_self, td_seld in the prelude), so
// that GCC vectorizes the lanes instead of branching.
std::string select(const std::string& t, const std::string& c, const std::string& a,
                   const std::string& b) {
  if (t == "float") return "td_self(" + c + ", " + a + ", " + b + ")";
  if (t == "double") return "td_seld(" + c + ", " + a + ", " + b + ")";
  return "(" + c + " ? " + a + " : " + b + ")";
}

}  // namespace

std::string cpp_expr(const LoopKernel& k, const Instr& in, bool round) {
  auto result = [&](const std::string& x) { return round ? rounded(in.dtype, x) : x; };
  const std::vector<uint32_t>& a = in.args;
  std::vector<DType> dtypes;
  std::vector<std::string> refs;
  for (uint32_t v : a) {
    dtypes.push_back(k.body[v].dtype);
    refs.push_back(cpp_ref(k, v));
  }
  if (integer_op(in.dtype, dtypes)) {
    return result(cpp_int_expr(in.op, refs, dtypes, in.dtype));
  }
  if (in.op == Op::cast) return result(conv(k, a[0], cpp_type(in.dtype)));
  if (in.op == Op::where) {
    const std::string t = cpp_type(in.dtype);
    return select(t, conv(k, a[0], "bool"), conv(k, a[1], t), conv(k, a[2], t));
  }
  std::string t = cpp_type(in.dtype);
  switch (in.op) {
    case Op::isnan:
    case Op::isinf:
    case Op::isfinite:
    case Op::signbit:
      t = cpp_type(k.body[a[0]].dtype);
      break;
    case Op::eq:
    case Op::ne:
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge:
      t = cpp_type(ir::promote(k.body[a[0]].dtype, k.body[a[1]].dtype));
      break;
    case Op::logical_not:
    case Op::logical_and:
    case Op::logical_or:
      t = "bool";
      break;
    default:
      break;
  }
  const std::string f = t == "float" ? "f" : "";
  const std::string x = conv(k, a[0], t);
  const std::string y = a.size() > 1 ? conv(k, a[1], t) : "";
  auto call = [&](const char* fn) { return "__builtin_" + std::string(fn) + f + "(" + x + ")"; };
  std::string e;
  switch (in.op) {
    case Op::neg:
      e = "(-" + x + ")";
      break;
    case Op::abs:
      e = call("fabs");
      break;
    case Op::exp:
      e = call("exp");
      break;
    case Op::log:
      e = call("log");
      break;
    case Op::sin:
      e = call("sin");
      break;
    case Op::cos:
      e = call("cos");
      break;
    case Op::tanh:
      e = call("tanh");
      break;
    case Op::erf:
      e = call("erf");
      break;
    case Op::sqrt:
      e = call("sqrt");
      break;
    case Op::rsqrt:
      e = "((" + t + ")1 / " + call("sqrt") + ")";
      break;
    case Op::sigmoid:
      e = "((" + t + ")1 / ((" + t + ")1 + __builtin_exp" + f + "(-" + x + ")))";
      break;
    case Op::relu:
      e = select(t, "(" + x + " > 0) | (" + x + " != " + x + ")", x, "(" + t + ")0");
      break;
    case Op::floor:
      e = call("floor");
      break;
    case Op::ceil:
      e = call("ceil");
      break;
    case Op::trunc:
      e = call("trunc");
      break;
    case Op::round:
      e = call("nearbyint");
      break;
    case Op::sign:
      e = select(t, x + " > 0", "(" + t + ")1",
                 select(t, x + " < 0", "(" + t + ")-1", select(t, x + " == 0", "(" + t + ")0", x)));
      break;
    case Op::square:
      e = "(" + x + " * " + x + ")";
      break;
    case Op::reciprocal:
      e = "((" + t + ")1 / " + x + ")";
      break;
    case Op::frac:
      e = "(" + x + " - " + call("trunc") + ")";
      break;
    case Op::exp2:
      e = call("exp2");
      break;
    case Op::expm1:
      e = call("expm1");
      break;
    case Op::log2:
      e = call("log2");
      break;
    case Op::log10:
      e = call("log10");
      break;
    case Op::log1p:
      e = call("log1p");
      break;
    case Op::isnan:
      e = "(" + x + " != " + x + ")";
      break;
    case Op::isinf:
      e = "(__builtin_isinf(" + x + ") != 0)";
      break;
    case Op::isfinite:
      e = "(__builtin_isfinite(" + x + ") != 0)";
      break;
    case Op::signbit:
      // The sign bit read as an integer: GCC 12 vectorizing __builtin_signbit after abs and a
      // bfloat16 rounding (selu -> abs -> signbit) stopped with an internal compiler error.
      e = t == "double" ? "((__builtin_bit_cast(unsigned long long, " + x + ") >> 63) != 0)"
                        : "((__builtin_bit_cast(td_u32, (float)(" + x + ")) >> 31) != 0)";
      break;
    case Op::logical_not:
      e = "(!" + x + ")";
      break;
    case Op::logical_and:
      e = "(" + x + " && " + y + ")";
      break;
    case Op::logical_or:
      e = "(" + x + " || " + y + ")";
      break;
    case Op::eq:
      e = "(" + x + " == " + y + ")";
      break;
    case Op::ne:
      e = "(" + x + " != " + y + ")";
      break;
    case Op::lt:
      e = "(" + x + " < " + y + ")";
      break;
    case Op::le:
      e = "(" + x + " <= " + y + ")";
      break;
    case Op::gt:
      e = "(" + x + " > " + y + ")";
      break;
    case Op::ge:
      e = "(" + x + " >= " + y + ")";
      break;
    case Op::add:
      e = "(" + x + " + " + y + ")";
      break;
    case Op::sub:
      e = "(" + x + " - " + y + ")";
      break;
    case Op::mul:
      e = "(" + x + " * " + y + ")";
      break;
    case Op::div:
      e = "(" + x + " / " + y + ")";
      break;
    case Op::maximum:
      e = select(t, "(" + x + " > " + y + ") | (" + x + " != " + x + ")", x, y);
      break;
    case Op::minimum:
      e = select(t, "(" + x + " < " + y + ") | (" + x + " != " + x + ")", x, y);
      break;
    case Op::pow:
      e = "__builtin_pow" + f + "(" + x + ", " + y + ")";
      break;
    case Op::fmod:
      e = "__builtin_fmod" + f + "(" + x + ", " + y + ")";
      break;
    case Op::remainder:
      e = (t == "float" ? "td_remf(" : "td_remd(") + x + ", " + y + ")";
      break;
    case Op::floor_divide:
      e = "(" + t + ")td_floordiv((double)" + x + ", (double)" + y + ")";
      break;
    default:
      e = "/* unsupported */";
      break;
  }
  return result(e);
}

}  // namespace tensord::codegen
