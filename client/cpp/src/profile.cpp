// Profile: the client's TraceSink, and the handle that stops the daemon's stream.
#include "tensord/profile.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "client/cpp/src/errors.h"
#include "client/cpp/src/session_state.h"
#include "client/cpp/src/thread_owned.h"
#include "engine/profiler/chrome.h"
#include "tensord/session.h"

namespace tensord {
namespace detail {

struct ProfileState {
  std::shared_ptr<SessionState> session;
  ::ProfileHandle::Client handle = nullptr;
  profiler::Trace trace;
  // Every chunk as received, each behind its length (the export_compact form). Chunks are
  // decoded into `trace` when asked for, not as they arrive: the sink stays cheap while the
  // user's work runs.
  std::vector<uint8_t> compact;
  size_t decoded = 0;  // bytes of `compact` already in `trace`
  bool running = true;
  bool done = false;
  uint64_t held_before = 0;  // Session.profile's answer (protocol 1.8)
  std::vector<Holding> held_before_by;
  uint64_t done_dropped = 0;

  void decode() {
    while (decoded < compact.size()) {
      uint32_t n = 0;
      for (int i = 0; i < 4; ++i) n |= uint32_t{compact[decoded + i]} << (8 * i);
      try {
        trace.append_chunk(std::span<const uint8_t>(compact.data() + decoded + 4, n));
      } catch (const std::exception& e) {
        throw Error(ErrorCode::Internal, std::string("the daemon sent a bad trace: ") + e.what());
      }
      decoded += 4 + n;
    }
    if (done) trace.dropped = std::max(trace.dropped, done_dropped);
  }
};

namespace {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class TraceSinkImpl final : public ::TraceSink::Server {
 public:
  explicit TraceSinkImpl(std::weak_ptr<ProfileState> state) : state_(std::move(state)) {}

 protected:
  kj::Promise<void> write(WriteContext context) override {
    auto state = state_.lock();
    if (!state) return kj::READY_NOW;
    auto chunk = context.getParams().getChunk();
    // The file form: each chunk behind its length (4 bytes, little-endian).
    auto n = static_cast<uint32_t>(chunk.size());
    for (int i = 0; i < 4; ++i) state->compact.push_back(static_cast<uint8_t>(n >> (8 * i)));
    state->compact.insert(state->compact.end(), chunk.begin(), chunk.end());
    return kj::READY_NOW;
  }
  kj::Promise<void> done(DoneContext context) override {
    if (auto state = state_.lock()) {
      state->done = true;
      state->done_dropped = context.getParams().getDropped();
    }
    return kj::READY_NOW;
  }

 private:
  std::weak_ptr<ProfileState> state_;
};
#pragma GCC diagnostic pop

}  // namespace
}  // namespace detail

Profile::Profile(std::shared_ptr<detail::ProfileState> state) : state_(std::move(state)) {}
Profile::Profile(Profile&&) noexcept = default;
Profile& Profile::operator=(Profile&& other) noexcept {
  if (this != &other) {
    try {
      stop();
    } catch (...) {
    }
    state_ = std::move(other.state_);
  }
  return *this;
}

Profile::~Profile() {
  try {
    stop();
  } catch (...) {
    // A destructor cannot report a lost connection; stop() called explicitly does.
  }
}

bool Profile::running() const {
  return state_ && state_->running;
}

void Profile::stop() {
  if (!state_ || !state_->running) return;
  auto& s = *state_->session;
  s.check_thread();
  state_->running = false;
  try {
    state_->handle.stopRequest().send().wait(s.wait_scope());
  } catch (const kj::Exception& e) {
    state_->handle = nullptr;
    throw detail::translate(e, nullptr, std::source_location::current());
  }
  state_->handle = nullptr;
  s.flush();
}

const profiler::Trace& Profile::trace() {
  state_->session->check_thread();
  state_->session->flush();
  state_->decode();
  return state_->trace;
}

uint64_t Profile::held_before() const {
  return state_->held_before;
}

const std::vector<Holding>& Profile::held_before_by() const {
  return state_->held_before_by;
}

uint64_t Profile::dropped() {
  return trace().dropped;
}

std::string Profile::chrome_trace_json() {
  return profiler::chrome_trace_json(trace());
}

void Profile::export_chrome_trace(const std::string& path) {
  std::string json = chrome_trace_json();
  std::ofstream out(path, std::ios::binary);
  out << json;
  if (!out) throw Error(ErrorCode::Internal, "cannot write " + path);
}

void Profile::export_compact(const std::string& path) {
  trace();
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(state_->compact.data()),
            static_cast<std::streamsize>(state_->compact.size()));
  if (!out) throw Error(ErrorCode::Internal, "cannot write " + path);
}

std::vector<profiler::KeyAverage> Profile::key_averages() {
  return profiler::key_averages(trace());
}

std::vector<profiler::MemoryPoint> Profile::memory_timeline() {
  return profiler::memory_timeline(trace());
}

std::vector<profiler::CategorySummary> Profile::memory_summary() {
  return profiler::memory_summary(trace());
}

std::vector<profiler::Recommendation> Profile::recommendations() {
  return profiler::recommend(trace());
}

profiler::Trace Profile::memory_snapshot() {
  if (!running()) throw Error(ErrorCode::InvalidGraph, "memory_snapshot of a stopped profile");
  auto& s = *state_->session;
  s.check_thread();
  try {
    auto response = state_->handle.snapshotRequest().send().wait(s.wait_scope());
    auto chunk = response.getChunk();
    profiler::Trace t;
    t.append_chunk(std::span<const uint8_t>(chunk.begin(), chunk.size()));
    return t;
  } catch (const kj::Exception& e) {
    throw detail::translate(e, nullptr, std::source_location::current());
  }
}

profiler::MemorySnapshot Profile::memory_segments() {
  return profiler::memory_snapshot_of(memory_snapshot());
}

profiler::Trace read_compact_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::InvalidGraph, "cannot read " + path);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  profiler::Trace t;
  size_t pos = 0;
  while (pos < bytes.size()) {
    if (bytes.size() - pos < 4) throw Error(ErrorCode::InvalidGraph, "truncated trace " + path);
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n |= uint32_t{bytes[pos + i]} << (8 * i);
    pos += 4;
    if (n > bytes.size() - pos) throw Error(ErrorCode::InvalidGraph, "truncated trace " + path);
    try {
      t.append_chunk(std::span<const uint8_t>(bytes.data() + pos, n));
    } catch (const std::runtime_error& e) {
      throw Error(ErrorCode::InvalidGraph, path + ": " + e.what());
    }
    pos += n;
  }
  return t;
}

Profile Session::profile(const ProfileOptions& options) {
  state_->check_thread();
  auto state = detail::make_thread_owned<detail::ProfileState>(state_->thread);
  state->session = state_;
  auto request = state_->session.profileRequest();
  auto o = request.initOptions();
  o.setTrace(options.trace);
  o.setMemory(options.memory);
  o.setBufferRecords(options.buffer_records);
  o.setFreeRequested(options.free_requested);
  request.setSink(kj::heap<detail::TraceSinkImpl>(state));
  try {
    auto response = request.send().wait(state_->wait_scope());
    state->handle = response.getHandle();
    state->held_before = response.getHeldBefore();
    for (auto h : response.getHeldBeforeBy()) {
      state->held_before_by.push_back({h.getOrigin(), h.getBytes(), h.getTensors()});
    }
  } catch (const kj::Exception& e) {
    throw detail::translate(e, nullptr, std::source_location::current());
  }
  return Profile(std::move(state));
}

}  // namespace tensord
