// The second entry point of row kernels that read their row more than once (softmax: max, sum,
// store; layer_norm: mean, variance, store): one block a row, and every value of the row a
// thread computes kept in registers from the pass that first needs it to the last one, so the
// row leaves memory once and nothing is computed twice. bench/gpu/row_study.cu measured the
// structure by hand on the H200 (0.97-0.98 of a D2D copy at 4096 columns, 0.88-0.90 at 32768,
// against 0.31-0.35 for the loop kernel; docs/cuda.md "Row kernels on the H200"). A kernel of its
// own, so that the loop kernel for longer rows keeps its registers (what sank 8a422e1).
//
// Each thread holds TD_R slots of every row value: TD_R / TD_U groups of TD_U consecutive
// elements, group i of thread t at element TD_U * (t + i * blockDim.x), so that each group is one
// aligned vector access (td_vec) and a warp's accesses are coalesced. There is no element-wise
// path: the host launches this entry point only for rows of whole, aligned vectors
// (cuda_row_registers_aligned; with per-element guards and an unaligned path, ptxas spilled 280
// bytes of a float32 softmax at 32 slots, without them it used 64 registers and spilled nothing:
// ptxas -v, CUDA 13.0, sm_90). Slots past the row's end hold zero and the reductions skip them.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/codegen/emit_cuda.h"
#include "engine/codegen/emit_cuda_structure.h"
#include "engine/codegen/emit_cuda_writer.h"

namespace tensord::codegen {
namespace {

// 32-bit registers one value of compute type `t` takes.
int register_words(ir::DType t) {
  switch (t) {
    case ir::DType::Complex128:
      return 4;
    case ir::DType::Float64:
    case ir::DType::Int64:
    case ir::DType::Complex64:
      return 2;
    default:
      return 1;
  }
}

}  // namespace

int cuda_row_register_slots(const LoopKernel& k) {
  if (k.inner_rank != 1 || k.columns) return 0;
  for (const Operand& o : k.inputs) {
    if (o.level == Level::Row && o.access == Access::Strided) return 0;
  }
  for (const Operand& o : k.outputs) {
    if (o.level == Level::Row && o.access != Access::Contiguous) return 0;
  }
  const std::vector<uint32_t> kept = CudaWriter(k).cached_loads();
  if (kept.empty()) return 0;
  int words = 0;
  for (uint32_t v : kept) words += register_words(k.inputs[k.body[v].arg].dtype);
  int slots = kCudaRowRegisterWords;
  while (slots > 0 && slots * words > kCudaRowRegisterWords) slots /= 2;
  return slots >= kCudaLanes ? slots : 0;
}

unsigned cuda_row_register_block(const LoopKernel& k, int64_t n) {
  const int slots = cuda_row_register_slots(k);
  if (slots == 0 || n < kCudaRowRegistersMin || n > int64_t{1024} * slots) return 0;
  unsigned block = 128;
  while (static_cast<int64_t>(block) * slots < n) block *= 2;
  return block;
}

bool cuda_row_registers_aligned(const LoopKernel& k, const LaunchShape& launch,
                                std::span<void* const> ptrs) {
  const int rank = k.rank();
  const size_t ops = k.operands();
  if (k.inner_rank != 1 || ptrs.size() != ops || launch.sizes.size() != static_cast<size_t>(rank) ||
      launch.strides.size() != ops * static_cast<size_t>(rank)) {
    return false;
  }
  if (launch.sizes[rank - 1] % kCudaLanes != 0) return false;
  for (size_t o = 0; o < ops; ++o) {
    const Operand& op = o < k.inputs.size() ? k.inputs[o] : k.outputs[o - k.inputs.size()];
    if (op.level != Level::Row || op.access != Access::Contiguous) continue;
    const auto vector = static_cast<uintptr_t>(ir::itemsize(op.dtype)) * kCudaLanes;
    if (reinterpret_cast<uintptr_t>(ptrs[o]) % vector != 0) return false;
    for (int d = 0; d < k.outer_rank; ++d) {
      if (launch.strides[o * rank + d] % kCudaLanes != 0) return false;
    }
  }
  return true;
}

// The passes (one a reduction, then the row outputs' one, as rows()) as loops over the groups of
// slots: a row value a later pass also needs is kept, computed for all slots before the loop
// (hold); one only this pass needs is computed inside it, a group at a time, so that only the
// kept values take TD_R registers each (a layer norm keeps x - mean, not its w and b).
void CudaWriter::register_rows() {
  const int ro = k_.outer_rank;
  std::string rows = "sz0";
  for (int d = 1; d < ro; ++d) rows += " * sz" + num(d);
  line("  const td_i64 rows = " + rows + ";");
  // 32 bits: the host takes rows of at most 1024 * TD_R elements (and one register less kept
  // ptxas from spilling a float32 softmax).
  line("  const int n = (int)sz" + num(ro) + ";");
  line("  if (rows <= 0) return;");
  line("  constexpr int TD_R = " + num(cuda_row_register_slots(k_)) + ";");
  line("  const int te = TD_U * (int)threadIdx.x, ts = TD_U * (int)blockDim.x;");
  line("  for (td_i64 r = blockIdx.x; r < rows; r += gridDim.x) {");
  based_.assign(n_, false);
  // Each pass's row values, and what the passes after it need.
  std::vector<std::vector<bool>> needs;
  for (const Instr& in : k_.body) {
    if (in.level == Level::Outer && in.kind == Kind::Reduce) needs.push_back(cone({in.args[0]}));
  }
  needs.push_back(cone(row_results()));
  std::vector<std::vector<bool>> later(needs.size(), std::vector<bool>(k_.body.size(), false));
  for (size_t p = needs.size() - 1; p-- > 0;) {
    for (size_t v = 0; v < k_.body.size(); ++v) later[p][v] = later[p + 1][v] || needs[p + 1][v];
  }
  held_.assign(k_.body.size(), false);
  const auto kept_and_streamed = [&](size_t p) {
    std::vector<bool> kept(k_.body.size()), streamed(k_.body.size());
    for (size_t v = 0; v < k_.body.size(); ++v) {
      kept[v] = needs[p][v] && later[p][v];
      streamed[v] = needs[p][v] && !later[p][v];
    }
    hold(kept);
    for (size_t v = 0; v < k_.body.size(); ++v) streamed[v] = streamed[v] && !held_[v];
    return streamed;
  };
  size_t pass = 0;
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    const Instr& in = k_.body[v];
    if (in.level != Level::Outer || in.kind == Kind::Const) continue;
    if (in.kind == Kind::Load) {
      base(static_cast<int>(in.arg));
      line("  const " + ct(in.dtype) + " o" + num(v) + " = " +
           from_storage(in.dtype, value_name("q", in.arg) + "[b" + num(in.arg) + "]") + ";");
    } else if (in.kind == Kind::Op) {
      line("  const " + ct(in.dtype) + " o" + num(v) + " = " + expr(v) + ";");
    } else {
      register_reduction(v, kept_and_streamed(pass++));
    }
  }
  if (!row_results().empty()) {
    const std::vector<bool> streamed = kept_and_streamed(pass);
    for (size_t o = 0; o < k_.outputs.size(); ++o) {
      if (k_.outputs[o].level == Level::Row) base(ni_ + static_cast<int>(o));
    }
    register_pass(streamed, [&] {
      for (size_t o = 0; o < k_.outputs.size(); ++o) {
        if (k_.outputs[o].level == Level::Outer) continue;
        const int q = ni_ + static_cast<int>(o);
        const DType st = operand(q).dtype;
        line("    td_vec<" + storage(st) + "> s" + num(q) + ";");
        line("#pragma unroll");
        line("    for (int c = 0; c < TD_U; ++c) { const int u = i * TD_U + c; s" + num(q) +
             ".x[c] = " + to_storage(st, ref(k_.results[o])) + "; }");
        line("    *(td_vec<" + storage(st) + ">*)(q" + num(q) + " + b" + num(q) + " + e) = s" +
             num(q) + ";");
      }
    });
  }
  for (size_t o = 0; o < k_.outputs.size(); ++o) {
    if (k_.outputs[o].level != Level::Outer) continue;
    const int q = ni_ + static_cast<int>(o);
    base(q);
    line("  if (threadIdx.x == 0) q" + num(q) + "[b" + num(q) +
         "] = " + to_storage(k_.outputs[o].dtype, ref(k_.results[o])) + ";");
  }
  line("  }");
}

