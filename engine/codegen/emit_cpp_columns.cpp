// Column kernels (LoopKernel::columns): reductions over axes that leave the innermost one, walked
// per lane of kept cells.
#include <cmath>
#include <string>

#include "engine/codegen/emit_cpp_writer.h"

namespace tensord::codegen {

// A column kernel (LoopKernel::columns): blocks of TD_B lanes over the outer cells [begin,
// end), within one run of the last outer dimension, which is the contiguous one; each block
// walks every inner cell (the reduced axes) once, accumulating per lane in a lane array that
// GCC keeps in a vector register, and storing the row outputs it passes. So a sum over the
// leading axis of [N, C] reads each row's cache lines once, in order, 16 columns at a time.
// The range splits over threads by outer cells.
void CppWriter::columns() {
  const std::string ro = std::to_string(k_.outer_rank);
  const std::string R = rank();
  auto lane_at = [&](int o) {
    const Access a = operand(o).access;
    const std::string s = std::to_string(o);
    return a == Access::Contiguous ? "(i + j)" : a == Access::Broadcast ? "0" : "(i + j) * s" + s;
  };
  line("  td_i64 idx[" + ro + "];");
  line("  { td_i64 q = begin; for (int d = " + ro +
       " - 1; d >= 0; --d) { idx[d] = q % sz[d]; q /= sz[d]; } }");
  line("  td_i64 inner_cells = 1;");
  line("  for (int d = " + ro + "; d < " + R + "; ++d) inner_cells *= sz[d];");
  for (int o = 0; o < n_; ++o) {
    if (operand(o).access != Access::Strided) continue;
    const std::string s = std::to_string(o);
    line("  const td_i64 s" + s + " = st[" + s + " * " + R + " + " + ro + " - 1];");
  }
  line("  while (begin < end) {");
  line("    td_i64 ob[" + ops() + "];");
  line("    for (int o = 0; o < " + ops() + "; ++o) { ob[o] = 0; for (int d = 0; d < " + ro +
       "; ++d) ob[o] += idx[d] * st[o * " + R + " + d]; }");
  line("    const td_i64 rest = sz[" + ro + " - 1] - idx[" + ro + " - 1];");
  line("    const td_i64 nl = rest < end - begin ? rest : end - begin;");
  line("    for (td_i64 i = 0; i < nl; i += TD_B) {");
  line("    const int m = nl - i < TD_B ? (int)(nl - i) : TD_B;");
  line("    const bool full = m == TD_B;");
  line("    (void)full;");
  std::vector<uint32_t> targets = row_results();
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    const Instr& in = k_.body[v];
    if (in.kind == Kind::Reduce) targets.push_back(in.args[0]);
    if (in.level != Level::Outer || in.kind != Kind::Load) continue;
    const std::string a = value_name("o", v), s = std::to_string(in.arg);
    line("    " + ct(in.dtype) + " " + a + "[TD_B];");
    line("    TD_LANES " + a + "[j] = j < m ? " +
         from_storage(k_.inputs[in.arg].dtype,
                      "p" + s + "_[ob[" + s + "] + " + lane_at(static_cast<int>(in.arg)) + "]") +
         " : 0;");
  }
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    if (k_.body[v].kind == Kind::Reduce) column_accumulator(v, true);
  }
  line("    for (td_i64 t = 0; t < inner_cells; ++t) {");
  line("    td_i64 of[" + ops() + "];");
  line("    for (int o = 0; o < " + ops() + "; ++o) of[o] = ob[o];");
  line("    { td_i64 q = t; for (int d = " + R + " - 1; d >= " + ro +
       "; --d) { const td_i64 x = q % sz[d]; q /= sz[d]; for (int o = 0; o < " + ops() +
       "; ++o) of[o] += x * st[o * " + R + " + d]; } }");
  for (int o = 0; o < n_; ++o) {
    if (operand(o).level == Level::Outer) continue;
    const std::string s = std::to_string(o);
    line("   " + std::string(o < ni_ ? " const " : " ") + storage(operand(o).dtype) + "* p" + s +
         " = p" + s + "_ + of[" + s + "];");
  }
  const std::vector<bool> need = cone(targets);
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    if (need[v]) row_instr(v);
  }
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    if (k_.body[v].kind == Kind::Reduce) column_accumulator(v, false);
  }
  for (size_t o = 0; o < k_.outputs.size(); ++o) {
    if (k_.outputs[o].level != Level::Row) continue;
    const int op = ni_ + static_cast<int>(o);
    line("    for (int j = 0; j < m; ++j) p" + std::to_string(op) + "[" + lane_at(op) +
         "] = " + to_storage(k_.outputs[o].dtype, value_name("v", k_.results[o]) + "[j]") + ";");
  }
  line("    }");
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    const Instr& in = k_.body[v];
    if (in.level != Level::Outer || in.kind == Kind::Const || in.kind == Kind::Load) continue;
    const std::string a = value_name("o", v);
    if (in.kind == Kind::Reduce) {
      const DType xt = k_.body[in.args[0]].dtype;
      const bool wrap = wraps_in_uint64(in.op, xt);
      std::string x;  // appended: GCC 12 warns (-Wrestrict, falsely) on "(" + string
      if (wrap) {
        x += "(";
        x += ct(in.dtype);
        x += ")";
      }
      x += value_name("a", v) + "_[j]";
      line("    " + ct(in.dtype) + " " + a + "[TD_B];");
      line("    TD_LANES " + a + "[j] = " + rounded(in.dtype, x) + ";");
    } else {
      line("    " + ct(in.dtype) + " " + a + "[TD_B];");
      line("    TD_LANES " + a + "[j] = " + expr(v) + ";");
    }
  }
  for (size_t o = 0; o < k_.outputs.size(); ++o) {
    if (k_.outputs[o].level != Level::Outer) continue;
    const int op = ni_ + static_cast<int>(o);
    const std::string s = std::to_string(op);
    line("    for (int j = 0; j < m; ++j) p" + s + "_[ob[" + s + "] + " + lane_at(op) +
         "] = " + to_storage(k_.outputs[o].dtype, ref(k_.results[o])) + ";");
  }
  line("    }");
  line("    begin += nl;");
  line("    idx[" + ro + " - 1] = 0;");
  line("    for (int d = " + ro +
       " - 2; d >= 0; --d) { if (++idx[d] < sz[d]) break; idx[d] = 0; }");
  line("  }");
}

