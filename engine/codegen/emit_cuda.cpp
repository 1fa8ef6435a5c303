// The CUDA C emitter's structure: parameters, loops, loads, stores and reductions; the
// elementwise formulas come from emit_cuda_ops.cpp (cuda_expr).
//
// Every loop is a "pass": the threads of a group (a whole pointwise grid, or the threads given
// one outer row) stride over a flat range, each taking TD_U elements per step, g apart, so that
// a warp's loads of one lane are coalesced and each thread has TD_U independent loads in
// flight. Every instruction is one unrolled lane loop over a small array (registers after
// unrolling). Multi-dimensional ranges follow the flat index with an odometer of coordinates
// advanced by the constant step (additions and one compare per dimension, no division in the
// loop); the divisions happen once per thread. A one-dimensional range indexes directly.
//
// Kernels with inner dimensions give each outer row to a group (td_group: up to 32 threads of
// a warp for short rows, else the block), make one pass over the row per reduction
// (recomputing its row-level producers, as the C++ emitter does), reduce within the group,
// compute the outer values, then make one pass storing the row-level outputs; the group's
// first thread stores the outer-level outputs.
#include "engine/codegen/emit_cuda.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <string>
#include <vector>

#include "engine/codegen/emit_cuda_internal.h"
#include "engine/codegen/emit_cuda_structure.h"
#include "engine/codegen/storage_text.h"
#include "engine/ir/error.h"

