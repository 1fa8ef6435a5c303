// The CUDA C emitter's entry points (CudaEmitter: a kernel's name is the hash of its text; a unit
// is the prelude its kernels need and the kernels), the head of every kernel body, the check
// that every instruction is expressible, and pointwise kernels. emit_cuda_writer.h says how a
// kernel is laid out and which file writes which part.
#include "engine/codegen/emit_cuda.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/codegen/emit_cuda_structure.h"
#include "engine/codegen/emit_cuda_writer.h"
#include "engine/codegen/storage_text.h"
#include "engine/ir/error.h"

namespace tensord::codegen {
namespace {

using ir::DType;
using ir::Op;

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

EmittedKernel named(const std::string& head, const std::string& body) {
  EmittedKernel k;
  k.hash = text_hash(head + body);
  k.name = "td_" + hex64(k.hash);
  k.source = head + k.name + body;
  return k;
}

}  // namespace

EmittedKernel CudaEmitter::emit(const LoopKernel& kernel) const {
  const std::string body = CudaWriter(kernel).body();
  return named(std::string("extern \"C\" __global__ void __launch_bounds__(") +
                   (kernel.inner_rank == 0 ? "256" : "512") + ") ",
               body);
}

std::optional<EmittedKernel> CudaEmitter::emit_row_registers(const LoopKernel& kernel) const {
  if (cuda_row_register_slots(kernel) == 0) return std::nullopt;
  return named("extern \"C\" __global__ void __launch_bounds__(1024) ",
               CudaWriter(kernel, true).body());
}

std::vector<EmittedKernel> CudaEmitter::entry_points(const LoopKernel& kernel) const {
  std::vector<EmittedKernel> k{emit(kernel)};
  if (std::optional<EmittedKernel> r = emit_row_registers(kernel)) k.push_back(std::move(*r));
  return k;
}

std::string CudaEmitter::unit(std::span<const EmittedKernel> kernels) const {
  std::string body;
  for (const EmittedKernel& k : kernels) body += k.source;
  return cuda_unit_prelude(body) + body;
}

std::string CudaWriter::body() {
  check();
  const uint32_t nc = cuda_constant_count(k_);
  line("(const td_params<" + std::to_string(w_.total(nc)) + "> p) {");
  line("  TD_GRID_WAIT();");
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
  } else if (row_registers_) {
    register_rows();
  } else {
    rows();
  }
  line("}");
  return std::move(out_);
}

// Every instruction must be expressible: an unsupported one is an error naming it, never a
// kernel that does not compile.
void CudaWriter::check() const {
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
    if ((in.kind == Kind::Load || in.kind == Kind::Const) && !cuda_has_compute_type(in.dtype)) {
      throw Error(ErrorCode::Unsupported,
                  "the CUDA emitter cannot load " + std::string(ir::name(in.dtype)));
    }
  }
  for (const Operand& o : k_.outputs) {
    if (!cuda_has_compute_type(o.dtype)) {
      throw Error(ErrorCode::Unsupported,
                  "the CUDA emitter cannot store " + std::string(ir::name(o.dtype)));
    }
  }
}

void CudaWriter::pointwise() {
  std::string n = "sz0";
  for (int d = 1; d < r_; ++d) n += " * sz" + num(d);
  line("  const td_i64 n = " + n + ";");
  line("  const td_i64 lane = (td_i64)blockIdx.x * blockDim.x + threadIdx.x;");
  line("  const td_i64 grp = (td_i64)gridDim.x * blockDim.x;");
  if (multi()) {
    decompose("lc", 0, r_, "lane", "n > 0");
    decompose("ls", 0, r_, "grp", "n > 0");
  }
  if (vectorizable()) {
    vector_pass();
    start_ = "td_vn + lane";
  }
  store_rows();
}

bool CudaWriter::vectorizable() const {
  if (multi()) return false;
  for (size_t r = 0; r < k_.outputs.size(); ++r) {
    if (!row_output(r)) return false;
  }
  for (int o = 0; o < n_; ++o) {
    const Access a = operand(o).access;
    if (a != Access::Contiguous && !(o < ni_ && a == Access::Broadcast)) return false;
  }
  return true;
}

// [0, td_vn): TD_U consecutive elements per thread and step, loaded and stored as td_vec, when
// every contiguous operand's address is aligned to its vector (td_vn = 0 otherwise).
void CudaWriter::vector_pass() {
  std::string aligned = "true";
  for (int o = 0; o < n_; ++o) {
    if (operand(o).access != Access::Contiguous) continue;
    aligned += " && ((td_u64)q" + num(o) + " & (sizeof(td_vec<" + storage(operand(o).dtype) +
               ">) - 1)) == 0";
  }
  // TD_U is a power of two: masks and shifts, no division.
  line("  const td_i64 td_vn = (" + aligned + ") ? (n & ~(td_i64)(TD_U - 1)) : 0;");
  line("  for (td_i64 ev = lane; ev * TD_U < td_vn; ev += grp) {");
  const std::vector<bool> need = cone(row_results());
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    if (!need[v]) continue;
    const Instr& in = k_.body[v];
    if (in.kind != Kind::Load) {
      row_instr(v);
      continue;
    }
    const int o = static_cast<int>(in.arg);
    const std::string a = value_name("v", v), t = ct(in.dtype), st = storage(operand(o).dtype);
    line("      " + t + " " + a + "[TD_U];");
    if (operand(o).access == Access::Broadcast) {
      line("      " + a + "[0] = " + from_storage(operand(o).dtype, value_name("q", o) + "[0]") +
           ";");
      line("#pragma unroll");
      line("      for (int u = 1; u < TD_U; ++u) " + a + "[u] = " + a + "[0];");
      continue;
    }
    const std::string w = value_name("w", v);
    line("      const td_vec<" + st + "> " + w + " = *(const td_vec<" + st + ">*)(" +
         value_name("q", o) + " + ev * TD_U);");
    line("#pragma unroll");
    line("      for (int u = 0; u < TD_U; ++u) " + a +
         "[u] = " + from_storage(operand(o).dtype, w + ".x[u]") + ";");
  }
  for (size_t r = 0; r < k_.outputs.size(); ++r) {
    const int o = ni_ + static_cast<int>(r);
    const std::string st = storage(operand(o).dtype), w = value_name("s", o);
    line("      td_vec<" + st + "> " + w + ";");
    line("#pragma unroll");
    line("      for (int u = 0; u < TD_U; ++u) " + w +
         ".x[u] = " + to_storage(operand(o).dtype, ref(k_.results[r])) + ";");
    line("      *(td_vec<" + st + ">*)(" + value_name("q", o) + " + ev * TD_U) = " + w + ";");
  }
  line("  }");
}
}  // namespace tensord::codegen
