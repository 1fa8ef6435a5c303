// The CUDA emitter's kernel writer, shared by its files: emit_cuda.cpp (the kernel's head, the
// checks and pointwise kernels), emit_cuda_passes.cpp (index text, loads, stores and the pass
// loop every kernel is made of), emit_cuda_rows.cpp (kernels with inner dimensions and their
// group reductions) and emit_cuda_columns.cpp (column kernels). The elementwise formulas come
// from emit_cuda_ops.cpp (cuda_expr); the host side that has to agree with the kernels (launch
// configuration, parameter block) is emit_cuda_launch.cpp.
//
// Every loop is a "pass": the threads of a group (a whole pointwise grid, or the threads given
// one outer row) stride over a flat range, each taking TD_U elements per step, g apart, so that
// a warp's loads of one lane are coalesced and each thread has TD_U independent loads in
// flight. Every instruction is one unrolled lane loop over a small array (registers after
// unrolling). Multi-dimensional ranges follow the flat index with an odometer of coordinates
// advanced by the constant step (additions and one compare per dimension, no division in the
// loop); the divisions happen once per thread. A one-dimensional range indexes directly.
// A one-dimensional pointwise kernel whose operands are all contiguous (inputs may also be
// broadcast scalars) first takes TD_U consecutive elements per thread and step, each operand
// read and written as one aligned vector (td_vec: 16 bytes of float32), while every pointer is
// aligned to it; the pass then does the remainder (or everything, unaligned).
//
// Kernels with inner dimensions give each outer row to a group (td_group: up to 32 threads of
// a warp for short rows, else the block), make one pass over the row per reduction
// (recomputing its row-level producers, as the C++ emitter does), reduce within the group,
// compute the outer values, then make one pass storing the row-level outputs; the group's
// first thread stores the outer-level outputs. A row input that several passes read is kept in
// shared memory by the first when the block has room for the row (row_cache). Such kernels
// also have a second entry point for rows that fit a block's registers
// (emit_cuda_row_registers.cpp), which the host launches instead when they do.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/codegen/emit_cuda_internal.h"
#include "engine/codegen/loop_ir.h"
#include "engine/codegen/storage_text.h"

namespace tensord::codegen {

// Word positions in the parameter block (td_params): sizes, strides, operand pointers, constants.
struct CudaParamWords {
  int rank;
  int ops;
  int stride(int o, int d) const { return rank + o * rank + d; }
  int ptr(int o) const { return rank + ops * rank + o; }
  int constant(uint32_t i) const { return rank + ops * rank + ops + static_cast<int>(i); }
  int total(uint32_t constants) const { return constant(std::max<uint32_t>(1, constants)); }
};

// emit_cuda_launch.cpp: the constants a kernel reads (its parameter block's constant words),
// whether its rows are read strided and written nowhere (td_group's `strided`), and whether the
// emitter can hold a dtype in a register.
uint32_t cuda_constant_count(const LoopKernel& k);
bool cuda_strided_rows(const LoopKernel& k);
bool cuda_has_compute_type(ir::DType t);

// Writes the body of one kernel (its text after the name): CudaWriter(kernel).body().
class CudaWriter {
 public:
  // `row_registers`: the body of the kernel's second entry point (emit_cuda_row_registers.cpp).
  explicit CudaWriter(const LoopKernel& k, bool row_registers = false)
      : k_(k),
        row_registers_(row_registers),
        r_(k.rank()),
        ni_(static_cast<int>(k.inputs.size())),
        n_(static_cast<int>(k.operands())),
        w_{r_, n_},
        only_stored_(only_stored(k)) {}

  std::string body();

  // The row-level loads of a kernel with rows that more than one pass reads (not broadcast
  // ones, which read one element): what a row cache keeps (cuda_row_cache_bytes).
  std::vector<uint32_t> cached_loads() const;

 private:
  using DType = ir::DType;
  using Op = ir::Op;
  using Kind = Instr::Kind;

  static bool is_half(DType t) { return t == DType::Float16 || t == DType::BFloat16; }
  static std::string ct(DType t) { return std::string(cuda_compute_type(t)); }
  static std::string storage(DType t);
  static std::string extreme(DType t, bool lowest);

  const Operand& operand(int o) const { return o < ni_ ? k_.inputs[o] : k_.outputs[o - ni_]; }
  void line(const std::string& s) { out_ += s + "\n"; }
  static std::string num(int64_t v) { return std::to_string(v); }
  // `prefix` then v, e.g. "v3": appended, as GCC 12 warns (-Wrestrict, a false positive) on
  // "v" + std::to_string(v) where it inlines the chain.
  static std::string value_name(const char* prefix, int64_t v) {
    std::string s = prefix;
    s += std::to_string(v);
    return s;
  }
  std::string stride(int o, int d) const { return "p.w[" + num(w_.stride(o, d)) + "]"; }

  // The dimensions a pass walks: the inner ones, or all of a pointwise kernel.
  int lane_begin() const { return k_.inner_rank == 0 ? 0 : k_.outer_rank; }
  bool multi() const { return r_ - lane_begin() > 1; }

  // emit_cuda.cpp
  void check() const;
  void pointwise();
  bool vectorizable() const;
  void vector_pass();

  // emit_cuda_passes.cpp
  bool row(uint32_t v) const;
  bool row_output(size_t o) const;
  std::string ref(uint32_t v) const;
  std::string expr(uint32_t v) const;
  std::string result(uint32_t v, const std::string& x) const;
  void decompose(const std::string& prefix, int d0, int d1, const std::string& value,
                 const std::string& guard);
  std::string advance(const std::string& at, const std::string& step, int d0, int d1) const;
  std::string at(int o) const;
  std::string offset_from_coordinates(int o) const;
  std::vector<bool> cone(const std::vector<uint32_t>& targets) const;
  void row_instr(uint32_t v);
  void pass(const std::vector<bool>& need, const std::vector<int>& stored,
            const std::function<void()>& sink);
  std::vector<uint32_t> row_results() const;
  void store_rows();

  // emit_cuda_rows.cpp
  struct Reduction {
    std::string acc, init, fold, lift, cast;
  };
  void rows();
  void row_cache();
  Reduction reduction_text(uint32_t v) const;
  void reduction(uint32_t v);
  void arg_reduction(uint32_t v);

  // emit_cuda_row_registers.cpp
  void register_rows();
  void base(int o);
  void hold(const std::vector<bool>& need);
  void register_pass(const std::vector<bool>& streamed, const std::function<void()>& sink);
  void register_reduction(uint32_t v, const std::vector<bool>& streamed);

  // emit_cuda_columns.cpp
  void columns();
  void column_accumulator(uint32_t v, bool init);

  const LoopKernel& k_;
  bool row_registers_;
  int r_;
  int ni_;
  int n_;
  CudaParamWords w_;
  std::vector<bool> only_stored_;   // only_stored(k_): values computed without rounding
  std::string start_ = "lane";      // where a thread's first pass step begins
  std::vector<int> cache_slot_;     // per instruction: its row cache (rc<slot>), or -1
  std::vector<bool> cache_filled_;  // per instruction: a pass has written its row cache
  std::vector<bool> held_;          // per instruction: register_rows has its registers
  std::vector<bool> based_;         // per operand: register_rows declared its row offset
  std::string out_;
};

}  // namespace tensord::codegen
