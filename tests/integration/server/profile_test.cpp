// Session.profile spoken raw: a trace sink that stops reading (its `write` calls never return)
// must not hold the session's work back nor grow the daemon: records past the bound are
// dropped and counted, and the count arrives once the sink reads again. Bad options fail with
// an error code; a client that disconnects mid-profile leaves the daemon serving.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "engine/profiler/compact.h"
#include "tests/integration/server/raw_client.h"
#include "tests/support/daemon/daemon_process.h"

using namespace tensord::test;
using tensord::ErrorCode;

namespace {

struct SinkState {
  bool stalled = true;
  size_t writes = 0;
  std::vector<kj::Own<kj::PromiseFulfiller<void>>> held;
  tensord::profiler::Trace trace;
  bool done = false;
  uint64_t done_recorded = 0, done_dropped = 0;

  void release() {
    stalled = false;
    for (auto& f : held) f->fulfill();
    held.clear();
  }
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class TestSink final : public ::TraceSink::Server {
 public:
  explicit TestSink(std::shared_ptr<SinkState> s) : s_(std::move(s)) {}

 protected:
  kj::Promise<void> write(WriteContext context) override {
    s_->writes++;
    auto chunk = context.getParams().getChunk();
    s_->trace.append_chunk(std::span<const uint8_t>(chunk.begin(), chunk.size()));
    if (!s_->stalled) return kj::READY_NOW;
    auto paf = kj::newPromiseAndFulfiller<void>();
    s_->held.push_back(kj::mv(paf.fulfiller));
    return kj::mv(paf.promise);
  }
  kj::Promise<void> done(DoneContext context) override {
    s_->done = true;
    s_->done_recorded = context.getParams().getRecorded();
    s_->done_dropped = context.getParams().getDropped();
    return kj::READY_NOW;
  }

 private:
  std::shared_ptr<SinkState> s_;
};
#pragma GCC diagnostic pop

// x -> x + x, `n` times: n steps.
GraphSpec chain(int n) {
  GraphSpec g;
  g.inputs.push_back(floats({1, 2, 3, 4}, {4}));
  g.nodes.push_back(input_node(0, "float32", {4}));
  for (int i = 0; i < n; ++i) {
    auto prev = static_cast<uint32_t>(g.nodes.size() - 1);
    g.nodes.push_back({"add", {{prev, 0}, {prev, 0}}, {}, 0, 0});
  }
  g.outputs = {{static_cast<uint32_t>(g.nodes.size() - 1)}};
  return g;
}

::ProfileHandle::Client start(::Session::Client& session, kj::WaitScope& ws,
                              std::shared_ptr<SinkState> state, uint32_t buffer) {
  auto req = session.profileRequest();
  req.initOptions().setBufferRecords(buffer);
  req.setSink(kj::heap<TestSink>(std::move(state)));
  return req.send().wait(ws).getHandle();
}

}  // namespace

// Steps are what these tests count: no fusion, so that each op of a chain is one step.
static void eager(::Session::Client& session, kj::WaitScope& ws) {
  auto req = session.setCompileModeRequest();
  req.setMode("eager");
  req.send().wait(ws);
}

TEST_CASE("a trace sink that stops reading holds no work back; drops are counted") {
  DaemonProcess daemon;
  RawClient client(daemon.address());
  Bystander bystander(daemon.address());
  auto session = client.hello();
  eager(session, client.ws());  // one step per op
  auto state = std::make_shared<SinkState>();
  auto handle = start(session, client.ws(), state, 256);
  constexpr int kRuns = 300, kSteps = 100;
  GraphSpec g = chain(kSteps);
  for (int i = 0; i < kRuns; ++i) {
    auto response = run_request(session, g).send().wait(client.ws());
    REQUIRE(response.getResults()[0].getFetched());
    if (i % 100 == 0) bystander.check();
  }
  // The sink held every write since the first: the daemon has at most its bound pending.
  CHECK(state->writes >= 1);
  CHECK(state->trace.records.size() < size_t{kRuns} * kSteps / 2);
  state->release();
  auto stopped = handle.stopRequest().send().wait(client.ws());
  CHECK(state->done);
  uint64_t dropped = stopped.getDropped();
  CHECK(dropped > 0);
  CHECK(state->done_dropped == dropped);
  CHECK(state->done_recorded == state->trace.records.size());
  // Everything the runs produced either arrived or was counted.
  CHECK(state->trace.records.size() + dropped >= size_t{kRuns} * kSteps);
  bystander.check();
}

TEST_CASE("bad profile options fail with an error code; one profile at a time") {
  DaemonProcess daemon;
  RawClient client(daemon.address());
  auto session = client.hello();
  for (uint32_t bad : {0u, (1u << 20) + 1}) {
    auto req = session.profileRequest();
    req.initOptions().setBufferRecords(bad);
    req.setSink(kj::heap<TestSink>(std::make_shared<SinkState>()));
    CHECK(wire_error(req.send(), client.ws()).code() == ErrorCode::InvalidGraph);
  }
  auto state = std::make_shared<SinkState>();
  state->stalled = false;
  auto handle = start(session, client.ws(), state, 1024);
  auto again = session.profileRequest();
  again.setSink(kj::heap<TestSink>(std::make_shared<SinkState>()));
  CHECK(wire_error(again.send(), client.ws()).code() == ErrorCode::Unsupported);
  handle.stopRequest().send().wait(client.ws());
  CHECK(state->done);
  // Stopped: a new profile may start.
  auto next = std::make_shared<SinkState>();
  next->stalled = false;
  auto handle2 = start(session, client.ws(), next, 1024);
  run_request(session, chain(3)).send().wait(client.ws());
  handle2.stopRequest().send().wait(client.ws());
  CHECK(next->trace.records.size() >= 3);
}

TEST_CASE("a client that disconnects in the middle of a stalled profile") {
  DaemonProcess daemon;
  Bystander bystander(daemon.address());
  {
    RawClient client(daemon.address());
    auto session = client.hello("leaver");
    auto handle = start(session, client.ws(), std::make_shared<SinkState>(), 64);
    GraphSpec g = chain(50);
    for (int i = 0; i < 50; ++i) run_request(session, g).send().wait(client.ws());
  }
  for (int i = 0; i < 3; ++i) bystander.check();
  CHECK(daemon.running());
}

TEST_CASE("dropping the handle stops the profile and flushes it to the sink") {
  DaemonProcess daemon;
  RawClient client(daemon.address());
  auto session = client.hello();
  eager(session, client.ws());  // one step per op
  auto first = std::make_shared<SinkState>();
  first->stalled = false;
  {
    auto handle = start(session, client.ws(), first, 1024);
    run_request(session, chain(10)).send().wait(client.ws());
  }  // the handle goes without stop()
  // A new profile waits for the first one's flush instead of failing.
  auto second = std::make_shared<SinkState>();
  second->stalled = false;
  auto handle = start(session, client.ws(), second, 1024);
  CHECK(first->done);
  size_t steps = 0;
  for (const auto& r : first->trace.records) {
    steps += r.kind == tensord::profiler::RecordKind::Span &&
             static_cast<tensord::profiler::Stage>(r.stage) == tensord::profiler::Stage::Step;
  }
  CHECK(steps == 10);
  CHECK(first->done_recorded == first->trace.records.size());
  handle.stopRequest().send().wait(client.ws());
  CHECK(second->done);
}

TEST_CASE("a graph whose output is out of range fails cleanly while memory is recorded") {
  // With memory recorded the daemon looks up each output's line for its fetch staging before
  // the engine validates the graph: a bad index must still be the engine's InvalidGraph.
  DaemonProcess daemon;
  RawClient client(daemon.address());
  auto session = client.hello();
  auto state = std::make_shared<SinkState>();
  state->stalled = false;
  auto req = session.profileRequest();
  req.initOptions().setMemory(true);
  req.setSink(kj::heap<TestSink>(state));
  auto handle = req.send().wait(client.ws()).getHandle();
  GraphSpec bad;
  bad.nodes = {full_node({2}, 1.0)};
  bad.outputs = {{5}};
  tensord::Error e = wire_error(run_request(session, bad).send(), client.ws());
  CHECK(e.code() == ErrorCode::InvalidGraph);
  GraphSpec good = chain(2);
  auto ok = run_request(session, good).send().wait(client.ws());
  CHECK(ok.getResults()[0].getFetched());
  handle.stopRequest().send().wait(client.ws());
  // The good run's fetch was staged, and freed.
  int64_t staging = 0;
  size_t fetches = 0;
  for (const auto& r : state->trace.records) {
    if (static_cast<tensord::profiler::MemoryCategory>(r.stage) !=
        tensord::profiler::MemoryCategory::Staging) {
      continue;
    }
    if (r.kind == tensord::profiler::RecordKind::Alloc) {
      staging += static_cast<int64_t>(r.bytes);
      fetches += state->trace.str(r.name) == "fetch";
    } else if (r.kind == tensord::profiler::RecordKind::Free) {
      staging -= static_cast<int64_t>(r.bytes);
    }
  }
  CHECK(fetches == 1);
  CHECK(staging == 0);
}
