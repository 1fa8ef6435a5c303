#include "tests/integration/server/raw_client.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "protocol/wire_error.h"

namespace tensord::test {
namespace {

void set_attr(::AttrValue::Builder v, const AttrArg& arg) {
  if (auto* i = std::get_if<int64_t>(&arg)) {
    v.setInt(*i);
  } else if (auto* f = std::get_if<double>(&arg)) {
    v.setFloat(*f);
  } else if (auto* b = std::get_if<bool>(&arg)) {
    v.setBool(*b);
  } else if (auto* ints = std::get_if<std::vector<int64_t>>(&arg)) {
    auto list = v.initInts(ints->size());
    for (size_t k = 0; k < ints->size(); ++k) list.set(k, (*ints)[k]);
  } else if (auto* floats = std::get_if<std::vector<double>>(&arg)) {
    auto list = v.initFloats(floats->size());
    for (size_t k = 0; k < floats->size(); ++k) list.set(k, (*floats)[k]);
  } else {
    v.setDtype(std::get<DTypeName>(arg).name);
  }
}

void set_shape(capnp::List<int64_t>::Builder list, const std::vector<int64_t>& shape) {
  for (size_t k = 0; k < shape.size(); ++k) list.set(k, shape[k]);
}

}  // namespace

::Session::Client RawClient::hello(std::string name, std::string token, uint16_t major) {
  auto req = daemon().helloRequest();
  req.initClientVersion().setMajor(major);
  req.getClientVersion().setMinor(::PROTOCOL_MINOR);
  req.setToken(token);
  req.setSessionName(name);
  auto response = req.send().wait(ws());
  info_.setRoot(response.getServer());
  return response.getSession();
}

void write_input(const InputSpec& input, ::GraphInput::Builder out) {
  if (auto* t = std::get_if<TensorInput>(&input)) {
    out.setTensor(t->client);
  } else if (auto* in = std::get_if<InlineSpec>(&input)) {
    auto b = out.initInline();
    b.setDtype(in->dtype);
    set_shape(b.initShape(in->shape.size()), in->shape);
    b.setData(kj::arrayPtr(in->data.data(), in->data.size()));
  } else {
    out.setArgument();
  }
}

namespace {

void write_graph(const GraphSpec& spec, ::Graph::Builder graph) {
  auto nodes = graph.initNodes(spec.nodes.size());
  for (size_t i = 0; i < spec.nodes.size(); ++i) {
    const NodeSpec& n = spec.nodes[i];
    auto node = nodes[i];
    node.setOp(n.op);
    auto inputs = node.initInputs(n.inputs.size());
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      inputs[k].setNode(n.inputs[k].first);
      inputs[k].setOutput(n.inputs[k].second);
    }
    auto attrs = node.initAttrs(n.attrs.size());
    for (size_t k = 0; k < n.attrs.size(); ++k) {
      attrs[k].setName(n.attrs[k].first);
      set_attr(attrs[k].initValue(), n.attrs[k].second);
    }
    node.setFile(n.file);
    node.setLine(n.line);
  }
  auto inputs = graph.initInputs(spec.inputs.size());
  for (size_t i = 0; i < spec.inputs.size(); ++i) write_input(spec.inputs[i], inputs[i]);
  auto files = graph.initFiles(spec.files.size() + 1);
  files.set(0, "");
  for (size_t i = 0; i < spec.files.size(); ++i) files.set(i + 1, spec.files[i]);
}

void write_outputs(const GraphSpec& spec, capnp::List<::Output>::Builder outputs) {
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    outputs[i].initValue().setNode(spec.outputs[i].node);
    outputs[i].getValue().setOutput(spec.outputs[i].output);
    outputs[i].setFetch(spec.outputs[i].fetch);
  }
}

}  // namespace

