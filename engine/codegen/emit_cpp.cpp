// The C++ emitter. A kernel body walks rows of the innermost dimension in blocks of TD_B
// lanes: every instruction is one fixed-length lane loop over small arrays, which GCC turns
// into vector code, with libmvec calls for the transcendental functions. Kernels with inner
// dimensions make one pass over a row per reduction (recomputing the cheap elementwise
// values that feed it rather than storing them) and a last pass for the row-level outputs.
#include <cmath>
#include <cstdio>
#include <vector>

#include "engine/codegen/emit_cpp_internal.h"
#include "engine/codegen/emitter.h"
#include "engine/codegen/storage_text.h"

namespace tensord::codegen {
namespace {

using ir::DType;
using ir::Op;
using Kind = Instr::Kind;

std::string ct(DType t) {
  if (ir::is_integral(t)) return std::string(cpp_compute_type(t));
  return t == DType::Bool ? "bool" : t == DType::Float64 ? "double" : "float";
}

// An op with an integer operand or result: its formula is cpp_int_expr's (emit_cpp_int.cpp).
bool integer_op(DType result, std::span<const DType> args) {
  if (ir::is_integral(result)) return true;
  for (DType t : args) {
    if (ir::is_integral(t)) return true;
  }
  return false;
}

// The identity of max (lowest) or min (highest) of an integer dtype, as a literal.
std::string int_extreme(DType t, bool lowest) {
  switch (t) {
    case DType::Int8:
      return lowest ? "(signed char)-128" : "(signed char)127";
    case DType::UInt8:
      return lowest ? "(unsigned char)0" : "(unsigned char)255";
    case DType::Int16:
      return lowest ? "(short)-32768" : "(short)32767";
    case DType::Int32:
      return lowest ? "(-2147483647 - 1)" : "2147483647";
    default:
      return lowest ? "(-9223372036854775807LL - 1)" : "9223372036854775807LL";
  }
}

std::string storage(DType t) {
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
      return ct(t);  // integers are stored as they compute
  }
}

std::string literal(double v, const std::string& type) {
  if (type == "bool") return v != 0 ? "true" : "false";
  const bool f = type == "float";
  if (std::isnan(v)) return f ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")";
  if (std::isinf(v))
    return std::string(v < 0 ? "-" : "") + (f ? "__builtin_inff()" : "__builtin_inf()");
  char buf[48];
  std::snprintf(buf, sizeof buf, "%a", v);
  return "(" + type + ")" + buf;
}

bool vector_call(Op op) {
  return op == Op::exp || op == Op::log || op == Op::sin || op == Op::cos || op == Op::tanh ||
         op == Op::erf || op == Op::exp2 || op == Op::expm1 || op == Op::log2 ||
         op == Op::log10 || op == Op::log1p;
}

// Launch domains of at least this many cells (16 MiB per float32 output, past a core's share of
// the last-level cache on the machines we use) store float32 row outputs non-temporally.
constexpr int64_t kStreamCells = int64_t{1} << 22;

class Writer {
 public:
  explicit Writer(const LoopKernel& k)
      : k_(k),
        r_(k.rank()),
        ni_(static_cast<int>(k.inputs.size())),
        n_(static_cast<int>(k.operands())) {}

  std::string body() {
    line(
        "(const td_i64* sz, const td_i64* st, char* const* pp, const double* cs, td_i64 begin, "
        "td_i64 end) {");
    line("  (void)cs;");
    for (int o = 0; o < n_; ++o) {
      const Operand& op = operand(o);
      line("  " + std::string(o < ni_ ? "const " : "") + storage(op.dtype) + "* p" +
           std::to_string(o) + "_ = (" + (o < ni_ ? "const " : "") + storage(op.dtype) + "*)pp[" +
           std::to_string(o) + "];");
    }
    for (uint32_t v = 0; v < k_.body.size(); ++v) {
      const Instr& in = k_.body[v];
      if (in.kind == Kind::Const) {
        const std::string c = "cs[" + std::to_string(in.arg) + "]";
        line("  const " + ct(in.dtype) + " c" + std::to_string(v) + " = " +
             (in.dtype == DType::Bool ? "(" + c + " != 0)" : "(" + ct(in.dtype) + ")" + c) + ";");
      }
    }
    const bool stream = streams();
    if (stream) {
      // Outputs larger than the caches are written with non-temporal stores: they would be
      // evicted before anyone reads them, and a normal store first reads each line it writes.
      line("  td_i64 td_cells = 1;");
      line("  for (int d = 0; d < " + rank() + "; ++d) td_cells *= sz[d];");
      line("  const bool td_nt = td_cells >= " + std::to_string(kStreamCells) + ";");
      line("  (void)td_nt;");
    }
    if (k_.inner_rank == 0) {
      pointwise();
    } else {
      rows();
    }
    if (stream) {
      line("#if defined(__AVX512F__)");
      line("  if (td_nt) __builtin_ia32_sfence();");
      line("#endif");
    }
    line("}");
    return std::move(out_);
  }

