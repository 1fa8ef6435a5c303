// Matmul epilogues: a chain of elementwise ops after a matmul that a matmul library applies to
// the product as it writes it (oneDNN post-ops on the CPU, cuBLASLt epilogues on the GPU).
// The fusion pass (fusion.h) recognises them on the decomposed graph; each backend decides
// per shape whether running the chain inside its matmul is faster than the matmul followed by
// the chain's generated kernel (cpu/epilogue_tuning.h), and runs the unfused pair otherwise.
//
// What is recognised, for a float32 matmul whose operands both have rank >= 2 and whose
// result (and every value of the chain but the last) is read by the chain only and is not an
// output of the graph:
//  - add of a row vector broadcast over the rows (a bias: shape [N], [1, N], ...), add of a
//    tensor of the product's shape (a residual), in either operand order;
//  - relu (also maximum(x, 0)), sigmoid, tanh, silu (x * sigmoid(x)), gelu exact and gelu tanh
//    (as decompose.cpp writes them);
//  - multiplication by a scalar constant, addition or subtraction of one (a linear stage).
// Peak memory: fused, the chain runs in place on the matmul's output, so the product's
// temporary is never allocated; unfused runs what the plan without this would run. Fusing
// never raises the peak.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/ir/graph.h"

namespace tensord::engine {

enum class EpilogueOp : uint8_t {
  BiasRow,
  Residual,
  Relu,
  GeluErf,
  GeluTanh,
  Silu,
  Sigmoid,
  Tanh,
  Linear
};

struct EpilogueStage {
  EpilogueOp op = EpilogueOp::Relu;
  double alpha = 1.0, beta = 0.0;  // Linear: alpha * x + beta
  ir::ValueRef operand{};          // BiasRow, Residual: the tensor added (fusion pass)
  uint32_t input = 0;              // BiasRow, Residual: its index in the step's inputs (planner)
};

struct MatmulEpilogue {
  uint32_t matmul = 0;  // the matmul node (the graph's, then the plan's: the same numbering)
  std::vector<EpilogueStage> stages;

  // "bias_row+gelu_erf": stable, used in explain and in measured decisions' keys.
  std::string text() const;
};

const char* epilogue_op_name(EpilogueOp op);

// The chain after `matmul`, or why there is none. `consumers[n]` lists the needed nodes that
// read node n (a node once per input it reads it through); `is_output[n]` whether the caller
// reads node n.
struct EpilogueMatch {
  MatmulEpilogue epilogue;
  std::vector<uint32_t> chain;  // the chain's nodes in topological order; the last is its result
  std::string why;              // when `chain` is empty
};
EpilogueMatch match_epilogue(std::span<const ir::Node> nodes,
                             const std::vector<std::vector<uint32_t>>& consumers,
                             const std::vector<bool>& is_output, uint32_t matmul);

}  // namespace tensord::engine
