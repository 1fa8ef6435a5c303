#include "engine/profiler/memory_ledger.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace tensord::profiler {
namespace {

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
    slot_ = o.slot_;
  }
  return *this;
}

void BlockTicket::reset() {
  if (!ledger_) return;
  ledger_->release(id_, slot_);
  ledger_.reset();
}

uint32_t MemoryLedger::name_locked(std::string_view s) {
  if (s.empty()) return 0;
  auto it = string_ids_.find(s);
  if (it != string_ids_.end()) {
    strings_[it->second].refs++;
    return it->second;
  }
  if (free_strings_.empty()) {
    // Capacity for every id, so that unname_locked's push_back cannot throw.
    free_strings_.reserve(strings_.size() + 1);
    strings_.emplace_back();
    free_strings_.push_back(static_cast<uint32_t>(strings_.size() - 1));
  }
  const uint32_t id = free_strings_.back();
  strings_[id].text.assign(s);  // if this or the emplace throws, the id stays free
  string_ids_.emplace(std::string(s), id);
  free_strings_.pop_back();
  strings_[id].refs = 1;
  return id;
}

void MemoryLedger::unname_locked(uint32_t id) {
  if (id == 0 || --strings_[id].refs != 0) return;
  string_ids_.erase(string_ids_.find(std::string_view(strings_[id].text)));
  strings_[id].text.clear();
  free_strings_.push_back(id);
}

LiveBlock MemoryLedger::block_of(const Entry& e) const {
  return LiveBlock{e.id,
                   e.bytes,
                   e.category,
                   e.session,
                   e.request,
                   strings_[e.op].text,
                   strings_[e.file].text,
                   e.line,
                   e.address,
                   e.stream,
                   e.device_owned,
                   e.pending_free};
}

MemoryLedger::Entry* MemoryLedger::entry_locked(uint32_t slot, uint64_t id) {
  if (slot >= slots_.size() || slots_[slot].id != id || id == 0) return nullptr;
  return &slots_[slot];
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
  Profiler* profiler = site.device_owned ? nullptr : site.profiler.get();
  uint64_t generation = 0;
  if (profiler != nullptr) {  // a device-owned block belongs to no session
    r.name = site.op_id != 0 ? site.op_id : profiler->intern(site.op);
    r.file = site.file_id != 0 ? site.file_id : profiler->intern(site.file);
    r.start_ns = profiler->now();
    r.session = profiler->session();
    generation = profiler->generation();
  }
  uint64_t id;
  uint32_t slot;
  {
    std::lock_guard lock(mu_);
    if (free_slots_.empty()) {
      // Capacity for every slot, so that complete_locked's push_back cannot throw.
      free_slots_.reserve(slots_.size() + 1);
      slots_.emplace_back();
      free_slots_.push_back(static_cast<uint32_t>(slots_.size() - 1));
    }
    const uint32_t op = name_locked(site.op);
    uint32_t file;
    try {
      file = name_locked(site.file);
    } catch (...) {
      unname_locked(op);
      throw;
    }
    slot = free_slots_.back();
    free_slots_.pop_back();
    id = next_id_++;
    Entry& e = slots_[slot];
    e.id = id;
    e.bytes = bytes;
    e.session = r.session;
    e.request = site.request;
    e.address = site.address;
    e.stream = site.stream;
    e.generation = generation;
    if (profiler != nullptr) e.profiler = site.profiler;
    e.op = op;
    e.file = file;
    e.line = site.line;
    e.name = r.name;
    e.file_name = r.file;
    e.category = site.category;
    e.device_owned = site.device_owned;
    e.pending_free = false;
    live_count_++;
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
      int64_t at = -1;
      send_block_locked(e, r, at);
    }
  }
  if (profiler != nullptr) profiler->add_memory(r);  // kept raw: encoded when drained
  return BlockTicket(shared_from_this(), id, slot);
}