 private:
  const Operand& operand(int o) const { return o < ni_ ? k_.inputs[o] : k_.outputs[o - ni_]; }
  void line(const std::string& s) { out_ += s + "\n"; }
  std::string num(uint32_t v) const { return std::to_string(v); }

  // A value as an operand in a lane loop (j) or in outer scalar code.
  std::string ref(uint32_t v) const {
    const Instr& in = k_.body[v];
    if (in.kind == Kind::Const) return "c" + num(v);
    return in.level == Level::Row ? "v" + num(v) + "[j]" : "o" + num(v);
  }
  std::string conv(uint32_t v, const std::string& to) const {
    const std::string from = ct(k_.body[v].dtype);
    if (from == to) return ref(v);
    if (to == "bool") return "(" + ref(v) + " != 0)";
    return "(" + to + ")(" + ref(v) + ")";
  }

  std::string expr(const Instr& in) const {
    const std::vector<uint32_t>& a = in.args;
    std::vector<DType> dtypes;
    std::vector<std::string> refs;
    for (uint32_t v : a) {
      dtypes.push_back(k_.body[v].dtype);
      refs.push_back(ref(v));
    }
    if (integer_op(in.dtype, dtypes))
      return rounded(in.dtype, cpp_int_expr(in.op, refs, dtypes, in.dtype));
    if (in.op == Op::cast) return rounded(in.dtype, conv(a[0], ct(in.dtype)));
    if (in.op == Op::where) {
      return "(" + conv(a[0], "bool") + " ? " + conv(a[1], ct(in.dtype)) + " : " +
             conv(a[2], ct(in.dtype)) + ")";
    }
    std::string t = ct(in.dtype);
    switch (in.op) {
      case Op::isnan:
      case Op::isinf:
      case Op::isfinite:
      case Op::signbit:
        t = ct(k_.body[a[0]].dtype);
        break;
      case Op::eq:
      case Op::ne:
      case Op::lt:
      case Op::le:
      case Op::gt:
      case Op::ge:
        t = ct(ir::promote(k_.body[a[0]].dtype, k_.body[a[1]].dtype));
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
    const std::string x = conv(a[0], t);
    const std::string y = a.size() > 1 ? conv(a[1], t) : "";
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
        e = "((" + x + " > 0) | (" + x + " != " + x + ") ? " + x + " : (" + t + ")0)";
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
        e = "(" + x + " > 0 ? (" + t + ")1 : " + x + " < 0 ? (" + t + ")-1 : " + x + " == 0 ? (" +
            t + ")0 : " + x + ")";
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
        e = "(__builtin_signbit(" + x + ") != 0)";
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
        e = "((" + x + " > " + y + ") | (" + x + " != " + x + ") ? " + x + " : " + y + ")";
        break;
      case Op::minimum:
        e = "((" + x + " < " + y + ") | (" + x + " != " + x + ") ? " + x + " : " + y + ")";
        break;
      case Op::pow:
        e = "__builtin_pow" + f + "(" + x + ", " + y + ")";
        break;
      default:
        e = "/* unsupported */";
        break;
    }
    return rounded(in.dtype, e);
  }

