// HostBuffer and the same-host transfers of the C++ client: sealed memfds, from_buffer and
// fetch_buffer through shared memory on the unix socket and in chunks over TCP, large
// from_bytes uploads, and the progress observer.
#include <fcntl.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "client/cpp/src/host_buffer_pool.h"
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

TEST_CASE("the host buffer pool reuses released buffers of the same size", "[client][pool]") {
  constexpr size_t MiB = size_t{1} << 20;
  tensord::detail::HostBufferPool pool(16 * MiB);
  std::byte* first = nullptr;
  {
    auto a = pool.acquire(3 * MiB);
    first = a->data();
    CHECK(a->size() == 3 * MiB);
  }
  CHECK(pool.stats().pooled_bytes == 3 * MiB);
  auto other_size = pool.acquire(3 * MiB + 1);  // exact sizes only
  CHECK(other_size->size() == 3 * MiB + 1);
  auto again = pool.acquire(3 * MiB);
  CHECK(again->data() == first);
  CHECK(pool.stats().hits == 1);
  CHECK(pool.stats().misses == 2);
  { auto small = pool.acquire(100); }  // below kMinBytes: not pooled
  CHECK(pool.stats().pooled_bytes == 0);

  // Beyond the capacity the oldest buffers go; released from another thread; outliving the pool.
  {
    auto b1 = pool.acquire(6 * MiB), b2 = pool.acquire(6 * MiB), b3 = pool.acquire(6 * MiB);
    std::thread([&] { b1.reset(); }).join();
  }
  CHECK(pool.stats().pooled_bytes <= 16 * MiB);
  std::shared_ptr<HostBuffer> survivor;
  {
    tensord::detail::HostBufferPool short_lived(16 * MiB);
    survivor = short_lived.acquire(2 * MiB);
  }
  std::memset(survivor->data(), 1, survivor->size());
}

TEST_CASE("same-sized fetches reuse the session's buffers; the bytes stay right",
          "[client][pool]") {
  ClientFixture f;
  auto& s = f.session;
  const size_t n = size_t{3} << 20;
  auto filled = s.host_buffer(n);
  for (size_t i = 0; i < n; ++i) filled->data()[i] = std::byte(static_cast<uint8_t>(i % 253));
  auto t = s.from_buffer(DType::UInt8, {static_cast<int64_t>(n)}, filled);
  auto doubled = t.astype(DType::Int32) * 2;
  s.sync({t, doubled});
  // A buffer returns once the daemon lets go of it too (a message later), so a loop of fetches
  // alternates between two buffers at most.
  std::set<std::byte*> seen;
  for (int i = 0; i < 5; ++i) {
    auto fetched = tensord::fetch_buffer(t);
    CHECK(same_bytes(*fetched, *filled));
    seen.insert(fetched->data());
  }
  CHECK(seen.size() <= 2);
  auto ints = doubled.to_vector<int32_t>();
  CHECK(ints[n - 1] == 2 * static_cast<int32_t>((n - 1) % 253));
}
