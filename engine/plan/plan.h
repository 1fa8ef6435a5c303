// A plan: what running a graph of primitives takes, decided once and cached. Every value's
// dtype, shape and layout is static, so views are resolved here and cost nothing at run time;
// what is left to do when the plan runs is a list of steps that launch work on the backend, and
// the buffer slots they write.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/codegen/loop_ir.h"
#include "engine/ir/graph.h"
#include "engine/plan/epilogue.h"
#include "engine/plan/layout.h"

namespace tensord::engine {

// Values are the node outputs the plan computes, numbered densely.
using ValueId = uint32_t;
using SlotId = uint32_t;

// The buffer a value lives in: one of the caller's input tensors (never written) or a slot
// that kernels write and the executor allocates from the backend.
struct ValueBase {
  enum class Kind : uint8_t { Input, Slot };
  Kind kind = Kind::Slot;
  uint32_t index = 0;  // the caller's input index, or a SlotId
};

struct PlanValue {
  ir::TensorType type;
  Layout layout;  // within the base buffer
  ValueBase base;
  ValueId owner = 0;  // the input or kernel output whose buffer this is (itself if not a view)
};

// A run of entries in Plan::indices, so that steps own no heap memory of their own.
struct IndexRange {
  uint32_t begin = 0;
  uint32_t count = 0;
};

// One unit of work on the backend. Kernel runs `node` into fresh outputs. Fused runs the
// generated kernel of Plan::groups[group]: values in, values out, slots released, and `node`
// the group's last node, for error attribution.
enum class StepKind : uint8_t { Kernel, Fused };

// A group of nodes that runs as one generated kernel (engine/plan/fusion.h says which).
struct FusedGroup {
  codegen::LoopKernel kernel;
  codegen::LaunchShape launch;    // the sizes and strides of this plan's values
  std::vector<uint32_t> members;  // Plan::nodes, topological order
  // A matmul with its epilogue (engine/plan/epilogue.h): members are the matmul then the
  // chain, and the step reads the matmul's two operands then the tensors the chain adds.
  // `kernel` is the chain alone, reading the product and then those tensors: the backend runs
  // the matmul and it when that measures faster than its matmul library's epilogue
  // (Backend::run_matmul_epilogue).
  std::optional<MatmulEpilogue> epilogue;
  // Planned in mode max-autotune: the backend measures launch configurations of the kernel
  // on its first run per shape class and keeps the winner (cpu/launch_tuning.h).
  bool autotune = false;
};

// What a backend compiled for a plan's groups; the backend that made it is the only reader.
class CompiledKernels {
 public:
  virtual ~CompiledKernels() = default;
};

struct Step {
  StepKind kind = StepKind::Kernel;
  uint32_t node = 0;   // index into Plan::nodes
  uint32_t group = 0;  // Fused: index into Plan::groups
  IndexRange inputs;   // ValueIds read, in the node's input order
  IndexRange outputs;  // ValueIds written; each is contiguous at offset 0 of its own slot
  IndexRange release;  // SlotIds whose last use is this step: dropped after it
  uint64_t bytes = 0;  // of the values read and written (inputs and outputs): a step span's size
};

struct Plan {
  // The primitive nodes kernel steps run: the simplified graph's nodes, then the `contiguous`
  // copies the planner inserted.
  std::vector<ir::Node> nodes;
  // For each node, the node of the user's graph it stems from (for errors and profiles).
  std::vector<uint32_t> origin;

  std::vector<PlanValue> values;
  std::vector<Step> steps;
  std::vector<uint32_t> indices;   // storage for the steps' IndexRanges
  std::vector<size_t> slot_bytes;  // the largest value each slot ever holds
  std::vector<ValueId> outputs;    // per requested output: contiguous, at offset 0, whole
  uint32_t max_step_values = 0;    // the most inputs + outputs of any step

  std::vector<FusedGroup> groups;
  // Per node of `nodes`: why it is not fused with its producer ("" when it is or could not
  // be); explain reports these.
  std::vector<std::string> boundaries;
  std::vector<uint32_t> fusion_breaks;              // nodes of `nodes`: see FusionResult::breaks
  std::shared_ptr<const CompiledKernels> compiled;  // set by the engine before first use
  // The graph as a reproducer, written ahead for a crash handler (engine/exec/running_plan.h):
  // set by the engine on plans that run generated kernels when EngineOptions::crash_reproducers.
  std::shared_ptr<const std::string> reproducer;
  // Why this plan runs unfused although its mode fuses: its generated kernels did not compile
  // (the error). Empty otherwise.
  std::string unfused_because;
  // Where that failure's reproducer was written (EngineOptions::on_internal_error's answer);
  // empty when none was.
  std::string unfused_reproducer;

  std::span<const uint32_t> operator[](IndexRange r) const {
    return std::span<const uint32_t>(indices).subspan(r.begin, r.count);
  }
};

struct PlanOptions {
  bool fuse = false;      // group nodes into generated kernels (engine/plan/fusion.h)
  bool autotune = false;  // mark the groups FusedGroup::autotune
};

// Plans a graph of primitives (decomposed, and normally simplified) that computes `outputs`.
// `origin` maps each node of `graph` to the user's node (empty: the identity). Nodes no output
// depends on are not run. Throws tensord::Error(Internal) on a node kind it cannot plan
// (composites must be decomposed first).
Plan build_plan(ir::Graph graph, std::span<const ir::ValueRef> outputs,
                std::vector<uint32_t> origin = {}, PlanOptions options = {});

}  // namespace tensord::engine
