#include "engine/exec/reproducer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstring>

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

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(const std::vector<std::byte>& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t left = std::min<size_t>(3, bytes.size() - i);
    uint32_t word = std::to_integer<uint32_t>(bytes[i]) << 16;
    if (left > 1) word |= std::to_integer<uint32_t>(bytes[i + 1]) << 8;
    if (left > 2) word |= std::to_integer<uint32_t>(bytes[i + 2]);
    out += kBase64[(word >> 18) & 63];
    out += kBase64[(word >> 12) & 63];
    out += left > 1 ? kBase64[(word >> 6) & 63] : '=';
    out += left > 2 ? kBase64[word & 63] : '=';
  }
  return out;
}

std::vector<std::byte> from_base64(const std::string& text) {
  if (text.size() % 4 != 0) throw Error(ErrorCode::InvalidGraph, "reproducer: bad base64 length");
  std::vector<std::byte> out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t word = 0;
    size_t pad = 0;
    for (size_t k = 0; k < 4; ++k) {
      const char c = text[i + k];
      const char* at = c == '=' ? nullptr : std::strchr(kBase64, c);
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        ++pad;
      } else if (at == nullptr || c == '\0' || pad > 0) {
        throw Error(ErrorCode::InvalidGraph, "reproducer: bad base64");
      }
      word = word << 6 | (at ? static_cast<uint32_t>(at - kBase64) : 0);
    }
    for (size_t k = 0; k < 3 - pad; ++k) out.push_back(std::byte((word >> (16 - 8 * k)) & 0xff));
  }
  return out;
}

// A node's "at" ("file:line"), interned into `graph`; none when absent.
ir::NodeLocation location(ir::Graph& graph, const json& node) {
  if (!node.contains("at")) return {};
  const std::string at = node.at("at").get<std::string>();
  const size_t colon = at.rfind(':');
  uint32_t line = 0;
  if (colon == std::string::npos ||
      std::from_chars(at.data() + colon + 1, at.data() + at.size(), line).ec != std::errc{}) {
    throw Error(ErrorCode::InvalidGraph, "reproducer: \"at\" is not file:line: " + at);
  }
  return {graph.intern_file(std::string_view(at).substr(0, colon)), line};
}

ir::DType dtype_of(const json& j) {
  const auto t = ir::dtype_from_name(j.get<std::string>());
  if (!t) throw Error(ErrorCode::InvalidGraph, "reproducer: unknown dtype " + j.dump());
  return *t;
}

}  // namespace

std::string reproducer_json(const ir::Graph& graph, std::span<const ir::TensorType> inputs,
                            std::span<const ir::ValueRef> outputs, CompileMode mode,
                            const std::string& error, std::span<const InputBytes> values) {
  json j;
  j["tensord_reproducer"] = 1;
  j["mode"] = std::string(name(mode));
  j["error"] = error;
  j["inputs"] = json::array();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::TensorType& t = inputs[i];
    json in{{"dtype", std::string(ir::name(t.dtype))}, {"shape", t.shape}};
    if (i < values.size() && values[i]) in["base64"] = base64(*values[i]);
    j["inputs"].push_back(std::move(in));
  }
  j["nodes"] = json::array();
  for (const ir::Node& n : graph.nodes) {
    json node{{"op", std::string(ir::name(n.op))}, {"inputs", json::array()}};
    for (const ir::ValueRef& r : n.inputs) node["inputs"].push_back({r.node, r.output});
    json attrs = json::object();
    for (const auto& [a, v] : n.attrs.items()) attrs[std::string(ir::name(a))] = attr_json(v);
    node["attrs"] = attrs;
    // The user's line that recorded it, as "file:line" (what errors and profiles name).
    if (n.loc.line != 0 && n.loc.file < graph.files.size()) {
      node["at"] = graph.files[n.loc.file] + ":" + std::to_string(n.loc.line);
    }
    j["nodes"].push_back(std::move(node));
  }
  j["outputs"] = json::array();
  for (const ir::ValueRef& r : outputs) j["outputs"].push_back({r.node, r.output});
  return j.dump(1) + "\n";
}

std::string crash_reproducer_json(const ir::Graph& graph, std::span<const ir::TensorType> inputs,
                                  std::span<const ir::ValueRef> outputs, CompileMode mode) {
  return reproducer_json(graph, inputs, outputs, mode,
                         "a fatal signal while this graph's generated kernels ran (the daemon "
                         "stopped)");
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
      InputBytes& bytes = r.values.emplace_back();
      if (!in.contains("base64")) continue;
      bytes = from_base64(in.at("base64").get<std::string>());
      if (bytes->size() != r.inputs.back().nbytes()) {
        throw Error(ErrorCode::InvalidGraph, "reproducer: input " +
                                                 std::to_string(r.inputs.size() - 1) + " has " +
                                                 std::to_string(bytes->size()) + " bytes; " +
                                                 ir::to_string(r.inputs.back()) + " takes " +
                                                 std::to_string(r.inputs.back().nbytes()));
      }
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
      const ir::NodeLocation loc = location(r.graph, n);
      if (*op == ir::Op::input) {
        const auto index = attrs.get_int(ir::Attr::index);
        if (index < 0 || static_cast<size_t>(index) >= r.inputs.size()) {
          throw Error(ErrorCode::InvalidGraph, "reproducer: input index out of range");
        }
        r.graph.add_input(static_cast<uint32_t>(index), r.inputs[static_cast<size_t>(index)], loc);
      } else {
        for (const ir::ValueRef& in : inputs) {
          if (in.node >= r.graph.nodes.size()) {
            throw Error(ErrorCode::InvalidGraph, "reproducer: an input refers to a later node");
          }
        }
        r.graph.add(*op, std::move(inputs), std::move(attrs), loc);
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
