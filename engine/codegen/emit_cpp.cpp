// The C++ emitter's entry points (CppEmitter: a kernel's name is the hash of its text; a unit is
// the prelude and its kernels), the head every kernel body starts with, and pointwise kernels.
// The writer's other kernel shapes are in emit_cpp_rows.cpp, emit_cpp_reductions.cpp and
// emit_cpp_columns.cpp (emit_cpp_writer.h says how a kernel is laid out).
#include <cstdio>
#include <string>

#include "engine/codegen/emit_cpp_writer.h"
#include "engine/codegen/emitter.h"

namespace tensord::codegen {
namespace {

// Launch domains of at least this many cells (16 MiB per float32 output, past a core's share of
// the last-level cache on the machines we use) store float32 row outputs non-temporally.
constexpr int64_t kStreamCells = int64_t{1} << 22;

}  // namespace

std::string CppWriter::body() {
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
      std::string cast = "(";  // appended: GCC 12 warns (-Wrestrict, falsely) on "(" + string
      cast += ct(in.dtype);
      cast += ")";
      cast += c;
      line("  const " + ct(in.dtype) + " c" + std::to_string(v) + " = " +
           (in.dtype == DType::Bool ? "(" + c + " != 0)" : cast) + ";");
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

void CppWriter::pointwise() {
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

// From this many instructions a kernel's lane loops stay loops (the vectorizer makes each one
// vector operation) instead of being peeled into 16 statements for the SLP vectorizer: GCC's
// time at -O3 on a chain of 200 elementwise ops fell from 3.4 s to 0.85 s, where the loop
// form ran softmax and layer_norm over short rows 20% slower than peeling. Small kernels keep
// the peeled form; a long chain pays for its compile in time no run wins back.
constexpr size_t kLanesUnpeeledFrom = 64;

EmittedKernel CppEmitter::emit(const LoopKernel& kernel) const {
  const std::string body = CppWriter(kernel).body();
  std::string before, after;
  if (kernel.body.size() >= kLanesUnpeeledFrom) {
    before =
        "#undef TD_LANES\n#define TD_LANES _Pragma(\"GCC unroll 1\") for (int j = 0; j < TD_B; "
        "++j)\n";
    after = "#undef TD_LANES\n#define TD_LANES for (int j = 0; j < TD_B; ++j)\n";
  }
  EmittedKernel k;
  k.hash = text_hash(before + body);
  k.name = "td_" + hex64(k.hash);
  k.source = before + "extern \"C\" void " + k.name + body + after;
  return k;
}

std::string CppEmitter::unit(std::span<const EmittedKernel> kernels) const {
  std::string s(cpp_prelude());
  s += cpp_int_prelude();
  for (const EmittedKernel& k : kernels) s += k.source;
  return s;
}

}  // namespace tensord::codegen