// Declares b<o>, operand o's offset in this row, where first needed, from the row's index (the
// divisions cost little beside a row of kCudaRowRegistersMin elements): offsets, or outer
// coordinates, kept from the top of the row would hold registers through all its passes.
void CudaWriter::base(int o) {
  if (based_[o]) return;
  based_[o] = true;
  const int ro = k_.outer_rank;
  const std::string b = value_name("b", o);
  if (ro == 1) return line("  const td_i64 " + b + " = r * " + stride(o, 0) + ";");
  std::string s = "  td_i64 " + b + " = 0; { td_i64 t = r;";
  for (int d = ro - 1; d > 0; --d) {
    s += " " + b + " += t % sz" + num(d) + " * " + stride(o, d) + "; t /= sz" + num(d) + ";";
  }
  line(s + " " + b + " += t * " + stride(o, 0) + "; }");
}

// Declares and computes, for every slot, the row values of `need` not held yet.
void CudaWriter::hold(const std::vector<bool>& need) {
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    if (!need[v] || held_[v]) continue;
    held_[v] = true;
    const Instr& in = k_.body[v];
    const std::string t = ct(in.dtype), a = value_name("v", v);
    line("  " + t + " " + a + "[TD_R];");
    if (in.kind != Kind::Load) {
      line("#pragma unroll");
      line("  for (int u = 0; u < TD_R; ++u) " + a + "[u] = " + expr(v) + ";");
      continue;
    }
    const int o = static_cast<int>(in.arg);
    const DType st = operand(o).dtype;
    const std::string q = value_name("q", o), b = value_name("b", o);
    base(o);
    if (operand(o).access == Access::Broadcast) {
      line("  { const " + t + " s = " + from_storage(st, q + "[" + b + "]") + ";");
      line("#pragma unroll");
      line("    for (int u = 0; u < TD_R; ++u) " + a + "[u] = s; }");
      continue;
    }
    line("#pragma unroll");
    line("  for (int i = 0; i < TD_R / TD_U; ++i) {");
    line("    const int e = te + i * ts;");
    line("    td_vec<" + storage(st) + "> w = {};");
    line("    if (e < n) w = *(const td_vec<" + storage(st) + ">*)(" + q + " + " + b + " + e);");
    line("#pragma unroll");
    line("    for (int c = 0; c < TD_U; ++c) " + a +
         "[i * TD_U + c] = " + from_storage(st, "w.x[c]") + ";");
    line("  }");
  }
}

