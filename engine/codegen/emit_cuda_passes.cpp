// The pieces every CUDA kernel is made of: a value's name in a pass, index text (coordinates,
// the odometer that advances them, operand offsets), one row instruction of a pass with its
// loads, the pass loop itself, and the stores of the row outputs.
#include <functional>
#include <string>
#include <vector>

#include "engine/codegen/emit_cuda_writer.h"

namespace tensord::codegen {

std::string CudaWriter::storage(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::UInt8:
      return "unsigned char";
    case DType::Int8:
      return "signed char";
    case DType::Int16:
      return "short";
    case DType::Int32:
      return "int";
    case DType::Int64:
      return "long long";
    case DType::Float16:
    case DType::BFloat16:
      return "td_u16";
    case DType::Float64:
      return "double";
    case DType::Complex64:
      return "td_c64";  // two floats, as std::complex<float>
    case DType::Complex128:
      return "td_c128";
    default:
      return "float";
  }
}

// Values computed per element inside passes: everything but constants in a pointwise kernel.
bool CudaWriter::row(uint32_t v) const {
  const Instr& in = k_.body[v];
  return in.kind != Kind::Const && (in.level == Level::Row || k_.inner_rank == 0);
}

bool CudaWriter::row_output(size_t o) const {
  return k_.outputs[o].level == Level::Row || k_.inner_rank == 0;
}

// A value inside a pass (lane u) or in the code of one row.
std::string CudaWriter::ref(uint32_t v) const {
  const Instr& in = k_.body[v];
  if (in.kind == Kind::Const) return value_name("c", v);
  return row(v) ? value_name("v", v) + "[u]" : value_name("o", v);
}

std::string CudaWriter::expr(uint32_t v) const {
  const Instr& in = k_.body[v];
  std::vector<std::string> args;
  std::vector<DType> dtypes;
  for (uint32_t a : in.args) {
    args.push_back(ref(a));
    dtypes.push_back(k_.body[a].dtype);
  }
  const std::string x = cuda_expr(in.op, args, dtypes, in.dtype);
  return in.op == Op::cast ? x : result(v, x);  // a cast to a 16-bit dtype rounds itself
}

// Value v's expression `x` rounded to v's 16-bit dtype, as eager kernels round every result;
// not when only stores of that dtype read v, whose conversion rounds alike (td_f2h(td_rh(x))
// is td_f2h(x) for every float: tensord_unit_cuda_formulas_host). Half of a float16 kernel's
// rounding code goes, and with it NVRTC time (docs/cuda.md "16-bit kernels").
std::string CudaWriter::result(uint32_t v, const std::string& x) const {
  return only_stored_[v] ? x : rounded(k_.body[v].dtype, x);
}

// Declares prefix<d> for d in [d0, d1): the coordinates of `value`, the first unbounded.
void CudaWriter::decompose(const std::string& prefix, int d0, int d1, const std::string& value,
                           const std::string& guard) {
  std::string decl = "  td_i64";
  for (int d = d0; d < d1; ++d)
    decl += std::string(d > d0 ? "," : "") + " " + prefix + num(d) + " = 0";
  line(decl + ";");
  std::string s = "  if (" + guard + ") { td_i64 q = " + value + ";";
  for (int d = d1 - 1; d > d0; --d) {
    s += " " + prefix + num(d) + " = q % sz" + num(d) + "; q /= sz" + num(d) + ";";
  }
  line(s + " " + prefix + num(d0) + " = q; }");
}

// Adds the coordinates step<d> to at<d>, carrying; every step<d> but the first is below its
// size, so one subtraction per dimension suffices.
std::string CudaWriter::advance(const std::string& at, const std::string& step, int d0,
                                int d1) const {
  std::string s;
  for (int d = d1 - 1; d > d0; --d) {
    const std::string a = at + num(d);
    s += a + " += " + step + num(d) + "; if (" + a + " >= sz" + num(d) + ") { " + a + " -= sz" +
         num(d) + "; ++" + at + num(d - 1) + "; } ";
  }
  return s + at + num(d0) + " += " + step + num(d0) + ";";
}

// The offset of operand o's element of lane u, within a pass.
std::string CudaWriter::at(int o) const {
  if (multi()) return value_name("f", o) + "[u]";
  const std::string base = k_.inner_rank == 0 ? "" : value_name("b", o) + " + ";
  switch (operand(o).access) {
    case Access::Contiguous:
      return base + "e[u]";
    case Access::Broadcast:
      return k_.inner_rank == 0 ? "0" : value_name("b", o);
    default:
      return base + "e[u] * " + stride(o, r_ - 1);
  }
}

// Operand o's offset from the coordinates k<d> of the pass's dimensions.
std::string CudaWriter::offset_from_coordinates(int o) const {
  std::string s = k_.inner_rank == 0 ? "0" : value_name("b", o);
  for (int d = lane_begin(); d < r_; ++d) {
    if (d == r_ - 1) {
      if (operand(o).access == Access::Contiguous) s += " + k" + num(d);
      if (operand(o).access == Access::Strided) s += " + k" + num(d) + " * " + stride(o, d);
    } else {
      s += " + k" + num(d) + " * " + stride(o, d);
    }
  }
  return s;
}

