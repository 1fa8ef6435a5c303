// What the daemon holds and for how long: tensors live exactly as long as a capability refers
// to them, and whatever a client leaves behind (dropped results, a half upload, a disconnect
// with queued runs) is freed.
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <atomic>
#include <regex>
#include <thread>

#include "tests/integration/server/raw_client.h"
#include "tests/support/daemon/daemon_process.h"

namespace tensord::test {
namespace {

DaemonOptions with_token() {
  return DaemonOptions::with_args({"--token", kToken});
}

GraphSpec scaled_arange(int64_t n, double scale) {
  GraphSpec g;
  g.nodes = {
      {"arange",
       {},
       {{"start", int64_t{0}}, {"stop", n}, {"step", int64_t{1}}, {"dtype", DTypeName{"float32"}}}},
      full_node({}, scale),
      {"mul", {{0, 0}, {1, 0}}, {}}};
  g.outputs = {{2}};
  return g;
}

TEST_CASE("dropping result tensors frees them") {
  DaemonProcess daemon(with_token());
  RawClient client(daemon.address());
  auto session = client.hello();
  {
    GraphSpec g = scaled_arange(1000, 2.0);
    g.outputs = {{0, 0, false}, {2, 0, false}};
    auto response = run_request(session, g).send().wait(client.ws());
    auto uploaded = upload(session, client.ws(), "float32", {256}, std::vector<uint8_t>(1024));
    capnp::MallocMessageBuilder keep;
    auto s = stats(session, client.ws(), keep);
    REQUIRE(s.getLiveTensors() == 3);
    REQUIRE(s.getLiveBytes() == 2 * 4000 + 1024);
    REQUIRE(s.getDaemonLiveTensors() == 3);
    REQUIRE(s.getDaemonLiveBytes() == 2 * 4000 + 1024);
  }
  REQUIRE(daemon_drains(session, client.ws()));
  capnp::MallocMessageBuilder keep;
  auto s = stats(session, client.ws(), keep);
  REQUIRE(s.getLiveTensors() == 0);
  REQUIRE(s.getLiveBytes() == 0);
  REQUIRE(s.getRuns() == 1);
}

TEST_CASE("a client killed mid-upload leaves nothing behind") {
  DaemonProcess daemon(with_token());
  constexpr int64_t kFloats = 1 << 20;  // 4 MiB
  int half_done[2], may_exit[2];
  REQUIRE(pipe(half_done) == 0);
  REQUIRE(pipe(may_exit) == 0);

  // The child gets its own connection and event loop: no RPC state exists in this process yet.
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    {
      RawClient client(daemon.address());
      auto session = client.hello("doomed upload");
      auto req = session.uploadRequest();
      req.setDtype("float32");
      req.initShape(1).set(0, kFloats);
      auto sink = req.send().getSink();
      std::vector<uint8_t> chunk(1 << 20, 1);
      for (uint64_t offset = 0; offset < kFloats * 2; offset += chunk.size()) {
        auto w = sink.writeRequest();
        w.setOffset(offset);
        w.setData(kj::arrayPtr(chunk.data(), chunk.size()));
        w.send().wait(client.ws());
      }
      char c = 'h';
      if (write(half_done[1], &c, 1) != 1) _exit(3);
      if (read(may_exit[0], &c, 1) != 1) _exit(4);
    }
    _exit(0);  // in the middle of the upload, as far as the daemon knows
  }
  // Scoped so that the parent's client (and its event loop) exists only after the fork.
  char c = 0;
  REQUIRE(read(half_done[0], &c, 1) == 1);
  RawClient client(daemon.address());
  auto session = client.hello("observer");
  {
    capnp::MallocMessageBuilder keep;
    auto s = stats(session, client.ws(), keep);
    REQUIRE(s.getDaemonLiveTensors() == 1);  // the half-written upload's buffer
    REQUIRE(s.getDaemonLiveBytes() == kFloats * 4);
  }
  REQUIRE(write(may_exit[1], &c, 1) == 1);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  REQUIRE(daemon_drains(session, client.ws()));
  for (int fd : {half_done[0], half_done[1], may_exit[0], may_exit[1]}) close(fd);
  Bystander(daemon.address()).check();
  REQUIRE(daemon.stop().clean());
}

TEST_CASE("two sessions run concurrently and each gets its own results") {
  DaemonProcess daemon(DaemonOptions::with_args({"--token", kToken, "--threads", "2"}));
  std::atomic<int> failures{0};
  auto worker = [&](double scale) {
    try {
      RawClient client(daemon.address());
      auto session = client.hello("concurrent");
      for (int i = 0; i < 40; ++i) {
        const double k = scale + i;
        auto response = run_request(session, scaled_arange(4096, k)).send().wait(client.ws());
        auto y = values_of<float>(response.getResults()[0].getData());
        if (y.size() != 4096) ++failures;
        for (int j = 0; j < 4096; ++j) {
          if (y[j] != static_cast<float>(j * k)) {
            ++failures;
            break;
          }
        }
      }
    } catch (...) {
      ++failures;
    }
  };
  std::thread a(worker, 1.0), b(worker, 1000.0);
  a.join();
  b.join();
  REQUIRE(failures == 0);
}

TEST_CASE("a disconnect with queued runs frees everything and cancels the rest") {
  DaemonProcess daemon(with_token());
  {
    RawClient client(daemon.address());
    auto session = client.hello("impatient");
    GraphSpec g;
    g.nodes = {full_node({512, 512}, 0.01),
               {"matmul", {{0, 0}, {0, 0}}, {}},
               {"matmul", {{1, 0}, {1, 0}}, {}},
               {"matmul", {{2, 0}, {2, 0}}, {}}};
    g.outputs = {{3, 0, false}};
    kj::Vector<kj::Promise<void>> runs;
    for (int i = 0; i < 30; ++i) runs.add(run_request(session, g).send().ignoreResult());
    // Make sure the requests left this process before it hangs up.
    session.statsRequest().send().wait(client.ws());
  }
  RawClient client(daemon.address());
  auto session = client.hello("observer");
  REQUIRE(daemon_drains(session, client.ws()));
  // The session closed while its runs waited: they were dropped, not computed for nobody.
  INFO(daemon.output());
  REQUIRE(std::regex_search(daemon.output(),
                            std::regex("session 1 'impatient' closed after [0-9]+ runs, [0-9]+ "
                                       "queued jobs cancelled")));
  Bystander(daemon.address()).check();
  REQUIRE(daemon.stop().clean());
}

}  // namespace
}  // namespace tensord::test
