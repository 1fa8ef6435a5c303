// Function calls pipelined on an earlier call's results (CallOutputs.get before the call
// returns), in raw Cap'n Proto: the daemon hands out the results before the call ran, queues
// the calls that use them behind it, and passes a failure on to them.
#include <catch2/catch.hpp>

#include "tests/integration/server/raw_client.h"
#include "tests/support/daemon/daemon_process.h"

namespace tensord::test {
namespace {

DaemonOptions with_token() {
  return DaemonOptions::with_args({"--token", kToken});
}

// y = x * 0.5 + 1 on float32(4,).
GraphSpec halve_graph() {
  GraphSpec g;
  g.inputs.push_back(ArgumentSpec{});
  g.nodes = {input_node(0, "float32", {4}),
             full_node({}, 0.5),
             {"mul", {{0, 0}, {1, 0}}, {}},
             full_node({}, 1.0),
             {"add", {{2, 0}, {3, 0}}, {}}};
  g.outputs = {{4}};
  return g;
}

// y = table[index] for int64 index(2,) and a captured table of 4 floats.
GraphSpec pick_graph() {
  GraphSpec g;
  g.inputs.push_back(floats({1, 2, 3, 4}, {4}));
  g.inputs.push_back(ArgumentSpec{});
  g.nodes = {input_node(0, "float32", {4}),
             input_node(1, "int64", {2}),
             {"index_select", {{0, 0}, {1, 0}}, {{"axis", int64_t{0}}}}};
  g.outputs = {{2}};
  return g;
}

::Function::Client define(::Session::Client& session, kj::WaitScope& ws, const GraphSpec& g) {
  return function_request(session, g).send().wait(ws).getFunction();
}

// f(argument) without waiting for the reply.
capnp::RemotePromise<::Function::CallResults> call(::Function::Client& f, InputSpec argument,
                                                   bool fetch) {
  auto req = f.callRequest();
  write_input(argument, req.initArguments(1)[0]);
  req.initFetch(1).set(0, fetch);
  return req.send();
}

// Result 0 of `sent`, pipelined: no wait for the call.
::Tensor::Client result0(capnp::RemotePromise<::Function::CallResults>& sent) {
  auto get = sent.getOutputs().getRequest();
  get.setIndex(0);
  return get.send().getTensor();
}

std::vector<float> halved(std::vector<float> x, int times) {
  for (int i = 0; i < times; ++i) {
    for (float& v : x) v = v * 0.5f + 1.0f;
  }
  return x;
}

TEST_CASE("calls pipelined on each other's results run in order") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  auto& ws = client.ws();
  auto session = client.hello();
  ::Function::Client f = define(session, ws, halve_graph());

  // Forty calls, each on the previous one's result, all sent before any reply is read.
  std::vector<capnp::RemotePromise<::Function::CallResults>> calls;
  calls.push_back(call(f, floats({8, -4, 0, 100}, {4}), false));
  for (int i = 1; i < 40; ++i)
    calls.push_back(call(f, TensorInput(result0(calls.back())), i == 39));
  ::Tensor::Client pending = result0(calls.back());
  // A result still in flight knows its type, and a read of it waits for its call.
  auto info = pending.infoRequest().send();
  auto read = pending.readRequest();
  read.setLength(16);
  auto bytes = read.send();

