// A tensor program: nodes in topological order, each with its op, inputs, attributes, inferred
// output types and the user's source location.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/ir/attrs.h"
#include "engine/ir/error.h"
#include "engine/ir/op.h"
#include "engine/ir/shape.h"

namespace tensord::ir {

// One output of one node. Every op of this IR has one output so far; `output` is the seam for
// ops with several (sort, unique, split).
struct ValueRef {
  uint32_t node = 0;
  uint32_t output = 0;
  friend bool operator==(const ValueRef&, const ValueRef&) = default;
};

// Index into Graph::files plus a line; file 0 with line 0 means "unknown".
struct NodeLocation {
  uint32_t file = 0;
  uint32_t line = 0;
};

struct Node {
  Op op = Op::input;
  std::vector<ValueRef> inputs;
  Attrs attrs;
  std::vector<TensorType> outputs;  // filled by inference
  NodeLocation loc;
};

class Graph {
 public:
  Graph();  // files[0] is the empty "unknown" file

  std::vector<Node> nodes;
  std::vector<std::string> files;

  const TensorType& type(ValueRef v) const { return nodes[v.node].outputs[v.output]; }
  uint32_t intern_file(std::string_view file);  // linear scan: programs have few files
  SourceLocation location(uint32_t node) const;

  // Appends a node, runs inference on it and returns its first output. Inputs must be earlier
  // nodes. Throws tensord::Error attributed to the new node.
  ValueRef add(Op op, std::vector<ValueRef> inputs, Attrs attrs = {}, NodeLocation loc = {});
  ValueRef add_input(uint32_t index, const TensorType& type, NodeLocation loc = {});

  // Throws `e` attributed to `node` (its op and source location).
  [[noreturn]] void fail_at(uint32_t node, const Error& e) const;
};

// Limits on untrusted graphs (the daemon's configuration sets them).
struct Limits {
  size_t max_nodes = 1'000'000;
  size_t max_inputs_per_node = 4096;
  int64_t max_tensor_bytes = int64_t{64} << 30;  // per value
};

// Checks an untrusted graph and fills in every node's output types: inputs refer to earlier
// nodes (so no cycles), arity and attribute kinds, input nodes numbered within `num_inputs`
// and typed as `input_types` says, shapes and dtypes valid, sizes within `limits`.
// Throws tensord::Error with the failing node.
void validate(Graph& g, std::span<const TensorType> input_types, const Limits& limits);

// Checks that every requested output names an existing value.
void validate_outputs(const Graph& g, std::span<const ValueRef> outputs);

}  // namespace tensord::ir
