// Session.function and Function.call in raw Cap'n Proto: calls that work, lifetimes, and every
// malformed definition or call refused with its own error while another session runs on.
#include <catch2/catch.hpp>

#include "tests/integration/server/raw_client.h"
#include "tests/support/daemon/daemon_process.h"

namespace tensord::test {
namespace {

DaemonOptions with_token() {
  return DaemonOptions::with_args({"--token", kToken});
}

// y = x * w + c: x is the argument (graph input 0), w a captured upload (input 1), c an
// inline constant (input 2).
GraphSpec axpy_graph(::Tensor::Client w) {
  GraphSpec g;
  g.inputs.push_back(ArgumentSpec{});
  g.inputs.push_back(TensorInput(kj::mv(w)));
  g.inputs.push_back(floats({10, 20, 30, 40}, {4}));
  g.nodes = {input_node(0, "float32", {4}),
             input_node(1, "float32", {4}),
             input_node(2, "float32", {4}),
             {"mul", {{0, 0}, {1, 0}}, {}},
             {"add", {{3, 0}, {2, 0}}, {}}};
  g.outputs = {{4}};
  return g;
}

auto call_request(::Function::Client& f, std::vector<InputSpec> args, bool fetch = true) {
  auto req = f.callRequest();
  auto list = req.initArguments(args.size());
  for (size_t i = 0; i < args.size(); ++i) write_input(args[i], list[i]);
  req.initFetch(1).set(0, fetch);
  return req;
}

std::vector<float> call_values(::Function::Client& f, kj::WaitScope& ws,
                               std::vector<InputSpec> args) {
  auto response = call_request(f, std::move(args)).send().wait(ws);
  REQUIRE(response.getResults().size() == 1);
  REQUIRE(response.getResults()[0].getFetched());
  return values_of<float>(response.getResults()[0].getData());
}

TEST_CASE("a function is called with inline and tensor arguments") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  auto session = client.hello();
  auto w = upload(session, client.ws(), "float32", {4}, bytes_of(std::vector<float>{1, 2, 3, 4}));
  ::Function::Client f =
      function_request(session, axpy_graph(w)).send().wait(client.ws()).getFunction();
  CHECK(call_values(f, client.ws(), {floats({1, 1, 1, 1}, {4})}) ==
        std::vector<float>{11, 22, 33, 44});
  auto x = upload(session, client.ws(), "float32", {4}, bytes_of(std::vector<float>{2, 0, -1, 1}));
  CHECK(call_values(f, client.ws(), {TensorInput(x)}) == std::vector<float>{12, 20, 27, 44});

  // Without fetch the result is a tensor to read or to pass on: here to the next call.
  auto first = call_request(f, {TensorInput(x)}, false).send().wait(client.ws());
  CHECK_FALSE(first.getResults()[0].getFetched());
  CHECK(call_values(f, client.ws(), {TensorInput(first.getResults()[0].getTensor())}) ==
        std::vector<float>{22, 60, 111, 216});
}

TEST_CASE("a function outlives its Session capability and its captured tensors' handles") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  ::Function::Client f = nullptr;
  {
    auto session = client.hello();
    auto w = upload(session, client.ws(), "float32", {4}, bytes_of(std::vector<float>{1, 2, 3, 4}));
    f = function_request(session, axpy_graph(kj::mv(w))).send().wait(client.ws()).getFunction();
  }
  CHECK(call_values(f, client.ws(), {floats({1, 1, 1, 1}, {4})}) ==
        std::vector<float>{11, 22, 33, 44});
}

TEST_CASE("bad function definitions and calls get their own errors; the daemon serves on") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  Bystander bystander(daemon.address());
  auto session = client.hello();
  auto& ws = client.ws();
  auto w = upload(session, ws, "float32", {4}, bytes_of(std::vector<float>{1, 2, 3, 4}));
  ::Function::Client f = function_request(session, axpy_graph(w)).send().wait(ws).getFunction();

  SECTION("a run refuses an argument input") {
    Error e = wire_error(run_request(session, axpy_graph(w)).send(), ws);
    CHECK(e.code() == ErrorCode::InvalidGraph);
    CHECK_THAT(e.what(), Catch::Contains("graph input 0") && Catch::Contains("argument"));
  }
  SECTION("an argument no input node reads") {
    GraphSpec g = axpy_graph(w);
    g.inputs.push_back(ArgumentSpec{});
    Error e = wire_error(function_request(session, g).send(), ws);
    CHECK(e.code() == ErrorCode::InvalidGraph);
    CHECK_THAT(e.what(), Catch::Contains("graph input 3"));
  }
  SECTION("a definition that does not validate") {
    GraphSpec g = axpy_graph(w);
    g.nodes[0] = input_node(0, "float32", {5});  // x of 5 times w of 4
    CHECK(wire_error(function_request(session, g).send(), ws).code() == ErrorCode::Shape);
    g = axpy_graph(w);
    g.nodes.push_back({"frobnicate", {}, {}});
    CHECK(wire_error(function_request(session, g).send(), ws).code() == ErrorCode::InvalidGraph);
  }
  SECTION("too many or too few arguments") {
    Error e = wire_error(call_request(f, {}).send(), ws);
    CHECK(e.code() == ErrorCode::InvalidGraph);
    CHECK_THAT(e.what(), Catch::Contains("takes 1 arguments, got 0"));
    CHECK(wire_error(call_request(f, {floats({1, 1, 1, 1}, {4}), floats({1, 1, 1, 1}, {4})}).send(),
                     ws)
              .code() == ErrorCode::InvalidGraph);
  }
  SECTION("an argument of another shape or dtype") {
    auto wide = upload(session, ws, "float32", {5}, bytes_of(std::vector<float>(5, 1.0f)));
    Error e = wire_error(call_request(f, {TensorInput(wide)}).send(), ws);
    CHECK(e.code() == ErrorCode::InvalidGraph);
    CHECK_THAT(e.what(), Catch::Contains("argument 0 is float32(5,)"));
    e = wire_error(
        call_request(f, {InlineSpec{"int32", {4}, bytes_of(std::vector<int32_t>{1, 2, 3, 4})}})
            .send(),
        ws);
    CHECK(e.code() == ErrorCode::InvalidGraph);
    CHECK_THAT(e.what(), Catch::Contains("argument 0 is int32(4,)"));
  }
  SECTION("inline data of the wrong size, an argument as an argument, a foreign tensor") {
    CHECK(wire_error(call_request(f, {InlineSpec{"float32", {4}, {1, 2, 3}}}).send(), ws).code() ==
          ErrorCode::InvalidGraph);
    CHECK(wire_error(call_request(f, {ArgumentSpec{}}).send(), ws).code() ==
          ErrorCode::InvalidGraph);
    RawClient other(daemon.address());
    auto elsewhere = other.hello("other");
    // Another connection's tensor is not a capability of this one: Cap'n Proto proxies it, so
    // the daemon sees a foreign object.
    auto theirs =
        upload(elsewhere, other.ws(), "float32", {4}, bytes_of(std::vector<float>{1, 1, 1, 1}));
    Error e = wire_error(call_request(f, {TensorInput(theirs)}).send(), ws);
    CHECK(e.code() == ErrorCode::InvalidGraph);
    CHECK_THAT(e.what(), Catch::Contains("argument 0 is a Tensor capability this daemon did not"));
  }
  bystander.check();
  // The function still works after every refused call.
  CHECK(call_values(f, ws, {floats({0, 0, 0, 0}, {4})}) == std::vector<float>{10, 20, 30, 40});
  bystander.check();
}

}  // namespace
}  // namespace tensord::test
