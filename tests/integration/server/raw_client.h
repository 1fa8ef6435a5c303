// Test helpers that speak the wire protocol directly: build Graph messages field by field
// (including ones no client library would send) and check the errors that come back.
#pragma once

#include <capnp/ez-rpc.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/ir/error.h"
#include "tensord.capnp.h"

namespace tensord::test {

inline constexpr const char* kToken = "secret-token";

// One connection to a daemon, with this thread's event loop.
class RawClient {
 public:
  explicit RawClient(const std::string& address) : client_(address.c_str()) {}

  kj::WaitScope& ws() { return client_.getWaitScope(); }
  ::Daemon::Client daemon() { return client_.getMain<::Daemon>(); }

  // Opens a session; throws kj::Exception on refusal.
  ::Session::Client hello(std::string name = "test", std::string token = kToken,
                          uint16_t major = ::PROTOCOL_MAJOR);
  ::ServerInfo::Reader last_server_info() { return info_.getRoot<::ServerInfo>(); }

 private:
  capnp::EzRpcClient client_;
  capnp::MallocMessageBuilder info_;
};

// ---- graphs as plain data, turned into requests exactly as written ----

struct DTypeName {
  std::string name;
};
using AttrArg =
    std::variant<int64_t, double, bool, std::vector<int64_t>, DTypeName, std::vector<double>>;

struct NodeSpec {
  std::string op;
  std::vector<std::pair<uint32_t, uint32_t>> inputs;  // (node, output)
  std::vector<std::pair<std::string, AttrArg>> attrs;
  uint32_t file = 0;
  uint32_t line = 0;
};

struct InlineSpec {
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};
// A Tensor capability input. Cap'n Proto clients copy only from non-const references; the
// mutable member lets graph specs be copied like the plain data they are.
struct TensorInput {
  TensorInput(::Tensor::Client c) : client(kj::mv(c)) {}
  TensorInput(const TensorInput& other) : client(other.client) {}
  TensorInput(TensorInput&&) = default;
  mutable ::Tensor::Client client;
};
// A parameter of a Session.function graph (GraphInput.argument).
struct ArgumentSpec {};
using InputSpec = std::variant<TensorInput, InlineSpec, ArgumentSpec>;

struct OutputSpec {
  uint32_t node;
  uint32_t output = 0;
  bool fetch = true;
};

struct GraphSpec {
  std::vector<NodeSpec> nodes;
  std::vector<InputSpec> inputs;
  std::vector<OutputSpec> outputs;
  std::vector<std::string> files;  // empty: just the "" entry
};

capnp::Request<::Session::RunParams, ::Session::RunResults> run_request(::Session::Client& session,
                                                                        const GraphSpec& graph);
// Session.function of `graph` (its outputs' fetch flags are not sent).
capnp::Request<::Session::FunctionParams, ::Session::FunctionResults> function_request(
    ::Session::Client& session, const GraphSpec& graph);
void write_input(const InputSpec& input, ::GraphInput::Builder out);

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

template <typename T>
std::vector<T> values_of(capnp::Data::Reader data) {
  std::vector<T> out(data.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), data.begin(), out.size() * sizeof(T));
  return out;
}

inline InlineSpec floats(std::vector<float> values, std::vector<int64_t> shape) {
  return {"float32", std::move(shape), bytes_of(values)};
}

// An input node for graph input `index`.
NodeSpec input_node(int64_t index, std::string dtype, std::vector<int64_t> shape);
NodeSpec full_node(std::vector<int64_t> shape, double value, std::string dtype = "float32");

// The tensord error a failed call carried, parsed from its description prefix. Fails the test
// if the call succeeded or the description has no prefix.
template <typename Promise>
Error wire_error(Promise&& promise, kj::WaitScope& ws);
Error decoded(const kj::Exception& e);

// Uploads `bytes` as a tensor in chunks of `chunk` bytes.
::Tensor::Client upload(::Session::Client& session, kj::WaitScope& ws, const std::string& dtype,
                        const std::vector<int64_t>& shape, const std::vector<uint8_t>& bytes,
                        size_t chunk = 1 << 16);

::SessionStats::Reader stats(::Session::Client& session, kj::WaitScope& ws,
                             capnp::MallocMessageBuilder& keep);

// Polls `stats` until the daemon holds no tensors (releases are asynchronous); returns
// whether it got there within a few seconds.
bool daemon_drains(::Session::Client& session, kj::WaitScope& ws);

// A second session that must keep computing correctly while another one misbehaves: each
// check() runs a fresh small graph with an inline input and verifies every value.
class Bystander {
 public:
  explicit Bystander(const std::string& address);
  void check();  // REQUIREs inside
  int checks() const { return checks_; }

 private:
  RawClient client_;
  ::Session::Client session_;
  int checks_ = 0;
};

// ---- template definitions ----

template <typename Promise>
Error wire_error(Promise&& promise, kj::WaitScope& ws) {
  try {
    promise.wait(ws);
  } catch (const kj::Exception& e) {
    return decoded(e);
  }
  throw std::runtime_error("the call succeeded, but an error was expected");
}

}  // namespace tensord::test
