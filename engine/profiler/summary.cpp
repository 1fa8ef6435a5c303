#include "engine/profiler/summary.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_set>

namespace tensord::profiler {
namespace {

std::string key_of(const Trace& t, const Record& r) {
  auto stage = static_cast<Stage>(r.stage);
  if (stage == Stage::Step && r.name != 0) return t.str(r.name);
  // Appended piecewise: GCC 12 warns (-Wrestrict, a false positive) on "[" + string.
  std::string key(1, '[');
  key.append(stage_name(stage));
  key.push_back(']');
  return key;
}

}  // namespace

std::vector<KeyAverage> key_averages(const Trace& t) {
  // Spans per thread by start (longer first on ties), so a parent precedes what it contains.
  std::vector<const Record*> spans;
  for (const Record& r : t.records) {
    if (r.kind == RecordKind::Span) spans.push_back(&r);
  }
  std::sort(spans.begin(), spans.end(), [](const Record* a, const Record* b) {
    if (a->thread != b->thread) return a->thread < b->thread;
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns;
    return a->dur_ns > b->dur_ns;
  });
  std::map<std::string, KeyAverage> rows;
  std::map<std::string, int64_t> longest;
  std::vector<std::pair<const Record*, KeyAverage*>> stack;
  for (const Record* r : spans) {
    while (!stack.empty() &&
           (stack.back().first->thread != r->thread ||
            stack.back().first->start_ns + stack.back().first->dur_ns <= r->start_ns)) {
      stack.pop_back();
    }
    std::string key = key_of(t, *r);
    KeyAverage& row = rows[key];
    row.key = key;
    row.calls++;
    row.total_ns += r->dur_ns;
    row.self_ns += r->dur_ns;
    if (!stack.empty()) stack.back().second->self_ns -= r->dur_ns;
    if (r->file != 0 && r->dur_ns >= longest[key]) {
      longest[key] = r->dur_ns;
      row.source = t.str(r->file) + ":" + std::to_string(r->line);
    }
    stack.emplace_back(r, &row);
  }
  for (const Record& r : t.records) {
    // An Alloc flagged kExisting is a block held when the profile began, not allocated in it.
    if (r.kind != RecordKind::Alloc || r.name == 0 || (r.flags & kExisting) != 0) continue;
    auto it = rows.find(t.str(r.name));
    if (it != rows.end()) it->second.alloc_bytes += r.bytes;
  }
  std::vector<KeyAverage> out;
  for (auto& [k, row] : rows) out.push_back(std::move(row));
  std::sort(out.begin(), out.end(), [](const KeyAverage& a, const KeyAverage& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.key < b.key;
  });
  return out;
}

int64_t MemoryPoint::total() const {
  return std::accumulate(std::begin(live_bytes), std::end(live_bytes), int64_t{0});
}

int64_t MemoryPoint::held_before_total() const {
  return std::accumulate(std::begin(held_before_bytes), std::end(held_before_bytes), int64_t{0});
}

std::vector<MemoryPoint> memory_timeline(const Trace& t) {
  std::vector<const Record*> events;
  for (const Record& r : t.records) {
    if (r.kind == RecordKind::Alloc || r.kind == RecordKind::Free ||
        r.kind == RecordKind::SegmentAlloc || r.kind == RecordKind::SegmentFree) {
      events.push_back(&r);
    }
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Record* a, const Record* b) { return a->start_ns < b->start_ns; });
  std::vector<MemoryPoint> out;
  std::unordered_set<uint64_t> held_before;  // ids of adopted blocks still live
  MemoryPoint p;
  for (const Record* r : events) {
    size_t c = r->stage < static_cast<size_t>(MemoryCategory::kCount) ? r->stage : 0;
    p.t_ns = r->start_ns;
    p.adoption = false;
    if (r->kind == RecordKind::SegmentAlloc || r->kind == RecordKind::SegmentFree) {
      const int64_t delta = r->kind == RecordKind::SegmentAlloc ? static_cast<int64_t>(r->bytes)
                                                                : -static_cast<int64_t>(r->bytes);
      p.reserved_bytes += delta;
      p.reserved_by_category[c] += delta;
      out.push_back(p);
      continue;
    }
    const auto bytes = static_cast<int64_t>(r->bytes);
    if (r->kind == RecordKind::Alloc) {
      p.live_bytes[c] += bytes;
      p.adoption = (r->flags & kExisting) != 0 && (r->flags & kDeviceOwned) == 0 &&
                   held_before.insert(r->id).second;
      if (p.adoption) p.held_before_bytes[c] += bytes;
    } else {
      p.live_bytes[c] -= bytes;
      if (held_before.erase(r->id) != 0) p.held_before_bytes[c] -= bytes;
    }
    out.push_back(p);
  }
  return out;
}

