// Kernels with inner dimensions (LoopKernel::inner_rank > 0, not columns): per outer row, one pass
// over the inner rows per reduction (emit_cpp_reductions.cpp), then one for the row outputs.
// Here: the rows loop, one row instruction of a block, which values a pass computes, the scratch
// rows that carry costly values between passes, prefetching, and the row stores.
#include <string>
#include <vector>

#include "engine/codegen/emit_cpp_writer.h"

namespace tensord::codegen {
namespace {

// The ops of libmvec's vector functions (td_v<op> of the prelude): a whole block per call.
bool vector_call(ir::Op op) {
  using ir::Op;
  return op == Op::exp || op == Op::log || op == Op::sin || op == Op::cos || op == Op::tanh ||
         op == Op::erf || op == Op::exp2 || op == Op::expm1 || op == Op::log2 || op == Op::log10 ||
         op == Op::log1p;
}

}  // namespace

// A pow computed in float from float arguments (16-bit floats widened): td_vpow's.
bool CppWriter::vector_pow(const Instr& in) const {
  return ct(in.dtype) == "float" && ct(k_.body[in.args[0]].dtype) == "float" &&
         ct(k_.body[in.args[1]].dtype) == "float";
}

// Row instruction v inside a block.
void CppWriter::row_instr(uint32_t v) {
  const Instr& in = k_.body[v];
  const std::string a = "v" + num(v);
  line("    " + ct(in.dtype) + " " + a + "[TD_B];");
  if (keep_ && cut(v)) {
    const std::string at = "td_s" + std::to_string(slot_[v]) + " + t * n + i";
    line("    if (full) { __builtin_memcpy(" + a + ", " + at + ", sizeof " + a + "); }");
    line("    else { TD_LANES " + a + "[j] = j < m ? (" + at + ")[j] : 0; }");
    return;
  }
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
    if (op.access == Access::Contiguous && storage(op.dtype) == ct(in.dtype)) {
      // One block copy: lane loops of loads were fully unrolled before the vectorizer saw them
      // and then rebuilt lane by lane (vinsertps) where the block fed a vector accumulator.
      line("    if (full) { __builtin_memcpy(" + a + ", " + p + " + i, sizeof " + a + "); }");
    } else {
      line("    if (full) { TD_LANES " + a + "[j] = " + ld + "; }");
    }
    line("    else { TD_LANES " + a + "[j] = j < m ? " + ld + " : 0; }");
    return;
  }
  if (in.op == Op::pow && vector_pow(in)) {
    // Both arguments as blocks (an outer value or constant repeated), one libmvec call, as the
    // eager kernel computes float32 pow (kernels_binary.cpp).
    std::string arg[2];
    for (int i = 0; i < 2; ++i) {
      const uint32_t x = in.args[i];
      arg[i] = "v" + num(x);
      if (k_.body[x].level == Level::Row && k_.body[x].kind != Kind::Const) continue;
      arg[i] = a + "_" + std::to_string(i);
      line("    float " + arg[i] + "[TD_B];");
      line("    TD_LANES " + arg[i] + "[j] = " + ref(x) + ";");
    }
    line("    td_vpow(" + arg[0] + ", " + arg[1] + ", " + a + ");");
    if ((in.dtype == DType::Float16 || in.dtype == DType::BFloat16) && !only_stored_[v]) {
      line("    TD_LANES " + a + "[j] = " + rounded(in.dtype, a + "[j]") + ";");
    }
    return;
  }
  const bool is_float = in.dtype != DType::Bool && in.dtype != DType::Float64;
  if (is_float && (vector_call(in.op) || in.op == Op::sigmoid) &&
      k_.body[in.args[0]].level == Level::Row) {
    const std::string x = "v" + num(in.args[0]);
    if (in.op == Op::sigmoid) {
      line("    TD_LANES " + a + "[j] = -" + x + "[j];");
      line("    td_vexp(" + a + ", " + a + ");");
      line("    TD_LANES " + a + "[j] = 1.0f / (1.0f + " + a + "[j]);");
    } else {
      line("    td_v" + std::string(ir::name(in.op)) + "(" + x + ", " + a + ");");
    }
    if ((in.dtype == DType::Float16 || in.dtype == DType::BFloat16) && !only_stored_[v]) {
      line("    TD_LANES " + a + "[j] = " + rounded(in.dtype, a + "[j]") + ";");
    }
    return;
  }
  line("    TD_LANES " + a + "[j] = " + expr(v) + ";");
}

// Marks the row instructions `targets` depend on; in the scratch variant of a pass (keep_) a
// value an earlier pass stored is loaded, not computed, so its own arguments are not needed.
std::vector<bool> CppWriter::cone(const std::vector<uint32_t>& targets) const {
  std::vector<bool> need(k_.body.size(), false);
  std::vector<uint32_t> stack = targets;
  while (!stack.empty()) {
    const uint32_t v = stack.back();
    stack.pop_back();
    const Instr& in = k_.body[v];
    if (need[v] || in.level != Level::Row || in.kind == Kind::Const) continue;
    need[v] = true;
    if (keep_ && cut(v)) continue;
    for (uint32_t a : in.args) stack.push_back(a);
  }
  return need;
}

