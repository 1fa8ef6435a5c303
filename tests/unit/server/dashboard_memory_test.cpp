// The dashboard's memory history: a ring of the last 60 samples whose series stay aligned,
// closed sessions kept under their names until their last sample ages out, and at most 16
// sessions' series sent, the rest summed as one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
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

TEST_CASE("at most 16 sessions get a series, the highest peaks; the rest are summed as one") {
  MemoryHistory history;
  // Sessions 1..40, session i holding i KiB at one sample of its own and nothing after (a
  // short session, closed since); session 100 open throughout with 1 byte.
  std::vector<uint64_t> total(40 + 2, 0);  // every session's bytes at each sample
  for (uint64_t i = 1; i <= 40; ++i) {
    history.add(at(i), {{i, "short " + std::to_string(i), i << 10}, {100, "open", 1}}, {});
    total[i - 1] = (i << 10) + 1;
  }
  history.add(at(41), {{100, "open", 1}}, {});
  total[40] = 1;
  total.pop_back();
  const MemoryHistory::Series series = history.series();
  REQUIRE(series.sessions.size() == MemoryHistory::kSessionSeries);
  // The 16 highest peaks, 25..40 KiB, by id; the rest (1..24 and the open session) summed.
  for (size_t k = 0; k < series.sessions.size(); ++k) {
    const uint64_t id = 25 + k;
    CHECK(series.sessions[k].id == id);
    CHECK(series.sessions[k].name == "short " + std::to_string(id));
    CHECK(series.sessions[k].live_bytes == history.live_bytes(id));
  }
  CHECK(series.other_count == 41 - 16);
  REQUIRE(series.other.size() == history.samples().size());
  // The stacked total stays every session's, at each sample.
  for (size_t i = 0; i < series.other.size(); ++i) {
    uint64_t sum = series.other[i];
    for (const auto& s : series.sessions) sum += s.live_bytes.at(i);
    CHECK(sum == total.at(i));
  }
  CHECK(series.other[0] == (1 << 10) + 1);  // session 1 and the open one
  CHECK(series.other[30] == 1);             // session 31 has a series of its own
  CHECK(series.other.back() == 1);

  // Under the cap, every session by id, no other series.
  const MemoryHistory::Series all = history.series(100);
  CHECK(all.sessions.size() == 41);
  CHECK(all.other_count == 0);
  CHECK(all.other.empty());
  // Equal peaks: the lower ids.
  MemoryHistory ties;
  ties.add(at(0), {{7, "c", 5}, {3, "a", 5}, {5, "b", 5}, {9, "d", 1}}, {});
  const MemoryHistory::Series two = ties.series(2);
  REQUIRE(two.sessions.size() == 2);
  CHECK(two.sessions[0].id == 3);
  CHECK(two.sessions[1].id == 5);
  CHECK(two.other == std::vector<uint64_t>{6});
}

TEST_CASE("/api/status's memory history has at most 16 sessions and other_sessions") {
  MemoryHistory history;
  std::vector<MemoryHistory::SessionBytes> open;
  for (uint64_t id = 1; id <= 20; ++id) open.push_back({id, "s", id * 3});
  history.add(at(0), open, {});
  history.add(at(1), open, {});
  nlohmann::json out = nlohmann::json::object();
  tensord::server::memory_sessions_json(history, out);
  REQUIRE(out["sessions"].size() == 16);
  CHECK(out["sessions"][0]["id"] == 5);
  CHECK(out["sessions"][0]["name"] == "s");
  CHECK(out["sessions"][0]["live_bytes"] == nlohmann::json::array({15, 15}));
  CHECK(out["other_sessions"]["count"] == 4);
  CHECK(out["other_sessions"]["live_bytes"] == nlohmann::json::array({30, 30}));  // 3+6+9+12
  // Under the cap, no other_sessions at all.
  nlohmann::json few = nlohmann::json::object();
  tensord::server::memory_sessions_json(history, few, 20);
  CHECK(few["sessions"].size() == 20);
  CHECK_FALSE(few.contains("other_sessions"));
}

// Not run by default: `tensord_unit_server "[bench]"` prints what one sample and one poll's
// series cost with 100 open sessions and a full ring (docs/dashboard.md quotes it).
TEST_CASE("the memory history's cost with 100 sessions", "[.][bench]") {
  using Clock = std::chrono::steady_clock;
  constexpr int kSessions = 100, kRounds = 2000;
  MemoryHistory history;
  std::vector<std::string> names;
  for (int s = 0; s < kSessions; ++s) names.push_back("notebook-" + std::to_string(s));
  std::vector<double> add_us, json_us, uncapped_us;
  size_t json_bytes = 0, uncapped_bytes = 0;
  for (int round = 0; round < kRounds; ++round) {
    // As sample_now: copy each open session's name and bytes, then add (the scheduler's
    // device figures not included).
    const auto t0 = Clock::now();
    std::vector<MemoryHistory::SessionBytes> sessions;
    for (int s = 0; s < kSessions; ++s) {
      sessions.push_back({uint64_t(s + 1), names[s], uint64_t(round + s) << 12});
    }
    history.add(at(round), std::move(sessions), {cuda(1 << 30)});
    const auto t1 = Clock::now();
    add_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    if (round >= int(kN)) {  // a full ring: what each /api/status poll pays for the sessions
      nlohmann::json out = nlohmann::json::object();
      tensord::server::memory_sessions_json(history, out);
      json_bytes = out.dump().size();
      const auto t2 = Clock::now();
      json_us.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
      nlohmann::json all = nlohmann::json::object();  // as before the cap
      tensord::server::memory_sessions_json(history, all, kSessions);
      uncapped_bytes = all.dump().size();
      uncapped_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t2).count());
    }
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf(
      "memory history, %d open sessions, a full ring (medians of %zu samples, %zu polls): "
      "one sample %.1f us; one poll's sessions JSON %.1f us, %zu bytes (uncapped: %.1f us, %zu "
      "bytes)\n",
      kSessions, add_us.size(), json_us.size(), median(add_us), median(json_us), json_bytes,
      median(uncapped_us), uncapped_bytes);
  CHECK(json_bytes < uncapped_bytes);
}
