// The C++ emitter's kernel writer, shared by its files: emit_cpp.cpp (the kernel's head and
// pointwise kernels), emit_cpp_rows.cpp (kernels with inner dimensions: row passes, their loads,
// scratch rows and row stores), emit_cpp_reductions.cpp (row reductions) and
// emit_cpp_columns.cpp (column kernels). A kernel body walks rows of the innermost dimension in
// blocks of TD_B lanes: every instruction is one fixed-length lane loop over small arrays, which
// GCC turns into vector code, with libmvec calls for the transcendental functions. Kernels with
// inner dimensions make one pass over a row per reduction (recomputing the cheap elementwise
// values that feed it rather than storing them; transcendental ones a later pass needs go to a
// scratch row on the stack) and a last pass for the row-level outputs. Expressions are in
// emit_cpp_expr.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/codegen/emit_cpp_internal.h"
#include "engine/codegen/loop_ir.h"
#include "engine/codegen/storage_text.h"

namespace tensord::codegen {

// Writes the body of one kernel (its text after the name): CppWriter(kernel).body().
class CppWriter {
 public:
  explicit CppWriter(const LoopKernel& k)
      : k_(k),
        r_(k.rank()),
        ni_(static_cast<int>(k.inputs.size())),
        n_(static_cast<int>(k.operands())),
        only_stored_(only_stored(k)) {}

  std::string body();

 private:
  using DType = ir::DType;
  using Op = ir::Op;
  using Kind = Instr::Kind;

  static std::string ct(DType t) { return cpp_type(t); }
  static std::string storage(DType t) { return cpp_storage(t); }
  static std::string literal(double v, const std::string& type) { return cpp_literal(v, type); }

  const Operand& operand(int o) const { return o < ni_ ? k_.inputs[o] : k_.outputs[o - ni_]; }
  void line(const std::string& s) { out_ += s + "\n"; }
  std::string num(uint32_t v) const { return std::to_string(v); }
  // `prefix` then v, e.g. "o3": appended, as GCC 12 warns (-Wrestrict, a false positive) on
  // "o" + std::to_string(v) where it inlines the chain.
  static std::string value_name(const char* prefix, uint32_t v) {
    std::string s = prefix;
    s += std::to_string(v);
    return s;
  }
  std::string ops() const { return std::to_string(n_); }
  std::string rank() const { return std::to_string(r_); }

  std::string ref(uint32_t v) const { return cpp_ref(k_, v); }
  std::string expr(uint32_t v) const { return cpp_expr(k_, k_.body[v], !only_stored_[v]); }

  // emit_cpp.cpp: a kernel without inner dimensions.
  void pointwise();

  // emit_cpp_rows.cpp: a kernel with inner dimensions, its passes and their pieces.
  void rows();
  void row_instr(uint32_t v);
  bool vector_pow(const Instr& in) const;
  std::vector<bool> cone(const std::vector<uint32_t>& targets) const;
  void plan_scratch();
  std::vector<std::vector<uint32_t>> pass_targets() const;
  std::vector<int> prefetched() const;
  bool pass_uses_scratch() const;
  void store_scratch(const std::vector<bool>& need);
  bool streams() const;
  void store_rows();
  std::vector<uint32_t> row_results() const;

  // emit_cpp_reductions.cpp: the pass of one row reduction (sum, prod, max, min; argmax,
  // argmin).
  void reduction(uint32_t v);
  void arg_reduction(uint32_t v);

  // emit_cpp_columns.cpp: a column kernel (LoopKernel::columns).
  void columns();
  void column_accumulator(uint32_t v, bool init);

  // Whether value v comes from a scratch row in the pass being emitted.
  bool cut(uint32_t v) const { return slot_[v] >= 0 && producer_[v] < pass_; }

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

  const LoopKernel& k_;
  int r_;
  int ni_;
  int n_;
  std::vector<bool> only_stored_;  // only_stored(k_): values computed without 16-bit rounding
  std::string out_;
};

}  // namespace tensord::codegen
