// Loop IR kernels written by hand for the CUDA emitter's tests: a small builder, and the
// spread of kernels every structure of the emitter has to compile (and, on a GPU, compute).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/codegen/loop_ir.h"

namespace tensord::codegen::test {

class KernelBuilder {
 public:
  KernelBuilder(int outer_rank, int inner_rank) {
    k_.outer_rank = static_cast<uint8_t>(outer_rank);
    k_.inner_rank = static_cast<uint8_t>(inner_rank);
  }
  // Input operand + its load; returns the value.
  uint32_t load(ir::DType t, Access a = Access::Contiguous, Level l = Level::Row) {
    k_.inputs.push_back({t, l, a});
    Instr in;
    in.kind = Instr::Kind::Load;
    in.arg = static_cast<uint32_t>(k_.inputs.size() - 1);
    in.dtype = t;
    in.level = l;
    return push(in);
  }
  uint32_t constant(ir::DType t, uint32_t index) {
    Instr in;
    in.kind = Instr::Kind::Const;
    in.arg = index;
    in.dtype = t;
    in.level = Level::Outer;
    return push(in);
  }
  uint32_t op(ir::Op op, std::vector<uint32_t> args, ir::DType t, Level l = Level::Row) {
    Instr in;
    in.kind = Instr::Kind::Op;
    in.op = op;
    in.args = std::move(args);
    in.dtype = t;
    in.level = l;
    return push(in);
  }
  uint32_t reduce(ir::Op op, uint32_t arg, ir::DType t) {
    Instr in;
    in.kind = Instr::Kind::Reduce;
    in.op = op;
    in.args = {arg};
    in.dtype = t;
    in.level = Level::Outer;
    return push(in);
  }
  KernelBuilder& out(uint32_t v, Access a = Access::Contiguous) {
    const Instr& in = k_.body[v];
    k_.outputs.push_back({in.dtype, in.level, in.level == Level::Outer ? Access::Broadcast : a});
    k_.results.push_back(v);
    return *this;
  }
  // A column kernel (LoopKernel::columns): access describes the last outer dimension.
  KernelBuilder& columns() {
    k_.columns = true;
    return *this;
  }
  const LoopKernel& kernel() const { return k_; }

 private:
  uint32_t push(Instr in) {
    k_.body.push_back(std::move(in));
    return static_cast<uint32_t>(k_.body.size() - 1);
  }
  LoopKernel k_;
};

struct NamedKernel {
  std::string what;
  LoopKernel kernel;
};

// softmax over the inner dimensions: m = max(x); e = exp(x - m); out = e / sum(e) (three
// passes over each row, x read by all of them).
LoopKernel softmax(ir::DType t, int outer, int inner, Access a);

// x - sum(x) over one inner dimension: x read by two passes (a row-register entry point).
LoopKernel centred(ir::DType t);

// Layer norm without rsqrt over [outer0, outer1, n] float32: (x - mean) / (var + eps) * w + b,
// w and b rows broadcast over the outer dimensions, constant 0 = 1/n, constant 1 = eps; the
// mean and variance also leave as outer outputs (outputs: y, mean, var).
LoopKernel layer_norm();

// Kernels using only float add/sub/mul/div/neg/exp (the first formula table) and the
// comparisons lt and ne besides loads, stores, constants and reductions, which the structure
// writes for every real dtype.
std::vector<NamedKernel> structure_kernels();

// Issue 6's column kernels (LoopKernel::columns: reductions over leading or middle axes), kept
// apart from structure_kernels(): the GPU test's strides follow `access` along the innermost
// dimension, a column kernel's along the last outer one.
std::vector<NamedKernel> column_kernels();

// One pointwise kernel per (op, input dtypes, result) that cuda_op_supported accepts, for
// every elementwise op and real dtype (casts between every pair).
std::vector<NamedKernel> op_kernels();

// The complex64/complex128 kernels: one pointwise kernel per complex combination
// cuda_op_supported accepts (casts to and from every dtype, every elementwise op with every
// real or complex partner), and complex sums in the reduction structures (warp groups, whole
// blocks, strided rows, an outer constant as mean uses).
std::vector<NamedKernel> complex_kernels();

}  // namespace tensord::codegen::test
