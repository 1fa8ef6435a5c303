// The loop IR of one fused group: what a code generator needs to write a kernel, and nothing
// of the graph it came from. It is target-neutral: the C++ emitter (emit_cpp.h) turns it into
// a host function; a CUDA C emitter for NVRTC is meant to be a sibling reading the same IR.
//
// The iteration domain is `outer` dimensions followed by `inner` dimensions (inner = 0: a
// pointwise kernel). Every value lives at one of two levels: Row values vary over the whole
// domain, Outer values over the outer dimensions only (reductions over the inner dimensions
// and what is computed from them). Sizes and strides are launch arguments, never constants:
// one kernel serves every shape with the same ranks, dtypes and innermost access pattern.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/ir/dtype.h"
#include "engine/ir/graph.h"
#include "engine/ir/op.h"

namespace tensord::codegen {

enum class Level : uint8_t { Row, Outer };

// How an operand walks the innermost dimension: the one specialisation of layouts, since it
// decides whether the inner loop vectorizes (unit stride), hoists a load (stride 0) or gathers.
enum class Access : uint8_t { Contiguous, Broadcast, Strided };

struct Operand {
  ir::DType dtype = ir::DType::Float32;
  Level level = Level::Row;
  Access access = Access::Contiguous;
  friend bool operator==(const Operand&, const Operand&) = default;
};

// One SSA instruction; its result is value number = its index in LoopKernel::body.
struct Instr {
  enum class Kind : uint8_t {
    Load,   // input `arg`
    Const,  // LaunchShape::constants[arg], already rounded to `dtype`
    Op,     // elementwise `op` (unary, binary, where, cast) on `args`
    // `op` (sum, prod, max, min, argmax, argmin) of Row value args[0] over the inner
    // dimensions; an arg reduction gives the index in the row's row-major order (int64).
    Reduce,
  };
  Kind kind = Kind::Op;
  ir::Op op = ir::Op::add;
  ir::DType dtype = ir::DType::Float32;  // the result's dtype
  Level level = Level::Row;
  uint32_t arg = 0;            // Load: the input index
  std::vector<uint32_t> args;  // Op, Reduce: operand values
  double value = 0;            // Const
  friend bool operator==(const Instr&, const Instr&) = default;
};

struct LoopKernel {
  uint8_t outer_rank = 1;  // >= 1 (a scalar domain is one dimension of size 1)
  uint8_t inner_rank = 0;
  // A column reduction (sum(0) of [N, C]): the inner dimensions are reduced axes that are not
  // innermost in memory, so the lanes of the vector loop (C++) or the threads (CUDA) are the
  // outer cells, whose last dimension is the one read contiguously, and each lane walks the
  // inner dimensions. Operands' `access` then describes the last outer dimension, and Outer
  // values vary per lane. The row values may not read Outer values (one pass).
  bool columns = false;
  std::vector<Operand> inputs;
  std::vector<Operand> outputs;
  std::vector<Instr> body;        // topological order
  std::vector<uint32_t> results;  // per output: the value it stores
  friend bool operator==(const LoopKernel&, const LoopKernel&) = default;

  int rank() const { return outer_rank + inner_rank; }
  size_t operands() const { return inputs.size() + outputs.size(); }
};

// What one launch of a kernel needs besides the buffers: the domain's sizes, per operand
// (inputs then outputs) its stride in elements along every domain dimension, and the values
// of the constants. Constants are arguments too (mean's 1/n depends on the shape), so that
// kernels do not multiply with every shape or epsilon.
struct LaunchShape {
  int inner_rank = 0;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;  // operands() * rank()
  std::vector<double> constants;
  int64_t outer_count() const;  // product of the outer sizes: the parallel loop
  int64_t inner_count() const;
};

// Whether the code generators can express `op` on these dtypes (inputs, then the result),
// with the eager kernels' results (integers bit for bit: wrapping, x // 0 = x % 0 = 0, MIN // -1
// wrapping, out-of-range shifts; argmax/argmin: first index on ties, the first NaN wins). Ops
// they cannot are fusion boundaries: complex dtypes, reductions of bools other than sum/prod.
bool expressible(ir::Op op, std::span<const ir::DType> inputs, ir::DType result);
bool expressible_reduction(ir::Op op, ir::DType input, ir::DType result);

// Whether a reduction of `input` accumulates in wrapping uint64 and gives int64: sum and prod
// of integers and bools (a count of trues), as the eager kernels do; in any order the same bits.
bool wraps_in_uint64(ir::Op op, ir::DType input);

// A float function of an integer or bool input (exp of an int32): the eager kernel converts the
// input to the result's dtype first and computes there, so a lowered group does the same with
// a cast instruction before the op (lower_group.cpp); expressible() counts on it.
bool casts_input_first(ir::Op op, std::span<const ir::DType> inputs, ir::DType result);

// Per value of k.body: whether nothing but stores of outputs of its own dtype reads it (no
// instruction takes it as an argument). Such a 16-bit value needs no rounding where it is
// computed: the conversion to storage rounds alike.
std::vector<bool> only_stored(const LoopKernel& k);

// An op whose attribute changes its formula takes the attribute as one more argument, after
// its inputs: a Float64 Const (a launch argument, so one kernel serves every value). These are
// polygamma's order n, multigammaln's dimension p and logit's eps; the attribute's value, or
// nullopt for any other node (logit without eps included).
std::optional<double> attribute_operand(const ir::Node& node);

// A readable one-line-per-instruction listing, for explain and test failures.
std::string describe(const LoopKernel& k);

}  // namespace tensord::codegen
