#include "engine/exec/reproducer.h"

#include <nlohmann/json.hpp>

#include "engine/ir/error.h"

namespace tensord::engine {
namespace {

using json = nlohmann::json;

json attr_json(const ir::AttrValue& v) {
  json j;
  if (const auto* i = std::get_if<int64_t>(&v)) {
    j = {{"int", *i}};
  } else if (const auto* f = std::get_if<double>(&v)) {
    j = {{"float", *f}};
  } else if (const auto* b = std::get_if<bool>(&v)) {
    j = {{"bool", *b}};
  } else if (const auto* is = std::get_if<std::vector<int64_t>>(&v)) {
    j = {{"ints", *is}};
  } else if (const auto* fs = std::get_if<std::vector<double>>(&v)) {
    j = {{"floats", *fs}};
  } else {
    j = {{"dtype", std::string(ir::name(std::get<ir::DType>(v)))}};
  }
  return j;
}

ir::AttrValue attr_value(const json& j) {
  if (j.contains("int")) return j.at("int").get<int64_t>();
  if (j.contains("float")) return j.at("float").get<double>();
  if (j.contains("bool")) return j.at("bool").get<bool>();
  if (j.contains("ints")) return j.at("ints").get<std::vector<int64_t>>();
  if (j.contains("floats")) return j.at("floats").get<std::vector<double>>();
  const auto t = ir::dtype_from_name(j.at("dtype").get<std::string>());
  if (!t) throw Error(ErrorCode::InvalidGraph, "reproducer: unknown dtype " + j.dump());
  return *t;
}

ir::DType dtype_of(const json& j) {
  const auto t = ir::dtype_from_name(j.get<std::string>());
  if (!t) throw Error(ErrorCode::InvalidGraph, "reproducer: unknown dtype " + j.dump());
  return *t;
}

}  // namespace

std::string reproducer_json(const ir::Graph& graph, std::span<const ir::TensorType> inputs,
                            std::span<const ir::ValueRef> outputs, CompileMode mode,
                            const std::string& error) {
  json j;
  j["tensord_reproducer"] = 1;
  j["mode"] = std::string(name(mode));
  j["error"] = error;
  j["inputs"] = json::array();
  for (const ir::TensorType& t : inputs) {
    j["inputs"].push_back({{"dtype", std::string(ir::name(t.dtype))}, {"shape", t.shape}});
  }
  j["nodes"] = json::array();
  for (const ir::Node& n : graph.nodes) {
    json node{{"op", std::string(ir::name(n.op))}, {"inputs", json::array()}};
    for (const ir::ValueRef& r : n.inputs) node["inputs"].push_back({r.node, r.output});
    json attrs = json::object();
    for (const auto& [a, v] : n.attrs.items()) attrs[std::string(ir::name(a))] = attr_json(v);
    node["attrs"] = attrs;
    j["nodes"].push_back(std::move(node));
  }
  j["outputs"] = json::array();
  for (const ir::ValueRef& r : outputs) j["outputs"].push_back({r.node, r.output});
  return j.dump(1) + "\n";
}

Reproducer parse_reproducer(std::string_view text) {
  Reproducer r;
  try {
    const json j = json::parse(text);
    if (j.value("tensord_reproducer", 0) != 1) {
      throw Error(ErrorCode::InvalidGraph, "not a tensord reproducer (version 1)");
    }
    const auto mode = compile_mode_from_name(j.at("mode").get<std::string>());
    if (!mode) throw Error(ErrorCode::InvalidGraph, "reproducer: unknown compile mode");
    r.mode = *mode;
    r.error = j.value("error", "");
    for (const json& in : j.at("inputs")) {
      r.inputs.push_back({dtype_of(in.at("dtype")), in.at("shape").get<ir::Shape>()});
    }
    for (const json& n : j.at("nodes")) {
      const auto op = ir::op_from_name(n.at("op").get<std::string>());
      if (!op) throw Error(ErrorCode::InvalidGraph, "reproducer: unknown op " + n.at("op").dump());
      ir::Attrs attrs;
      for (const auto& [k, v] : n.at("attrs").items()) {
        const auto a = ir::attr_from_name(k);
        if (!a) throw Error(ErrorCode::InvalidGraph, "reproducer: unknown attribute " + k);
        attrs.set(*a, attr_value(v));
      }
      std::vector<ir::ValueRef> inputs;
      for (const json& in : n.at("inputs")) {
        inputs.push_back({in.at(0).get<uint32_t>(), in.at(1).get<uint32_t>()});
      }
      if (*op == ir::Op::input) {
        const auto index = attrs.get_int(ir::Attr::index);
        if (index < 0 || static_cast<size_t>(index) >= r.inputs.size()) {
          throw Error(ErrorCode::InvalidGraph, "reproducer: input index out of range");
        }
        r.graph.add_input(static_cast<uint32_t>(index), r.inputs[static_cast<size_t>(index)]);
      } else {
        for (const ir::ValueRef& in : inputs) {
          if (in.node >= r.graph.nodes.size()) {
            throw Error(ErrorCode::InvalidGraph, "reproducer: an input refers to a later node");
          }
        }
        r.graph.add(*op, std::move(inputs), std::move(attrs));
      }
    }
    for (const json& o : j.at("outputs")) {
      const ir::ValueRef ref{o.at(0).get<uint32_t>(), o.at(1).get<uint32_t>()};
      if (ref.node >= r.graph.nodes.size()) {
        throw Error(ErrorCode::InvalidGraph, "reproducer: an output refers to no node");
      }
      r.outputs.push_back(ref);
    }
  } catch (const json::exception& e) {
    throw Error(ErrorCode::InvalidGraph, std::string("reproducer: ") + e.what());
  }
  return r;
}

}  // namespace tensord::engine
