#include "server/dashboard_timeline.h"

#include <algorithm>
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

bool overlaps(const Record& r, const TimeWindow& w) {
  return r.start_ns <= w.to_ns && r.start_ns + r.dur_ns >= w.from_ns;
}

// The longest kTimelineMaxSpans spans in the window, in time order: the ones left out are the
// shortest, which would be under a pixel wide on the page anyway (zooming in brings them back).
json spans_json(const profiler::Trace& t, const TimeWindow& w, size_t& left_out) {
  std::vector<const Record*> spans;
  for (const Record& r : t.records) {
    if (drawn(r) && overlaps(r, w)) spans.push_back(&r);
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

// A point of the memory series: the session's stack from `t_ns` on.
struct Stacked {
  int64_t t_ns = 0;
  profiler::MemoryStack stack;
};

// Which of `points` (those from `from_ns` to `end_ns`) to send: all when they are few, else per
// time bucket the highest one and the last one, so that the peaks survive (the page draws an
// envelope, not a blur).
std::vector<size_t> kept_points(const std::vector<Stacked>& points, int64_t from_ns,
                                int64_t end_ns) {
  std::vector<size_t> kept;
  if (points.size() <= kTimelineMaxPoints) {
    for (size_t i = 0; i < points.size(); ++i) kept.push_back(i);
    return kept;
  }
  const size_t buckets = kTimelineMaxPoints / 2;
  const double per_bucket =
      static_cast<double>(std::max(end_ns, points.back().t_ns) - from_ns + 1) /
      static_cast<double>(buckets);
  size_t bucket = SIZE_MAX, highest = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto b = static_cast<size_t>(
        static_cast<double>(std::max<int64_t>(points[i].t_ns - from_ns, 0)) / per_bucket);
    if (b != bucket) {
      if (bucket != SIZE_MAX) kept.insert(kept.end(), {highest, i - 1});
      bucket = b;
      highest = i;
    }
    if (points[i].stack.total() > points[highest].stack.total()) highest = i;
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
// later point adds the blocks allocated since, in their categories. In a window `w`, the series
// starts at its start with the bytes held then, and has the points within it.
json memory_json(const profiler::Trace& t, int64_t end_ns, const HeldBytes& held,
                 const TimeWindow& w) {
  const std::vector<profiler::MemoryPoint> all = profiler::memory_timeline(t);
  const profiler::MemoryStacker stacker(all, held.before);
  // The start, then each point that changes the stack: segment events move only the reserved
  // bytes, which the page does not draw, and the adopted blocks' Allocs are the start's point.
  std::vector<Stacked> points{{0, stacker.start()}};
  for (const profiler::MemoryPoint& p : all) {
    if (p.adoption) continue;
    const profiler::MemoryStack stack = stacker.at(p);
    if (stack != points.back().stack) points.push_back({p.t_ns, stack});
  }
  bool seen[kCategories] = {};
  for (const Stacked& p : points) {
    for (size_t c = 0; c < kCategories; ++c) seen[c] = seen[c] || p.stack.by_category[c] != 0;
  }
  // The window's points, and the one before them (the start at least): the bytes held then.
  const auto first = std::upper_bound(points.begin() + 1, points.end(), w.from_ns,
                                      [](int64_t at, const Stacked& p) { return at < p.t_ns; });
  const Stacked& at_start = *(first - 1);
  const std::vector<Stacked> in_window(
      first, std::upper_bound(first, points.end(), w.to_ns,
                              [](int64_t at, const Stacked& p) { return at < p.t_ns; }));
  int64_t peak = at_start.stack.total(), peak_ns = w.from_ns;
  for (const Stacked& p : in_window) {
    if (p.stack.total() > peak) std::tie(peak, peak_ns) = std::pair(p.stack.total(), p.t_ns);
  }
  const std::vector<size_t> kept = kept_points(in_window, w.from_ns, std::min(end_ns, w.to_ns));
  std::vector<const Stacked*> drawn_points{&at_start};
  for (size_t k : kept) drawn_points.push_back(&in_window[k]);
  json t_us = json::array({us(w.from_ns)}), allocated = json::array(), by_category = json::object();
  for (size_t i = 1; i < drawn_points.size(); ++i) t_us.push_back(us(drawn_points[i]->t_ns));
  for (const Stacked* p : drawn_points) allocated.push_back(p->stack.total());
  const int64_t before = points.front().stack.held_before;
  if (before > 0) {
    json series = json::array();
    for (const Stacked* p : drawn_points) series.push_back(p->stack.held_before);
    by_category[kHeldBefore] = std::move(series);
  }
  for (size_t c = 0; c < kCategories; ++c) {
    if (!seen[c]) continue;
    json series = json::array();
    for (const Stacked* p : drawn_points) series.push_back(p->stack.by_category[c]);
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
          {"events", in_window.size()},
          {"points_left_out", in_window.size() - kept.size()}};
}

}  // namespace

json profile_timeline(const profiler::Trace& trace, int64_t elapsed_ns, bool memory,
                      const HeldBytes& held, const TimeWindow& window) {
  size_t left_out = 0;
  json spans = spans_json(trace, window, left_out);
  json out = {
      {"duration_us", us(elapsed_ns)}, {"spans", std::move(spans)}, {"spans_left_out", left_out}};
  if (window.from_ns != 0 || window.to_ns != TimeWindow{}.to_ns) {
    out["window"] = {{"from_us", us(window.from_ns)}, {"to_us", us(window.to_ns)}};
  }
  if (memory) out["memory"] = memory_json(trace, elapsed_ns, held, window);
  return out;
}

}  // namespace tensord::server