  // Row instruction v inside a block.
  void row_instr(uint32_t v) {
    const Instr& in = k_.body[v];
    const std::string a = "v" + num(v);
    line("    " + ct(in.dtype) + " " + a + "[TD_B];");
    if (in.kind == Kind::Load) {
      const Operand& op = k_.inputs[in.arg];
      const std::string p = "p" + std::to_string(in.arg);
      std::string at;
      if (op.access == Access::Contiguous)
        at = p + "[i + j]";
      else if (op.access == Access::Broadcast)
        at = p + "[0]";
      else
        at = p + "[(i + j) * s" + std::to_string(in.arg) + "]";
      const std::string ld = from_storage(op.dtype, at);
      line("    if (full) { for (int j = 0; j < TD_B; ++j) " + a + "[j] = " + ld + "; }");
      line("    else { for (int j = 0; j < TD_B; ++j) " + a + "[j] = j < m ? " + ld + " : 0; }");
      return;
    }
    const bool is_float = in.dtype != DType::Bool && in.dtype != DType::Float64;
    if (is_float && (vector_call(in.op) || in.op == Op::sigmoid) &&
        k_.body[in.args[0]].level == Level::Row) {
      const std::string x = "v" + num(in.args[0]);
      if (in.op == Op::sigmoid) {
        line("    for (int j = 0; j < TD_B; ++j) " + a + "[j] = -" + x + "[j];");
        line("    td_vexp(" + a + ", " + a + ");");
        line("    for (int j = 0; j < TD_B; ++j) " + a + "[j] = 1.0f / (1.0f + " + a + "[j]);");
      } else {
        line("    td_v" + std::string(ir::name(in.op)) + "(" + x + ", " + a + ");");
      }
      if (in.dtype == DType::Float16 || in.dtype == DType::BFloat16) {
        line("    for (int j = 0; j < TD_B; ++j) " + a + "[j] = " + rounded(in.dtype, a + "[j]") +
             ";");
      }
      return;
    }
    line("    for (int j = 0; j < TD_B; ++j) " + a + "[j] = " + expr(in) + ";");
  }

  // Marks the row instructions `targets` depend on.
  std::vector<bool> cone(const std::vector<uint32_t>& targets) const {
    std::vector<bool> need(k_.body.size(), false);
    std::vector<uint32_t> stack = targets;
    while (!stack.empty()) {
      const uint32_t v = stack.back();
      stack.pop_back();
      const Instr& in = k_.body[v];
      if (need[v] || in.level != Level::Row || in.kind == Kind::Const) continue;
      need[v] = true;
      for (uint32_t a : in.args) stack.push_back(a);
    }
    return need;
  }

  // Per-operand row pointers from the offsets in `of`, then the blocks of one row of n.
  template <typename Sink>
  void row_blocks(const std::vector<bool>& need, Sink sink) {
    for (int o = 0; o < n_; ++o) {
      if (o < ni_ && operand(o).level == Level::Outer) continue;
      if (o >= ni_ && operand(o).level == Level::Outer) continue;
      const std::string s = std::to_string(o);
      line("   " + std::string(o < ni_ ? " const " : " ") + storage(operand(o).dtype) + "* p" + s +
           " = p" + s + "_ + of[" + s + "];");
      if (operand(o).access == Access::Strided) {
        line("    const td_i64 s" + s + " = st[" + s + " * " + std::to_string(r_) + " + " +
             std::to_string(r_ - 1) + "];");
      }
    }
    line("    for (td_i64 i = 0; i < n; i += TD_B) {");
    line("    const int m = n - i < TD_B ? (int)(n - i) : TD_B;");
    line("    const bool full = m == TD_B;");
    line("    (void)full;");
    for (uint32_t v = 0; v < k_.body.size(); ++v) {
      if (need[v]) row_instr(v);
    }
    sink();
    line("    }");
  }

  // Whether some row output is float32 (the only one stored non-temporally).
  bool streams() const {
    for (const Operand& o : k_.outputs) {
      if (o.level == Level::Row && o.dtype == DType::Float32) return true;
    }
    return false;
  }