// The row-level instructions `targets` depend on.
std::vector<bool> CudaWriter::cone(const std::vector<uint32_t>& targets) const {
  std::vector<bool> need(k_.body.size(), false);
  std::vector<uint32_t> stack = targets;
  while (!stack.empty()) {
    const uint32_t v = stack.back();
    stack.pop_back();
    const Instr& in = k_.body[v];
    if (need[v] || !row(v)) continue;
    need[v] = true;
    for (uint32_t a : in.args) stack.push_back(a);
  }
  return need;
}

void CudaWriter::row_instr(uint32_t v) {
  const Instr& in = k_.body[v];
  const std::string t = ct(in.dtype);
  const std::string a = value_name("v", v);
  line("      " + t + " " + a + "[TD_U];");
  line("#pragma unroll");
  const int slot = v < cache_slot_.size() ? cache_slot_[v] : -1;
  if (in.kind == Kind::Load && slot >= 0) {
    // A cached row input: the first pass that reads it keeps it, later ones read it back.
    const DType st = k_.inputs[in.arg].dtype;
    const std::string memory = value_name("q", in.arg) + "[" + at(static_cast<int>(in.arg)) + "]";
    const std::string rc = value_name("rc", slot) + "[e[u]]";
    if (cache_filled_[v]) {
      line("      for (int u = 0; u < TD_U; ++u) " + a + "[u] = e[u] < n ? " +
           from_storage(st, "(rcached ? " + rc + " : " + memory + ")") + " : (" + t + ")0;");
    } else {
      line("      for (int u = 0; u < TD_U; ++u) { if (e[u] < n) { const " + storage(st) +
           " s = " + memory + "; if (rcached) " + rc + " = s; " + a +
           "[u] = " + from_storage(st, "s") + "; } else " + a + "[u] = (" + t + ")0; }");
      cache_filled_[v] = true;
    }
  } else if (in.kind == Kind::Load) {
    const std::string x =
        from_storage(k_.inputs[in.arg].dtype,
                     value_name("q", in.arg) + "[" + at(static_cast<int>(in.arg)) + "]");
    line("      for (int u = 0; u < TD_U; ++u) " + a + "[u] = e[u] < n ? " + x + " : (" + t +
         ")0;");
  } else {
    line("      for (int u = 0; u < TD_U; ++u) " + a + "[u] = " + expr(v) + ";");
  }
}

// One pass over the range [0, n) of the group: `need` the row-level values computed, then
// `sink` (lane loops guarded by e[u] < n). `stored`: the outputs the sink writes.
void CudaWriter::pass(const std::vector<bool>& need, const std::vector<int>& stored,
                      const std::function<void()>& sink) {
  line("  {");
  const int d0 = lane_begin();
  if (multi()) {
    std::string s = "    td_i64";
    for (int d = d0; d < r_; ++d)
      s += std::string(d > d0 ? "," : "") + " k" + num(d) + " = lc" + num(d);
    line(s + ";");
  }
  line("    for (td_i64 e0 = " + start_ + "; e0 < n; e0 += grp * TD_U) {");
  line("      td_i64 e[TD_U];");
  line("#pragma unroll");
  line("      for (int u = 0; u < TD_U; ++u) e[u] = e0 + u * grp;");
  if (multi()) {
    std::vector<int> used = stored;
    for (uint32_t v = 0; v < k_.body.size(); ++v) {
      if (need[v] && k_.body[v].kind == Kind::Load)
        used.push_back(static_cast<int>(k_.body[v].arg));
    }
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    std::string body;
    for (int o : used) {
      line("      td_i64 f" + num(o) + "[TD_U];");
      body += value_name("f", o) + "[u] = " + offset_from_coordinates(o) + "; ";
    }
    line("#pragma unroll");
    line("      for (int u = 0; u < TD_U; ++u) { " + body + advance("k", "ls", d0, r_) + " }");
  }
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    if (need[v]) row_instr(v);
  }
  sink();
  line("    }");
  line("  }");
}

std::vector<uint32_t> CudaWriter::row_results() const {
  std::vector<uint32_t> t;
  for (size_t o = 0; o < k_.outputs.size(); ++o) {
    if (row_output(o)) t.push_back(k_.results[o]);
  }
  return t;
}

void CudaWriter::store_rows() {
  std::vector<int> stored;
  for (size_t o = 0; o < k_.outputs.size(); ++o) {
    if (row_output(o)) stored.push_back(ni_ + static_cast<int>(o));
  }
  pass(cone(row_results()), stored, [&] {
    for (int o : stored) {
      const uint32_t v = k_.results[o - ni_];
      line("#pragma unroll");
      line("      for (int u = 0; u < TD_U; ++u) if (e[u] < n) q" + num(o) + "[" + at(o) +
           "] = " + to_storage(operand(o).dtype, ref(v)) + ";");
    }
  });
}
}  // namespace tensord::codegen
