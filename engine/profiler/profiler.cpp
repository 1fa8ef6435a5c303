#include "engine/profiler/profiler.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace tensord::profiler {

std::string_view stage_name(Stage s) {
  static constexpr std::string_view kNames[] = {
      "request",    "receive", "validate", "plan_lookup", "plan_build",
      "queue_wait", "execute", "step",     "upload",      "fetch"};
  auto i = static_cast<size_t>(s);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

std::string_view category_name(MemoryCategory c) {
  static constexpr std::string_view kNames[] = {"tensor", "staging", "scratch", "workspace",
                                                "graph_pool"};
  auto i = static_cast<size_t>(c);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

// Appended piecewise: GCC 12 warns (-Wrestrict, a false positive) on const char* + string&&.
std::string source_site(std::string_view file, uint32_t line, std::string_view op) {
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

uint64_t content_hash(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  for (; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  h ^= h >> 29;
  return h == 0 ? 1 : h;  // 0 means "no hash" in records
}

void Profiler::start(const ProfileOptions& options) {
  std::lock_guard lock(mu_);
  capacity_ = std::max<size_t>(options.capacity, 1);
  reset_buffer_locked();
  dropped_ = 0;
  recorded_ = 0;
  // Strings already sent belong to an earlier profile: the new stream starts its table afresh.
  ids_.clear();
  new_strings_.clear();
  next_string_ = 1;
  first_new_string_ = 1;
  epoch_ns_.store(steady_ns(), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_relaxed);
  uint32_t state = (options.trace ? kTrace : 0) | (options.memory ? kMemory : 0);
  if (options.memory && options.free_requested) state |= kFreeRequested;
  state_.store(state, std::memory_order_relaxed);
}

void Profiler::stop() {
  state_.store(0, std::memory_order_relaxed);
}

uint32_t Profiler::intern(std::string_view s) {
  if (s.empty()) return 0;
  std::lock_guard lock(mu_);
  return intern_locked(s);
}

uint32_t Profiler::intern_locked(std::string_view s) {
  if (s.empty()) return 0;
  auto it = ids_.find(s);
  if (it != ids_.end()) return it->second;
  if (ids_.size() >= kMaxStrings) return 0;
  uint32_t id = next_string_++;
  ids_.emplace(std::string(s), id);
  new_strings_.emplace_back(s);
  return id;
}

void Profiler::reset_buffer_locked() {
  read_ = used_ = pending_ = 0;
  write_base_ = read_base_ = DeltaBase{};
  raw_.clear();
  raw_read_ = 0;
  raw_memory_.clear();
  raw_memory_read_ = 0;
  last_memory_marker_ = kNoMarker;
  // A buffer grown for a burst (up to `capacity` records) goes back once the burst is drained.
  constexpr size_t kKeepBytes = size_t{1} << 20;
  if (buf_.size() > kKeepBytes) std::vector<uint8_t>().swap(buf_);
  if (raw_.capacity() * sizeof(StepSpanFields) > kKeepBytes)
    std::vector<StepSpanFields>().swap(raw_);
  if (raw_memory_.capacity() * sizeof(MemoryEventFields) > kKeepBytes)
    std::vector<MemoryEventFields>().swap(raw_memory_);
}

void Profiler::consumed_locked() {
  if (pending_ == 0) {
    reset_buffer_locked();
    return;
  }
  if (read_ >= used_ / 2) {  // keep the buffer within about twice what is pending
    std::memmove(buf_.data(), buf_.data() + read_, used_ - read_);
    used_ -= read_;
    if (last_memory_marker_ != kNoMarker) {
      last_memory_marker_ = last_memory_marker_ >= read_ ? last_memory_marker_ - read_ : kNoMarker;
    }
    read_ = 0;
  }
  if (raw_memory_read_ > 0 && raw_memory_read_ >= raw_memory_.size() / 2) {
    raw_memory_.erase(raw_memory_.begin(),
                      raw_memory_.begin() + static_cast<std::ptrdiff_t>(raw_memory_read_));
    raw_memory_read_ = 0;
  }
  if (raw_read_ > 0 && raw_read_ >= raw_.size() / 2) {  // the same for the raw steps
    raw_.erase(raw_.begin(), raw_.begin() + static_cast<std::ptrdiff_t>(raw_read_));
    raw_read_ = 0;
  }
}

namespace {

uint32_t marker_count(const uint8_t* p) {
  uint32_t n;
  std::memcpy(&n, p, 4);
  return n;
}

}  // namespace

// Takes one of the raw records a marker at buf_[read_] stands for: the marker's count goes down,
// or read_ past it with the last.
void Profiler::took_raw_locked(uint32_t k) {
  const uint32_t left = marker_count(&buf_[read_ + 1]) - k;
  if (left == 0) {
    read_ += kMarkerBytes;
  } else {
    std::memcpy(&buf_[read_ + 1], &left, 4);
  }
}

Record Profiler::next_locked() {
  if (buf_[read_] == kRawMemoryMarker) {
    const MemoryEventFields& e = raw_memory_[raw_memory_read_++];
    took_raw_locked(1);
    read_base_ = DeltaBase{e.start_ns, e.request};
    return memory_event_record(e);
  }
  if (buf_[read_] != kRawMarker) return decode_trusted(buf_.data(), read_, read_base_);
  const StepSpanFields& s = raw_[raw_read_++];
  took_raw_locked(1);
  read_base_ = DeltaBase{s.start_ns, s.request};
  return step_span_record(s);
}

size_t Profiler::take_encoded_locked(std::vector<uint8_t>& out, size_t used, size_t n,
                                     DeltaBase& base) {
  while (n != 0) {
    if (buf_[read_] == kRawMarker) {  // a run of raw steps: as many as are wanted, in one go
      const uint32_t count = marker_count(&buf_[read_ + 1]);
      const auto k = static_cast<uint32_t>(std::min<size_t>(count, n));
      used = encode_step_spans(out, used, std::span(raw_.data() + raw_read_, k), base);
      const StepSpanFields& last = raw_[raw_read_ + k - 1];
      read_base_ = DeltaBase{last.start_ns, last.request};
      raw_read_ += k;
      n -= k;
      took_raw_locked(k);
      continue;
    }
    if (buf_[read_] == kRawMemoryMarker) {
      const MemoryEventFields& e = raw_memory_[raw_memory_read_++];
      took_raw_locked(1);
      read_base_ = DeltaBase{e.start_ns, e.request};
      used = encode_memory_event(out, used, e, base);
      --n;
      continue;
    }
    // An encoded record: its bytes are right as they are when its deltas are from the record
    // before it in the chunk too (all but a chunk's first); else it is re-encoded.
    const size_t from = read_;
    const bool same_base = read_base_ == base;
    const Record r = decode_trusted(buf_.data(), read_, read_base_);
    if (same_base) {
      const size_t bytes = read_ - from;
      if (out.size() - used < bytes) out.resize(std::max(out.size() * 2, used + bytes));
      std::memcpy(out.data() + used, buf_.data() + from, bytes);
      used += bytes;
      base = read_base_;
    } else {
      used = encode_record(out, used, r, base);
    }
    --n;
  }
  return used;
}

void Profiler::add_memory(const Record& r) {
  if (!active()) return;
  std::lock_guard lock(mu_);
  if (pending_ >= capacity_) {
    ++dropped_;
    return;
  }
  if (buf_.size() - used_ < kMarkerBytes) {  // room first: nothing changes if this throws
    buf_.resize(std::max(buf_.size() * 2, used_ + kMaxEncodedRecord * 64));
  }
  raw_memory_.push_back(memory_event_fields(r));
  uint32_t count = 0;
  if (last_memory_marker_ != kNoMarker && last_memory_marker_ + kMarkerBytes == used_) {
    count = marker_count(&buf_[last_memory_marker_ + 1]);
  }
  if (count != 0 && count < UINT32_MAX) {  // right after the last one: one marker for both
    ++count;
    std::memcpy(&buf_[last_memory_marker_ + 1], &count, 4);
  } else {
    buf_[used_] = kRawMemoryMarker;
    count = 1;
    std::memcpy(&buf_[used_ + 1], &count, 4);
    last_memory_marker_ = used_;
    used_ += kMarkerBytes;
  }
  write_base_ = DeltaBase{r.start_ns, r.request};
  ++pending_;
  ++recorded_;
}

void Profiler::append_steps(std::span<const StepSpanFields> steps, uint64_t generation) {
  if (steps.empty() || !active()) return;
  std::lock_guard lock(mu_);
  if (generation != generation_.load(std::memory_order_relaxed)) return;
  // Back-pressure as add() applies it record by record: the first ones that fit, the rest
  // dropped and counted.
  size_t n = steps.size();
  const size_t room = capacity_ > pending_ ? capacity_ - pending_ : 0;
  if (n > room) {
    dropped_ += n - room;
    n = room;
  }
  if (n == 0) return;
  raw_.insert(raw_.end(), steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(n));
  for (size_t left = n; left != 0;) {  // a marker per 2^32 - 1 steps (one per call in practice)
    const auto count = static_cast<uint32_t>(std::min<size_t>(left, UINT32_MAX));
    if (buf_.size() - used_ < kMarkerBytes) {
      buf_.resize(std::max(buf_.size() * 2, used_ + kMaxEncodedRecord * 64));
    }
    buf_[used_] = kRawMarker;
    std::memcpy(&buf_[used_ + 1], &count, 4);
    used_ += kMarkerBytes;
    left -= count;
  }
  write_base_ = DeltaBase{steps[n - 1].start_ns, steps[n - 1].request};
  pending_ += n;
  recorded_ += n;
}

void Profiler::add(const Record& r) {
  if (!active()) return;
  std::lock_guard lock(mu_);
  if (pending_ >= capacity_) {
    ++dropped_;
    return;
  }
  used_ = encode_record(buf_, used_, r, write_base_);
  ++pending_;
  ++recorded_;
}

void Profiler::add_named(Record r, std::string_view name, std::string_view file) {
  if (!active()) return;
  std::lock_guard lock(mu_);
  if (pending_ >= capacity_) {
    ++dropped_;
    return;
  }
  r.name = intern_locked(name);
  r.file = intern_locked(file);
  used_ = encode_record(buf_, used_, r, write_base_);
  ++pending_;
  ++recorded_;
}

void Profiler::span(Stage stage, int64_t start, uint32_t thread, uint64_t request, uint64_t hash,
                    uint8_t flags) {
  Record r;
  r.kind = RecordKind::Span;
  r.stage = static_cast<uint8_t>(stage);
  r.flags = flags;
  r.thread = thread;
  r.request = request;
  r.hash = hash;
  r.start_ns = start;
  r.dur_ns = now() - start;
  add(r);
}

void Profiler::take_strings_locked(uint32_t& first, std::vector<std::string>& out) {
  first = first_new_string_;
  out = std::move(new_strings_);
  new_strings_.clear();
  first_new_string_ = next_string_;
}

bool Profiler::drain(Pending& out, size_t max_records) {
  std::lock_guard lock(mu_);
  take_strings_locked(out.first_string, out.strings);
  const size_t n = std::min(max_records, pending_);
  out.records.clear();
  out.records.reserve(n);
  for (size_t i = 0; i < n; ++i) out.records.push_back(next_locked());
  pending_ -= n;
  consumed_locked();
  out.dropped = dropped_;
  return n != 0 || !out.strings.empty();
}

bool Profiler::drain_encoded(Encoded& out, size_t max_records) {
  std::lock_guard lock(mu_);
  take_strings_locked(out.first_string, out.strings);
  out.dropped = dropped_;
  out.records = std::min(max_records, pending_);
  out.body_size = 0;
  if (out.records == 0) return !out.strings.empty();
  if (out.records == pending_ && read_ == 0 && read_base_ == DeltaBase{} &&
      raw_read_ == raw_.size() && raw_memory_read_ == raw_memory_.size()) {
    // All of it, encoded from the start of a chunk ({0, 0} deltas): hand the bytes over and take
    // the caller's buffer back, so that neither side copies or allocates in the steady state.
    std::swap(out.body, buf_);
    out.body_size = used_;
    pending_ = 0;
    reset_buffer_locked();
    return true;
  }
  // A part, or what follows a part (its deltas start from the record before it), or raw steps:
  // encode, so that the chunk's first record has deltas from {0, 0}.
  DeltaBase base;
  out.body_size = take_encoded_locked(out.body, 0, out.records, base);
  pending_ -= out.records;
  consumed_locked();
  return true;
}

uint64_t Profiler::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

uint64_t Profiler::recorded() const {
  std::lock_guard lock(mu_);
  return recorded_;
}

}  // namespace tensord::profiler
