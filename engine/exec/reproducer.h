// Reproducers: a graph that failed inside the engine (a generated kernel that did not compile,
// a kernel that threw Internal), written as JSON so that `tensord-replay` can run it again
// against a daemon or locally. The whole graph with its input types, and the bytes of the inputs
// small enough to keep (the others are regenerated from a fixed seed when replayed);
// `tensord-replay --shrink` looks for a smaller graph (tools/replay/shrink.h).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/exec/compile_mode.h"
#include "engine/ir/graph.h"

namespace tensord::engine {

// An input's row-major bytes, when the reproducer keeps them.
using InputBytes = std::optional<std::vector<std::byte>>;

// The most bytes of one input a reproducer keeps, and of all its inputs together: a failure's
// file stays small enough to attach to a bug report.
inline constexpr size_t kReproducerInputBytes = size_t{1} << 20;
inline constexpr size_t kReproducerAllInputBytes = size_t{8} << 20;

struct Reproducer {
  ir::Graph graph;  // validated: every node's types inferred
  std::vector<ir::TensorType> inputs;
  std::vector<InputBytes> values;  // one per input (parse_reproducer), each kept or not
  std::vector<ir::ValueRef> outputs;
  CompileMode mode = CompileMode::Default;
  std::string error;  // what happened when it was written
};

// `values`: per input, its bytes when kept (exactly its type's size), or none for every input.
std::string reproducer_json(const ir::Graph& graph, std::span<const ir::TensorType> inputs,
                            std::span<const ir::ValueRef> outputs, CompileMode mode,
                            const std::string& error, std::span<const InputBytes> values = {});

// What a crash handler writes (engine/exec/running_plan.h): the graph whose generated kernels
// were running when a fatal signal stopped the daemon. Written ahead, for every fused plan.
std::string crash_reproducer_json(const ir::Graph& graph, std::span<const ir::TensorType> inputs,
                                  std::span<const ir::ValueRef> outputs, CompileMode mode);

// Throws tensord::Error(InvalidGraph) naming what is wrong with `json`.
Reproducer parse_reproducer(std::string_view json);

}  // namespace tensord::engine