  void store_rows() {
    for (size_t o = 0; o < k_.outputs.size(); ++o) {
      if (k_.outputs[o].level != Level::Row) continue;
      std::string value = "v";
      value += num(k_.results[o]);
      value += "[j]";
      std::string p = "p";  // appends only: GCC 12 warns (-Wrestrict) on "p" + std::to_string
      p += std::to_string(ni_ + o);
      std::string st = p;
      st += "[i + j] = ";
      st += to_storage(k_.outputs[o].dtype, value);
      if (k_.outputs[o].dtype == DType::Float32) {
        // A full block at a 64-byte boundary of a large output: one streaming store.
        line("#if defined(__AVX512F__)");
        line("    if (full && td_nt && ((unsigned long)(" + p + " + i) & 63) == 0) {");
        line("      typedef float td_v16 __attribute__((vector_size(64)));");
        line("      td_v16 s_; __builtin_memcpy(&s_, v" + num(k_.results[o]) + ", 64);");
        line("      __builtin_ia32_movntps512(" + p + " + i, s_);");
        line("    } else");
        line("#endif");
      }
      line("    if (full) { for (int j = 0; j < TD_B; ++j) " + st + "; }");
      line("    else { for (int j = 0; j < m; ++j) " + st + "; }");
    }
  }

  std::vector<uint32_t> row_results() const {
    std::vector<uint32_t> t;
    for (size_t o = 0; o < k_.outputs.size(); ++o) {
      if (k_.outputs[o].level == Level::Row) t.push_back(k_.results[o]);
    }
    return t;
  }

  std::string ops() const { return std::to_string(n_); }
  std::string rank() const { return std::to_string(r_); }

  void pointwise() {
    line("  td_i64 idx[" + rank() + "];");
    line("  { td_i64 q = begin; for (int d = " + rank() +
         " - 1; d >= 0; --d) { idx[d] = q % sz[d]; q /= sz[d]; } }");
    line("  while (begin < end) {");
    line("    td_i64 of[" + ops() + "];");
    line("    for (int o = 0; o < " + ops() + "; ++o) { of[o] = 0; for (int d = 0; d < " + rank() +
         "; ++d) of[o] += idx[d] * st[o * " + rank() + " + d]; }");
    line("    const td_i64 rest = sz[" + rank() + " - 1] - idx[" + rank() + " - 1];");
    line("    const td_i64 n = rest < end - begin ? rest : end - begin;");
    row_blocks(cone(row_results()), [&] { store_rows(); });
    line("    begin += n;");
    line("    idx[" + rank() + " - 1] = 0;");
    line("    for (int d = " + rank() +
         " - 2; d >= 0; --d) { if (++idx[d] < sz[d]) break; idx[d] = 0; }");
    line("  }");
  }

  // Loops over the inner rows of one outer row; `inner` emits the blocks of a row.
  template <typename Inner>
  void inner_rows(Inner inner) {
    const std::string ro = std::to_string(k_.outer_rank);
    line("  for (td_i64 t = 0; t < inner_rows; ++t) {");
    line("    td_i64 of[" + ops() + "];");
    line("    for (int o = 0; o < " + ops() + "; ++o) of[o] = ob[o];");
    line("    { td_i64 q = t; for (int d = " + rank() + " - 2; d >= " + ro +
         "; --d) { const td_i64 x = q % sz[d]; q /= sz[d]; for (int o = 0; o < " + ops() +
         "; ++o) of[o] += x * st[o * " + rank() + " + d]; } }");
    inner();
    line("  }");
  }

