// The C++ emitter. A kernel body walks rows of the innermost dimension in blocks of TD_B
// lanes: every instruction is one fixed-length lane loop over small arrays, which GCC turns
// into vector code, with libmvec calls for the transcendental functions. Kernels with inner
// dimensions make one pass over a row per reduction (recomputing the cheap elementwise
// values that feed it rather than storing them; transcendental ones a later pass needs go to a
// scratch row on the stack) and a last pass for the row-level outputs. Expressions are in
// emit_cpp_expr.cpp.
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
  return cpp_type(t);
}
std::string storage(DType t) {
  return cpp_storage(t);
}
std::string literal(double v, const std::string& type) {
  return cpp_literal(v, type);
}

bool vector_call(Op op) {
  return op == Op::exp || op == Op::log || op == Op::sin || op == Op::cos || op == Op::tanh ||
         op == Op::erf || op == Op::exp2 || op == Op::expm1 || op == Op::log2 || op == Op::log10 ||
         op == Op::log1p;
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
    } else if (k_.columns) {
      columns();
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

  std::string ref(uint32_t v) const { return cpp_ref(k_, v); }
  std::string expr(const Instr& in) const { return cpp_expr(k_, in); }

  // Row instruction v inside a block.
  void row_instr(uint32_t v) {
    const Instr& in = k_.body[v];
    const std::string a = "v" + num(v);
    line("    " + ct(in.dtype) + " " + a + "[TD_B];");
    if (keep_ && cut(v)) {
      const std::string at = "td_s" + std::to_string(slot_[v]) + " + t * n + i";
      line("    if (full) { __builtin_memcpy(" + a + ", " + at + ", sizeof " + a + "); }");
      line("    else { for (int j = 0; j < TD_B; ++j) " + a + "[j] = j < m ? (" + at +
           ")[j] : 0; }");
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
        line("    if (full) { for (int j = 0; j < TD_B; ++j) " + a + "[j] = " + ld + "; }");
      }
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
  // Marks the row instructions `targets` depend on; in the scratch variant of a pass (keep_) a
  // value an earlier pass stored is loaded, not computed, so its own arguments are not needed.
  std::vector<bool> cone(const std::vector<uint32_t>& targets) const {
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

  // Whether value v comes from a scratch row in the pass being emitted.
  bool cut(uint32_t v) const { return slot_[v] >= 0 && producer_[v] < pass_; }

  // Row values that a reduction's pass computes with a transcendental function and a later
  // pass needs again (softmax's exp(x - max): summed, then divided by the sum) are stored in a
  // scratch row on the stack by the first pass and loaded by the later ones, when the row fits
  // (td_keep); the lane loads are cheaper than libmvec's exp, which took more time than the
  // kernel's memory traffic. Rows that do not fit recompute them, as every value did before.
  void plan_scratch() {
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
  std::vector<std::vector<uint32_t>> pass_targets() const {
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
  std::vector<int> prefetched() const {
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
  bool pass_uses_scratch() const {
    for (uint32_t v = 0; v < k_.body.size(); ++v) {
      if (slot_[v] >= 0 && producer_[v] <= pass_) return true;
    }
    return false;
  }

  // Emits `pass` (a function of no arguments) once, or as its scratch and recomputing variants.
  template <typename Pass>
  void with_scratch(Pass pass) {
    if (!pass_uses_scratch()) return pass();
    line("  if (td_keep) {");
    keep_ = true;
    pass();
    keep_ = false;
    line("  } else {");
    pass();
    line("  }");
  }

  // In the scratch variant, stores the values this pass produces for later ones.
  void store_scratch(const std::vector<bool>& need) {
    if (!keep_) return;
    for (uint32_t v = 0; v < k_.body.size(); ++v) {
      if (!need[v] || slot_[v] < 0 || producer_[v] != pass_) continue;
      const std::string at = "td_s" + std::to_string(slot_[v]) + " + t * n + i";
      line("    if (full) { __builtin_memcpy(" + at + ", v" + num(v) + ", sizeof v" + num(v) +
           "); }");
      line("    else { for (int j = 0; j < m; ++j) (" + at + ")[j] = v" + num(v) + "[j]; }");
    }
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
    const std::vector<int> ahead = prefetched();
    for (int o : ahead) {
      const std::string s = std::to_string(o);
      line("    const char* n" + s + " = (const char*)(p" + s + " + (obn[" + s + "] - ob[" + s +
           "]));");
      line("    const bool f" + s + " = td_pf && obn[" + s + "] != ob[" + s + "];");
    }
    // Full blocks, then the row's tail: `full` is a constant in each copy of the body, so the
    // full blocks' loop has no tail code in it (one loop with a run-time `full` was compiled
    // into branches and lane-by-lane moves around every block).
    auto block = [&] {
      for (int o : ahead) {
        const std::string s = std::to_string(o);
        line("    if (f" + s + ") for (unsigned q = 0; q < TD_B * sizeof(*p" + s +
             "); q += 64) __builtin_prefetch(n" + s + " + i * sizeof(*p" + s + ") + q, 0, 2);");
      }
      for (uint32_t v = 0; v < k_.body.size(); ++v) {
        if (need[v]) row_instr(v);
      }
      store_scratch(need);
      sink();
      line("    }");
    };
    line("    td_i64 i = 0;");
    line("    for (; i + TD_B <= n; i += TD_B) {");
    line("    const int m = TD_B;");
    line("    const bool full = true;");
    line("    (void)m; (void)full;");
    block();
    line("    if (i < n) {");
    line("    const int m = (int)(n - i);");
    line("    const bool full = false;");
    line("    (void)full;");
    block();
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
      if (to_storage(k_.outputs[o].dtype, "x") == "x" &&
          storage(k_.outputs[o].dtype) == ct(k_.body[k_.results[o]].dtype)) {
        line("    if (full) { __builtin_memcpy(" + p + " + i, v" + num(k_.results[o]) +
             ", sizeof v" + num(k_.results[o]) + "); }");
      } else {
        line("    if (full) { for (int j = 0; j < TD_B; ++j) " + st + "; }");
      }
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
    plan_scratch();
    if (slots_ > 0) {
      for (uint32_t v = 0; v < k_.body.size(); ++v) {
        if (slot_[v] < 0) continue;
        line("  alignas(64) " + ct(k_.body[v].dtype) + " td_s" + std::to_string(slot_[v]) + "[" +
             std::to_string(kScratchCells) + "];");
      }
      line("  const bool td_keep = inner_rows * n <= " + std::to_string(kScratchCells) + ";");
    }
    line("  for (td_i64 r = begin; r < end; ++r) {");
    line("  td_i64 ob[" + ops() + "] = {};");
    line("  { td_i64 q = r; for (int d = " + ro +
         " - 1; d >= 0; --d) { const td_i64 x = q % sz[d]; "
         "q /= sz[d]; for (int o = 0; o < " +
         ops() + "; ++o) ob[o] += x * st[o * " + rank() + " + d]; } }");
    if (pass_targets().size() > 1) {  // the offsets of the next outer row, for prefetched()
      line("  td_i64 obn[" + ops() + "] = {};");
      line("  const bool td_pf = r + 1 < end;");
      line("  if (td_pf) { td_i64 q = r + 1; for (int d = " + ro +
           " - 1; d >= 0; --d) { const td_i64 x = q % sz[d]; q /= sz[d]; for (int o = 0; o < " +
           ops() + "; ++o) obn[o] += x * st[o * " + rank() + " + d]; } }");
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
        line("  const " + ct(in.dtype) + " o" + num(v) + " = " + expr(in) + ";");
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
    line("  }");
  }

  // A column kernel (LoopKernel::columns): blocks of TD_B lanes over the outer cells [begin,
  // end), within one run of the last outer dimension, which is the contiguous one; each block
  // walks every inner cell (the reduced axes) once, accumulating per lane in a lane array that
  // GCC keeps in a vector register, and storing the row outputs it passes. So a sum over the
  // leading axis of [N, C] reads each row's cache lines once, in order, 16 columns at a time.
  // The range splits over threads by outer cells.
  void columns() {
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
      const std::string a = "o" + num(v), s = std::to_string(in.arg);
      line("    " + ct(in.dtype) + " " + a + "[TD_B];");
      line("    for (int j = 0; j < TD_B; ++j) " + a + "[j] = j < m ? " +
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
           "] = " + to_storage(k_.outputs[o].dtype, "v" + num(k_.results[o]) + "[j]") + ";");
    }
    line("    }");
    for (uint32_t v = 0; v < k_.body.size(); ++v) {
      const Instr& in = k_.body[v];
      if (in.level != Level::Outer || in.kind == Kind::Const || in.kind == Kind::Load) continue;
      const std::string a = "o" + num(v);
      if (in.kind == Kind::Reduce) {
        const DType xt = k_.body[in.args[0]].dtype;
        const bool wrap = (in.op == Op::sum || in.op == Op::prod) && ir::is_integral(xt);
        const std::string x =
            std::string(wrap ? "(" + ct(in.dtype) + ")" : "") + "a" + num(v) + "_[j]";
        line("    " + ct(in.dtype) + " " + a + "[TD_B];");
        line("    for (int j = 0; j < TD_B; ++j) " + a + "[j] = " + rounded(in.dtype, x) + ";");
      } else {
        line("    " + ct(in.dtype) + " " + a + "[TD_B];");
        line("    for (int j = 0; j < TD_B; ++j) " + a + "[j] = " + expr(in) + ";");
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
  void column_accumulator(uint32_t v, bool init) {
    const Instr& in = k_.body[v];
    const DType xt = k_.body[in.args[0]].dtype;
    const bool sum = in.op == Op::sum, prod = in.op == Op::prod;
    const bool wrap = (sum || prod) && ir::is_integral(xt);
    const std::string t = wrap ? "unsigned long long" : ct(in.dtype);
    const std::string a = "a" + num(v) + "_";
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
      line("    for (int j = 0; j < TD_B; ++j) " + a + "[j] = " + i0 + ";");
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
    line("    for (int j = 0; j < TD_B; ++j) " + acc + " = " + step + ";");
  }

  // A row reduction keeps kAccumulators vector accumulators in registers and feeds them the
  // blocks in turn (block b goes to accumulator b % kAccumulators): one accumulator made every
  // block wait for the previous block's add (or compare), and an accumulator array lived on the
  // stack, a store-to-load round trip per block. The tail block is padded with the operation's
  // identity (-0 for a float sum, which leaves every value as it is, 1 for a product, -inf / inf
  // or the integer dtype's extremes for max / min). Integer sums and products accumulate in
  // wrapping uint64 lanes, so that any order gives eager's bits.
  void reduction(uint32_t v) {
    const Instr& in = k_.body[v];
    if (in.op == Op::argmax || in.op == Op::argmin) return arg_reduction(v);
    const DType xt = k_.body[in.args[0]].dtype;
    const bool sum = in.op == Op::sum, prod = in.op == Op::prod;
    // Integer sums and products wrap in uint64 and give int64, in any order the same bits.
    const bool wrap = (sum || prod) && ir::is_integral(xt);
    const std::string t = wrap ? "unsigned long long" : ct(in.dtype);
    const std::string a = "a" + num(v) + "_";
    const std::string vt = "td_a" + num(v);
    // An argument that does not vary along the row (an outer value, e.g. a reduced axis of size
    // 1 merged away) is the same scalar for every element of the row.
    const bool outer_arg = k_.body[in.args[0]].level == Level::Outer;
    const std::string x0 = outer_arg ? "o" + num(in.args[0]) : "v" + num(in.args[0]) + "[j]";
    const std::string x = wrap ? "(" + t + ")(" + x0 + ")" : x0;
    const char* cmp = in.op == Op::max ? " > " : " < ";
    std::string init;
    if (wrap) {
      init = std::string("(") + t + ")" + (sum ? "0" : "1");
    } else if (sum || prod) {
      init = literal(sum ? 0 : 1, t);
    } else {
      init = ir::is_integral(xt) ? integer_extreme(xt, in.op == Op::max)
                                 : literal(in.op == Op::max ? -INFINITY : INFINITY, t);
    }
    const std::string pad = sum && !wrap ? literal(-0.0, t) : init;
    auto step = [&](const std::string& acc, const std::string& y) {
      if (sum) return acc + " + " + y;
      if (prod) return acc + " * " + y;
      return "(" + y + cmp + acc + ") | (" + y + " != " + y + ") ? " + y + " : " + acc;
    };
    line("  typedef " + t + " __attribute__((vector_size(TD_B * sizeof(" + t + ")))) " + vt + ";");
    std::string decl = "  " + vt;
    for (int q = 0; q < kAccumulators; ++q) decl += std::string(q ? "," : "") + " " + acc(a, q);
    line(decl + ";");
    line("  for (int j = 0; j < TD_B; ++j) " + acc(a, 0) + "[j] = " + init + ";");
    for (int q = 1; q < kAccumulators; ++q) line("  " + acc(a, q) + " = " + acc(a, 0) + ";");
    with_scratch([&] {
      inner_rows([&] {
        row_blocks(cone({in.args[0]}), [&] {
          line("    {");
          line("    " + vt + " x_;");
          // A wrapping accumulator is wider than the elements: they are converted lane by lane.
          if (outer_arg || wrap) {
            line("    for (int j = 0; j < TD_B; ++j) x_[j] = j < m ? " + x + " : " + pad + ";");
          } else {
            line("    if (full) { __builtin_memcpy(&x_, v" + num(in.args[0]) + ", sizeof x_); }");
            line("    else { for (int j = 0; j < TD_B; ++j) x_[j] = j < m ? " + x + " : " + pad +
                 "; }");
          }
          line("    const " + vt + " t_ = " + step(acc(a, 0), "x_") + ";");
          std::string rotate = "   ";
          for (int q = 0; q + 1 < kAccumulators; ++q) {
            rotate += " ";  // appends only: GCC 12 warns (-Wrestrict) on " " + std::string
            rotate += acc(a, q);
            rotate += " = ";
            rotate += acc(a, q + 1);
            rotate += ";";
          }
          line(rotate + " " + acc(a, kAccumulators - 1) + " = t_;");
          line("    }");
        });
      });
    });
    for (int w = kAccumulators / 2; w > 0; w /= 2) {
      for (int q = 0; q < w; ++q) {
        line("  " + acc(a, q) + " = " + step(acc(a, q), acc(a, q + w)) + ";");
      }
    }
    const std::string o = "o" + num(v), f = wrap ? "f" + num(v) : o;
    line("  " + t + " " + f + " = " + acc(a, 0) + "[0];");
    const std::string y = acc(a, 0) + "[j]";
    line("  for (int j = 1; j < TD_B; ++j) " + f + " = " + step(f, y) + ";");
    if (wrap) line("  const " + ct(in.dtype) + " " + o + " = (" + ct(in.dtype) + ")" + f + ";");
    if (in.dtype == DType::Float16 || in.dtype == DType::BFloat16) {
      line("  " + o + " = " + rounded(in.dtype, o) + ";");
    }
  }
  static constexpr int kAccumulators = 4;
  static std::string acc(const std::string& a, int q) { return a + std::to_string(q); }

  // Scratch rows: at most kScratchRows values, kScratchCells elements each (32 KiB of float32:
  // a row of 8192, or a 4096 row beside its input in a 48 KiB L1).
  static constexpr int kScratchRows = 2;
  static constexpr int kScratchCells = 8192;
  std::vector<int> slot_;      // per value: its scratch row, -1 none
  std::vector<int> producer_;  // per value: the first pass that computes it
  int slots_ = 0;
  int pass_ = 0;       // the pass being emitted (plan_scratch's numbering)
  bool keep_ = false;  // emitting a pass's scratch variant

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
    with_scratch([&] {
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