capnp::Request<::Session::RunParams, ::Session::RunResults> run_request(::Session::Client& session,
                                                                        const GraphSpec& spec) {
  auto req = session.runRequest();
  write_graph(spec, req.initGraph());
  write_outputs(spec, req.initOutputs(spec.outputs.size()));
  return req;
}

capnp::Request<::Session::FunctionParams, ::Session::FunctionResults> function_request(
    ::Session::Client& session, const GraphSpec& spec) {
  auto req = session.functionRequest();
  write_graph(spec, req.initGraph());
  write_outputs(spec, req.initOutputs(spec.outputs.size()));
  return req;
}

NodeSpec input_node(int64_t index, std::string dtype, std::vector<int64_t> shape) {
  return {"input", {}, {{"index", index}, {"dtype", DTypeName{dtype}}, {"shape", shape}}};
}

NodeSpec full_node(std::vector<int64_t> shape, double value, std::string dtype) {
  return {"full", {}, {{"shape", shape}, {"value", value}, {"dtype", DTypeName{dtype}}}};
}

Error decoded(const kj::Exception& e) {
  auto error = protocol::decode_error(e.getDescription().cStr());
  if (!error) {
    throw std::runtime_error(std::string("an error without a tensord prefix: ") +
                             e.getDescription().cStr());
  }
  return *error;
}

::Tensor::Client upload(::Session::Client& session, kj::WaitScope& ws, const std::string& dtype,
                        const std::vector<int64_t>& shape, const std::vector<uint8_t>& bytes,
                        size_t chunk) {
  auto req = session.uploadRequest();
  req.setDtype(dtype);
  set_shape(req.initShape(shape.size()), shape);
  auto sink = req.send().getSink();
  kj::Vector<kj::Promise<void>> writes;
  for (size_t offset = 0; offset < bytes.size(); offset += chunk) {
    size_t n = std::min(chunk, bytes.size() - offset);
    auto w = sink.writeRequest();
    w.setOffset(offset);
    w.setData(kj::arrayPtr(bytes.data() + offset, n));
    writes.add(w.send().ignoreResult());
  }
  kj::joinPromises(writes.releaseAsArray()).wait(ws);
  return sink.finishRequest().send().wait(ws).getTensor();
}

::SessionStats::Reader stats(::Session::Client& session, kj::WaitScope& ws,
                             capnp::MallocMessageBuilder& keep) {
  auto response = session.statsRequest().send().wait(ws);
  keep.setRoot(response.getStats());
  return keep.getRoot<::SessionStats>();
}

bool daemon_drains(::Session::Client& session, kj::WaitScope& ws) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    capnp::MallocMessageBuilder keep;
    auto s = stats(session, ws, keep);
    if (s.getDaemonLiveTensors() == 0 && s.getDaemonLiveBytes() == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

Bystander::Bystander(const std::string& address)
    : client_(address), session_(client_.hello("bystander")) {}

void Bystander::check() {
  // y = relu(x * k - 3) with k changing every time, so a stale or mixed-up result shows.
  ++checks_;
  const float k = static_cast<float>(checks_);
  std::vector<float> x{0, 1, 2, 3, 4, 5};
  GraphSpec g;
  g.inputs.push_back(floats(x, {2, 3}));
  g.nodes = {input_node(0, "float32", {2, 3}), full_node({}, k),
             {"mul", {{0, 0}, {1, 0}}, {}},    full_node({2, 3}, 3.0),
             {"sub", {{2, 0}, {3, 0}}, {}},    {"relu", {{4, 0}}, {}}};
  g.outputs = {{5}};
  auto response = run_request(session_, g).send().wait(client_.ws());
  auto results = response.getResults();
  REQUIRE(results.size() == 1);
  REQUIRE(results[0].getFetched());
  auto y = values_of<float>(results[0].getData());
  REQUIRE(y.size() == 6);
  for (size_t i = 0; i < 6; ++i) REQUIRE(y[i] == std::max(0.0f, x[i] * k - 3.0f));
}

}  // namespace tensord::test
