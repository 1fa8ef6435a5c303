#include "server/graph_from_wire.h"

#include <cstring>
#include <string>

#include "engine/ir/op.h"
#include "server/wire_types.h"

namespace tensord::server {
namespace {

std::string_view text(capnp::Text::Reader t) {
  return {t.cStr(), t.size()};
}

std::string_view kind_name(ir::AttrKind kind) {
  switch (kind) {
    case ir::AttrKind::Int:
      return "an int";
    case ir::AttrKind::Float:
      return "a float";
    case ir::AttrKind::Bool:
      return "a bool";
    case ir::AttrKind::Ints:
      return "a list of ints";
    case ir::AttrKind::DType:
      return "a dtype";
    case ir::AttrKind::Scalar:
      return "an int, float or bool";
    case ir::AttrKind::Floats:
      return "a list of floats";
  }
  return "?";
}

bool arm_fits(::AttrValue::Which arm, ir::AttrKind kind) {
  using K = ir::AttrKind;
  switch (arm) {
    case ::AttrValue::INT:
      return kind == K::Int || kind == K::Scalar;
    case ::AttrValue::FLOAT:
      return kind == K::Float || kind == K::Scalar;
    case ::AttrValue::BOOL:
      return kind == K::Bool || kind == K::Scalar;
    case ::AttrValue::INTS:
      return kind == K::Ints;
    case ::AttrValue::DTYPE:
      return kind == K::DType;
    case ::AttrValue::FLOATS:
      return kind == K::Floats;
  }
  return false;  // an arm from a newer schema
}

std::string_view arm_name(::AttrValue::Which arm) {
  switch (arm) {
    case ::AttrValue::INT:
      return "int";
    case ::AttrValue::FLOAT:
      return "float";
    case ::AttrValue::BOOL:
      return "bool";
    case ::AttrValue::INTS:
      return "ints";
    case ::AttrValue::DTYPE:
      return "dtype";
    case ::AttrValue::FLOATS:
      return "floats";
  }
  return "an unknown arm";
}

ir::AttrValue value_from_wire(::AttrValue::Reader v) {
  switch (v.which()) {
    case ::AttrValue::INT:
      return v.getInt();
    case ::AttrValue::FLOAT:
      return v.getFloat();
    case ::AttrValue::BOOL:
      return v.getBool();
    case ::AttrValue::INTS: {
      std::vector<int64_t> ints;
      for (int64_t i : v.getInts()) ints.push_back(i);
      return ints;
    }
    case ::AttrValue::DTYPE:
      return dtype_from_wire(v.getDtype());
    case ::AttrValue::FLOATS: {
      std::vector<double> floats;
      for (double f : v.getFloats()) floats.push_back(f);
      return floats;
    }
  }
  throw Error(ErrorCode::InvalidGraph, "attribute value of an unknown kind");
}

ir::Attrs attrs_from_wire(const ir::OpInfo& op, capnp::List<::Attr>::Reader attrs) {
  ir::Attrs out;
  for (::Attr::Reader a : attrs) {
    std::string_view attr_name = text(a.getName());
    auto attr = ir::attr_from_name(attr_name);
    const ir::AttrSpec* spec = nullptr;
    for (const ir::AttrSpec& s : op.attrs) {
      if (attr && s.attr == *attr) spec = &s;
    }
    if (spec == nullptr) {
      throw Error(ErrorCode::InvalidGraph, "unknown attribute '" + std::string(attr_name) +
                                               "' for op " + std::string(op.name));
    }
    if (out.has(spec->attr)) {
      throw Error(ErrorCode::InvalidGraph,
                  "attribute '" + std::string(attr_name) + "' given twice");
    }
    auto arm = a.getValue().which();
    if (!arm_fits(arm, spec->kind)) {
      throw Error(ErrorCode::InvalidGraph, "attribute '" + std::string(attr_name) + "' takes " +
                                               std::string(kind_name(spec->kind)) + ", not " +
                                               std::string(arm_name(arm)));
    }
    out.set(spec->attr, value_from_wire(a.getValue()));
  }
  for (const ir::AttrSpec& s : op.attrs) {
    if (s.required && !out.has(s.attr)) {
      throw Error(ErrorCode::InvalidGraph,
                  "missing required attribute '" + std::string(ir::name(s.attr)) + "'");
    }
  }
  return out;
}

ir::Node node_from_wire(const ir::Graph& g, ::Node::Reader n) {
  ir::Node node;
  node.loc = ir::NodeLocation{n.getFile(), n.getLine()};
  if (node.loc.file >= g.files.size()) {
    throw Error(ErrorCode::InvalidGraph, "source file index " + std::to_string(node.loc.file) +
                                             " is out of range (" + std::to_string(g.files.size()) +
                                             " files)");
  }
  std::string_view op_name = text(n.getOp());
  auto op = ir::op_from_name(op_name);
  if (!op) throw Error(ErrorCode::InvalidGraph, "unknown op '" + std::string(op_name) + "'");
  node.op = *op;
  for (::ValueRef::Reader r : n.getInputs()) node.inputs.push_back({r.getNode(), r.getOutput()});
  node.attrs = attrs_from_wire(ir::op_info(*op), n.getAttrs());
  return node;
}

InlineInput inline_from_wire(::InlineTensor::Reader t, const WireLimits& limits) {
  InlineInput in{{dtype_from_wire(t.getDtype()), shape_from_wire(t.getShape())}, {}};
  uint64_t bytes = checked_tensor_bytes(in.type, limits.max_tensor_bytes);
  auto data = t.getData();
  if (data.size() != bytes) {
    throw Error(ErrorCode::InvalidGraph, "inline " + ir::to_string(in.type) + " needs " +
                                             std::to_string(bytes) + " bytes of data, got " +
                                             std::to_string(data.size()));
  }
  if (bytes > limits.max_chunk_bytes) {
    throw Error(ErrorCode::InvalidGraph, "inline data of " + std::to_string(bytes) +
                                             " bytes exceeds maxChunkBytes; upload it instead");
  }
  in.data.assign(data.begin(), data.end());
  if (in.type.dtype == ir::DType::Bool) normalize_bools(in.data.data(), in.data.size());
  return in;
}

}  // namespace

WireInput input_from_wire(::GraphInput::Reader in, const std::string& what,
                          const WireLimits& limits) {
  switch (in.which()) {
    case ::GraphInput::TENSOR:
      return in.getTensor();
    case ::GraphInput::INLINE:
      try {
        return inline_from_wire(in.getInline(), limits);
      } catch (const Error& e) {
        throw Error(e.code(), what + ": " + e.message());
      }
    case ::GraphInput::ARGUMENT:
      return ArgumentInput{};
  }
  throw Error(ErrorCode::InvalidGraph, what + " is of an unknown kind");
}

WireGraph graph_from_wire(::Graph::Reader graph, const WireLimits& limits) {
  WireGraph out;
  ir::Graph& g = out.graph;
  if (graph.hasFiles()) {
    g.files.clear();
    for (capnp::Text::Reader f : graph.getFiles()) g.files.emplace_back(text(f));
    if (g.files.empty()) g.files.emplace_back();
  }

  auto nodes = graph.getNodes();
  g.nodes.reserve(nodes.size());
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    try {
      g.nodes.push_back(node_from_wire(g, nodes[i]));
    } catch (const Error& e) {
      std::string op(text(nodes[i].getOp()));
      uint32_t file = nodes[i].getFile();
      SourceLocation where;
      if (file != 0 && file < g.files.size()) where = {g.files[file], nodes[i].getLine()};
      throw e.at_node(i, std::move(op), std::move(where));
    }
  }

  auto inputs = graph.getInputs();
  out.inputs.reserve(inputs.size());
  for (uint32_t i = 0; i < inputs.size(); ++i) {
    out.inputs.push_back(input_from_wire(inputs[i], "graph input " + std::to_string(i), limits));
  }
  return out;
}

std::vector<ir::ValueRef> outputs_from_wire(capnp::List<::Output>::Reader outputs) {
  std::vector<ir::ValueRef> out;
  out.reserve(outputs.size());
  for (::Output::Reader o : outputs) {
    out.push_back({o.getValue().getNode(), o.getValue().getOutput()});
  }
  return out;
}

}  // namespace tensord::server
