// Prints the CUDA unit engine/codegen emits for a float32 softmax over the last axis (the
// fusion pass's group: m = max(x), e = exp(x - m), e / sum(e)), its kernel renamed
// td_generated_softmax, for bench/gpu/row_study.cu's `gen` variant (scripts/gpu-pack).
#include <cstdio>
#include <string>
#include <vector>

#include "engine/codegen/emit_cuda.h"

namespace {

using tensord::codegen::Access;
using tensord::codegen::Instr;
using tensord::codegen::Level;
using tensord::codegen::LoopKernel;
using tensord::ir::DType;
using tensord::ir::Op;

uint32_t push(LoopKernel& k, Instr in) {
  k.body.push_back(std::move(in));
  return static_cast<uint32_t>(k.body.size() - 1);
}

Instr instr(Instr::Kind kind, Op op, std::vector<uint32_t> args, Level level) {
  Instr in;
  in.kind = kind;
  in.op = op;
  in.args = std::move(args);
  in.dtype = DType::Float32;
  in.level = level;
  return in;
}

LoopKernel softmax() {
  LoopKernel k;
  k.outer_rank = 1;
  k.inner_rank = 1;
  k.inputs.push_back({DType::Float32, Level::Row, Access::Contiguous});
  Instr load;
  load.kind = Instr::Kind::Load;
  load.arg = 0;
  load.dtype = DType::Float32;
  load.level = Level::Row;
  const uint32_t x = push(k, load);
  const uint32_t m = push(k, instr(Instr::Kind::Reduce, Op::max, {x}, Level::Outer));
  const uint32_t d = push(k, instr(Instr::Kind::Op, Op::sub, {x, m}, Level::Row));
  const uint32_t e = push(k, instr(Instr::Kind::Op, Op::exp, {d}, Level::Row));
  const uint32_t s = push(k, instr(Instr::Kind::Reduce, Op::sum, {e}, Level::Outer));
  const uint32_t y = push(k, instr(Instr::Kind::Op, Op::div, {e, s}, Level::Row));
  k.outputs.push_back({DType::Float32, Level::Row, Access::Contiguous});
  k.results.push_back(y);
  return k;
}

}  // namespace

int main() {
  const tensord::codegen::CudaEmitter emitter;
  const std::vector<tensord::codegen::EmittedKernel> kernels{emitter.emit(softmax())};
  std::string unit = emitter.unit(kernels);
  for (size_t at = unit.find(kernels[0].name); at != std::string::npos;
       at = unit.find(kernels[0].name, at)) {
    unit.replace(at, kernels[0].name.size(), "td_generated_softmax");
  }
  std::fputs(unit.c_str(), stdout);
  return 0;
}