namespace tensord::codegen {
namespace {

using ir::DType;
using ir::Op;
using Kind = Instr::Kind;

bool is_half(DType t) {
  return t == DType::Float16 || t == DType::BFloat16;
}

std::string ct(DType t) {
  return std::string(cuda_compute_type(t));
}

std::string storage(DType t) {
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

// Every dtype the emitter can hold in a register (all of them, complex ones included).
bool has_compute_type(DType t) {
  return !cuda_compute_type(t).empty();
}

// The identity of max (lowest) or min (highest) in compute type `t`.
std::string extreme(DType t, bool lowest) {
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

std::string dtype_list(std::span<const DType> ts) {
  std::string s;
  for (DType t : ts) s += (s.empty() ? "" : ", ") + std::string(ir::name(t));
  return s;
}

[[noreturn]] void unsupported(Op op, std::span<const DType> inputs, DType result) {
  throw Error(ErrorCode::Unsupported, "the CUDA emitter cannot express " +
                                          std::string(ir::name(op)) + " on (" + dtype_list(inputs) +
                                          ") -> " + std::string(ir::name(result)));
}

uint32_t constant_count(const LoopKernel& k) {
  uint32_t n = 0;
  for (const Instr& in : k.body) {
    if (in.kind == Kind::Const) n = std::max(n, in.arg + 1);
  }
  return n;
}

// Word positions in the parameter block.
struct Words {
  int rank;
  int ops;
  int stride(int o, int d) const { return rank + o * rank + d; }
  int ptr(int o) const { return rank + ops * rank + o; }
  int constant(uint32_t i) const { return rank + ops * rank + ops + static_cast<int>(i); }
  int total(uint32_t constants) const { return constant(std::max<uint32_t>(1, constants)); }
};

// Rows read across their innermost stride and no row written: neighbouring threads then take
// neighbouring rows (td_group's `strided`).
bool strided_rows(const LoopKernel& k) {
  for (const Operand& o : k.outputs) {
    if (o.level == Level::Row) return false;
  }
  for (const Operand& o : k.inputs) {
    if (o.level == Level::Row && o.access == Access::Strided) return true;
  }
  return false;
}

class Writer {
 public:
  explicit Writer(const LoopKernel& k)
      : k_(k),
        r_(k.rank()),
        ni_(static_cast<int>(k.inputs.size())),
        n_(static_cast<int>(k.operands())),
        w_{r_, n_} {}

  std::string body() {
    check();
    const uint32_t nc = constant_count(k_);
    line("(const td_params<" + std::to_string(w_.total(nc)) + "> p) {");
    for (int d = 0; d < r_; ++d) line("  const td_i64 sz" + num(d) + " = p.w[" + num(d) + "];");
    for (uint32_t v = 0; v < k_.body.size(); ++v) {
      const Instr& in = k_.body[v];
      if (in.kind != Kind::Const) continue;
      const std::string c = "__longlong_as_double(p.w[" + num(w_.constant(in.arg)) + "])";
      line("  const " + ct(in.dtype) + " c" + num(v) + " = " +
           (in.dtype == DType::Bool ? "(" + c + " != 0)" : "(" + ct(in.dtype) + ")" + c) + ";");
    }
    for (int o = 0; o < n_; ++o) {
      const std::string cst = o < ni_ ? "const " : "";
      const std::string s = storage(operand(o).dtype);
      line("  " + cst + s + "* q" + num(o) + " = (" + cst + s + "*)p.w[" + num(w_.ptr(o)) + "];");
    }
    if (k_.inner_rank == 0) {
      pointwise();
    } else if (k_.columns) {
      columns();
    } else {
      rows();
    }
    line("}");
    return std::move(out_);
  }

 private:
  // Every instruction must be expressible: an unsupported one is an error naming it, never a
  // kernel that does not compile.
  void check() const {
    for (const Instr& in : k_.body) {
      std::vector<DType> args;
      for (uint32_t a : in.args) args.push_back(k_.body[a].dtype);
      if (in.kind == Kind::Op && !cuda_expressible(in.op, args, in.dtype)) {
        unsupported(in.op, args, in.dtype);
      }
      if (in.kind == Kind::Reduce && k_.inner_rank == 0) {
        throw Error(ErrorCode::Internal, "a reduction in a pointwise loop kernel");
      }
      if (in.kind == Kind::Reduce && !cuda_expressible_reduction(in.op, args[0], in.dtype)) {
        unsupported(in.op, args, in.dtype);
      }
      if ((in.kind == Kind::Load || in.kind == Kind::Const) && !has_compute_type(in.dtype)) {
        throw Error(ErrorCode::Unsupported,
                    "the CUDA emitter cannot load " + std::string(ir::name(in.dtype)));
      }
    }
    for (const Operand& o : k_.outputs) {
      if (!has_compute_type(o.dtype)) {
        throw Error(ErrorCode::Unsupported,
                    "the CUDA emitter cannot store " + std::string(ir::name(o.dtype)));
      }
    }
  }

  const Operand& operand(int o) const { return o < ni_ ? k_.inputs[o] : k_.outputs[o - ni_]; }
  // Values computed per element inside passes: everything but constants in a pointwise kernel.
  bool row(uint32_t v) const {
    const Instr& in = k_.body[v];
    return in.kind != Kind::Const && (in.level == Level::Row || k_.inner_rank == 0);
  }
  bool row_output(size_t o) const {
    return k_.outputs[o].level == Level::Row || k_.inner_rank == 0;
  }
  void line(const std::string& s) { out_ += s + "\n"; }
  static std::string num(int64_t v) { return std::to_string(v); }
  std::string stride(int o, int d) const { return "p.w[" + num(w_.stride(o, d)) + "]"; }

  // A value inside a pass (lane u) or in the code of one row.
  std::string ref(uint32_t v) const {
    const Instr& in = k_.body[v];
    if (in.kind == Kind::Const) return "c" + num(v);
    return row(v) ? "v" + num(v) + "[u]" : "o" + num(v);
  }

  std::string expr(const Instr& in) const {
    std::vector<std::string> args;
    std::vector<DType> dtypes;
    for (uint32_t a : in.args) {
      args.push_back(ref(a));
      dtypes.push_back(k_.body[a].dtype);
    }
    return rounded(in.dtype, cuda_expr(in.op, args, dtypes, in.dtype));
  }

  // The dimensions a pass walks: the inner ones, or all of a pointwise kernel.
  int lane_begin() const { return k_.inner_rank == 0 ? 0 : k_.outer_rank; }
  bool multi() const { return r_ - lane_begin() > 1; }

  // Declares prefix<d> for d in [d0, d1): the coordinates of `value`, the first unbounded.
  void decompose(const std::string& prefix, int d0, int d1, const std::string& value,
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
  std::string advance(const std::string& at, const std::string& step, int d0, int d1) const {
    std::string s;
    for (int d = d1 - 1; d > d0; --d) {
      const std::string a = at + num(d);
      s += a + " += " + step + num(d) + "; if (" + a + " >= sz" + num(d) + ") { " + a + " -= sz" +
           num(d) + "; ++" + at + num(d - 1) + "; } ";
    }
    return s + at + num(d0) + " += " + step + num(d0) + ";";
  }

  // The offset of operand o's element of lane u, within a pass.
  std::string at(int o) const {
    if (multi()) return "f" + num(o) + "[u]";
    const std::string base = k_.inner_rank == 0 ? "" : "b" + num(o) + " + ";
    switch (operand(o).access) {
      case Access::Contiguous:
        return base + "e[u]";
      case Access::Broadcast:
        return k_.inner_rank == 0 ? "0" : "b" + num(o);
      default:
        return base + "e[u] * " + stride(o, r_ - 1);
    }
  }

  // Operand o's offset from the coordinates k<d> of the pass's dimensions.
  std::string offset_from_coordinates(int o) const {
    std::string s = k_.inner_rank == 0 ? "0" : "b" + num(o);
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
  std::vector<bool> cone(const std::vector<uint32_t>& targets) const {
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

  void row_instr(uint32_t v) {
    const Instr& in = k_.body[v];
    const std::string t = ct(in.dtype);
    const std::string a = "v" + num(v);
    line("      " + t + " " + a + "[TD_U];");
    line("#pragma unroll");
    if (in.kind == Kind::Load) {
      const std::string x = from_storage(
          k_.inputs[in.arg].dtype, "q" + num(in.arg) + "[" + at(static_cast<int>(in.arg)) + "]");
      line("      for (int u = 0; u < TD_U; ++u) " + a + "[u] = e[u] < n ? " + x + " : (" + t +
           ")0;");
    } else {
      line("      for (int u = 0; u < TD_U; ++u) " + a + "[u] = " + expr(in) + ";");
    }
  }

  // One pass over the range [0, n) of the group: `need` the row-level values computed, then
  // `sink` (lane loops guarded by e[u] < n). `stored`: the outputs the sink writes.
  void pass(const std::vector<bool>& need, const std::vector<int>& stored,
            const std::function<void()>& sink) {
    line("  {");
    const int d0 = lane_begin();
    if (multi()) {
      std::string s = "    td_i64";
      for (int d = d0; d < r_; ++d)
        s += std::string(d > d0 ? "," : "") + " k" + num(d) + " = lc" + num(d);
      line(s + ";");
    }
    line("    for (td_i64 e0 = lane; e0 < n; e0 += grp * TD_U) {");
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
        body += "f" + num(o) + "[u] = " + offset_from_coordinates(o) + "; ";
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

  std::vector<uint32_t> row_results() const {
    std::vector<uint32_t> t;
    for (size_t o = 0; o < k_.outputs.size(); ++o) {
      if (row_output(o)) t.push_back(k_.results[o]);
    }
    return t;
  }

  void store_rows() {
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

  void pointwise() {
    std::string n = "sz0";
    for (int d = 1; d < r_; ++d) n += " * sz" + num(d);
    line("  const td_i64 n = " + n + ";");
    line("  const td_i64 lane = (td_i64)blockIdx.x * blockDim.x + threadIdx.x;");
    line("  const td_i64 grp = (td_i64)gridDim.x * blockDim.x;");
    if (multi()) {
      decompose("lc", 0, r_, "lane", "n > 0");
      decompose("ls", 0, r_, "grp", "n > 0");
    }
    store_rows();
  }

  void rows() {
    const int ro = k_.outer_rank;
    std::string rows = "sz0", n = "sz" + num(ro);
    for (int d = 1; d < ro; ++d) rows += " * sz" + num(d);
    for (int d = ro + 1; d < r_; ++d) n += " * sz" + num(d);
    line("  const td_i64 rows = " + rows + ";");
    line("  const td_i64 n = " + n + ";");
    line("  if (rows <= 0) return;");
    line(std::string("  const int gm = td_group(n, rows, ") +
         (strided_rows(k_) ? "true" : "false") + ");");
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
             from_storage(in.dtype, "q" + num(in.arg) + "[b" + num(in.arg) + "]") + ";");
      } else if (in.kind == Kind::Op) {
        line("  const " + ct(in.dtype) + " o" + num(v) + " = " + expr(in) + ";");
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

  // A column kernel (LoopKernel::columns): one thread per outer cell, grid-stride; neighbouring
  // threads take neighbouring cells of the last outer dimension, the contiguous one, so each
  // step of the inner loop (the reduced axes) is a coalesced load across the warp. Values are
  // scalars (lane u = 0 of one-element arrays, so ref() and expr() serve as in the passes).
  // No split of the reduced axes over threads: few kept cells over many reduced ones (a bias
  // gradient with 64 channels) leave most of the device idle.
  void columns() {
    const int ro = k_.outer_rank;
    std::string cols = "sz0", n = "sz" + num(ro);
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
           from_storage(k_.inputs[in.arg].dtype, "q" + num(in.arg) + "[b" + num(in.arg) + "]") +
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
      std::string f = "b" + num(o);
      for (int d = ro; d < r_; ++d) f += " + ic" + num(d) + " * " + stride(o, d);
      line("  const td_i64 f" + num(o) + " = " + f + ";");
    }
    const std::vector<bool> need = cone(targets);
    for (uint32_t v = 0; v < k_.body.size(); ++v) {
      if (!need[v]) continue;
      const Instr& in = k_.body[v];
      const std::string x =
          in.kind == Kind::Load
              ? from_storage(k_.inputs[in.arg].dtype, "q" + num(in.arg) + "[f" + num(in.arg) + "]")
              : expr(in);
      line("  " + ct(in.dtype) + " v" + num(v) + "[1];");
      line("  v" + num(v) + "[0] = " + x + ";");
    }
    for (uint32_t v = 0; v < k_.body.size(); ++v) {
      if (k_.body[v].kind == Kind::Reduce) column_accumulator(v, false);
    }
    for (size_t o = 0; o < k_.outputs.size(); ++o) {
      if (k_.outputs[o].level != Level::Row) continue;
      const std::string q = num(ni_ + static_cast<int64_t>(o));
      line("  q" + q + "[f" + q + "] = " + to_storage(k_.outputs[o].dtype, ref(k_.results[o])) +
           ";");
    }
    line("  }");
    for (uint32_t v = 0; v < k_.body.size(); ++v) {
      const Instr& in = k_.body[v];
      if (in.level != Level::Outer || in.kind == Kind::Const || in.kind == Kind::Load) continue;
      if (in.kind == Kind::Reduce) {
        const bool int_sum =
            (in.op == Op::sum || in.op == Op::prod) && !ir::is_floating(k_.body[in.args[0]].dtype);
        const std::string res = ct(in.dtype);
        line("  const " + res + " o" + num(v) + " = " +
             rounded(in.dtype, "(" + res + ")" + (int_sum ? "(td_i64)" : "") + "acc" + num(v)) +
             ";");
      } else {
        line("  const " + ct(in.dtype) + " o" + num(v) + " = " + expr(in) + ";");
      }
    }
    for (size_t o = 0; o < k_.outputs.size(); ++o) {
      if (k_.outputs[o].level != Level::Outer) continue;
      const std::string q = num(ni_ + static_cast<int64_t>(o));
      line("  q" + q + "[b" + q + "] = " + to_storage(k_.outputs[o].dtype, ref(k_.results[o])) +
           ";");
    }
    line("  }");
  }

  // A column reduction's accumulator: declared with the identity, or fed one inner cell. The
  // same accumulator types and combining functions as the row reductions' (reduction()).
  void column_accumulator(uint32_t v, bool init) {
    const Instr& in = k_.body[v];
    const uint32_t arg = in.args[0];
    const DType x = k_.body[arg].dtype;
    const bool int_sum = (in.op == Op::sum || in.op == Op::prod) && !ir::is_floating(x);
    const bool product = in.op == Op::prod;
    const std::string acc = int_sum ? "td_u64" : in.op == Op::sum || product ? ct(in.dtype) : ct(x);
    const std::string r = in.op == Op::sum   ? "td_sum"
                          : product          ? "td_prod"
                          : in.op == Op::max ? "td_max"
                                             : "td_min";
    const std::string a = "acc" + num(v);
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

  void reduction(uint32_t v) {
    const Instr& in = k_.body[v];
    const uint32_t arg = in.args[0];
    const DType x = k_.body[arg].dtype;
    if (in.op == Op::argmax || in.op == Op::argmin) return arg_reduction(v);
    const bool int_sum =
        (in.op == Op::sum || in.op == Op::prod) && !ir::is_floating(x) && !ir::is_complex(x);
    // Complex sums accumulate in complex128, as the CPU's do.
    const bool product = in.op == Op::prod;
    const std::string acc = int_sum                       ? "td_u64"
                            : ir::is_complex(x)           ? "td_c128"
                            : in.op == Op::sum || product ? ct(in.dtype)
                                                          : ct(x);
    const std::string r = in.op == Op::sum   ? "td_sum"
                          : product          ? "td_prod"
                          : in.op == Op::max ? "td_max"
                                             : "td_min";
    const std::string init = in.op == Op::sum ? "(" + acc + ")0"
                             : product        ? "(" + acc + ")1"
                                       : extreme(is_half(x) ? DType::Float32 : x, in.op == Op::max);
    const std::string lift =
        int_sum ? "(td_u64)(td_i64)(" + ref(arg) + ")" : "(" + acc + ")(" + ref(arg) + ")";
    const std::string a = "acc" + num(v), t = "red" + num(v);
    line("  " + acc + " " + a + "[TD_U];");
    line("#pragma unroll");
    line("  for (int u = 0; u < TD_U; ++u) " + a + "[u] = " + init + ";");
    pass(cone({arg}), {}, [&] {
      line("#pragma unroll");
      line("      for (int u = 0; u < TD_U; ++u) if (e[u] < n) " + a + "[u] = " + r + "::f(" + a +
           "[u], " + lift + ");");
    });
    line("  " + acc + " " + t + " = " + a + "[0];");
    line("#pragma unroll");
    line("  for (int u = 1; u < TD_U; ++u) " + t + " = " + r + "::f(" + t + ", " + a + "[u]);");
    line("  " + t + " = td_reduce<" + r + ">(" + t + ", gm, blk);");
    const std::string res = ct(in.dtype);
    line("  const " + res + " o" + num(v) + " = " +
         rounded(in.dtype, "(" + res + ")" + (int_sum ? "(td_i64)" : "") + t) + ";");
  }

  // argmax / argmin (the eager kernels' reduce_ops.h: ties keep the first index, the first NaN
  // wins): each lane keeps a td_arg (value, flat index in the row, -1 for none); td_argmax and
  // td_argmin combine two in any order, taking the better value and between equal values (or two
  // NaNs) the smaller index, so the group's reduction order does not matter.
  void arg_reduction(uint32_t v) {
    const Instr& in = k_.body[v];
    const uint32_t arg = in.args[0];
    const std::string vt = "td_arg<" + ct(k_.body[arg].dtype) + ">";
    const std::string r = in.op == Op::argmax ? "td_argmax" : "td_argmin";
    const std::string a = "acc" + num(v), t = "red" + num(v);
    line("  " + vt + " " + a + "[TD_U];");
    line("#pragma unroll");
    line("  for (int u = 0; u < TD_U; ++u) " + a + "[u] = " + vt + "{" +
         extreme(is_half(k_.body[arg].dtype) ? DType::Float32 : k_.body[arg].dtype, true) +
         ", -1};");
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

  const LoopKernel& k_;
  int r_;
  int ni_;
  int n_;
  Words w_;
  std::string out_;
};

}  // namespace

EmittedKernel CudaEmitter::emit(const LoopKernel& kernel) const {
  const std::string body = Writer(kernel).body();
  const std::string head = std::string("extern \"C\" __global__ void __launch_bounds__(") +
                           (kernel.inner_rank == 0 ? "256" : "512") + ") ";
  EmittedKernel k;
  k.hash = text_hash(head + body);
  k.name = "td_" + hex64(k.hash);
  k.source = head + k.name + body;
  return k;
}

std::string CudaEmitter::unit(std::span<const EmittedKernel> kernels) const {
  std::string body;
  for (const EmittedKernel& k : kernels) body += k.source;
  return cuda_unit_prelude(body) + body;
}

CudaLaunchConfig cuda_launch_config(const LoopKernel& kernel, const LaunchShape& launch,
                                    int sm_count) {
  const int64_t sm = std::max(1, sm_count);
  const int64_t cap = sm * 32;
  CudaLaunchConfig c;
  c.shared_bytes = 0;  // the reduction slots are static shared memory
  if (kernel.inner_rank == 0) {
    int64_t total = 1;
    for (int64_t s : launch.sizes) total *= s;
    c.block = 256;
    if (total <= 0) {
      c.grid = 0;
      return c;
    }
    // One element per thread while that fills the device; beyond, TD_U per thread and step
    // (more loads in flight), at least eight blocks per multiprocessor, then grid-stride.
    const int64_t one = (total + 255) / 256;
    int64_t grid = one;
    if (one > sm * 8) {
      grid = std::clamp<int64_t>((total + 256 * kCudaLanes - 1) / (256 * kCudaLanes), sm * 8, cap);
      grid = std::min(grid, one);
    }
    c.grid = static_cast<unsigned>(grid);
    return c;
  }
  const int64_t rows = launch.outer_count();
  const int64_t n = launch.inner_count();
  if (rows <= 0) {
    c.grid = 0;
    return c;
  }
  if (kernel.columns) {  // one thread per outer cell
    c.block = 256;
    c.grid = static_cast<unsigned>(std::min((rows + 255) / 256, cap));
    return c;
  }
  const int g = cuda_row_group(n, rows, strided_rows(kernel));
  if (g > 0) {
    c.block = 256;
    c.threads_per_unit = static_cast<unsigned>(g);
    const int64_t per_block = 256 / g;
    c.grid = static_cast<unsigned>(std::min((rows + per_block - 1) / per_block, cap));
  } else {
    // About two steps of TD_U elements per thread.
    unsigned block = 64;
    while (block < 512 && static_cast<int64_t>(block) * 2 * kCudaLanes < n) block *= 2;
    c.block = block;
    c.threads_per_unit = block;
    c.grid = static_cast<unsigned>(std::min(rows, cap));
  }
  return c;
}

std::vector<uint64_t> cuda_params(const LoopKernel& kernel, const LaunchShape& launch,
                                  std::span<void* const> ptrs) {
  const int rank = kernel.rank();
  const int ops = static_cast<int>(kernel.operands());
  if (launch.sizes.size() != static_cast<size_t>(rank) ||
      launch.strides.size() != static_cast<size_t>(rank * ops) ||
      ptrs.size() != static_cast<size_t>(ops)) {
    throw Error(ErrorCode::Internal,
                "cuda_params: the launch shape or the operand addresses do "
                "not match the kernel (rank " +
                    std::to_string(rank) + ", " + std::to_string(ops) + " operands)");
  }
  const uint32_t nc = constant_count(kernel);
  const Words w{rank, ops};
  std::vector<uint64_t> words(static_cast<size_t>(w.total(nc)), 0);
  for (int d = 0; d < rank; ++d) words[d] = static_cast<uint64_t>(launch.sizes[d]);
  for (int i = 0; i < rank * ops; ++i) words[rank + i] = static_cast<uint64_t>(launch.strides[i]);
  for (int o = 0; o < ops; ++o) words[w.ptr(o)] = reinterpret_cast<uintptr_t>(ptrs[o]);
  for (uint32_t i = 0; i < nc; ++i) {
    const double v = i < launch.constants.size() ? launch.constants[i] : 0.0;
    words[w.constant(i)] = std::bit_cast<uint64_t>(v);
  }
  return words;
}

bool cuda_expressible(Op op, std::span<const DType> inputs, DType result) {
  if (!has_compute_type(result)) return false;
  for (DType t : inputs) {
    if (!has_compute_type(t)) return false;
  }
  switch (ir::op_info(op).kind) {
    case ir::OpKind::Unary:
    case ir::OpKind::Binary:
    case ir::OpKind::Ternary:
      return cuda_op_supported(op, inputs, result);
    case ir::OpKind::Reduction:
      return inputs.size() == 1 && cuda_expressible_reduction(op, inputs[0], result);
    default:
      return false;
  }
}

bool cuda_expressible_reduction(Op op, DType input, DType result) {
  if (!has_compute_type(input) || !has_compute_type(result)) return false;
  if (ir::is_complex(input)) return op == Op::sum && result == input;
  if (op == Op::sum || op == Op::prod) {
    return ir::is_floating(input) ? result == input : result == DType::Int64;
  }
  if (op == Op::argmax || op == Op::argmin) return input != DType::Bool && result == DType::Int64;
  return (op == Op::max || op == Op::min) && result == input;
}

}  // namespace tensord::codegen
