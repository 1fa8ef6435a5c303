#include "engine/profiler/memory_ledger.h"

#include <algorithm>
#include <map>

namespace tensord::profiler {
namespace {

// Appended piecewise: GCC 12 warns (-Wrestrict, a false positive) on const char* + string&&.
std::string where(std::string_view file, uint32_t line, std::string_view op) {
  std::string s = file.empty() ? std::string("<unknown>") : std::string(file);
  s.push_back(':');
  s.append(std::to_string(line));
  if (!op.empty()) {
    s.append(" (");
    s.append(op);
    s.push_back(')');
  }
  return s;
}

std::vector<Holder> top(const std::map<std::string, Holder>& holders, size_t n) {
  std::vector<Holder> out;
  for (const auto& [key, h] : holders) out.push_back(h);
  std::sort(out.begin(), out.end(), [](const Holder& a, const Holder& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.who < b.who;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

}  // namespace

BlockTicket& BlockTicket::operator=(BlockTicket&& o) noexcept {
  if (this != &o) {
    reset();
    ledger_ = std::move(o.ledger_);
    id_ = o.id_;
  }
  return *this;
}

void BlockTicket::reset() {
  if (!ledger_) return;
  ledger_->release(id_);
  ledger_.reset();
}

BlockTicket MemoryLedger::track(uint64_t bytes, const AllocSite& site) {
  Record r;
  r.kind = RecordKind::Alloc;
  r.stage = static_cast<uint8_t>(site.category);
  r.request = site.request;
  r.line = site.line;
  r.bytes = bytes;
  r.address = site.address;
  uint64_t id;
  Entry entry;
  if (site.profiler) {
    r.name = site.profiler->intern(site.op);
    r.file = site.profiler->intern(site.file);
    r.start_ns = site.profiler->now();
    r.session = site.profiler->session();
    entry.generation = site.profiler->generation();
  }
  entry.block = LiveBlock{0,
                          bytes,
                          site.category,
                          r.session,
                          site.request,
                          std::string(site.op),
                          std::string(site.file),
                          site.line,
                          site.address};
  entry.profiler = site.profiler;
  entry.name = r.name;
  entry.file = r.file;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
    entry.block.id = id;
    live_.emplace(id, std::move(entry));
    totals_.allocs++;
    totals_.allocated_bytes += bytes;
    totals_.live_bytes += bytes;
    totals_.live_blocks++;
    totals_.peak_bytes = std::max(totals_.peak_bytes, totals_.live_bytes);
    r.value = totals_.live_bytes;
  }
  r.id = id;
  if (site.profiler) site.profiler->add(r);
  return BlockTicket(shared_from_this(), id);
}

void MemoryLedger::release(uint64_t id) {
  Entry entry;
  Record r;
  {
    std::lock_guard lock(mu_);
    auto it = live_.find(id);
    if (it == live_.end()) return;
    entry = std::move(it->second);
    live_.erase(it);
    totals_.frees++;
    totals_.freed_bytes += entry.block.bytes;
    totals_.live_bytes -= entry.block.bytes;
    totals_.live_blocks--;
    r.value = totals_.live_bytes;
  }
  Profiler* p = entry.profiler.get();
  if (p == nullptr || p->generation() != entry.generation) return;
  r.kind = RecordKind::Free;
  r.stage = static_cast<uint8_t>(entry.block.category);
  r.request = entry.block.request;
  r.name = entry.name;
  r.file = entry.file;
  r.line = entry.block.line;
  r.id = id;
  r.bytes = entry.block.bytes;
  r.session = entry.block.session;
  r.start_ns = p->now();
  p->add(r);
}

std::vector<LiveBlock> MemoryLedger::snapshot(uint64_t session) const {
  std::vector<LiveBlock> out;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, e] : live_) {
      if (session == 0 || e.block.session == session) out.push_back(e.block);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const LiveBlock& a, const LiveBlock& b) { return a.id < b.id; });
  return out;
}

LedgerTotals MemoryLedger::totals() const {
  std::lock_guard lock(mu_);
  return totals_;
}

std::vector<LiveSegment> MemoryLedger::segments() const {
  std::lock_guard lock(mu_);
  std::vector<LiveSegment> out;
  out.reserve(segments_.size());
  for (const auto& [address, seg] : segments_) out.push_back(seg);
  return out;
}

MemorySnapshot MemoryLedger::segment_snapshot(uint64_t session) const {
  // Two locked reads: a segment or block that changes between them shows its state at one of
  // the two, never a torn one.
  return nest_blocks(segments(), snapshot(session));
}

MemorySnapshot nest_blocks(std::vector<LiveSegment> segments, std::vector<LiveBlock> blocks) {
  std::sort(segments.begin(), segments.end(),
            [](const LiveSegment& a, const LiveSegment& b) { return a.address < b.address; });
  MemorySnapshot out;
  for (const LiveSegment& s : segments) out.segments.push_back(SegmentState{s, {}, 0});
  for (LiveBlock& b : blocks) {
    // The last segment starting at or below the block's address.
    auto it =
        std::upper_bound(out.segments.begin(), out.segments.end(), b.address,
                         [](uint64_t a, const SegmentState& s) { return a < s.segment.address; });
    if (b.address != 0 && it != out.segments.begin()) {
      SegmentState& s = *std::prev(it);
      if (b.address - s.segment.address < s.segment.bytes) {
        s.recorded_bytes += b.bytes;
        s.blocks.push_back(std::move(b));
        continue;
      }
    }
    out.outside.push_back(std::move(b));
  }
  for (SegmentState& s : out.segments) {
    std::sort(s.blocks.begin(), s.blocks.end(),
              [](const LiveBlock& a, const LiveBlock& b) { return a.address < b.address; });
  }
  return out;
}