// A column reduction's lane accumulator: declared with the identity (`init`), or fed the
// lanes of one inner cell. Integer sums and products wrap in uint64, as in rows; every lane
// is fed (lanes past m hold zeros and are never stored), so the loop stays a vector one.
void CppWriter::column_accumulator(uint32_t v, bool init) {
  const Instr& in = k_.body[v];
  const DType xt = k_.body[in.args[0]].dtype;
  const bool sum = in.op == Op::sum, prod = in.op == Op::prod;
  const bool wrap = wraps_in_uint64(in.op, xt);
  const std::string t = wrap ? "unsigned long long" : ct(in.dtype);
  const std::string a = value_name("a", v) + "_";
  if (init) {
    std::string i0;
    if (wrap) {
      i0 = std::string("(") + t + ")" + (sum ? "0" : "1");
    } else if (sum || prod) {
      i0 = literal(sum ? 0 : 1, t);
    } else {
      i0 = ir::is_integral(xt) ? integer_extreme(xt, in.op == Op::max)
                               : literal(in.op == Op::max ? -INFINITY : INFINITY, t);
    }
    line("    " + t + " " + a + "[TD_B];");
    line("    TD_LANES " + a + "[j] = " + i0 + ";");
    return;
  }
  const std::string y = wrap ? "(" + t + ")(" + ref(in.args[0]) + ")" : ref(in.args[0]);
  const std::string acc = a + "[j]";
  std::string step;
  if (sum) {
    step = acc + " + " + y;
  } else if (prod) {
    step = acc + " * " + y;
  } else {
    const char* cmp = in.op == Op::max ? " > " : " < ";
    step = "(" + y + cmp + acc + ") | (" + y + " != " + y + ") ? " + y + " : " + acc;
  }
  line("    TD_LANES " + acc + " = " + step + ";");
}

}  // namespace tensord::codegen