int64_t MemoryStack::total() const {
  return std::accumulate(std::begin(by_category), std::end(by_category), held_before);
}

MemoryStacker::MemoryStacker(const std::vector<MemoryPoint>& timeline, uint64_t held_before) {
  // Adopted Allocs come first (at the profile's start): the sum once they are all in.
  for (const MemoryPoint& p : timeline) {
    adopted_ = std::max(adopted_, p.held_before_total());
    if (p.adoption) adopted_at_ns_ = std::max(adopted_at_ns_, p.t_ns);
  }
  untracked_ = std::max<int64_t>(0, static_cast<int64_t>(held_before) - adopted_);
}

MemoryStack MemoryStacker::start() const {
  MemoryStack s;
  s.held_before = untracked_ + adopted_;
  return s;
}

MemoryStack MemoryStacker::at(const MemoryPoint& p) const {
  MemoryStack s;
  // Up to the adoption (the segments held at the start come first), all of them are held.
  s.held_before = untracked_ + (p.t_ns <= adopted_at_ns_ ? adopted_ : p.held_before_total());
  for (size_t c = 0; c < std::size(s.by_category); ++c) {
    s.by_category[c] = p.live_bytes[c] - p.held_before_bytes[c];
  }
  return s;
}

std::vector<CategorySummary> memory_summary(const Trace& t) {
  constexpr size_t n = static_cast<size_t>(MemoryCategory::kCount);
  std::vector<CategorySummary> out(n);
  for (size_t c = 0; c < n; ++c) out[c].category = static_cast<MemoryCategory>(c);
  for (const MemoryPoint& p : memory_timeline(t)) {
    for (size_t c = 0; c < n; ++c) {
      out[c].allocated = p.live_bytes[c];
      out[c].peak_allocated = std::max(out[c].peak_allocated, p.live_bytes[c]);
      out[c].reserved = p.reserved_by_category[c];
      out[c].peak_reserved = std::max(out[c].peak_reserved, p.reserved_by_category[c]);
    }
  }
  for (const Record& r : t.records) {
    const size_t c = r.stage < n ? r.stage : 0;
    if (r.kind == RecordKind::Alloc && (r.flags & kExisting) == 0) out[c].allocs++;
    if (r.kind == RecordKind::Free && (r.flags & kDeferredFree)) out[c].pending_frees++;
  }
  return out;
}

MemorySnapshot memory_snapshot_of(const Trace& t) {
  std::vector<LiveSegment> segments;
  std::vector<LiveBlock> blocks;
  for (const Record& r : t.records) {
    auto category = static_cast<MemoryCategory>(
        r.stage < static_cast<uint8_t>(MemoryCategory::kCount) ? r.stage : 0);
    if (r.kind == RecordKind::SegmentAlloc) {
      segments.push_back(LiveSegment{r.address, r.bytes, r.stream, category});
    } else if (r.kind == RecordKind::Alloc) {
      blocks.push_back(LiveBlock{r.id, r.bytes, category, r.session, r.request, t.str(r.name),
                                 t.str(r.file), r.line, r.address, r.stream,
                                 (r.flags & kDeviceOwned) != 0, (r.flags & kPendingFree) != 0});
    }
  }
  return nest_blocks(std::move(segments), std::move(blocks));
}

}  // namespace tensord::profiler