// Row values that a reduction's pass computes with a transcendental function and a later
// pass needs again (softmax's exp(x - max): summed, then divided by the sum) are stored in a
// scratch row on the stack by the first pass and loaded by the later ones, when the row fits
// (td_keep); the lane loads are cheaper than libmvec's exp, which took more time than the
// kernel's memory traffic. Rows that do not fit recompute them, as every value did before.
void CppWriter::plan_scratch() {
  const size_t nv = k_.body.size();
  slot_.assign(nv, -1);
  producer_.assign(nv, -1);
  std::vector<bool> costly(nv, false), earlier(nv, false);
  for (uint32_t v = 0; v < nv; ++v) {
    const Instr& in = k_.body[v];
    if (in.level != Level::Row || in.kind != Kind::Op) continue;
    costly[v] = vector_call(in.op) || in.op == Op::sigmoid || in.op == Op::pow;
    for (uint32_t a : in.args) costly[v] = costly[v] || costly[a];
  }
  const std::vector<std::vector<uint32_t>> passes = pass_targets();
  for (int p = 0; p < static_cast<int>(passes.size()); ++p) {
    std::vector<bool> seen(nv, false);
    std::vector<uint32_t> stack = passes[p];
    while (!stack.empty()) {
      const uint32_t v = stack.back();
      stack.pop_back();
      const Instr& in = k_.body[v];
      if (seen[v] || in.level != Level::Row || in.kind == Kind::Const) continue;
      seen[v] = true;
      if (earlier[v] && costly[v]) {
        if (slot_[v] < 0 && slots_ < kScratchRows) slot_[v] = slots_++;
        if (slot_[v] >= 0) continue;
      }
      for (uint32_t a : in.args) stack.push_back(a);
    }
    const std::vector<bool> full = cone(passes[p]);  // keep_ is false: the whole cone
    for (uint32_t v = 0; v < nv; ++v) {
      if (full[v] && !earlier[v]) {
        earlier[v] = true;
        producer_[v] = p;
      }
    }
  }
}

// The row values each pass of a kernel with inner dimensions reduces or stores: one pass per
// reduction in body order, then the row outputs'.
std::vector<std::vector<uint32_t>> CppWriter::pass_targets() const {
  std::vector<std::vector<uint32_t>> passes;
  for (const Instr& in : k_.body) {
    if (in.kind == Kind::Reduce) passes.push_back({in.args[0]});
  }
  passes.push_back(row_results());
  return passes;
}

// The inputs whose next outer row the pass being emitted prefetches: the contiguous row
// inputs, in the second pass of a kernel with inner dimensions. Its first pass reads the row
// from memory with the core waiting; the second works on the row in L1 (a reduction's lane
// math, libmvec's exp), and fetching the next row into L2 meanwhile took a quarter off a
// 4096 x 4096 softmax on one core. The first outer row of a thread's range is not prefetched,
// nor an input that is the same for every outer row (layer_norm's weight).
std::vector<int> CppWriter::prefetched() const {
  std::vector<int> in;
  if (k_.inner_rank == 0 || pass_ != 1) return in;
  for (int o = 0; o < ni_; ++o) {
    if (operand(o).level == Level::Row && operand(o).access == Access::Contiguous) {
      in.push_back(o);
    }
  }
  return in;
}

// Whether the pass being emitted loads or stores a scratch row (then it has two variants).
bool CppWriter::pass_uses_scratch() const {
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    if (slot_[v] >= 0 && producer_[v] <= pass_) return true;
  }
  return false;
}

// In the scratch variant, stores the values this pass produces for later ones.
void CppWriter::store_scratch(const std::vector<bool>& need) {
  if (!keep_) return;
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    if (!need[v] || slot_[v] < 0 || producer_[v] != pass_) continue;
    const std::string at = "td_s" + std::to_string(slot_[v]) + " + t * n + i";
    line("    if (full) { __builtin_memcpy(" + at + ", v" + num(v) + ", sizeof v" + num(v) +
         "); }");
    line("    else { for (int j = 0; j < m; ++j) (" + at + ")[j] = v" + num(v) + "[j]; }");
  }
}

// Whether some row output is float32 (the only one stored non-temporally).
bool CppWriter::streams() const {
  for (const Operand& o : k_.outputs) {
    if (o.level == Level::Row && o.dtype == DType::Float32) return true;
  }
  return false;
}

