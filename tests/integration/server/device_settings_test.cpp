// Session.memoryStats and Session.setFloat32MatmulPrecision (protocol 1.2) on the CPU daemon,
// spoken in raw Cap'n Proto.
#include <catch2/catch.hpp>

#include <string>

#include "tests/integration/server/raw_client.h"
#include "tests/support/daemon/daemon_process.h"

namespace tensord::test {
namespace {

DaemonOptions with_token() {
  return DaemonOptions::with_args({"--token", kToken, "--threads", "2"});
}

std::string precision_of(::Session::Client& session, kj::WaitScope& ws) {
  auto response = session.statsRequest().send().wait(ws);
  return response.getStats().getFloat32MatmulPrecision().cStr();
}

TEST_CASE("the daemon speaks protocol 1.8") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  client.hello();
  REQUIRE(client.last_server_info().getVersion().getMinor() == 8);
}

TEST_CASE("memoryStats names the CPU device and reports only what the CPU has") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  auto session = client.hello();
  // Some work first, large enough to go through the host block cache (>= 1 MiB).
  GraphSpec g;
  g.nodes = {full_node({1024, 1024}, 2.0)};
  g.outputs = {{0, 0, false}};
  run_request(session, g).send().wait(client.ws());

  auto response = session.memoryStatsRequest().send().wait(client.ws());
  auto devices = response.getDevices();
  REQUIRE(devices.size() == 1);
  auto cpu = devices[0];
  CHECK(std::string(cpu.getDevice().getKind().cStr()) == "cpu");
  CHECK(cpu.getDevice().getIndex() == 0);
  CHECK(cpu.getDevice().getThreads() == 2);
  CHECK(cpu.getSessionDevice());
  CHECK_FALSE(cpu.hasAllocator());  // no caching allocator: no made-up figures
  REQUIRE(cpu.hasHostCache());
  auto cache = cpu.getHostCache();
  CHECK(cache.getHits() + cache.getMisses() >= 1);  // the 4 MiB output was cacheable
}

TEST_CASE("setFloat32MatmulPrecision round-trips through stats; runs go on") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  auto session = client.hello();
  CHECK(precision_of(session, client.ws()) == "highest");
  for (const char* p : {"medium", "high", "highest"}) {
    auto req = session.setFloat32MatmulPrecisionRequest();
    req.setPrecision(p);
    req.send().wait(client.ws());
    CHECK(precision_of(session, client.ws()) == p);
  }
  // The CPU computes in float32 at every precision: a matmul still gives exact values.
  auto req = session.setFloat32MatmulPrecisionRequest();
  req.setPrecision("medium");
  req.send().wait(client.ws());
  GraphSpec g;
  g.inputs.push_back(floats({1, 2, 3, 4}, {2, 2}));
  g.nodes = {input_node(0, "float32", {2, 2}), {"matmul", {{0, 0}, {0, 0}}, {}}};
  g.outputs = {{1, 0, true}};
  auto response = run_request(session, g).send().wait(client.ws());
  CHECK(values_of<float>(response.getResults()[0].getData()) == std::vector<float>{7, 10, 15, 22});
}

TEST_CASE("an unknown float32 matmul precision is refused and changes nothing") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  auto session = client.hello();
  auto req = session.setFloat32MatmulPrecisionRequest();
  req.setPrecision("low");
  Error e = wire_error(req.send(), client.ws());
  CHECK(e.code() == ErrorCode::InvalidGraph);
  CHECK_THAT(e.message(), Catch::Contains("'low'") && Catch::Contains("highest, high or medium"));
  CHECK(precision_of(session, client.ws()) == "highest");
  // The session goes on.
  auto again = session.setFloat32MatmulPrecisionRequest();
  again.setPrecision("high");
  again.send().wait(client.ws());
  CHECK(precision_of(session, client.ws()) == "high");
}

TEST_CASE("each session has its own float32 matmul precision") {
  DaemonProcess daemon(with_token());
  RawClient a(daemon.address()), b(daemon.address());
  auto sa = a.hello("a");
  auto sb = b.hello("b");
  auto req = sa.setFloat32MatmulPrecisionRequest();
  req.setPrecision("medium");
  req.send().wait(a.ws());
  CHECK(precision_of(sa, a.ws()) == "medium");
  CHECK(precision_of(sb, b.ws()) == "highest");
}

}  // namespace
}  // namespace tensord::test
