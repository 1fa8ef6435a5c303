// Addresses, threads and sessions.
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <optional>
#include <thread>

#include "tests/integration/client/client_fixture.h"

using tensord::ErrorCode;
using tensord::test::ClientFixture;
using tensord::test::DaemonProcess;

namespace {

// A port the kernel just handed out and took back; the daemon binds it right after.
int free_tcp_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace

TEST_CASE("hello reports the daemon's version and devices", "[client]") {
  ClientFixture f;
  const auto& info = f.session.info();
  CHECK(info.protocol_major == 1);
  CHECK_FALSE(info.daemon_version.empty());
  REQUIRE_FALSE(info.devices.empty());
  CHECK(info.devices[0].kind == "cpu");
  CHECK(info.max_chunk_bytes > 0);
}

TEST_CASE("a tcp: address works like a unix socket", "[client]") {
  std::string tcp = "tcp:127.0.0.1:" + std::to_string(free_tcp_port());
  tensord::test::DaemonOptions options;
  options.args = {"--listen", tcp};
  DaemonProcess daemon(options);
  auto s = tensord::connect(tcp);
  auto y = (s.from_vector<int32_t>({1, 2, 3}) * 2).sum();
  CHECK(y.item<int64_t>() == 12);
}

TEST_CASE("two sessions on two threads at once", "[client]") {
  DaemonProcess daemon;
  std::atomic<int> correct{0};
  auto work = [&](float scale) {
    try {
      auto s = tensord::connect(daemon.address());
      auto x = s.arange(0, 1000, 1, tensord::ir::DType::Float32);
      for (int round = 0; round < 20; ++round) {
        auto y = (x * scale).sum();
        if (y.item<float>() == scale * 499500.0f) ++correct;
      }
    } catch (const std::exception& e) {
      WARN(e.what());
    }
  };
  std::thread one(work, 1.0f);
  std::thread two(work, 2.0f);
  one.join();
  two.join();
  CHECK(correct == 40);
}

TEST_CASE("one session per thread; tensors of different sessions do not mix", "[client]") {
  ClientFixture f;
  CHECK_THROWS_MATCHES(tensord::connect(f.daemon.address()), tensord::Error,
                       Catch::Predicate<tensord::Error>([](const tensord::Error& e) {
                         return e.code() == ErrorCode::Unsupported;
                       }));
  auto mine = f.session.full({1}, 1.0f);
  bool mixed_failed = false;
  std::thread([&] {
    auto s2 = tensord::connect(f.daemon.address());
    auto theirs = s2.full({1}, 1.0f);
    try {
      auto bad = theirs + mine;  // fails at record time: nothing is sent, nothing is created
    } catch (const tensord::Error& e) {
      mixed_failed = e.code() == ErrorCode::InvalidGraph;
    }
    CHECK(theirs.item<float>() == 1.0f);
  }).join();
  CHECK(mixed_failed);
  CHECK(mine.item<float>() == 1.0f);
}

TEST_CASE("a session released on another thread is kept, not destroyed there", "[client]") {
  ClientFixture f;
  std::optional<tensord::Session> theirs;
  std::optional<tensord::Tensor> x;
  std::thread([&] {  // opens a session, hands it out and ends
    theirs = tensord::connect(f.daemon.address());
    x = theirs->full({1}, 2.0f);
    theirs->sync({*x});
  })
      .join();
  CHECK_THROWS_MATCHES(x->item<float>(), tensord::Error,
                       Catch::Predicate<tensord::Error>([](const tensord::Error& e) {
                         return e.code() == ErrorCode::Unsupported;
                       }));
  // The last references go here, on a thread without that session's event loop: destroying
  // its capabilities here would abort.
  x.reset();
  theirs.reset();
  CHECK((f.session.full({1}, 3.0f) * 2.0f).item<float>() == 6.0f);
}

TEST_CASE("connection failures and bad addresses", "[client]") {
  CHECK_THROWS_MATCHES(tensord::connect("unix:/nonexistent/tensord.sock"), tensord::Error,
                       Catch::Predicate<tensord::Error>([](const tensord::Error& e) {
                         return e.code() == ErrorCode::Cancelled;
                       }));
  CHECK_THROWS_MATCHES(tensord::connect("http://localhost"), tensord::Error,
                       Catch::Predicate<tensord::Error>([](const tensord::Error& e) {
                         return e.code() == ErrorCode::Unsupported;
                       }));
}

TEST_CASE("default_address follows TENSORD_ADDRESS, then XDG_RUNTIME_DIR", "[client]") {
  const char* saved_address = std::getenv("TENSORD_ADDRESS");
  const char* saved_runtime = std::getenv("XDG_RUNTIME_DIR");
  std::string address = saved_address ? saved_address : "";
  std::string runtime = saved_runtime ? saved_runtime : "";

  setenv("TENSORD_ADDRESS", "tcp:10.0.0.1:7070", 1);
  CHECK(tensord::default_address() == "tcp:10.0.0.1:7070");
  unsetenv("TENSORD_ADDRESS");
  setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
  CHECK(tensord::default_address() == "unix:/run/user/1000/tensord.sock");
  unsetenv("XDG_RUNTIME_DIR");
  CHECK(tensord::default_address() == "unix:/tmp/tensord-" + std::to_string(getuid()) + ".sock");

  if (saved_address) setenv("TENSORD_ADDRESS", address.c_str(), 1);
  if (saved_runtime) setenv("XDG_RUNTIME_DIR", runtime.c_str(), 1);
}

TEST_CASE("a daemon that dies ends the session with Cancelled errors", "[client]") {
  DaemonProcess daemon;
  auto s = tensord::connect(daemon.address());
  auto y = s.from_vector<float>({1, 2}) + 1.0f;
  s.sync({y});
  daemon.kill();

  auto cancelled = Catch::Predicate<tensord::Error>(
      [](const tensord::Error& e) { return e.code() == ErrorCode::Cancelled; });
  auto z = y * 2.0f;
  int line = 0;
  try {
    line = __LINE__ + 1;
    z.to_vector<float>();
    FAIL("ran without a daemon");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == ErrorCode::Cancelled);
    CHECK(e.message().starts_with("the connection was lost: "));
    CHECK(e.where().line == static_cast<uint32_t>(line));  // the sync point's line
  }
  CHECK_THROWS_MATCHES(y.to_vector<float>(), tensord::Error, cancelled);
  CHECK_THROWS_MATCHES(s.stats(), tensord::Error, cancelled);
}
