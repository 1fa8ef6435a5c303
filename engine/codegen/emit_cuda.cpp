// The CUDA C emitter's entry points (CudaEmitter: a kernel's name is the hash of its text; a unit
// is the prelude its kernels need and the kernels), the head of every kernel body, the check
// that every instruction is expressible, and pointwise kernels. emit_cuda_writer.h says how a
// kernel is laid out and which file writes which part.
#include "engine/codegen/emit_cuda.h"

#include <span>
#include <string>
#include <vector>

#include "engine/codegen/emit_cuda_structure.h"
#include "engine/codegen/emit_cuda_writer.h"
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

}  // namespace

EmittedKernel CudaEmitter::emit(const LoopKernel& kernel) const {
  const std::string body = CudaWriter(kernel).body();
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

std::string CudaWriter::body() {
  check();
  const uint32_t nc = cuda_constant_count(k_);
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
  store_rows();
}
}  // namespace tensord::codegen