void MemoryLedger::send_block_locked(const Entry& e, Record r, int64_t& at) {
  if (e.device_owned) {
    for (const auto& p : recipients_locked()) {
      if (r.kind == RecordKind::FreeRequested && !p->wants_free_requested()) continue;
      Record x = r;
      x.name = p->intern(strings_[e.op].text);
      x.file = p->intern(strings_[e.file].text);
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
  r.file = e.file_name;
  r.session = e.session;
  if (at < 0) at = p->now();
  r.start_ns = at;
  p->add_memory(r);  // kept raw: encoded when drained
}

namespace {

// A free record of an entry, without its strings (send_block_locked adds the profile's ids).
template <typename E>
Record entry_record(RecordKind kind, const E& e, uint64_t live_after) {
  Record r;
  r.kind = kind;
  r.stage = static_cast<uint8_t>(e.category);
  r.flags = e.device_owned ? kDeviceOwned : 0;
  r.request = e.request;
  r.line = e.line;
  r.id = e.id;
  r.bytes = e.bytes;
  r.address = e.address;
  r.stream = e.stream;
  r.value = live_after;
  return r;
}

}  // namespace

void MemoryLedger::release(uint64_t id, uint32_t slot) {
  std::lock_guard lock(mu_);
  Entry* e = entry_locked(slot, id);
  if (e == nullptr || e->pending_free) return;
  totals_.free_requests++;
  auto deferred = e->address == 0 ? deferred_.end() : deferred_.find(e->address);
  if (deferred != deferred_.end() && e->stream == 0) e->stream = deferred->second;
  // A free that completes at once is requested and completed at the same instant: one clock read.
  int64_t at = -1;
  try {
    Record requested = entry_record(RecordKind::FreeRequested, *e, totals_.live_bytes);
    if (deferred != deferred_.end()) requested.flags |= kDeferredFree;
    send_block_locked(*e, requested, at);
    if (deferred != deferred_.end()) {
      // The allocator waits for other streams' work on it: allocated until that completes.
      pending_by_address_[e->address] = slot;
      e->pending_free = true;
      totals_.pending_free_blocks++;
      totals_.pending_free_bytes += e->bytes;
      return;
    }
  } catch (...) {
    // Out of host memory while recording (release runs in destructors): complete it now.
  }
  complete_locked(*e, at);
}

void MemoryLedger::complete_locked(Entry& e, int64_t at) {
  if (e.pending_free) {
    totals_.pending_free_blocks--;
    totals_.pending_free_bytes -= e.bytes;
    pending_by_address_.erase(e.address);
  }
  totals_.frees++;
  totals_.freed_bytes += e.bytes;
  totals_.live_bytes -= e.bytes;
  totals_.live_blocks--;
  totals_.live_by_category[category_index(e.category)] -= e.bytes;
  try {
    Record completed = entry_record(RecordKind::Free, e, totals_.live_bytes);
    if (e.pending_free) completed.flags |= kDeferredFree;
    send_block_locked(e, completed, at);
  } catch (...) {
    // The books are right; only the profile misses the record.
  }
  unname_locked(e.op);
  unname_locked(e.file);
  e.id = 0;
  e.profiler.reset();
  live_count_--;
  // free_slots_ has capacity for every slot (track): this cannot throw.
  free_slots_.push_back(static_cast<uint32_t>(&e - slots_.data()));
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
  const uint32_t slot = pending->second;
  if (slot >= slots_.size() || slots_[slot].id == 0 || !slots_[slot].pending_free) {
    pending_by_address_.erase(pending);
    return;
  }
  complete_locked(slots_[slot], -1);
}

std::vector<LiveBlock> MemoryLedger::snapshot(uint64_t session, bool with_device) const {
  std::vector<LiveBlock> out;
  {
    std::lock_guard lock(mu_);
    for (const Entry& e : slots_) {
      if (e.id == 0) continue;
      if (session == 0 || e.session == session || (with_device && e.device_owned)) {
        out.push_back(block_of(e));
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

void MemoryLedger::subscribe(const std::shared_ptr<Profiler>& profiler, uint64_t session) {
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
    std::vector<const Entry*> device;
    for (const Entry& e : slots_) {
      if (e.id != 0 && e.device_owned) device.push_back(&e);
    }
    std::sort(device.begin(), device.end(),
              [](const Entry* a, const Entry* b) { return a->id < b->id; });
    for (const Entry* e : device) {
      Record r = entry_record(RecordKind::Alloc, *e, totals_.live_bytes);
      r.flags |= kExisting;
      r.name = profiler->intern(strings_[e->op].text);
      r.file = profiler->intern(strings_[e->file].text);
      r.start_ns = profiler->now();
      profiler->add(r);
    }
    // The session's blocks held now: adopted by this profile, so that their frees during it are
    // recorded (each has an Alloc flagged kExisting: held when the profile began, not allocated
    // during it). Blocks of this profile's generation are its own already.
    if (session == 0) return;
    const uint64_t generation = profiler->generation();
    std::vector<Entry*> held;
    for (Entry& e : slots_) {
      if (e.id == 0 || e.device_owned || e.session != session) continue;
      if (e.profiler == profiler && e.generation == generation) continue;
      held.push_back(&e);
    }
    std::sort(held.begin(), held.end(),
              [](const Entry* a, const Entry* b) { return a->id < b->id; });
    const int64_t at = held.empty() ? 0 : profiler->now();  // one instant: the profile's start
    for (Entry* e : held) {
      Record r = entry_record(RecordKind::Alloc, *e, totals_.live_bytes);
      r.flags |= kExisting;
      if (e->pending_free) r.flags |= kPendingFree;
      r.name = profiler->intern(strings_[e->op].text);
      r.file = profiler->intern(strings_[e->file].text);
      r.session = e->session;
      r.start_ns = at;
      e->profiler = profiler;
      e->generation = generation;
      e->name = r.name;
      e->file_name = r.file;
      // As the block's later records: kept raw, in the order they are added.
      profiler->add_memory(r);
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
  report.requested_by = source_site(site.file, site.line, site.op);
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
    std::string l = source_site(b.file, b.line, b.op);
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