void CppWriter::store_rows() {
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
      line("#elif defined(__AVX__)");
      line("    if (full && td_nt && ((unsigned long)(" + p + " + i) & 63) == 0) {");
      line("      typedef float td_v8 __attribute__((vector_size(32)));");
      line("      for (int h = 0; h < TD_B; h += 8) {");
      line("        td_v8 s_; __builtin_memcpy(&s_, v" + num(k_.results[o]) + " + h, 32);");
      line("        __builtin_ia32_movntps256(" + p + " + i + h, s_); }");
      line("    } else");
      line("#endif");
    }
    if (to_storage(k_.outputs[o].dtype, "x") == "x" &&
        storage(k_.outputs[o].dtype) == ct(k_.body[k_.results[o]].dtype)) {
      line("    if (full) { __builtin_memcpy(" + p + " + i, v" + num(k_.results[o]) + ", sizeof v" +
           num(k_.results[o]) + "); }");
    } else {
      line("    if (full) { TD_LANES " + st + "; }");
    }
    line("    else { for (int j = 0; j < m; ++j) " + st + "; }");
  }
}

std::vector<uint32_t> CppWriter::row_results() const {
  std::vector<uint32_t> t;
  for (size_t o = 0; o < k_.outputs.size(); ++o) {
    if (k_.outputs[o].level == Level::Row) t.push_back(k_.results[o]);
  }
  return t;
}

void CppWriter::rows() {
  const std::string ro = std::to_string(k_.outer_rank);
  line("  const td_i64 n = sz[" + rank() + " - 1];");
  line("  td_i64 inner_rows = 1;");
  line("  for (int d = " + ro + "; d < " + rank() + " - 1; ++d) inner_rows *= sz[d];");
  plan_scratch();
  if (slots_ > 0) {
    for (uint32_t v = 0; v < k_.body.size(); ++v) {
      if (slot_[v] < 0) continue;
      line("  alignas(64) " + ct(k_.body[v].dtype) + " td_s" + std::to_string(slot_[v]) + "[" +
           std::to_string(kScratchCells) + "];");
    }
    line("  const bool td_keep = inner_rows * n <= " + std::to_string(kScratchCells) + ";");
  }
  // The outer rows' offsets: divided out of `begin` once, then stepped row to row (an
  // odometer over the outer dimensions): two 64-bit divisions a row cost more than a short
  // row's arithmetic (a 64-wide row's min or softmax).
  const bool outer = k_.outer_rank > 0;
  auto step = [&](const std::string& offsets, const std::string& pos) {
    return "for (int d = " + ro + " - 1; d >= 0; --d) { for (int o = 0; o < " + ops() + "; ++o) " +
           offsets + "[o] += st[o * " + rank() + " + d]; if (++" + pos +
           "[d] < sz[d]) break; for (int o = 0; o < " + ops() + "; ++o) " + offsets +
           "[o] -= " + pos + "[d] * st[o * " + rank() + " + d]; " + pos + "[d] = 0; }";
  };
  line("  td_i64 ob[" + ops() + "] = {};");
  if (outer) {
    line("  td_i64 pos[" + ro + "];");
    line("  { td_i64 q = begin; for (int d = " + ro +
         " - 1; d >= 0; --d) { pos[d] = q % sz[d]; q /= sz[d]; for (int o = 0; o < " + ops() +
         "; ++o) ob[o] += pos[d] * st[o * " + rank() + " + d]; } }");
  }
  line("  for (td_i64 r = begin; r < end; ++r) {");
  if (pass_targets().size() > 1) {  // the offsets of the next outer row, for prefetched()
    line("  td_i64 obn[" + ops() + "];");
    line("  for (int o = 0; o < " + ops() + "; ++o) obn[o] = ob[o];");
    line("  const bool td_pf = r + 1 < end;");
    if (outer) {
      line("  if (td_pf) { td_i64 pn[" + ro + "]; for (int d = 0; d < " + ro +
           "; ++d) pn[d] = pos[d]; " + step("obn", "pn") + " }");
    }
    line("  (void)obn;");
  }
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    const Instr& in = k_.body[v];
    if (in.level != Level::Outer || in.kind == Kind::Const) continue;
    if (in.kind == Kind::Load) {
      line("  const " + ct(in.dtype) + " o" + num(v) + " = " +
           from_storage(k_.inputs[in.arg].dtype,
                        "p" + std::to_string(in.arg) + "_[ob[" + std::to_string(in.arg) + "]]") +
           ";");
    } else if (in.kind == Kind::Op) {
      line("  const " + ct(in.dtype) + " o" + num(v) + " = " + expr(v) + ";");
    } else {
      reduction(v);
      ++pass_;
    }
  }
  if (!row_results().empty()) {
    with_scratch(
        [&] { inner_rows([&] { row_blocks(cone(row_results()), [&] { store_rows(); }); }); });
  }
  for (size_t o = 0; o < k_.outputs.size(); ++o) {
    if (k_.outputs[o].level != Level::Outer) continue;
    std::string p = "p";  // appends only: GCC 12 warns (-Wrestrict) on "p" + std::to_string
    p += std::to_string(ni_ + o);
    line("  " + p + "_[ob[" + std::to_string(ni_ + o) +
         "]] = " + to_storage(k_.outputs[o].dtype, ref(k_.results[o])) + ";");
  }
  if (outer) line("  " + step("ob", "pos"));
  line("  }");
}

}  // namespace tensord::codegen
