// The stream-per-session rules of the CUDA backend (engine/backends/cuda/session_streams.h)
// over fake stream ids: lazy creation, idle reuse, the cap, and what a buffer used across
// streams needs (an event wait, record_stream), checked together with the caching allocator
// over host memory.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "engine/backends/cuda/caching_allocator.h"
#include "engine/backends/cuda/session_streams.h"
#include "engine/ir/error.h"

namespace tensord::cuda::test {
namespace {

constexpr StreamId kFallback = 1;

// Hands out stream ids 100, 101, ... and remembers which were destroyed.
struct FakeStreams {
  StreamId next = 100;
  std::vector<StreamId> destroyed;
  SessionStreams make(size_t max_streams = 8) {
    return SessionStreams(
        kFallback, max_streams, [this] { return next++; },
        [this](StreamId s) { destroyed.push_back(s); });
  }
};

}  // namespace

TEST_CASE("each session gets its own stream, created on its first job") {
  FakeStreams fake;
  std::vector<StreamId> destroyed;
  {
    SessionStreams streams = fake.make();
    CHECK(streams.current() == kFallback);
    CHECK(streams.created() == 0);
    const StreamId a = streams.select(7);
    const StreamId b = streams.select(9);
    CHECK(a == 100);
    CHECK(b == 101);
    CHECK(streams.current() == b);
    CHECK(streams.select(7) == a);  // the same session keeps its stream
    CHECK(streams.current() == a);
    CHECK(streams.created() == 2);
    CHECK(streams.sessions() == 2);
    CHECK(streams.select(0) == kFallback);  // work outside sessions
    CHECK(streams.all() == std::vector<StreamId>{kFallback, 100, 101});
  }
  CHECK(fake.destroyed == std::vector<StreamId>{100, 101});
}

TEST_CASE("an ended session's stream goes idle and serves the next new session") {
  FakeStreams fake;
  SessionStreams streams = fake.make();
  const StreamId a = streams.select(1);
  streams.select(2);
  streams.select(1);
  streams.end(1);
  CHECK(streams.current() == kFallback);  // the ended session's stream was current
  CHECK(streams.idle() == 1);
  CHECK(streams.sessions() == 1);
  CHECK(fake.destroyed.empty());  // kept: the allocator's cached blocks are keyed by it
  CHECK(streams.select(3) == a);  // reused, not created
  CHECK(streams.created() == 2);
  CHECK(streams.idle() == 0);
  streams.end(42);  // unknown: ignored
  streams.end(0);
  CHECK(streams.sessions() == 2);
}

TEST_CASE("past max_streams, new sessions share the least used stream") {
  FakeStreams fake;
  SessionStreams streams = fake.make(2);
  const StreamId a = streams.select(1);
  const StreamId b = streams.select(2);
  CHECK(streams.select(3) == a);  // both have one session: the first
  CHECK(streams.select(4) == b);
  CHECK(streams.created() == 2);
  streams.end(3);
  CHECK(streams.current() == b);  // 3 was not current
  streams.end(1);
  CHECK(streams.idle() == 1);
  CHECK(streams.select(5) == a);
}

TEST_CASE("session streams refuse a null fallback, a zero cap and a null created stream") {
  auto create = [] { return StreamId{0}; };
  auto destroy = [](StreamId) {};
  CHECK_THROWS_AS(SessionStreams(0, 4, create, destroy), Error);
  CHECK_THROWS_AS(SessionStreams(kFallback, 0, create, destroy), Error);
  SessionStreams streams(kFallback, 4, create, destroy);
  CHECK_THROWS_WITH(streams.select(1), Catch::Contains("null stream"));
  CHECK(streams.sessions() == 0);  // the failed select assigned nothing
  CHECK(streams.current() == kFallback);
}

TEST_CASE("a buffer used on another stream waits for its last stream and is recorded") {
  StreamUse use{10, 10};  // allocated on stream 10, written there
  UseOrder same = use_on(use, 10);
  CHECK(same.wait_for == 0);
  CHECK_FALSE(same.record);

  UseOrder other = use_on(use, 20);  // session B reads A's tensor
  CHECK(other.wait_for == 10);
  CHECK(other.record);
  CHECK(use.last == 20);

  UseOrder again = use_on(use, 20);  // B again: ordered by its own stream
  CHECK(again.wait_for == 0);
  CHECK(again.record);  // harmless: the allocator keeps a set

  UseOrder back = use_on(use, 10);  // A writes after B's reads: waits for B (write after read)
  CHECK(back.wait_for == 20);
  CHECK_FALSE(back.record);

  // A transfer on the copy stream waits for the last user and changes nothing.
  CHECK(wait_before(use, 30) == 10);
  CHECK(wait_before(use, 10) == 0);
  CHECK(use.last == 10);
  CHECK(wait_before(StreamUse{}, 30) == 0);  // not a tracked buffer
}

namespace {

// Events the test completes by hand (as in allocator_test.cpp).
class ManualEvents final : public StreamEvents {
 public:
  EventId record(StreamId stream) override {
    recorded.push_back(stream);
    live[next] = false;
    return next++;
  }
  bool query(EventId e) override { return live.at(e); }
  void synchronize(EventId e) override { live.at(e) = true; }
  void destroy(EventId e) override { live.erase(e); }
  void complete_all() {
    for (auto& [id, done] : live) done = true;
  }
  std::vector<StreamId> recorded;
  std::map<EventId, bool> live;
  EventId next = 1;
};

}  // namespace

TEST_CASE("a block another session read is reused by its own session only after that read") {
  HostSegmentSource source(size_t{64} << 20);
  ManualEvents events;
  CachingAllocator alloc(source, &events);
  FakeStreams fake;
  SessionStreams streams = fake.make();
  const StreamId a = streams.select(1);
  void* block = alloc.allocate(4096, a);
  StreamUse use{a, a};
  const StreamId b = streams.select(2);
  UseOrder order = use_on(use, b);
  CHECK(order.wait_for == a);
  REQUIRE(order.record);
  alloc.record_stream(block, b);
  alloc.free(block);
  CHECK(events.recorded == std::vector<StreamId>{b});  // the free waits for B's queued read
  void* next = alloc.allocate(4096, a);
  CHECK(next != block);  // B's read may still be running
  events.complete_all();
  alloc.free(next);
  void* third = alloc.allocate(4096, a);
  void* fourth = alloc.allocate(4096, a);
  CHECK((third == block || fourth == block));  // back in A's pool once B's event completed
  alloc.free(third);
  alloc.free(fourth);
}

}  // namespace tensord::cuda::test