std::vector<std::shared_ptr<Profiler>> MemoryLedger::recipients_locked() {
  std::vector<std::shared_ptr<Profiler>> out;
  for (auto it = subscribers_.begin(); it != subscribers_.end();) {
    if (auto p = it->lock()) {
      if (p->recording_memory()) out.push_back(std::move(p));
      ++it;
    } else {
      it = subscribers_.erase(it);
    }
  }
  return out;
}

namespace {

Record segment_record(RecordKind kind, const LiveSegment& s, uint64_t reserved_after) {
  Record r;
  r.kind = kind;
  r.stage = static_cast<uint8_t>(s.category);
  r.address = s.address;
  r.bytes = s.bytes;
  r.stream = s.stream;
  r.value = reserved_after;
  return r;
}

void send(const std::vector<std::shared_ptr<Profiler>>& to, Record r) {
  for (const auto& p : to) {
    r.session = p->session();
    r.start_ns = p->now();
    p->add(r);
  }
}

}  // namespace

void MemoryLedger::subscribe(const std::shared_ptr<Profiler>& profiler) {
  std::vector<Record> existing;
  {
    std::lock_guard lock(mu_);
    bool known = false;
    for (const auto& w : subscribers_) known = known || w.lock() == profiler;
    if (!known) subscribers_.push_back(profiler);
    uint64_t reserved = 0;
    for (const auto& [address, seg] : segments_) {
      reserved += seg.bytes;
      existing.push_back(segment_record(RecordKind::SegmentAlloc, seg, reserved));
      existing.back().flags = kExisting;
    }
    // Added under the lock: a segment event racing with the subscription must come after these.
    for (const Record& r : existing) send({profiler}, r);
  }
}

void MemoryLedger::segment_allocated(uint64_t address, uint64_t bytes, uint64_t stream,
                                     MemoryCategory category) noexcept {
  const LiveSegment seg{address, bytes, stream, category};
  std::lock_guard lock(mu_);
  try {
    if (!segments_.try_emplace(address, seg).second)
      return;  // an allocator reported it twice: the books stay as they were
    totals_.segment_allocs++;
    totals_.segments++;
    totals_.reserved_bytes += bytes;
    totals_.peak_reserved_bytes = std::max(totals_.peak_reserved_bytes, totals_.reserved_bytes);
    // Sent under the lock so that each profile sees segment events in the order of `value`.
    send(recipients_locked(),
         segment_record(RecordKind::SegmentAlloc, seg, totals_.reserved_bytes));
  } catch (...) {
    // Out of host memory while recording: the segment goes unrecorded rather than the
    // allocator failing (this is called where it cannot throw).
  }
}

void MemoryLedger::segment_freed(uint64_t address) noexcept {
  std::lock_guard lock(mu_);
  auto it = segments_.find(address);
  if (it == segments_.end()) return;  // unrecorded (see segment_allocated)
  const LiveSegment seg = it->second;
  segments_.erase(it);
  totals_.segment_frees++;
  totals_.segments--;
  totals_.reserved_bytes -= seg.bytes;
  try {
    send(recipients_locked(), segment_record(RecordKind::SegmentFree, seg, totals_.reserved_bytes));
  } catch (...) {
    // As above: the books are right, only this profile misses the record.
  }
}

OomReport MemoryLedger::out_of_memory(uint64_t requested, const AllocSite& site,
                                      uint64_t free_bytes, uint64_t largest_free) const {
  OomReport report;
  report.requested = requested;
  report.free_bytes = free_bytes;
  report.largest_free = largest_free;
  report.requested_by = where(site.file, site.line, site.op);
  std::map<std::string, Holder> sessions, lines;
  for (const LiveBlock& b : snapshot()) {
    report.live_bytes += b.bytes;
    report.live_blocks++;
    std::string s = "session " + std::to_string(b.session);
    Holder& hs = sessions[s];
    hs.who = s;
    hs.bytes += b.bytes;
    hs.blocks++;
    std::string l = where(b.file, b.line, b.op);
    Holder& hl = lines[l];
    hl.who = l;
    hl.bytes += b.bytes;
    hl.blocks++;
  }
  report.by_session = top(sessions, 5);
  report.by_line = top(lines, 5);
  if (site.profiler) {
    Record r;
    r.kind = RecordKind::Oom;
    r.stage = static_cast<uint8_t>(site.category);
    r.request = site.request;
    r.name = site.profiler->intern(site.op);
    r.file = site.profiler->intern(site.file);
    r.line = site.line;
    r.bytes = requested;
    r.value = report.live_bytes;
    r.free_bytes = free_bytes;
    r.largest_free = largest_free;
    r.session = site.profiler->session();
    r.start_ns = site.profiler->now();
    site.profiler->add(r);
  }
  return report;
}

std::string OomReport::text() const {
  std::string s = "out of memory: " + std::to_string(requested) + " bytes requested by " +
                  requested_by + "; " + std::to_string(live_bytes) + " bytes live in " +
                  std::to_string(live_blocks) + " recorded blocks";
  if (largest_free != 0) {
    s += "; largest free block " + std::to_string(largest_free) + " of " +
         std::to_string(free_bytes) + " free";
  }
  if (!by_session.empty()) {
    s += "; top holders by session:";
    for (const Holder& h : by_session) s += " " + h.who + " " + std::to_string(h.bytes) + " B,";
    s.pop_back();
  }
  if (!by_line.empty()) {
    s += "; by line:";
    for (const Holder& h : by_line) {
      s += " " + h.who + " " + std::to_string(h.bytes) + " B in " + std::to_string(h.blocks) +
           (h.blocks == 1 ? " block," : " blocks,");
    }
    s.pop_back();
  }
  return s;
}

}  // namespace tensord::profiler
