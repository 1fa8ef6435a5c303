// The dashboard's memory history: a ring of the last 60 samples whose series stay aligned, and
// closed sessions kept under their names until their last sample ages out.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "server/dashboard_memory.h"

using tensord::server::MemoryHistory;

namespace {

constexpr size_t kN = MemoryHistory::kSamples;

MemoryHistory::Clock::time_point at(int64_t second) {
  return MemoryHistory::Clock::time_point{} + std::chrono::seconds(second);
}

MemoryHistory::DeviceMemory cuda(int64_t reserved) {
  MemoryHistory::DeviceMemory d;
  d.allocated = reserved / 2;
  d.reserved = reserved;
  return d;
}

}  // namespace

TEST_CASE("the memory history keeps the last 60 samples") {
  MemoryHistory history;
  for (size_t i = 0; i < kN + 15; ++i) {
    history.add(at(i), {{1, "a", i * 10}}, {cuda(i * 100)});
    REQUIRE(history.samples().size() == std::min(i + 1, kN));
  }
  CHECK(history.samples().front().at == at(15));  // the oldest kept
  CHECK(history.samples().back().at == at(kN + 14));
  CHECK(history.samples().front().number == 15);
  CHECK(*history.samples().front().devices.at(0).reserved == 1500);
  const std::vector<uint64_t> a = history.live_bytes(1);
  REQUIRE(a.size() == kN);
  CHECK(a.front() == 150);
  CHECK(a.back() == (kN + 14) * 10);
}

TEST_CASE("sessions' series are aligned with the samples, 0 where a session was not open") {
  MemoryHistory history;
  history.add(at(0), {{1, "a", 5}}, {});
  history.add(at(1), {{2, "b", 7}, {1, "a", 6}}, {});  // in any order
  history.add(at(2), {{2, "b", 8}}, {});               // a closed
  history.add(at(3), {}, {});
  CHECK(history.live_bytes(1) == std::vector<uint64_t>{5, 6, 0, 0});
  CHECK(history.live_bytes(2) == std::vector<uint64_t>{0, 7, 8, 0});
  CHECK(history.live_bytes(99) == std::vector<uint64_t>{0, 0, 0, 0});
  REQUIRE(history.sessions().size() == 2);
  CHECK(history.sessions().at(1).name == "a");
  CHECK(history.sessions().at(2).name == "b");
}

TEST_CASE("a closed session stays in the history until its last sample ages out") {
  MemoryHistory history;
  history.add(at(0), {{1, "gone <b>soon</b>", 1 << 20}, {2, "stays", 1}}, {});
  for (size_t i = 1; i < kN; ++i) {
    history.add(at(i), {{2, "stays", 1}}, {});
    REQUIRE(history.sessions().count(1) == 1);  // its one sample is still in the window
  }
  CHECK(history.live_bytes(1).front() == 1 << 20);
  CHECK(history.sessions().at(1).name == "gone <b>soon</b>");
  history.add(at(kN), {{2, "stays", 1}}, {});
  CHECK(history.sessions().count(1) == 0);  // aged out with it
  CHECK(history.sessions().count(2) == 1);
  CHECK(history.sessions().at(2).last == kN);
  // An id seen again later (ids are not reused; the ring does not care) starts afresh.
  history.add(at(kN + 1), {{1, "again", 3}}, {});
  CHECK(history.sessions().at(1).name == "again");
  CHECK(history.live_bytes(1).back() == 3);
}
