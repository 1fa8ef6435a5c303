#include "server/dashboard_profile.h"

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/profiler/chrome.h"
#include "engine/profiler/compact.h"
#include "engine/profiler/summary.h"
#include "server/accounting.h"
#include "server/dashboard_status.h"
#include "server/dashboard_timeline.h"
#include "server/session_core.h"

namespace tensord::server {
namespace {

constexpr double kDefaultSeconds = 2;
constexpr double kMaxSeconds = 10;

// A 0/1 parameter (absent: 0); the 400 answer for another value.
std::optional<DashboardAnswer> read_flag(std::string_view query, std::string_view key, bool& on) {
  const std::optional<std::string_view> value = query_parameter(query, key);
  on = value && *value == "1";
  if (!value || *value == "0" || *value == "1") return std::nullopt;
  return error_answer(400, std::string(key) + " must be 0 or 1, got '" + std::string(*value) + "'");
}

std::string profile_json(uint64_t id, uint64_t session, double seconds, bool memory,
                         int64_t elapsed_ns, const profiler::Trace& trace, bool with_trace,
                         const HeldBytes& held) {
  nlohmann::json rows = nlohmann::json::array();
  for (const profiler::KeyAverage& k : profiler::key_averages(trace)) {
    rows.push_back({{"key", k.key},
                    {"calls", k.calls},
                    {"self_us", static_cast<double>(k.self_ns) / 1e3},
                    {"total_us", static_cast<double>(k.total_ns) / 1e3},
                    {"source", k.source}});
  }
  std::string body = nlohmann::json{{"id", id},
                                    {"session", session},
                                    {"seconds", seconds},
                                    {"memory", memory},
                                    {"records", trace.records.size()},
                                    {"dropped", trace.dropped},
                                    {"key_averages", std::move(rows)},
                                    {"timeline", profile_timeline(trace, elapsed_ns, memory, held)}}
                         .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (!with_trace) return body;
  // The Chrome trace is JSON already: spliced in as the last member, not parsed again.
  body.pop_back();  // the closing brace
  return body + ",\"chrome_trace\":" + profiler::chrome_trace_json(trace) + "}";
}

// The dashboard's profile of a session: its hold on the session's profiler, stopped when the
// request goes away unanswered (the daemon shutting down) unless the client has started a profile
// of its own since, and the records taken from it so far.
class OwnProfile {
 public:
  OwnProfile(std::shared_ptr<profiler::Profiler> p, uint64_t session)
      : profiler_(std::move(p)), generation_(profiler_->generation()), session_(session) {}
  OwnProfile(const OwnProfile&) = delete;
  OwnProfile& operator=(const OwnProfile&) = delete;
  ~OwnProfile() {
    if (const std::shared_ptr<profiler::Profiler> p = release()) p->stop();
  }

  // Takes what the profile recorded since the last call, as a client's stream does (every 10 ms
  // there): the session's buffer holds 16384 pending records, which a busy session recording
  // memory fills in well under a second. Past kMaxKept it takes no more, and the session drops
  // (and counts) what follows. False once the profile is no longer ours.
  bool collect() {
    if (!profiler_ || profiler_->generation() != generation_) return false;
    if (trace_.records.size() < kMaxKept && profiler_->drain(pending_, SIZE_MAX)) append();
    return true;
  }
  // Stops the profile and takes the rest of its records, as a client reads them; false when the
  // client has started a profile of its own meanwhile. `elapsed_ns`: how long it ran.
  bool finish(int64_t& elapsed_ns) {
    const std::shared_ptr<profiler::Profiler> p = release();
    if (!p) return false;
    p->stop();
    // Read after the stop: every record taken was added before it, so ends by this time.
    elapsed_ns = p->now();
    while (p->drain(pending_, SIZE_MAX)) append();
    return true;
  }
  const profiler::Trace& trace() const { return trace_; }
  // The records as collected (compact chunks), for KeptProfiles; the trace keeps its own.
  std::vector<std::vector<uint8_t>> take_chunks() { return std::move(chunks_); }

 private:
  // Decoded, ~170 bytes a record: 2^18 of them are ~45 MiB for the answer's moment.
  static constexpr size_t kMaxKept = size_t{1} << 18;

