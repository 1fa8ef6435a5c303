// Translates an untrusted wire Graph into the engine's IR. Runs on the event loop; the
// structural checks that need types (references, arity, shapes) are the engine's validate().
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "engine/ir/graph.h"
#include "tensord.capnp.h"

namespace tensord::server {

// An inline graph input: its bytes, copied out of the request so the worker never reads RPC
// memory.
struct InlineInput {
  ir::TensorType type;
  std::vector<uint8_t> data;
};

// A parameter of a Session.function graph: each Function.call gives its value.
struct ArgumentInput {};

// Input i of a graph: a Tensor capability still to be resolved to one of ours, bytes, or (in a
// function's graph) a parameter.
using WireInput = std::variant<::Tensor::Client, InlineInput, ArgumentInput>;

struct WireGraph {
  ir::Graph graph;
  std::vector<WireInput> inputs;
};

struct WireLimits {
  uint64_t max_tensor_bytes;
  uint64_t max_chunk_bytes;
};

// Throws tensord::Error: InvalidGraph for unknown op or attribute names, an attribute in the
// wrong union arm, a missing required or repeated attribute, a bad dtype name, a source file
// index out of range, or inline data whose size is wrong or over a chunk; Shape/OutOfMemory for
// inline tensors with bad or too large shapes. Node errors name the node.
WireGraph graph_from_wire(::Graph::Reader graph, const WireLimits& limits);

// One GraphInput (`what` names it in errors: "graph input 3", "argument 0"). Errors as above.
WireInput input_from_wire(::GraphInput::Reader input, const std::string& what,
                          const WireLimits& limits);

// The requested outputs. Range checks are the engine's (validate_outputs).
std::vector<ir::ValueRef> outputs_from_wire(capnp::List<::Output>::Reader outputs);

}  // namespace tensord::server
