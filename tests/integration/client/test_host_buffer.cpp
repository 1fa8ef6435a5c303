// HostBuffer and the same-host transfers of the C++ client: sealed memfds, from_buffer and
// fetch_buffer through shared memory on the unix socket and in chunks over TCP, large
// from_bytes uploads, and the progress observer.
#include <fcntl.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tensord/host_buffer.h"
#include "tests/integration/client/client_fixture.h"

using tensord::HostBuffer;
using tensord::TransferProgress;
using tensord::ir::DType;
using tensord::test::ClientFixture;

namespace {

std::shared_ptr<HostBuffer> pattern_buffer(size_t n) {
  auto b = std::make_shared<HostBuffer>(n);
  for (size_t i = 0; i < n; ++i) b->data()[i] = std::byte(static_cast<uint8_t>(i % 251));
  return b;
}

bool same_bytes(const HostBuffer& a, const HostBuffer& b) {
  return a.size() == b.size() && (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

}  // namespace

TEST_CASE("a HostBuffer is a sealed memfd of its size", "[client]") {
  for (size_t n : {size_t{0}, size_t{1}, size_t{5} << 20}) {
    HostBuffer b(n);
    CHECK(b.size() == n);
    int seals = fcntl(b.fd(), F_GET_SEALS);
    CHECK((seals & F_SEAL_SHRINK) != 0);
    CHECK((seals & F_SEAL_GROW) != 0);
    if (n > 0) {
      b.data()[n - 1] = std::byte{9};
      CHECK(b.data()[n - 1] == std::byte{9});
    }
  }
}

// Every size through `s`: host data fetched back, and a value computed on the daemon.
static bool round_trips(tensord::Session& s) {
  bool ok = true;
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, (size_t{9} << 20) + 3}) {
    auto in = pattern_buffer(n);
    auto x = s.from_buffer(DType::UInt8, {static_cast<int64_t>(n)}, in);
    auto y = x.astype(DType::Int16).astype(DType::UInt8);
    ok = ok && same_bytes(*tensord::fetch_buffer(x), *in);
    ok = ok && same_bytes(*tensord::fetch_buffer(y), *in);
    ok = ok && y.to_vector<uint8_t>().size() == n;
  }
  return ok;
}

TEST_CASE("buffers go up and come back through shared memory and over TCP", "[client]") {
  ClientFixture f(tensord::test::DaemonOptions::with_args({"--listen", "tcp:127.0.0.1:0"}));
  CHECK(round_trips(f.session));
  // A thread has one session at a time: the TCP session gets its own.
  bool tcp_ok = false;
  std::string address = tensord::test::tcp_address(f.daemon);
  std::thread t([&] {
    auto tcp = tensord::connect(address);
    tcp_ok = round_trips(tcp);
  });
  t.join();
  CHECK(tcp_ok);
}

TEST_CASE("large host vectors upload through shared memory on a unix socket", "[client]") {
  ClientFixture f;
  std::vector<float> values((size_t{3} << 20) + 5);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 1000);
  auto y = f.session.from_vector<float>(values) * 2.0f;
  auto out = y.to_vector<float>();
  REQUIRE(out.size() == values.size());
  CHECK(out[values.size() - 1] == values.back() * 2);
}

TEST_CASE("the transfer observer sees each large transfer from 0 to its total", "[client]") {
  ClientFixture f;
  std::vector<TransferProgress> seen;
  f.session.on_transfer([&](const TransferProgress& p) { seen.push_back(p); });
  const size_t n = size_t{20} << 20;
  auto x = f.session.from_buffer(DType::UInt8, {static_cast<int64_t>(n)}, pattern_buffer(n));
  auto out = tensord::fetch_buffer(x.astype(DType::Int16));
  REQUIRE(seen.size() >= 4);
  CHECK((seen.front().upload && seen.front().done == 0 && seen.front().total == n));
  CHECK((!seen.back().upload && seen.back().done == 2 * n && seen.back().total == 2 * n));
  seen.clear();
  x.astype(DType::Int32).to_vector<int32_t>();  // over one chunk: read in chunks, reported too
  CHECK(!seen.empty());
  f.session.on_transfer(nullptr);
  seen.clear();
  tensord::fetch_buffer(x.astype(DType::Int64));
  CHECK(seen.empty());
}

TEST_CASE("a buffer of the wrong size is a shape error", "[client]") {
  ClientFixture f;
  CHECK_THROWS_AS(f.session.from_buffer(DType::Float32, {3}, std::make_shared<HostBuffer>(11)),
                  tensord::Error);
  CHECK_THROWS_AS(f.session.from_buffer(DType::Float32, {3}, nullptr), tensord::Error);
}