  // The profiler while it is still this profile, else null; either way the hold ends.
  std::shared_ptr<profiler::Profiler> release() {
    std::shared_ptr<profiler::Profiler> p = std::move(profiler_);
    return p && p->generation() == generation_ ? p : nullptr;
  }
  void append() {
    std::vector<uint8_t> chunk = profiler::encode_chunk(pending_, session_);
    trace_.append_chunk(chunk);
    chunks_.push_back(std::move(chunk));
  }

  std::shared_ptr<profiler::Profiler> profiler_;
  const uint64_t generation_;
  const uint64_t session_;
  profiler::Pending pending_;
  profiler::Trace trace_;
  std::vector<std::vector<uint8_t>> chunks_;
};

constexpr auto kCollectEvery = 50 * kj::MILLISECONDS;

// Collects `own` every kCollectEvery until `end`, or until the profile is no longer ours.
kj::Promise<void> collect_until(std::shared_ptr<OwnProfile> own, kj::Timer& timer,
                                kj::TimePoint end) {
  const kj::TimePoint next = timer.now() + kCollectEvery;
  return timer.atTime(next < end ? next : end).then([own, &timer, end]() -> kj::Promise<void> {
    if (!own->collect() || timer.now() >= end) return kj::READY_NOW;
    return collect_until(own, timer, end);
  });
}

}  // namespace

kj::Promise<DashboardAnswer> profile_session(std::shared_ptr<DaemonState> daemon, kj::Timer& timer,
                                             KeptProfiles& kept, std::string_view query) {
  const std::optional<std::string_view> id_text = query_parameter(query, "session");
  const std::optional<uint64_t> id = id_text ? query_number<uint64_t>(*id_text) : std::nullopt;
  if (!id) return error_answer(400, "profile needs ?session=ID (a session id of /api/status)");
  double seconds = kDefaultSeconds;
  if (const std::optional<std::string_view> s = query_parameter(query, "seconds")) {
    const std::optional<double> given = query_number<double>(*s);
    if (!given || !std::isfinite(*given) || *given <= 0 || *given > kMaxSeconds) {
      return error_answer(400, "seconds must be in (0, 10], got '" + std::string(*s) + "'");
    }
    seconds = *given;
  }
  bool with_trace = false, memory = false;
  if (std::optional<DashboardAnswer> bad = read_flag(query, "trace", with_trace)) return *bad;
  if (std::optional<DashboardAnswer> bad = read_flag(query, "memory", memory)) return *bad;
  const auto& sessions = daemon->activity.sessions();
  const auto it = sessions.find(*id);
  if (it == sessions.end()) return error_answer(404, "no session " + std::to_string(*id));
  std::shared_ptr<profiler::Profiler> profiler = it->second->profiler();
  if (profiler->active()) {
    return error_answer(409, "session " + std::to_string(*id) +
                                 " is being profiled by its client (or another dashboard request)");
  }
  profiler::ProfileOptions options;  // memory records only when asked: they double the cost
  options.memory = memory;
  // The bytes the session holds now: the memory series starts from them (the profile records
  // only what is allocated from here on). Read on the event loop, where the account changes, in
  // the same turn as the start.
  const std::shared_ptr<Account> account = it->second->account();
  HeldBytes held{account->usage().bytes, 0, holdings_json(*account)};
  profiler->start(options);
  // As Session.profile does: the device's segments go to every profile recording memory, and
  // the blocks the session holds now are adopted (their frees during the profile are recorded).
  if (memory) daemon->memory->subscribe(profiler, *id);
  auto ours = std::make_shared<OwnProfile>(profiler, *id);
  const kj::TimePoint end = timer.now() + static_cast<int64_t>(seconds * 1e3) * kj::MILLISECONDS;
  return collect_until(ours, timer, end)
      .then([ours, seconds, with_trace, memory, account, held = std::move(held), id = *id,
             &kept]() mutable {
        int64_t elapsed_ns = 0;
        if (!ours->finish(elapsed_ns)) {
          return error_answer(
              409, "session " + std::to_string(id) +
                       "'s client started a profile of its own meanwhile; it has the trace");
        }
        held.at_end = account->usage().bytes;
        const uint64_t profile_id =
            kept.keep(KeptProfile{0, id, memory, elapsed_ns, held, ours->take_chunks()});
        return DashboardAnswer{200, profile_json(profile_id, id, seconds, memory, elapsed_ns,
                                                 ours->trace(), with_trace, held)};
      });
}

}  // namespace tensord::server