// One pass over the thread's groups of slots that lie in the row: the values of `streamed`
// computed for the group's slots (i, e: the group and its first element), then `sink`.
void CudaWriter::register_pass(const std::vector<bool>& streamed,
                               const std::function<void()>& sink) {
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    if (streamed[v] && k_.body[v].kind == Kind::Load) base(static_cast<int>(k_.body[v].arg));
  }
  line("#pragma unroll");
  line("  for (int i = 0; i < TD_R / TD_U; ++i) {");
  line("    const int e = te + i * ts;");
  line("    if (e >= n) continue;");
  for (uint32_t v = 0; v < k_.body.size(); ++v) {
    if (!streamed[v]) continue;
    const Instr& in = k_.body[v];
    const std::string t = ct(in.dtype), a = value_name("v", v);
    line("    " + t + " " + a + "[TD_R];");
    if (in.kind != Kind::Load) {
      line("#pragma unroll");
      line("    for (int c = 0; c < TD_U; ++c) { const int u = i * TD_U + c; " + a +
           "[u] = " + expr(v) + "; }");
      continue;
    }
    const int o = static_cast<int>(in.arg);
    const DType st = operand(o).dtype;
    const std::string q = value_name("q", o), b = value_name("b", o);
    if (operand(o).access == Access::Broadcast) {
      line("#pragma unroll");
      line("    for (int c = 0; c < TD_U; ++c) " + a +
           "[i * TD_U + c] = " + from_storage(st, q + "[" + b + "]") + ";");
      continue;
    }
    const std::string w = value_name("w", v);
    line("    const td_vec<" + storage(st) + "> " + w + " = *(const td_vec<" + storage(st) +
         ">*)(" + q + " + " + b + " + e);");
    line("#pragma unroll");
    line("    for (int c = 0; c < TD_U; ++c) " + a +
         "[i * TD_U + c] = " + from_storage(st, w + ".x[c]") + ";");
  }
  sink();
  line("  }");
}

// Reduction v over the thread's slots (TD_U accumulators, one per place in a group), then over
// the block (td_reduce). argmax / argmin keep the element's index, as arg_reduction's do.
void CudaWriter::register_reduction(uint32_t v, const std::vector<bool>& streamed) {
  const Instr& in = k_.body[v];
  const uint32_t arg = in.args[0];
  const DType x = k_.body[arg].dtype;
  const std::string a = value_name("acc", v), t = value_name("red", v);
  const bool arg_best = in.op == Op::argmax || in.op == Op::argmin;
  const Reduction red = arg_best ? Reduction{} : reduction_text(v);
  const std::string acc = arg_best ? "td_arg<" + ct(x) + ">" : red.acc;
  const std::string fold = arg_best ? (in.op == Op::argmax ? "td_argmax" : "td_argmin") : red.fold;
  const std::string init =
      arg_best ? acc + "{" + extreme(is_half(x) ? DType::Float32 : x, true) + ", -1}" : red.init;
  const std::string lift = arg_best ? acc + "{" + ref(arg) + ", (td_i64)(e + c)}" : red.lift;
  line("  " + acc + " " + a + "[TD_U];");
  line("#pragma unroll");
  line("  for (int c = 0; c < TD_U; ++c) " + a + "[c] = " + init + ";");
  register_pass(streamed, [&] {
    line("#pragma unroll");
    line("    for (int c = 0; c < TD_U; ++c) { const int u = i * TD_U + c; " + a + "[c] = " + fold +
         "::f(" + a + "[c], " + lift + "); }");
  });
  line("  " + acc + " " + t + " = " + a + "[0];");
  line("#pragma unroll");
  line("  for (int c = 1; c < TD_U; ++c) " + t + " = " + fold + "::f(" + t + ", " + a + "[c]);");
  line("  " + t + " = td_reduce<" + fold + ">(" + t + ", 0, true);");
  if (arg_best) {
    line("  const long long o" + num(v) + " = " + t + ".k;");
  } else {
    line("  const " + ct(in.dtype) + " o" + num(v) + " = " + result(v, red.cast + t) + ";");
  }
}

}  // namespace tensord::codegen
