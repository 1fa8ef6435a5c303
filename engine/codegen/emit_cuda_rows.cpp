// Kernels with inner dimensions (LoopKernel::inner_rank > 0, not columns): each outer row goes to
// a group of threads, one pass over the row per reduction, a group reduction (td_reduce), then
// the outer values and a last pass for the row outputs. Row inputs that several of those passes
// read are kept in shared memory by the first (row_cache).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/codegen/emit_cuda_structure.h"
#include "engine/codegen/emit_cuda_writer.h"

namespace tensord::codegen {

// The identity of max (lowest) or min (highest) in compute type `t`.
std::string CudaWriter::extreme(DType t, bool lowest) {
  switch (t) {
    case DType::Bool:
      return lowest ? "false" : "true";
    case DType::Int8:
    case DType::UInt8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
      return integer_extreme(t, lowest);
    case DType::Float64:
      return lowest ? "__longlong_as_double(0xfff0000000000000ULL)"
                    : "__longlong_as_double(0x7ff0000000000000ULL)";
    default:
      return lowest ? "__uint_as_float(0xff800000u)" : "__uint_as_float(0x7f800000u)";
  }
}

void CudaWriter::rows() {
  const int ro = k_.outer_rank;
  std::string rows = "sz0", n = value_name("sz", ro);
  for (int d = 1; d < ro; ++d) rows += " * sz" + num(d);
  for (int d = ro + 1; d < r_; ++d) n += " * sz" + num(d);
  line("  const td_i64 rows = " + rows + ";");
  line("  const td_i64 n = " + n + ";");
  line("  if (rows <= 0) return;");
  line(std::string("  const int gm = td_group(n, rows, ") +
       (cuda_strided_rows(k_) ? "true" : "false") + ");");
  line("  const bool blk = gm == 0;");
  line("  const td_i64 grp = blk ? (td_i64)blockDim.x : (td_i64)gm;");
  line("  const td_i64 lane = blk ? (td_i64)threadIdx.x : (td_i64)(threadIdx.x & (gm - 1));");
  line("  const td_i64 per_block = blockDim.x / grp;");
  line("  const td_i64 row0 = (td_i64)blockIdx.x * per_block + threadIdx.x / grp;");
  line("  const td_i64 rstep = (td_i64)gridDim.x * per_block;");
  if (ro > 1) {
    decompose("oc", 0, ro, "row0", "true");
    decompose("os", 0, ro, "rstep", "true");
  }
  if (multi()) {
    decompose("lc", ro, r_, "lane", "n > 0");
    decompose("ls", ro, r_, "grp", "n > 0");
  }
  row_cache();
  line("  for (td_i64 r = row0; r < rows; r += rstep) {");
  for (int o = 0; o < n_; ++o) {
    std::string b = ro == 1 ? "r * " + stride(o, 0) : "0";
    if (ro > 1) {
      for (int d = 0; d < ro; ++d) b += " + oc" + num(d) + " * " + stride(o, d);
    }
    line("  const td_i64 b" + num(o) + " = " + b + ";");
  }
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    const Instr& in = k_.body[v];
    if (in.level != Level::Outer || in.kind == Kind::Const) continue;
    if (in.kind == Kind::Load) {
      line("  const " + ct(in.dtype) + " o" + num(v) + " = " +
           from_storage(in.dtype, value_name("q", in.arg) + "[b" + num(in.arg) + "]") + ";");
    } else if (in.kind == Kind::Op) {
      line("  const " + ct(in.dtype) + " o" + num(v) + " = " + expr(v) + ";");
    } else {
      reduction(v);
    }
  }
  if (!row_results().empty()) store_rows();
  for (size_t o = 0; o < k_.outputs.size(); ++o) {
    if (k_.outputs[o].level != Level::Outer) continue;
    const std::string q = num(ni_ + static_cast<int64_t>(o));
    line("  if (lane == 0) q" + q + "[b" + q +
         "] = " + to_storage(k_.outputs[o].dtype, ref(k_.results[o])) + ";");
  }
  if (ro > 1) line("  " + advance("oc", "os", 0, ro));
  line("  }");
}

std::vector<uint32_t> CudaWriter::cached_loads() const {
  if (k_.inner_rank == 0 || k_.columns) return {};
  std::vector<std::vector<bool>> passes;  // the row values each pass computes (rows())
  for (const Instr& in : k_.body) {
    if (in.level == Level::Outer && in.kind == Kind::Reduce) passes.push_back(cone({in.args[0]}));
  }
  if (!row_results().empty()) passes.push_back(cone(row_results()));
  std::vector<uint32_t> loads;
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    const Instr& in = k_.body[v];
    if (in.kind != Kind::Load || !row(v)) continue;
    if (k_.inputs[in.arg].access == Access::Broadcast) continue;
    const auto readers = std::count_if(passes.begin(), passes.end(),
                                       [&](const std::vector<bool>& need) { return need[v]; });
    if (readers >= 2) loads.push_back(v);
  }
  return loads;
}

