#include "server/dashboard_timeline.h"

#include <algorithm>
#include <array>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/profiler/chrome.h"
#include "engine/profiler/summary.h"

namespace tensord::server {
namespace {

using nlohmann::json;
using profiler::Record;
using profiler::RecordKind;

constexpr size_t kCategories = static_cast<size_t>(profiler::MemoryCategory::kCount);

double us(int64_t ns) {
  return static_cast<double>(ns) / 1e3;
}

bool drawn(const Record& r) {
  return r.kind == RecordKind::Span || r.kind == RecordKind::Kernel || r.kind == RecordKind::Memcpy;
}

json span_json(const profiler::Trace& t, const Record& r) {
  std::string stage, name;
  if (r.kind == RecordKind::Span) {
    const auto s = static_cast<profiler::Stage>(r.stage);
    stage = profiler::stage_name(s);
    name = s == profiler::Stage::Step && r.name != 0 ? t.str(r.name) : stage;
  } else if (r.kind == RecordKind::Kernel) {
    stage = "kernel";
    name = t.str(r.name);
  } else {
    stage = "memcpy";
    name = profiler::memcpy_name(r);
  }
  json span = {{"start_us", us(r.start_ns)},
               {"duration_us", us(r.dur_ns)},
               {"name", std::move(name)},
               {"stage", std::move(stage)},
               {"source", r.file == 0 ? "" : t.str(r.file) + ":" + std::to_string(r.line)},
               {"request", r.request}};
  // The page gives each of a GPU's streams a lane of its own.
  if (r.thread >= profiler::kGpuStreamThread) {
    span["stream"] = r.thread - profiler::kGpuStreamThread;
  }
  return span;
}

// The longest kTimelineMaxSpans spans, in time order: the ones left out are the shortest, which
// would be under a pixel wide on the page anyway.
json spans_json(const profiler::Trace& t, size_t& left_out) {
  std::vector<const Record*> spans;
  for (const Record& r : t.records) {
    if (drawn(r)) spans.push_back(&r);
  }
  left_out = spans.size() > kTimelineMaxSpans ? spans.size() - kTimelineMaxSpans : 0;
  if (left_out > 0) {
    std::nth_element(spans.begin(), spans.begin() + kTimelineMaxSpans, spans.end(),
                     [](const Record* a, const Record* b) { return a->dur_ns > b->dur_ns; });
    spans.resize(kTimelineMaxSpans);
  }
  std::stable_sort(spans.begin(), spans.end(), [](const Record* a, const Record* b) {
    return a->start_ns != b->start_ns ? a->start_ns < b->start_ns : a->dur_ns > b->dur_ns;
  });
  json out = json::array();
  for (const Record* r : spans) out.push_back(span_json(t, *r));
  return out;
}

// Which of `points` to send: all when they are few, else per time bucket the highest one and the
// last one, so that the peaks survive (the page draws an envelope, not a blur).
std::vector<size_t> kept_points(const std::vector<const profiler::MemoryPoint*>& points,
                                int64_t end_ns) {
  std::vector<size_t> kept;
  if (points.size() <= kTimelineMaxPoints) {
    for (size_t i = 0; i < points.size(); ++i) kept.push_back(i);
    return kept;
  }
  const size_t buckets = kTimelineMaxPoints / 2;
  const double per_bucket =
      static_cast<double>(std::max(end_ns, points.back()->t_ns) + 1) / static_cast<double>(buckets);
  size_t bucket = SIZE_MAX, highest = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto b = static_cast<size_t>(static_cast<double>(std::max<int64_t>(points[i]->t_ns, 0)) /
                                       per_bucket);
    if (b != bucket) {
      if (bucket != SIZE_MAX) kept.insert(kept.end(), {highest, i - 1});
      bucket = b;
      highest = i;
    }
    if (points[i]->total() > points[highest]->total()) highest = i;
  }
  kept.insert(kept.end(), {highest, points.size() - 1});
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  return kept;
}

// The series starts with a point at 0, the profile's start, holding what the session held then
// (`held.before`, its account's bytes), in a category of its own, kHeldBefore. Of those bytes,
// the blocks the ledger tracks (allocated while an earlier profile recorded memory) are adopted
// by this profile (Alloc flagged kExisting): the band drops as they are freed. The rest the
// ledger never saw, and the profile records none of their frees: that part stays flat. Every
// later point adds the blocks allocated since, in their categories.
json memory_json(const profiler::Trace& t, int64_t end_ns, const HeldBytes& held) {
  const std::vector<profiler::MemoryPoint> all = profiler::memory_timeline(t);
  // Adopted Allocs come first (at the profile's start): the sum once they are all in.
  int64_t adopted_start = 0;
  for (const profiler::MemoryPoint& p : all) {
    adopted_start = std::max(adopted_start, p.held_before_total());
  }
  // What the page draws at a point: the categories less the adopted blocks, and those.
  auto stacked = [](const profiler::MemoryPoint& p) {
    std::array<int64_t, kCategories + 1> d{};
    for (size_t c = 0; c < kCategories; ++c) d[c] = p.live_bytes[c] - p.held_before_bytes[c];
    d[kCategories] = p.held_before_total();
    return d;
  };
  // Segment events move only the reserved bytes, which the page does not draw; the adopted
  // blocks' Allocs are the start's point.
  std::vector<const profiler::MemoryPoint*> points;
  std::array<int64_t, kCategories + 1> last{};
  last[kCategories] = adopted_start;
  for (const profiler::MemoryPoint& p : all) {
    if (p.adoption) continue;
    const std::array<int64_t, kCategories + 1> d = stacked(p);
    if (d == last) continue;
    points.push_back(&p);
    last = d;
  }
  // Adopted blocks the profile saw at its start: they were part of the account's bytes then.
  const int64_t untracked = std::max<int64_t>(0, static_cast<int64_t>(held.before) - adopted_start);
  const int64_t before = untracked + adopted_start;
  int64_t peak = before, peak_ns = 0;
  bool seen[kCategories] = {};
  for (const profiler::MemoryPoint* p : points) {
    if (untracked + p->total() > peak)
      std::tie(peak, peak_ns) = std::pair(untracked + p->total(), p->t_ns);
    for (size_t c = 0; c < kCategories; ++c)
      seen[c] = seen[c] || p->live_bytes[c] - p->held_before_bytes[c] != 0;
  }
  const std::vector<size_t> kept = kept_points(points, end_ns);
  json t_us = json::array({0.0}), allocated = json::array({before}), by_category = json::object();
  for (size_t k : kept) {
    t_us.push_back(us(points[k]->t_ns));
    allocated.push_back(untracked + points[k]->total());
  }
  if (before > 0) {
    json series = json::array({before});
    for (size_t k : kept) series.push_back(untracked + points[k]->held_before_total());
    by_category[kHeldBefore] = std::move(series);
  }
  for (size_t c = 0; c < kCategories; ++c) {
    if (!seen[c]) continue;
    json series = json::array({0});
    for (size_t k : kept)
      series.push_back(points[k]->live_bytes[c] - points[k]->held_before_bytes[c]);
    by_category[std::string(profiler::category_name(static_cast<profiler::MemoryCategory>(c)))] =
        std::move(series);
  }
  return {{"t_us", std::move(t_us)},
          {"allocated", std::move(allocated)},
          {"by_category", std::move(by_category)},
          {"held_before", before},
          {"held_before_by", held.before_by},
          {"held_at_end", held.at_end},
          {"peak_bytes", peak},
          {"peak_us", us(peak_ns)},
          {"events", points.size()},
          {"points_left_out", points.size() - kept.size()}};
}

}  // namespace

json profile_timeline(const profiler::Trace& trace, int64_t elapsed_ns, bool memory,
                      const HeldBytes& held) {
  size_t left_out = 0;
  json spans = spans_json(trace, left_out);
  json out = {
      {"duration_us", us(elapsed_ns)}, {"spans", std::move(spans)}, {"spans_left_out", left_out}};
  if (memory) out["memory"] = memory_json(trace, elapsed_ns, held);
  return out;
}

}  // namespace tensord::server
