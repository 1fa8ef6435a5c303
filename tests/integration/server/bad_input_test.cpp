// Malformed graphs and messages, sent straight through the schema: each gets its own error code
// and the daemon keeps serving a second session correctly between them.
#include <catch2/catch.hpp>

#include <functional>

#include "tests/integration/server/raw_client.h"
#include "tests/support/daemon/daemon_process.h"

namespace tensord::test {
namespace {

constexpr uint64_t kMaxTensorBytes = 64 << 20;

// A Tensor the client implements itself: the daemon must not accept it as one of its own.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"  // kj::heap disposes of the exact type
class ForeignTensor final : public ::Tensor::Server {
 protected:
  kj::Promise<void> info(InfoContext context) override {
    context.getResults().setDtype("float32");
    context.getResults().initShape(1).set(0, 2);
    return kj::READY_NOW;
  }
};
#pragma GCC diagnostic pop

struct BadCase {
  std::string name;
  ErrorCode code;
  // Sends the bad request on `session` and returns the promise that must fail.
  std::function<kj::Promise<void>(::Session::Client& session, RawClient& client)> send;
  std::optional<uint32_t> node = std::nullopt;  // the node the error must name
};

kj::Promise<void> run(::Session::Client& session, const GraphSpec& g) {
  return run_request(session, g).send().ignoreResult();
}

GraphSpec one_node(NodeSpec node) {
  GraphSpec g;
  g.nodes = {std::move(node)};
  g.outputs = {{0}};
  return g;
}

::UploadSink::Client start_upload(::Session::Client& session, std::vector<int64_t> shape) {
  auto req = session.uploadRequest();
  req.setDtype("float32");
  auto s = req.initShape(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) s.set(i, shape[i]);
  return req.send().getSink();
}

kj::Promise<void> write(::UploadSink::Client& sink, uint64_t offset, size_t n) {
  std::vector<uint8_t> bytes(n, 7);
  auto w = sink.writeRequest();
  w.setOffset(offset);
  w.setData(kj::arrayPtr(bytes.data(), bytes.size()));
  return w.send().ignoreResult();
}

kj::Promise<void> read(::Tensor::Client tensor, uint64_t offset, uint64_t length) {
  auto r = tensor.readRequest();
  r.setOffset(offset);
  r.setLength(length);
  return r.send().ignoreResult();
}

::Tensor::Client small_tensor(::Session::Client& session, RawClient& client) {
  return upload(session, client.ws(), "float32", {4}, bytes_of(std::vector<float>{1, 2, 3, 4}));
}

std::vector<BadCase> bad_cases() {
  std::vector<BadCase> cases;
  auto graph_case = [&](std::string name, ErrorCode code, GraphSpec g,
                        std::optional<uint32_t> node = std::nullopt) {
    cases.push_back(
        {std::move(name), code, [g](::Session::Client& s, RawClient&) { return run(s, g); }, node});
  };

  graph_case("unknown op", ErrorCode::InvalidGraph, one_node({"frobnicate", {}, {}}), 0);
  {
    GraphSpec g;
    g.nodes = {full_node({2}, 1.0), {"neg", {{0, 0}}, {{"colour", int64_t{3}}}}};
    g.outputs = {{1}};
    graph_case("unknown attribute", ErrorCode::InvalidGraph, g, 1);
  }
  graph_case(
      "wrong attribute arm", ErrorCode::InvalidGraph,
      one_node(
          {"full", {}, {{"shape", int64_t{2}}, {"value", 1.0}, {"dtype", DTypeName{"float32"}}}}),
      0);
  graph_case(
      "a list of floats where ints are expected", ErrorCode::InvalidGraph,
      one_node(
          {"full",
           {},
           {{"shape", std::vector<double>{2.0}}, {"value", 1.0}, {"dtype", DTypeName{"float32"}}}}),
      0);
  graph_case(
      "missing required attribute", ErrorCode::InvalidGraph,
      one_node({"full", {}, {{"shape", std::vector<int64_t>{2}}, {"dtype", DTypeName{"float32"}}}}),
      0);
  graph_case("attribute given twice", ErrorCode::InvalidGraph,
             one_node({"full",
                       {},
                       {{"shape", std::vector<int64_t>{2}},
                        {"value", 1.0},
                        {"value", 2.0},
                        {"dtype", DTypeName{"float32"}}}}),
             0);
  {
    GraphSpec g;
    g.nodes = {{"neg", {{1, 0}}, {}}, full_node({2}, 1.0)};
    g.outputs = {{0}};
    graph_case("forward reference", ErrorCode::InvalidGraph, g, 0);
  }
  {
    GraphSpec g;
    g.nodes = {full_node({2}, 1.0), {"add", {{0, 0}, {1, 0}}, {}}};
    g.outputs = {{1}};
    graph_case("cycle through itself", ErrorCode::InvalidGraph, g, 1);
  }
  {
    GraphSpec g;
    g.nodes = {full_node({2}, 1.0), {"neg", {{0, 3}}, {}}};
    g.outputs = {{1}};
    graph_case("input refers to a missing output", ErrorCode::InvalidGraph, g, 1);
  }
  {
    GraphSpec g = one_node(full_node({2}, 1.0));
    g.outputs = {{5}};
    graph_case("output index out of range", ErrorCode::InvalidGraph, g);
  }
  {
    GraphSpec g;
    g.inputs.push_back(floats({1, 2}, {2}));
    g.nodes = {input_node(2, "float32", {2})};
    g.outputs = {{0}};
    graph_case("input index out of range", ErrorCode::InvalidGraph, g, 0);
  }
  {
    GraphSpec g;
    g.inputs.push_back(InlineSpec{"int32", {3}, bytes_of(std::vector<int32_t>{1, 2, 3})});
    g.nodes = {input_node(0, "float32", {2, 2})};
    g.outputs = {{0}};
    graph_case("input node type differs from the tensor", ErrorCode::InvalidGraph, g, 0);
  }
  {
    GraphSpec g;
    g.inputs.push_back(InlineSpec{"float32", {4}, std::vector<uint8_t>(12)});
    g.nodes = {input_node(0, "float32", {4})};
    g.outputs = {{0}};
    graph_case("inline data of the wrong size", ErrorCode::InvalidGraph, g);
  }
  {
    GraphSpec g;
    g.inputs.push_back(InlineSpec{"float33", {1}, std::vector<uint8_t>(4)});
    g.nodes = {input_node(0, "float32", {1})};
    g.outputs = {{0}};
    graph_case("bad dtype name in an inline tensor", ErrorCode::InvalidGraph, g);
  }
  graph_case("bad dtype name in an attribute", ErrorCode::InvalidGraph,
             one_node(full_node({2}, 1.0, "float33")), 0);
  graph_case("element count overflows", ErrorCode::OutOfMemory,
             one_node(full_node({int64_t{1} << 40, int64_t{1} << 40}, 1.0)), 0);
  graph_case("tensor over --max-tensor-bytes", ErrorCode::OutOfMemory,
             one_node(full_node({int64_t{kMaxTensorBytes}}, 1.0)), 0);
  graph_case("negative dimension", ErrorCode::Shape, one_node(full_node({2, -3}, 1.0)), 0);
  {
    GraphSpec g;
    g.nodes = {
        full_node({2, 3}, 1.0), full_node({4, 5}, 1.0), {"matmul", {{0, 0}, {1, 0}}, {}, 1, 42}};
    g.files = {"model.py"};
    g.outputs = {{2}};
    graph_case("matmul shapes do not fit", ErrorCode::Shape, g, 2);
  }
  {
    GraphSpec g;
    g.nodes = {full_node({2}, 1.0, "bool"), {"neg", {{0, 0}}, {}}};
    g.outputs = {{1}};
    graph_case("dtype the op does not take", ErrorCode::DType, g, 1);
  }
  {
    GraphSpec g = one_node(full_node({2}, 1.0));
    g.nodes[0].file = 9;
    graph_case("source file index out of range", ErrorCode::InvalidGraph, g, 0);
  }
  {
    GraphSpec g;
    const size_t n = ::MAX_CHUNK_BYTES / 4 + 1;
    g.inputs.push_back(
        InlineSpec{"float32", {static_cast<int64_t>(n)}, std::vector<uint8_t>(n * 4)});
    g.nodes = {input_node(0, "float32", {static_cast<int64_t>(n)})};
    g.outputs = {{0}};
    graph_case("inline data over maxChunkBytes", ErrorCode::InvalidGraph, g);
  }

  cases.push_back({"foreign Tensor capability as input", ErrorCode::InvalidGraph,
                   [](::Session::Client& s, RawClient&) {
                     GraphSpec g;
                     g.inputs.push_back(::Tensor::Client(kj::heap<ForeignTensor>()));
                     g.nodes = {input_node(0, "float32", {2})};
                     g.outputs = {{0}};
                     return run(s, g);
                   }});
  cases.push_back(
      {"upload over --max-tensor-bytes", ErrorCode::OutOfMemory,
       [](::Session::Client& s, RawClient&) {
         return start_upload(s, {int64_t{kMaxTensorBytes}}).writeRequest().send().ignoreResult();
       }});
  cases.push_back(
      {"upload chunk past the end", ErrorCode::InvalidGraph, [](::Session::Client& s, RawClient&) {
         auto sink = start_upload(s, {4});
         return write(sink, 8, 12).attach(kj::mv(sink));
       }});
  cases.push_back({"upload chunk over maxChunkBytes", ErrorCode::InvalidGraph,
                   [](::Session::Client& s, RawClient&) {
                     auto sink = start_upload(s, {int64_t{::MAX_CHUNK_BYTES}});
                     return write(sink, 0, ::MAX_CHUNK_BYTES + 4).attach(kj::mv(sink));
                   }});
  cases.push_back({"overlapping upload chunks", ErrorCode::InvalidGraph,
                   [](::Session::Client& s, RawClient& c) {
                     auto sink = start_upload(s, {4});
                     write(sink, 0, 8).wait(c.ws());
                     write(sink, 12, 4).wait(c.ws());
                     return write(sink, 4, 8).attach(kj::mv(sink));
                   }});
  cases.push_back({"finish before the upload is complete", ErrorCode::InvalidGraph,
                   [](::Session::Client& s, RawClient& c) {
                     auto sink = start_upload(s, {4});
                     write(sink, 0, 8).wait(c.ws());
                     return sink.finishRequest().send().ignoreResult().attach(kj::mv(sink));
                   }});
  cases.push_back(
      {"write after finish", ErrorCode::InvalidGraph, [](::Session::Client& s, RawClient& c) {
         auto sink = start_upload(s, {1});
         write(sink, 0, 4).wait(c.ws());
         sink.finishRequest().send().wait(c.ws());
         return write(sink, 0, 4).attach(kj::mv(sink));
       }});
  cases.push_back(
      {"read past the end", ErrorCode::InvalidGraph,
       [](::Session::Client& s, RawClient& c) { return read(small_tensor(s, c), 8, 12); }});
  cases.push_back({"read offset beyond the end", ErrorCode::InvalidGraph,
                   [](::Session::Client& s, RawClient& c) {
                     return read(small_tensor(s, c), ~uint64_t{0} - 2, 4);
                   }});
  cases.push_back({"read larger than maxChunkBytes", ErrorCode::InvalidGraph,
                   [](::Session::Client& s, RawClient& c) {
                     return read(small_tensor(s, c), 0, ::MAX_CHUNK_BYTES + 1);
                   }});
  cases.push_back({"version mismatch", ErrorCode::Version, [](::Session::Client&, RawClient& c) {
                     auto req = c.daemon().helloRequest();
                     req.initClientVersion().setMajor(::PROTOCOL_MAJOR + 1);
                     req.setToken(kToken);
                     return req.send().ignoreResult();
                   }});
  cases.push_back({"wrong token", ErrorCode::Unauthenticated, [](::Session::Client&, RawClient& c) {
                     auto req = c.daemon().helloRequest();
                     req.initClientVersion().setMajor(::PROTOCOL_MAJOR);
                     req.setToken("guess");
                     return req.send().ignoreResult();
                   }});
  cases.push_back(
      {"missing token", ErrorCode::Unauthenticated, [](::Session::Client&, RawClient& c) {
         auto req = c.daemon().helloRequest();
         req.initClientVersion().setMajor(::PROTOCOL_MAJOR);
         return req.send().ignoreResult();
       }});
  return cases;
}

TEST_CASE("every malformed request gets its error code and the daemon keeps serving") {
  DaemonProcess daemon(DaemonOptions::with_args(
      {"--token", kToken, "--max-tensor-bytes", std::to_string(kMaxTensorBytes)}));
  RawClient client(daemon.address());
  auto session = client.hello("misbehaving");
  Bystander bystander(daemon.address());
  bystander.check();

  auto cases = bad_cases();
  REQUIRE(cases.size() >= 15);
  for (BadCase& c : cases) {
    INFO("case: " << c.name);
    Error e = wire_error(c.send(session, client), client.ws());
    INFO("error: " << e.what());
    CHECK(e.code() == c.code);
    if (c.node) CHECK(e.node() == c.node);
    bystander.check();
    // The misbehaving session itself also goes on.
    auto ok = run_request(session, one_node(full_node({1}, 2.0))).send().wait(client.ws());
    CHECK(values_of<float>(ok.getResults()[0].getData()) == std::vector<float>{2});
  }
  REQUIRE(bystander.checks() == static_cast<int>(cases.size()) + 1);
  DaemonExit exit = daemon.stop();
  INFO(daemon.output());
  REQUIRE(exit.clean());
}

TEST_CASE("errors carry the failing node's op and source location") {
  DaemonProcess daemon(DaemonOptions::with_args({"--token", kToken}));
  RawClient client(daemon.address());
  auto session = client.hello();
  GraphSpec g;
  g.files = {"train.py", "model.py"};
  g.nodes = {
      full_node({2, 3}, 1.0), full_node({4, 5}, 1.0), {"matmul", {{0, 0}, {1, 0}}, {}, 2, 17}};
  g.outputs = {{2}};
  Error e = wire_error(run(session, g), client.ws());
  REQUIRE(e.code() == ErrorCode::Shape);
  REQUIRE(e.node() == 2u);
  REQUIRE(e.op() == "matmul");
  REQUIRE(e.where().file == "model.py");
  REQUIRE(e.where().line == 17);

  GraphSpec unknown;
  unknown.files = {"nb.py"};
  unknown.nodes = {{"frobnicate", {}, {}, 1, 3}};
  unknown.outputs = {{0}};
  Error u = wire_error(run(session, unknown), client.ws());
  REQUIRE(u.code() == ErrorCode::InvalidGraph);
  REQUIRE(u.where().file == "nb.py");
  REQUIRE(u.where().line == 3);
  REQUIRE(u.message().find("frobnicate") != std::string::npos);
}

}  // namespace
}  // namespace tensord::test