  void rows() {
    const std::string ro = std::to_string(k_.outer_rank);
    line("  const td_i64 n = sz[" + rank() + " - 1];");
    line("  td_i64 inner_rows = 1;");
    line("  for (int d = " + ro + "; d < " + rank() + " - 1; ++d) inner_rows *= sz[d];");
    line("  for (td_i64 r = begin; r < end; ++r) {");
    line("  td_i64 ob[" + ops() + "] = {};");
    line("  { td_i64 q = r; for (int d = " + ro +
         " - 1; d >= 0; --d) { const td_i64 x = q % sz[d]; "
         "q /= sz[d]; for (int o = 0; o < " +
         ops() + "; ++o) ob[o] += x * st[o * " + rank() + " + d]; } }");
    for (uint32_t v = 0; v < k_.body.size(); ++v) {
      const Instr& in = k_.body[v];
      if (in.level != Level::Outer || in.kind == Kind::Const) continue;
      if (in.kind == Kind::Load) {
        line("  const " + ct(in.dtype) + " o" + num(v) + " = " +
             from_storage(k_.inputs[in.arg].dtype,
                          "p" + std::to_string(in.arg) + "_[ob[" + std::to_string(in.arg) + "]]") +
             ";");
      } else if (in.kind == Kind::Op) {
        line("  const " + ct(in.dtype) + " o" + num(v) + " = " + expr(in) + ";");
      } else {
        reduction(v);
      }
    }
    if (!row_results().empty()) {
      inner_rows([&] { row_blocks(cone(row_results()), [&] { store_rows(); }); });
    }
    for (size_t o = 0; o < k_.outputs.size(); ++o) {
      if (k_.outputs[o].level != Level::Outer) continue;
      std::string p = "p";  // appends only: GCC 12 warns (-Wrestrict) on "p" + std::to_string
      p += std::to_string(ni_ + o);
      line("  " + p + "_[ob[" + std::to_string(ni_ + o) +
           "]] = " + to_storage(k_.outputs[o].dtype, ref(k_.results[o])) + ";");
    }
    line("  }");
  }

  void reduction(uint32_t v) {
    const Instr& in = k_.body[v];
    if (in.op == Op::argmax || in.op == Op::argmin) return arg_reduction(v);
    const DType xt = k_.body[in.args[0]].dtype;
    const bool sum = in.op == Op::sum, prod = in.op == Op::prod;
    // Integer sums and products wrap in uint64 and give int64, in any order the same bits.
    const bool wrap = (sum || prod) && ir::is_integral(xt);
    const std::string t = wrap ? "unsigned long long" : ct(in.dtype);
    const std::string a = "a" + num(v);
    // An argument that does not vary along the row (an outer value, e.g. a reduced axis of size
    // 1 merged away) is the same scalar for every element of the row.
    const bool outer_arg = k_.body[in.args[0]].level == Level::Outer;
    const std::string x0 = outer_arg ? "o" + num(in.args[0]) : "v" + num(in.args[0]) + "[j]";
    const std::string x = wrap ? "(" + t + ")(" + x0 + ")" : x0;
    std::string init, step, vstep;
    if (sum || prod) {
      const char* o = sum ? " += " : " *= ";
      init = wrap ? "(" + t + ")" + (sum ? "0" : "1") : literal(sum ? 0 : 1, t);
      step = a + "[j]" + o + x;
      vstep = std::string("acc_") + o + "x_";
    } else {
      const char* cmp = in.op == Op::max ? " > " : " < ";
      init = ir::is_integral(xt) ? int_extreme(xt, in.op == Op::max)
                                 : literal(in.op == Op::max ? -INFINITY : INFINITY, t);
      step = a + "[j] = (" + x + cmp + a + "[j]) | (" + x + " != " + x + ") ? " + x + " : " + a +
             "[j]";
      vstep = std::string("acc_ = (x_") + cmp + "acc_) | (x_ != x_) ? x_ : acc_";
    }
    line("  " + t + " " + a + "[TD_B];");
    line("  for (int j = 0; j < TD_B; ++j) " + a + "[j] = " + init + ";");
    // A full block's step is written with a GCC vector type: lane loops over an accumulator
    // array are fully unrolled before the vectorizer sees them, and the unrolled code stayed
    // scalar (max through compares and branches, sum through inserts), which made reductions
    // the slowest pass of softmax and layer_norm. The lanes and their order are the same, so
    // the result is bit for bit what the array loop computes. (A wrapping integer accumulator
    // is wider than its elements: it keeps the lane loop.)
    const std::string vt = t + " __attribute__((vector_size(TD_B * sizeof(" + t + "))))";
    const std::string bytes = "sizeof(" + a + ")";
    inner_rows([&] {
      row_blocks(cone({in.args[0]}), [&] {
        if (wrap) {
          line("    for (int j = 0; j < m; ++j) " + step + ";");
          return;
        }
        line("    if (full) {");
        line("      typedef " + vt + " td_acc;");
        line("      td_acc acc_, x_;");
        line("      __builtin_memcpy(&acc_, " + a + ", " + bytes + ");");
        if (outer_arg) {
          line("      for (int j = 0; j < TD_B; ++j) x_[j] = " + x + ";");
        } else {
          line("      __builtin_memcpy(&x_, v" + num(in.args[0]) + ", " + bytes + ");");
        }
        line("      " + vstep + ";");
        line("      __builtin_memcpy(" + a + ", &acc_, " + bytes + ");");
        line("    } else { for (int j = 0; j < m; ++j) " + step + "; }");
      });
    });
    const std::string o = "o" + num(v), acc = wrap ? "f" + num(v) : o;
    line("  " + t + " " + acc + " = " + a + "[0];");
    std::string fold = acc + (sum ? " += " : " *= ") + a + "[j]";
    if (!sum && !prod) {
      const char* cmp = in.op == Op::max ? " > " : " < ";
      const std::string y = a + "[j]";
      fold = o + " = (" + y + cmp + o + ") | (" + y + " != " + y + ") ? " + y + " : " + o;
    }
    line("  for (int j = 1; j < TD_B; ++j) " + fold + ";");
    if (wrap) line("  const " + ct(in.dtype) + " " + o + " = (" + ct(in.dtype) + ")" + acc + ";");
    if (in.dtype == DType::Float16 || in.dtype == DType::BFloat16) {
      line("  " + o + " = " + rounded(in.dtype, o) + ";");
    }
  }

