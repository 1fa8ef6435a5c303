// Zooming into a dashboard profile: the timeline of a window (the spans that overlap it, the
// memory series from the bytes held at its start), the last few profiles kept in their compact
// chunks, and /api/profile/timeline's answers to good and bad queries.
#include <catch2/catch.hpp>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "server/dashboard_timeline.h"
#include "server/kept_profiles.h"

using nlohmann::json;
using namespace tensord;
using server::TimeWindow;

namespace {

constexpr int64_t kUs = 1000;

profiler::Record step(int64_t start_us, int64_t dur_us) {
  profiler::Record r;
  r.kind = profiler::RecordKind::Span;
  r.stage = static_cast<uint8_t>(profiler::Stage::Step);
  r.name = 1;  // "matmul"
  r.start_ns = start_us * kUs;
  r.dur_ns = dur_us * kUs;
  return r;
}

profiler::Record memory(profiler::RecordKind kind, uint64_t id, uint64_t bytes, int64_t at_us) {
  profiler::Record r;
  r.kind = kind;
  r.stage = static_cast<uint8_t>(profiler::MemoryCategory::Tensor);
  r.id = id;
  r.bytes = bytes;
  r.start_ns = at_us * kUs;
  return r;
}

// Three ops, and two blocks: 100 bytes from 5 to 40 us, 200 from 25 to 70 us; the session
// held 1000 bytes before the profile (none of them tracked). It ran 100 us.
profiler::Pending pending() {
  using K = profiler::RecordKind;
  profiler::Pending p;
  p.strings = {"matmul"};
  p.records = {step(0, 10),
               memory(K::Alloc, 1, 100, 5),
               step(20, 10),
               memory(K::Alloc, 2, 200, 25),
               memory(K::Free, 1, 100, 40),
               step(50, 10),
               memory(K::Free, 2, 200, 70)};
  return p;
}

profiler::Trace trace() {
  profiler::Trace t;
  t.append_chunk(profiler::encode_chunk(pending(), 7));
  return t;
}

std::vector<double> starts(const json& timeline) {
  std::vector<double> out;
  for (const json& s : timeline["spans"]) out.push_back(s["start_us"]);
  return out;
}

server::HeldBytes held() {
  server::HeldBytes h;
  h.before = 1000;
  h.at_end = 1000;
  return h;
}

}  // namespace

TEST_CASE("a window's timeline has the spans that overlap it") {
  const profiler::Trace t = trace();
  const json whole = server::profile_timeline(t, 100 * kUs, false);
  CHECK(starts(whole) == std::vector<double>{0, 20, 50});
  CHECK(!whole.contains("window"));
  const json middle = server::profile_timeline(t, 100 * kUs, false, {}, {15 * kUs, 35 * kUs});
  CHECK(starts(middle) == std::vector<double>{20});
  CHECK(middle["window"] == json{{"from_us", 15.0}, {"to_us", 35.0}});
  CHECK(middle["duration_us"] == 100.0);  // the axis is still the profile's
  // A span cut by either edge is in it.
  CHECK(starts(server::profile_timeline(t, 100 * kUs, false, {}, {25 * kUs, 55 * kUs})) ==
        std::vector<double>{20, 50});
  CHECK(server::profile_timeline(t, 100 * kUs, false, {}, {32 * kUs, 48 * kUs})["spans"].empty());
}

TEST_CASE("a window's memory starts from the bytes held at its start") {
  const profiler::Trace t = trace();
  const json whole = server::profile_timeline(t, 100 * kUs, true, held())["memory"];
  CHECK(whole["t_us"] == json{0.0, 5.0, 25.0, 40.0, 70.0});
  CHECK(whole["allocated"] == json{1000, 1100, 1300, 1200, 1000});
  CHECK(whole["peak_bytes"] == 1300);
  CHECK(whole["peak_us"] == 25.0);

  const json window =
      server::profile_timeline(t, 100 * kUs, true, held(), {30 * kUs, 50 * kUs})["memory"];
  CHECK(window["t_us"] == json{30.0, 40.0});
  CHECK(window["allocated"] == json{1300, 1200});
  CHECK(window["by_category"]["tensor"] == json{300, 200});
  CHECK(window["by_category"]["held_before_profile"] == json{1000, 1000});
  CHECK(window["peak_bytes"] == 1300);  // held at the window's start
  CHECK(window["peak_us"] == 30.0);
  CHECK(window["events"] == 1);
  CHECK(window["held_before"] == 1000);  // the profile's, whatever the window

  // Before anything was allocated: the bytes held when the profile began.
  const json early = server::profile_timeline(t, 100 * kUs, true, held(), {1 * kUs, 4 * kUs});
  CHECK(early["memory"]["t_us"] == json{1.0});
  CHECK(early["memory"]["allocated"] == json{1000});
  CHECK(early["memory"]["by_category"]["tensor"] == json{0});
}