// Declares rc<slot>, each cached load's row in dynamic shared memory (cuda_row_cache_bytes's
// layout), and rcached: whether this block took the whole row and the launch gave it room (the
// host's rule, kCudaRowCacheBytes, decides; the kernel only checks). Each thread reads back
// only the elements it wrote itself (every pass steps alike), so no barrier is needed, not even
// between rows.
void CudaWriter::row_cache() {
  cache_slot_.assign(k_.body.size(), -1);
  cache_filled_.assign(k_.body.size(), false);
  const std::vector<uint32_t> loads = cached_loads();
  if (loads.empty()) return;
  line("  td_i64 rc_end = 0;");
  for (size_t j = 0; j < loads.size(); ++j) {
    const uint32_t v = loads[j];
    const DType t = k_.inputs[k_.body[v].arg].dtype;
    const std::string s = storage(t), rc = value_name("rc", static_cast<int64_t>(j));
    line("  " + s + "* " + rc + " = (" + s + "*)(td_dyn_smem() + rc_end);");
    line("  rc_end += (n * " + num(static_cast<int64_t>(ir::itemsize(t))) + " + 15) & ~15LL;");
    cache_slot_[v] = static_cast<int>(j);
  }
  line("  const bool rcached = blk && n < (1LL << 32) && rc_end <= (td_i64)td_dyn_smem_bytes();");
}

int64_t cuda_row_cache_bytes(const LoopKernel& kernel, int64_t n) {
  int64_t bytes = 0;
  for (uint32_t v : CudaWriter(kernel).cached_loads()) {
    const auto size = static_cast<int64_t>(ir::itemsize(kernel.inputs[kernel.body[v].arg].dtype));
    if (n >= (int64_t{1} << 32)) return INT64_MAX;
    bytes += (n * size + 15) & ~int64_t{15};
  }
  return bytes;
}

// The text of sum/prod/max/min reduction v: its accumulator type (integer sums wrap in uint64;
// complex sums accumulate in complex128, as the CPU's do), identity, fold, the argument lifted
// to the accumulator, and the cast of the folded accumulator to v's dtype.
CudaWriter::Reduction CudaWriter::reduction_text(uint32_t v) const {
  const Instr& in = k_.body[v];
  const uint32_t arg = in.args[0];
  const DType x = k_.body[arg].dtype;
  const bool int_sum = wraps_in_uint64(in.op, x);
  const bool product = in.op == Op::prod;
  Reduction red;
  red.acc = int_sum                       ? "td_u64"
            : ir::is_complex(x)           ? "td_c128"
            : in.op == Op::sum || product ? ct(in.dtype)
                                          : ct(x);
  red.fold = in.op == Op::sum   ? "td_sum"
             : product          ? "td_prod"
             : in.op == Op::max ? "td_max"
                                : "td_min";
  red.init = in.op == Op::sum ? "(" + red.acc + ")0"
             : product        ? "(" + red.acc + ")1"
                              : extreme(is_half(x) ? DType::Float32 : x, in.op == Op::max);
  red.lift = int_sum ? "(td_u64)(td_i64)(" + ref(arg) + ")" : "(" + red.acc + ")(" + ref(arg) + ")";
  red.cast = "(" + ct(in.dtype) + ")" + (int_sum ? "(td_i64)" : "");
  return red;
}

void CudaWriter::reduction(uint32_t v) {
  const Instr& in = k_.body[v];
  if (in.op == Op::argmax || in.op == Op::argmin) return arg_reduction(v);
  const Reduction red = reduction_text(v);
  const std::string a = value_name("acc", v), t = value_name("red", v);
  line("  " + red.acc + " " + a + "[TD_U];");
  line("#pragma unroll");
  line("  for (int u = 0; u < TD_U; ++u) " + a + "[u] = " + red.init + ";");
  pass(cone({in.args[0]}), {}, [&] {
    line("#pragma unroll");
    line("      for (int u = 0; u < TD_U; ++u) if (e[u] < n) " + a + "[u] = " + red.fold + "::f(" +
         a + "[u], " + red.lift + ");");
  });
  line("  " + red.acc + " " + t + " = " + a + "[0];");
  line("#pragma unroll");
  line("  for (int u = 1; u < TD_U; ++u) " + t + " = " + red.fold + "::f(" + t + ", " + a +
       "[u]);");
  line("  " + t + " = td_reduce<" + red.fold + ">(" + t + ", gm, blk);");
  line("  const " + ct(in.dtype) + " o" + num(v) + " = " + result(v, red.cast + t) + ";");
}

// argmax / argmin (the eager kernels' reduce_ops.h: ties keep the first index, the first NaN
// wins): each lane keeps a td_arg (value, flat index in the row, -1 for none); td_argmax and
// td_argmin combine two in any order, taking the better value and between equal values (or two
// NaNs) the smaller index, so the group's reduction order does not matter.
void CudaWriter::arg_reduction(uint32_t v) {
  const Instr& in = k_.body[v];
  const uint32_t arg = in.args[0];
  const std::string vt = "td_arg<" + ct(k_.body[arg].dtype) + ">";
  const std::string r = in.op == Op::argmax ? "td_argmax" : "td_argmin";
  const std::string a = value_name("acc", v), t = value_name("red", v);
  line("  " + vt + " " + a + "[TD_U];");
  line("#pragma unroll");
  line("  for (int u = 0; u < TD_U; ++u) " + a + "[u] = " + vt + "{" +
       extreme(is_half(k_.body[arg].dtype) ? DType::Float32 : k_.body[arg].dtype, true) + ", -1};");
  pass(cone({arg}), {}, [&] {
    line("#pragma unroll");
    line("      for (int u = 0; u < TD_U; ++u) if (e[u] < n) " + a + "[u] = " + r + "::f(" + a +
         "[u], " + vt + "{" + ref(arg) + ", e[u]});");
  });
  line("  " + vt + " " + t + " = " + a + "[0];");
  line("#pragma unroll");
  line("  for (int u = 1; u < TD_U; ++u) " + t + " = " + r + "::f(" + t + ", " + a + "[u]);");
  line("  " + t + " = td_reduce<" + r + ">(" + t + ", gm, blk);");
  line("  const long long o" + num(v) + " = " + t + ".k;");
}
}  // namespace tensord::codegen