  // argmax / argmin as the eager kernels define them (reduce_ops.h): ties keep the first index,
  // the first NaN wins. Each lane keeps its best value and index (-1: none yet) over the row's
  // elements i + j, t * n + i + j in the row's flat order; lanes then fold in any order, taking
  // the better value and, between equal values (or two NaNs), the smaller index.
  void arg_reduction(uint32_t v) {
    const Instr& in = k_.body[v];
    const std::string t = ct(k_.body[in.args[0]].dtype);
    const std::string better =
        std::string(in.op == Op::argmax ? "td_argmax_better" : "td_argmin_better") + "<" + t + ">";
    const std::string b = "b" + num(v), k = "k" + num(v), o = "o" + num(v);
    const bool outer_arg = k_.body[in.args[0]].level == Level::Outer;
    const std::string x = outer_arg ? "o" + num(in.args[0]) : "v" + num(in.args[0]) + "[j]";
    line("  " + t + " " + b + "[TD_B];");
    line("  long long " + k + "[TD_B];");
    line("  for (int j = 0; j < TD_B; ++j) { " + b + "[j] = 0; " + k + "[j] = -1; }");
    inner_rows([&] {
      row_blocks(cone({in.args[0]}), [&] {
        line("    for (int j = 0; j < m; ++j) {");
        line("      const " + t + " x_ = " + x + ";");
        line("      const bool take_ = " + k + "[j] < 0 || " + better + "(x_, " + b + "[j]);");
        line("      " + b + "[j] = take_ ? x_ : " + b + "[j];");
        line("      " + k + "[j] = take_ ? t * n + i + j : " + k + "[j];");
        line("    }");
      });
    });
    line("  " + t + " " + b + "_ = " + b + "[0];");
    line("  long long " + o + " = " + k + "[0];");
    line("  for (int j = 1; j < TD_B; ++j) {");
    line("    if (" + k + "[j] < 0) continue;");
    line("    if (" + o + " < 0 || " + better + "(" + b + "[j], " + b + "_) || (!" + better + "(" +
         b + "_, " + b + "[j]) && " + k + "[j] < " + o + ")) { " + b + "_ = " + b + "[j]; " + o +
         " = " + k + "[j]; }");
    line("  }");
  }

  const LoopKernel& k_;
  int r_;
  int ni_;
  int n_;
  std::string out_;
};

}  // namespace

uint64_t text_hash(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

EmittedKernel CppEmitter::emit(const LoopKernel& kernel) const {
  const std::string body = Writer(kernel).body();
  EmittedKernel k;
  k.hash = text_hash(body);
  k.name = "td_" + hex64(k.hash);
  k.source = "extern \"C\" void " + k.name + body;
  return k;
}

std::string CppEmitter::unit(std::span<const EmittedKernel> kernels) const {
  std::string s(cpp_prelude());
  s += cpp_int_prelude();
  for (const EmittedKernel& k : kernels) s += k.source;
  return s;
}

}  // namespace tensord::codegen
