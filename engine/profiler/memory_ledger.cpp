#include "engine/profiler/memory_ledger.h"

#include <algorithm>
#include <cstdio>
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

size_t category_index(MemoryCategory c) {
  const auto i = static_cast<size_t>(c);
  return i < static_cast<size_t>(MemoryCategory::kCount) ? i : 0;
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
  r.stream = site.stream;
  uint64_t id;
  Entry entry;
  if (site.profiler && !site.device_owned) {  // a device-owned block belongs to no session
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
                          site.address,
                          site.stream,
                          site.device_owned,
                          false};
  entry.profiler = site.device_owned ? nullptr : site.profiler;
  entry.name = r.name;
  entry.file = r.file;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
    entry.block.id = id;
    auto it = live_.emplace(id, std::move(entry)).first;
    totals_.allocs++;
    totals_.allocated_bytes += bytes;
    totals_.live_bytes += bytes;
    totals_.live_blocks++;
    totals_.live_by_category[category_index(site.category)] += bytes;
    totals_.peak_bytes = std::max(totals_.peak_bytes, totals_.live_bytes);
    r.value = totals_.live_bytes;
    r.id = id;
    // A device-owned block's Alloc goes to every profile now (under the lock, before any of its
    // frees); a session's block goes to its own profile below, outside the lock (the hot path).
    if (site.device_owned) {
      r.flags = kDeviceOwned;
      send_block_locked(it->second, r);
    }
  }
  if (site.profiler && !site.device_owned) site.profiler->add(r);
  return BlockTicket(shared_from_this(), id);
}

namespace {

Record free_record(const LiveBlock& b, RecordKind kind, uint64_t live_after) {
  Record r;
  r.kind = kind;
  r.stage = static_cast<uint8_t>(b.category);
  r.flags = b.device_owned ? kDeviceOwned : 0;
  r.request = b.request;
  r.line = b.line;
  r.id = b.id;
  r.bytes = b.bytes;
  r.address = b.address;
  r.stream = b.stream;
  r.value = live_after;
  return r;
}

}  // namespace

void MemoryLedger::send_block_locked(const Entry& e, Record r) {
  if (e.block.device_owned) {
    for (const auto& p : recipients_locked()) {
      if (r.kind == RecordKind::FreeRequested && !p->wants_free_requested()) continue;
      Record x = r;
      x.name = p->intern(e.block.op);
      x.file = p->intern(e.block.file);
      x.session = 0;
      x.start_ns = p->now();
      p->add(x);
    }
    return;
  }
  Profiler* p = e.profiler.get();
  if (p == nullptr || p->generation() != e.generation) return;
  if (r.kind == RecordKind::FreeRequested && !p->wants_free_requested()) return;
  r.name = e.name;
  r.file = e.file;
  r.session = e.block.session;
  r.start_ns = p->now();
  p->add(r);
}

void MemoryLedger::release(uint64_t id) {
  std::lock_guard lock(mu_);
  auto it = live_.find(id);
  if (it == live_.end() || it->second.block.pending_free) return;
  LiveBlock& b = it->second.block;
  totals_.free_requests++;
  auto deferred = b.address == 0 ? deferred_.end() : deferred_.find(b.address);
  if (deferred != deferred_.end() && b.stream == 0) b.stream = deferred->second;
  try {
    Record requested = free_record(b, RecordKind::FreeRequested, totals_.live_bytes);
    if (deferred != deferred_.end()) requested.flags |= kDeferredFree;
    send_block_locked(it->second, requested);
    if (deferred != deferred_.end()) {
      // The allocator waits for other streams' work on it: allocated until that completes.
      pending_by_address_[b.address] = id;
      b.pending_free = true;
      totals_.pending_free_blocks++;
      totals_.pending_free_bytes += b.bytes;
      return;
    }
  } catch (...) {
    // Out of host memory while recording (release runs in destructors): complete it now.
  }
  complete_locked(it);
}