TEST_CASE("a window brings back the short spans the whole profile left out") {
  profiler::Pending p;
  p.strings = {"add"};
  for (int64_t i = 0; i < 3000; ++i) {
    profiler::Record r = step(i, 0);
    r.dur_ns = 1 + i % 500;  // every span under a microsecond
    p.records.push_back(r);
  }
  profiler::Trace t;
  t.append_chunk(profiler::encode_chunk(p, 1));
  const json whole = server::profile_timeline(t, 3000 * kUs, false);
  CHECK(whole["spans"].size() == server::kTimelineMaxSpans);
  CHECK(whole["spans_left_out"] == 1000);
  // The first 100 us: every one of its spans, though most were among the shortest.
  const json zoomed = server::profile_timeline(t, 3000 * kUs, false, {}, {0, 99 * kUs + 600});
  CHECK(zoomed["spans"].size() == 100);
  CHECK(zoomed["spans_left_out"] == 0);
}

TEST_CASE("the dashboard keeps its last few profiles") {
  server::KeptProfiles kept;
  for (uint64_t i = 1; i <= server::KeptProfiles::kMaxProfiles + 1; ++i) {
    server::KeptProfile p;
    p.session = 10 + i;
    CHECK(kept.keep(std::move(p)) == i);
  }
  CHECK(kept.find(1) == nullptr);  // the oldest went
  REQUIRE(kept.find(2) != nullptr);
  CHECK(kept.find(2)->session == 12);
  CHECK(kept.find(2)->id == 2);
  CHECK(kept.find(99) == nullptr);
}

TEST_CASE("/api/profile/timeline answers a window of a kept profile, and refuses bad queries") {
  server::KeptProfiles kept;
  server::KeptProfile p;
  p.session = 7;
  p.memory = true;
  p.elapsed_ns = 100 * kUs;
  p.held = held();
  p.chunks.push_back(profiler::encode_chunk(pending(), 7));
  const uint64_t id = kept.keep(std::move(p));
  const std::string base = "id=" + std::to_string(id);

  server::DashboardAnswer a = server::profile_window(kept, base + "&from_us=15&to_us=35");
  REQUIRE(a.status == 200);
  json body = json::parse(a.body);
  CHECK(body["id"] == id);
  CHECK(body["session"] == 7);
  CHECK(starts(body["timeline"]) == std::vector<double>{20});
  CHECK(body["timeline"]["memory"]["t_us"] == json{15.0, 25.0});

  // A bound past the end is the end; no bounds: the whole profile.
  a = server::profile_window(kept, base + "&from_us=45&to_us=1e12");
  REQUIRE(a.status == 200);
  CHECK(json::parse(a.body)["timeline"]["window"]["to_us"] == 100.0);
  a = server::profile_window(kept, base);
  REQUIRE(a.status == 200);
  CHECK(starts(json::parse(a.body)["timeline"]) == std::vector<double>{0, 20, 50});

  for (const std::string& bad : std::vector<std::string>{
           "", "id=x", base + "&from_us=-1", base + "&from_us=nan", base + "&to_us=inf",
           base + "&from_us=30&to_us=20", base + "&from_us=100", base + "&from_us="}) {
    INFO(bad);
    a = server::profile_window(kept, bad);
    CHECK(a.status == 400);
    CHECK(!json::parse(a.body)["error"].get<std::string>().empty());
  }
  a = server::profile_window(kept, "id=99");
  CHECK(a.status == 404);
  CHECK(json::parse(a.body)["error"] == "no profile 99: the dashboard keeps its last 4");
}
