// Validation of graphs that arrive from the wire. Nothing in them is trusted: every reference,
// attribute and size is checked before any pass or backend looks at the graph, and before
// anything is allocated for it.
#include <array>

#include "engine/ir/graph.h"

namespace tensord::ir {
namespace {

[[noreturn]] void invalid(std::string message) {
  throw Error(ErrorCode::InvalidGraph, std::move(message));
}

void check_location(const Graph& g, uint32_t index) {
  const NodeLocation& loc = g.nodes[index].loc;
  if (loc.file >= g.files.size()) {
    // Reported without the location, which is the thing that is broken.
    throw Error(ErrorCode::InvalidGraph,
                "node " + std::to_string(index) + " names source file " + std::to_string(loc.file) +
                    " of " + std::to_string(g.files.size()),
                index);
  }
}

void check_op(uint32_t index, Op op) {
  if (static_cast<size_t>(op) >= all_ops().size()) {
    throw Error(ErrorCode::InvalidGraph,
                "node " + std::to_string(index) + " has an unknown op " +
                    std::to_string(static_cast<unsigned>(op)),
                index);
  }
}

void check_input_node(const Node& node, std::span<const TensorType> input_types) {
  const int64_t index = node.attrs.get_int(Attr::index);
  if (static_cast<uint64_t>(index) >= input_types.size()) {
    invalid("input index " + std::to_string(index) + " is out of range: the graph has " +
            std::to_string(input_types.size()) + " inputs");
  }
  const TensorType& declared = node.outputs[0];
  const TensorType& actual = input_types[static_cast<size_t>(index)];
  if (declared != actual) {
    invalid("input " + std::to_string(index) + " is declared " + to_string(declared) +
            " but the tensor supplied is " + to_string(actual));
  }
}

void check_size(const TensorType& t, const Limits& limits) {
  // Inference guarantees the byte count fits int64.
  const int64_t bytes = t.numel() * static_cast<int64_t>(itemsize(t.dtype));
  if (bytes > limits.max_tensor_bytes) {
    throw Error(ErrorCode::OutOfMemory, "tensor " + to_string(t) + " of " + std::to_string(bytes) +
                                            " bytes exceeds the limit of " +
                                            std::to_string(limits.max_tensor_bytes) + " bytes");
  }
}

}  // namespace

void validate(Graph& g, std::span<const TensorType> input_types, const Limits& limits) {
  if (g.files.empty()) g.files.emplace_back();  // file 0 is "unknown" by definition
  if (g.nodes.size() > limits.max_nodes) {
    invalid("the graph has " + std::to_string(g.nodes.size()) + " nodes, above the limit of " +
            std::to_string(limits.max_nodes));
  }
  std::vector<const TensorType*> types;
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    check_location(g, i);
    Node& node = g.nodes[i];
    check_op(i, node.op);
    node.outputs.clear();
    try {
      if (node.inputs.size() > limits.max_inputs_per_node) {
        invalid("node " + std::to_string(i) + " has " + std::to_string(node.inputs.size()) +
                " inputs, above the limit of " + std::to_string(limits.max_inputs_per_node));
      }
      types.resize(node.inputs.size());
      for (size_t k = 0; k < node.inputs.size(); ++k) {
        const ValueRef v = node.inputs[k];
        if (v.node >= i) {
          invalid("node " + std::to_string(i) + " input " + std::to_string(k) + " refers to node " +
                  std::to_string(v.node) + ", which is not earlier");
        }
        const auto& outputs = g.nodes[v.node].outputs;
        if (v.output >= outputs.size()) {
          invalid("node " + std::to_string(i) + " input " + std::to_string(k) +
                  " refers to output " + std::to_string(v.output) + " of node " +
                  std::to_string(v.node) + ", which has " + std::to_string(outputs.size()));
        }
        types[k] = &outputs[v.output];
      }
      node.outputs = infer(node.op, types, node.attrs);
      if (node.op == Op::input) check_input_node(node, input_types);
      for (const TensorType& t : node.outputs) check_size(t, limits);
    } catch (const Error& e) {
      node.outputs.clear();  // later nodes must not see a half-checked node
      g.fail_at(i, e);
    }
  }
}

void validate_outputs(const Graph& g, std::span<const ValueRef> outputs) {
  for (size_t k = 0; k < outputs.size(); ++k) {
    const ValueRef v = outputs[k];
    if (v.node >= g.nodes.size() || v.output >= g.nodes[v.node].outputs.size()) {
      invalid("output " + std::to_string(k) + " refers to value " + std::to_string(v.node) + ":" +
              std::to_string(v.output) + ", which does not exist");
    }
  }
}

}  // namespace tensord::ir