void MemoryLedger::complete_locked(std::unordered_map<uint64_t, Entry>::iterator it) {
  Entry entry = std::move(it->second);
  live_.erase(it);
  const LiveBlock& b = entry.block;
  if (b.pending_free) {
    totals_.pending_free_blocks--;
    totals_.pending_free_bytes -= b.bytes;
    pending_by_address_.erase(b.address);
  }
  totals_.frees++;
  totals_.freed_bytes += b.bytes;
  totals_.live_bytes -= b.bytes;
  totals_.live_blocks--;
  totals_.live_by_category[category_index(b.category)] -= b.bytes;
  try {
    Record completed = free_record(b, RecordKind::Free, totals_.live_bytes);
    if (b.pending_free) completed.flags |= kDeferredFree;
    send_block_locked(entry, completed);
  } catch (...) {
    // The books are right; only the profile misses the record.
  }
}

void MemoryLedger::block_free_deferred(uint64_t address, uint64_t stream) noexcept {
  std::lock_guard lock(mu_);
  try {
    deferred_[address] = stream;
  } catch (...) {
    // Unrecorded: the block's free then completes in the books when its owner lets it go.
  }
}

void MemoryLedger::block_free_completed(uint64_t address) noexcept {
  std::lock_guard lock(mu_);
  deferred_.erase(address);
  auto pending = pending_by_address_.find(address);
  if (pending == pending_by_address_.end()) return;  // its owner has not let it go yet
  auto it = live_.find(pending->second);
  if (it == live_.end()) {
    pending_by_address_.erase(pending);
    return;
  }
  complete_locked(it);
}

std::vector<LiveBlock> MemoryLedger::snapshot(uint64_t session, bool with_device) const {
  std::vector<LiveBlock> out;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, e] : live_) {
      if (session == 0 || e.block.session == session || (with_device && e.block.device_owned)) {
        out.push_back(e.block);
      }
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
    // The device-owned blocks held now (workspaces, graph pools), so that the profile's
    // categories start from the device's too.
    std::vector<const LiveBlock*> device;
    for (const auto& [id, e] : live_) {
      if (e.block.device_owned) device.push_back(&e.block);
    }
    std::sort(device.begin(), device.end(),
              [](const LiveBlock* a, const LiveBlock* b) { return a->id < b->id; });
    for (const LiveBlock* b : device) {
      Record r = free_record(*b, RecordKind::Alloc, totals_.live_bytes);
      r.flags |= kExisting;
      r.name = profiler->intern(b->op);
      r.file = profiler->intern(b->file);
      r.start_ns = profiler->now();
      profiler->add(r);
    }
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
    totals_.reserved_by_category[category_index(category)] += bytes;
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
  totals_.reserved_by_category[category_index(seg.category)] -= seg.bytes;
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
  report.reserved_bytes = totals().reserved_bytes;
  std::map<std::string, Holder> sessions, lines, categories;
  for (const LiveBlock& b : snapshot()) {
    report.live_bytes += b.bytes;
    report.live_blocks++;
    if (b.pending_free) report.pending_free_bytes += b.bytes;
    const std::string c(category_name(b.category));
    Holder& hc = categories[c];
    hc.who = c;
    hc.bytes += b.bytes;
    hc.blocks++;
    std::string s = b.device_owned ? "device" : "session " + std::to_string(b.session);
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
  report.by_category = top(categories, categories.size());
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

double OomReport::fragmentation() const {
  if (free_bytes == 0 || largest_free > free_bytes) return 0;
  return static_cast<double>(free_bytes - largest_free) / static_cast<double>(free_bytes);
}

std::string OomReport::text() const {
  std::string s = "out of memory: " + std::to_string(requested) + " bytes requested by " +
                  requested_by + "; " + std::to_string(live_bytes) + " bytes live in " +
                  std::to_string(live_blocks) + " recorded blocks";
  if (pending_free_bytes != 0) {
    s += " (" + std::to_string(pending_free_bytes) + " of them freed, waiting on other streams)";
  }
  if (reserved_bytes != 0) s += ", " + std::to_string(reserved_bytes) + " bytes reserved";
  if (free_bytes != 0) {
    char frag[32];
    std::snprintf(frag, sizeof frag, "%.0f%%", fragmentation() * 100);
    s += "; largest free block " + std::to_string(largest_free) + " of " +
         std::to_string(free_bytes) + " free (fragmentation " + frag + ": " +
         (requested <= largest_free ? "the request fits"
          : requested <= free_bytes ? "the request would fit unfragmented"
                                    : "the request exceeds the free total") +
         ")";
  }
  if (!by_category.empty()) {
    s += "; by category:";
    for (const Holder& h : by_category) s += " " + h.who + " " + std::to_string(h.bytes) + " B,";
    s.pop_back();
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