  auto last = calls.back().wait(ws);
  const std::vector<float> want = halved({8, -4, 0, 100}, 40);
  CHECK(values_of<float>(last.getResults()[0].getData()) == want);
  CHECK(values_of<float>(bytes.wait(ws).getData()) == want);
  auto type = info.wait(ws);
  CHECK(std::string(type.getDtype().cStr()) == "float32");
  CHECK(type.getShape().size() == 1);
  // Every call replied with its own result, the tensor handed out before it ran.
  for (int i : {0, 17, 38}) {
    auto r = calls[i].wait(ws);
    auto read_r = r.getResults()[0].getTensor().readRequest();
    read_r.setLength(16);
    CHECK(values_of<float>(read_r.send().wait(ws).getData()) == halved({8, -4, 0, 100}, i + 1));
  }
}

TEST_CASE("a pipelined result feeds another session's run and an explain") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  auto& ws = client.ws();
  auto a = client.hello("a");
  auto b = client.hello("b");
  ::Function::Client f = define(a, ws, halve_graph());
  auto sent = call(f, floats({2, 4, 6, 8}, {4}), false);
  GraphSpec g;
  g.inputs.push_back(TensorInput(result0(sent)));
  g.nodes = {input_node(0, "float32", {4}), {"sum", {{0, 0}}, {}}};
  g.outputs = {{1}};
  auto explained = a.explainRequest();
  {
    auto spec = run_request(a, g);  // the same graph as an explain request of session a
    explained.setGraph(spec.getGraph());
    explained.setOutputs(spec.getOutputs());
  }
  auto run = run_request(b, g).send().wait(ws);
  CHECK(values_of<float>(run.getResults()[0].getData()) == std::vector<float>{2 + 3 + 4 + 5});
  CHECK(explained.send().wait(ws).getExplanation().getSteps() == 1);  // the sum
  sent.wait(ws);
}

// y = x * 2 on float32(2,): what the picks feed.
GraphSpec double_graph() {
  GraphSpec g;
  g.inputs.push_back(ArgumentSpec{});
  g.nodes = {input_node(0, "float32", {2}), full_node({}, 2.0), {"mul", {{0, 0}, {1, 0}}, {}}};
  g.outputs = {{2}};
  return g;
}

InlineSpec indices(std::vector<int64_t> v) {
  return {"int64", {2}, bytes_of(v)};
}

TEST_CASE("a call that fails fails the calls pipelined on it with its error") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  Bystander bystander(daemon.address());
  auto& ws = client.ws();
  auto session = client.hello();
  ::Function::Client pick = define(session, ws, pick_graph());
  ::Function::Client twice = define(session, ws, double_graph());

  SECTION("failing on the worker after the calls behind it were queued") {
    auto bad = call(pick, indices({0, 7}), false);  // 7 is out of bounds
    auto next = call(twice, TensorInput(result0(bad)), true);
    auto after = call(twice, TensorInput(result0(next)), true);
    for (auto* sent : {&bad, &next, &after}) {
      Error e = wire_error(kj::mv(*sent), ws);
      CHECK(e.code() == ErrorCode::Shape);
      CHECK_THAT(e.what(), Catch::Contains("index 7 is out of bounds"));
      CHECK(e.op() == "index_select");
    }
  }
  SECTION("refused before it ran") {
    // `twice` takes float32(2,), `halve` float32(4,): the pending result's type is known.
    ::Function::Client halve = define(session, ws, halve_graph());
    auto picked = call(pick, indices({0, 1}), false);
    Error e = wire_error(call(halve, TensorInput(result0(picked)), true), ws);
    CHECK(e.code() == ErrorCode::InvalidGraph);
    CHECK_THAT(e.what(), Catch::Contains("argument 0 is float32(2,)"));
    // A call refused before it was queued fails the calls on its results with its error.
    auto refused = call(pick, floats({1, 2}, {2}), false);
    Error first = wire_error(call(twice, TensorInput(result0(refused)), true), ws);
    CHECK(first.code() == ErrorCode::InvalidGraph);
    CHECK_THAT(first.what(), Catch::Contains("argument 0 is float32(2,)"));
    picked.wait(ws);
  }
  // The session and the daemon go on.
  auto good = call(pick, indices({3, 0}), false);
  auto doubled = call(twice, TensorInput(result0(good)), true).wait(ws);
  CHECK(values_of<float>(doubled.getResults()[0].getData()) == std::vector<float>{8, 2});
  bystander.check();
}

}  // namespace
}  // namespace tensord::test
