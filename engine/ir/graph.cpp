#include "engine/ir/graph.h"

#include <algorithm>
#include <array>

namespace tensord::ir {

Graph::Graph() : files{""} {}

uint32_t Graph::intern_file(std::string_view file) {
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i] == file) return static_cast<uint32_t>(i);
  }
  files.emplace_back(file);
  return static_cast<uint32_t>(files.size() - 1);
}

SourceLocation Graph::location(uint32_t node) const {
  if (node >= nodes.size()) return {};
  const NodeLocation& loc = nodes[node].loc;
  if (loc.file >= files.size() || (loc.file == 0 && loc.line == 0)) return {};
  return SourceLocation{files[loc.file], loc.line};
}

void Graph::fail_at(uint32_t node, const Error& e) const {
  if (node >= nodes.size()) throw e.at_node(node, {}, {});
  throw e.at_node(node, std::string(name(nodes[node].op)), location(node));
}

ValueRef Graph::add(Op op, std::vector<ValueRef> inputs, Attrs attrs, NodeLocation loc) {
  const auto index = static_cast<uint32_t>(nodes.size());
  // Input types by pointer, on the stack for the usual one to three inputs.
  std::array<const TensorType*, 4> small{};
  std::vector<const TensorType*> large;
  std::span<const TensorType*> types(small.data(), std::min(inputs.size(), small.size()));
  if (inputs.size() > small.size()) {
    large.resize(inputs.size());
    types = large;
  }
  nodes.push_back(Node{op, std::move(inputs), std::move(attrs), {}, loc});
  Node& node = nodes.back();
  try {
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      ValueRef v = node.inputs[i];
      if (v.node >= index || v.output >= nodes[v.node].outputs.size()) {
        throw Error(ErrorCode::InvalidGraph,
                    "input " + std::to_string(i) + " refers to value " + std::to_string(v.node) +
                        ":" + std::to_string(v.output) + ", which is not an earlier node's output");
      }
      types[i] = &nodes[v.node].outputs[v.output];
    }
    node.outputs = infer(op, types, node.attrs);
  } catch (const Error& e) {
    // Leave the graph as it was, so a client can report the error and keep recording.
    Error attributed = e.at_node(index, std::string(name(op)), location(index));
    nodes.pop_back();
    throw attributed;
  }
  return ValueRef{index, 0};
}

ValueRef Graph::add_input(uint32_t index, const TensorType& type, NodeLocation loc) {
  return add(
      Op::input, {},
      Attrs{{Attr::index, int64_t{index}}, {Attr::dtype, type.dtype}, {Attr::shape, type.shape}},
      loc);
}

}  // namespace tensord::ir
