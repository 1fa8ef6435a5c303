// Column kernels (LoopKernel::columns): reductions over axes that leave the innermost one, one
// thread per kept cell.
#include <string>
#include <vector>

#include "engine/codegen/emit_cuda_writer.h"

namespace tensord::codegen {

// A column kernel (LoopKernel::columns): one thread per outer cell, grid-stride; neighbouring
// threads take neighbouring cells of the last outer dimension, the contiguous one, so each
// step of the inner loop (the reduced axes) is a coalesced load across the warp. Values are
// scalars (lane u = 0 of one-element arrays, so ref() and expr() serve as in the passes).
// No split of the reduced axes over threads: few kept cells over many reduced ones (a bias
// gradient with 64 channels) leave most of the device idle.
void CudaWriter::columns() {
  const int ro = k_.outer_rank;
  std::string cols = "sz0", n = value_name("sz", ro);
  for (int d = 1; d < ro; ++d) cols += " * sz" + num(d);
  for (int d = ro + 1; d < r_; ++d) n += " * sz" + num(d);
  line("  const td_i64 cols = " + cols + ";");
  line("  const td_i64 n = " + n + ";");
  line("  const int u = 0;");
  line("  (void)u;");
  line("  for (td_i64 c = (td_i64)blockIdx.x * blockDim.x + threadIdx.x; c < cols;");
  line("       c += (td_i64)gridDim.x * blockDim.x) {");
  line("  td_i64 qc = c;");
  for (int d = ro - 1; d >= 0; --d) {
    line("  const td_i64 oc" + num(d) + " = " + (d > 0 ? "qc % sz" + num(d) : "qc") + ";" +
         (d > 0 ? " qc /= sz" + num(d) + ";" : ""));
  }
  line("  (void)qc;");
  for (int o = 0; o < n_; ++o) {
    std::string b = "0";
    for (int d = 0; d < ro; ++d) b += " + oc" + num(d) + " * " + stride(o, d);
    line("  const td_i64 b" + num(o) + " = " + b + ";");
  }
  std::vector<uint32_t> targets = row_results();
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    const Instr& in = k_.body[v];
    if (in.kind == Kind::Reduce) {
      targets.push_back(in.args[0]);
      column_accumulator(v, true);
    }
    if (in.level != Level::Outer || in.kind != Kind::Load) continue;
    line("  const " + ct(in.dtype) + " o" + num(v) + " = " +
         from_storage(k_.inputs[in.arg].dtype, value_name("q", in.arg) + "[b" + num(in.arg) + "]") +
         ";");
  }
  line("  for (td_i64 t = 0; t < n; ++t) {");
  line("  td_i64 qt = t;");
  for (int d = r_ - 1; d >= ro; --d) {
    line("  const td_i64 ic" + num(d) + " = " + (d > ro ? "qt % sz" + num(d) : "qt") + ";" +
         (d > ro ? " qt /= sz" + num(d) + ";" : ""));
  }
  line("  (void)qt;");
  for (int o = 0; o < n_; ++o) {
    if (operand(o).level == Level::Outer) continue;
    std::string f = value_name("b", o);
    for (int d = ro; d < r_; ++d) f += " + ic" + num(d) + " * " + stride(o, d);
    line("  const td_i64 f" + num(o) + " = " + f + ";");
  }
  const std::vector<bool> need = cone(targets);
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    if (!need[v]) continue;
    const Instr& in = k_.body[v];
    const std::string x = in.kind == Kind::Load
                              ? from_storage(k_.inputs[in.arg].dtype,
                                             value_name("q", in.arg) + "[f" + num(in.arg) + "]")
                              : expr(v);
    line("  " + ct(in.dtype) + " v" + num(v) + "[1];");
    line("  v" + num(v) + "[0] = " + x + ";");
  }
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    if (k_.body[v].kind == Kind::Reduce) column_accumulator(v, false);
  }
  for (size_t o = 0; o < k_.outputs.size(); ++o) {
    if (k_.outputs[o].level != Level::Row) continue;
    const std::string q = num(ni_ + static_cast<int64_t>(o));
    line("  q" + q + "[f" + q + "] = " + to_storage(k_.outputs[o].dtype, ref(k_.results[o])) + ";");
  }
  line("  }");
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    const Instr& in = k_.body[v];
    if (in.level != Level::Outer || in.kind == Kind::Const || in.kind == Kind::Load) continue;
    if (in.kind == Kind::Reduce) {
      const bool int_sum = wraps_in_uint64(in.op, k_.body[in.args[0]].dtype);
      const std::string res = ct(in.dtype);
      line("  const " + res + " o" + num(v) + " = " +
           result(v, "(" + res + ")" + (int_sum ? "(td_i64)" : "") + value_name("acc", v)) + ";");
    } else {
      line("  const " + ct(in.dtype) + " o" + num(v) + " = " + expr(v) + ";");
    }
  }
  for (size_t o = 0; o < k_.outputs.size(); ++o) {
    if (k_.outputs[o].level != Level::Outer) continue;
    const std::string q = num(ni_ + static_cast<int64_t>(o));
    line("  q" + q + "[b" + q + "] = " + to_storage(k_.outputs[o].dtype, ref(k_.results[o])) + ";");
  }
  line("  }");
}

// A column reduction's accumulator: declared with the identity, or fed one inner cell. The
// same accumulator types and combining functions as the row reductions' (reduction()).
void CudaWriter::column_accumulator(uint32_t v, bool init) {
  const Instr& in = k_.body[v];
  const uint32_t arg = in.args[0];
  const DType x = k_.body[arg].dtype;
  const bool int_sum = wraps_in_uint64(in.op, x);
  const bool product = in.op == Op::prod;
  const std::string acc = int_sum ? "td_u64" : in.op == Op::sum || product ? ct(in.dtype) : ct(x);
  const std::string r = in.op == Op::sum   ? "td_sum"
                        : product          ? "td_prod"
                        : in.op == Op::max ? "td_max"
                                           : "td_min";
  const std::string a = value_name("acc", v);
  if (init) {
    const std::string i0 = in.op == Op::sum ? "(" + acc + ")0"
                           : product        ? "(" + acc + ")1"
                                     : extreme(is_half(x) ? DType::Float32 : x, in.op == Op::max);
    line("  " + acc + " " + a + " = " + i0 + ";");
    return;
  }
  const std::string lift =
      int_sum ? "(td_u64)(td_i64)(" + ref(arg) + ")" : "(" + acc + ")(" + ref(arg) + ")";
  line("  " + a + " = " + r + "::f(" + a + ", " + lift + ");");
}
}  // namespace tensord::codegen
