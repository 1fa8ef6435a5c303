// explain: how the engine plans a graph (fused groups, the boundaries between them, what the
// caches held), for Session.explain and the clients' explain functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/exec/engine.h"

namespace tensord::engine {

struct ExplainedGroup {
  std::string kernel;            // the loop IR listing of its generated kernel
  std::vector<std::string> ops;  // primitive ops, in order
  std::vector<uint32_t> nodes;   // the user's nodes they stem from, each once
  std::string epilogue;          // a matmul with its epilogue: the stages ("bias_row+relu")
};

struct ExplainedBoundary {
  uint32_t node = 0;  // the user's node
  std::string op;     // the primitive op
  std::string reason;
};

// A node whose output size depends on the data (nonzero, unique, masked_select, ...): it ends
// a segment of the run (engine_dynamic.cpp).
struct ExplainedCut {
  uint32_t node = 0;  // the user's node
  std::string op;
};

struct Explanation {
  CompileMode mode = CompileMode::Default;
  std::vector<ExplainedGroup> groups;
  std::vector<ExplainedBoundary> boundaries;
  uint32_t steps = 0;
  bool plan_cached = false;
  bool kernels_cached = false;
  bool captured = false;        // replayed as a CUDA graph (from its second run on)
  std::string capture;          // why or why not, in words
  std::string unfused_because;     // Plan::unfused_because: its kernels did not compile
  std::string unfused_reproducer;  // Plan::unfused_reproducer: the reproducer's path
  // Empty for a graph that runs as one plan. Else the graph runs in cuts.size() + 1 segments,
  // segment i ending at cuts[i]; the fields above describe segment 0 only, since the later
  // plans are built at run time once the cuts' output sizes are known.
  std::vector<ExplainedCut> cuts;

  std::string text() const;
};

// Validates `graph` against inputs of `input_types` as Engine::run does, plans it (building
// and caching the plan and its kernels) and describes the plan. A graph with data-dependent
// ops is described by its segments, with the first one's plan. Errors as Engine::run.
Explanation explain(Engine& engine, ir::Graph graph, std::span<const ir::TensorType> input_types,
                    std::span<const ir::ValueRef> outputs, CompileMode mode);

}  // namespace tensord::engine
