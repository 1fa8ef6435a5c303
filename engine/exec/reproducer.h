// Reproducers: a graph that failed inside the engine (a generated kernel that did not compile,
// a kernel that threw Internal), written as JSON so that `tensord-replay` can run it again
// against a daemon or locally. The whole graph, input types only (inputs are regenerated from
// a fixed seed when replayed); `tensord-replay --shrink` looks for a smaller one
// (tools/replay/shrink.h).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/exec/compile_mode.h"
#include "engine/ir/graph.h"

namespace tensord::engine {

struct Reproducer {
  ir::Graph graph;  // validated: every node's types inferred
  std::vector<ir::TensorType> inputs;
  std::vector<ir::ValueRef> outputs;
  CompileMode mode = CompileMode::Default;
  std::string error;  // what happened when it was written
};

std::string reproducer_json(const ir::Graph& graph, std::span<const ir::TensorType> inputs,
                            std::span<const ir::ValueRef> outputs, CompileMode mode,
                            const std::string& error);

// Throws tensord::Error(InvalidGraph) naming what is wrong with `json`.
Reproducer parse_reproducer(std::string_view json);

}  // namespace tensord::engine
