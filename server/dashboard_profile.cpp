#include "server/dashboard_profile.h"

#include <charconv>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/profiler/chrome.h"
#include "engine/profiler/compact.h"
#include "engine/profiler/summary.h"
#include "server/session_core.h"

namespace tensord::server {
namespace {

constexpr double kDefaultSeconds = 2;
constexpr double kMaxSeconds = 10;

DashboardAnswer answer(unsigned status, std::string_view error) {
  return {status, nlohmann::json{{"error", error}}.dump(-1, ' ', false,
                                                        nlohmann::json::error_handler_t::replace)};
}

// The value of `key` in "a=1&b=2"; nullopt when absent.
std::optional<std::string_view> parameter(std::string_view query, std::string_view key) {
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) == key) {
      return eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

template <typename T>
std::optional<T> number(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string key_averages_json(uint64_t session, double seconds, const profiler::Trace& trace,
                              bool with_trace) {
  nlohmann::json rows = nlohmann::json::array();
  for (const profiler::KeyAverage& k : profiler::key_averages(trace)) {
    rows.push_back({{"key", k.key},
                    {"calls", k.calls},
                    {"self_us", static_cast<double>(k.self_ns) / 1e3},
                    {"total_us", static_cast<double>(k.total_ns) / 1e3},
                    {"source", k.source}});
  }
  std::string body = nlohmann::json{
      {"session", session},
      {"seconds", seconds},
      {"records", trace.records.size()},
      {"dropped", trace.dropped},
      {"key_averages",
       std::move(rows)}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (!with_trace) return body;
  // The Chrome trace is JSON already: spliced in as the last member, not parsed again.
  body.pop_back();  // the closing brace
  return body + ",\"chrome_trace\":" + profiler::chrome_trace_json(trace) + "}";
}

// The dashboard's hold on a session's profiler: stopped when the request goes away unanswered
// (the daemon shutting down), unless the client has started a profile of its own since.
class OwnProfile {
 public:
  explicit OwnProfile(std::shared_ptr<profiler::Profiler> p)
      : profiler_(std::move(p)), generation_(profiler_->generation()) {}
  OwnProfile(const OwnProfile&) = delete;
  OwnProfile& operator=(const OwnProfile&) = delete;
  ~OwnProfile() {
    if (const std::shared_ptr<profiler::Profiler> p = release()) p->stop();
  }
  // The profiler while it is still this profile, else null; either way the hold ends.
  std::shared_ptr<profiler::Profiler> release() {
    std::shared_ptr<profiler::Profiler> p = std::move(profiler_);
    return p && p->generation() == generation_ ? p : nullptr;
  }

 private:
  std::shared_ptr<profiler::Profiler> profiler_;
  const uint64_t generation_;
};

}  // namespace

kj::Promise<DashboardAnswer> profile_session(std::shared_ptr<DaemonState> daemon, kj::Timer& timer,
                                             std::string_view query) {
  const std::optional<std::string_view> id_text = parameter(query, "session");
  const std::optional<uint64_t> id = id_text ? number<uint64_t>(*id_text) : std::nullopt;
  if (!id) return answer(400, "profile needs ?session=ID (a session id of /api/status)");
  double seconds = kDefaultSeconds;
  if (const std::optional<std::string_view> s = parameter(query, "seconds")) {
    const std::optional<double> given = number<double>(*s);
    if (!given || !std::isfinite(*given) || *given <= 0 || *given > kMaxSeconds) {
      return answer(400, "seconds must be in (0, 10], got '" + std::string(*s) + "'");
    }
    seconds = *given;
  }
  const std::optional<std::string_view> trace_flag = parameter(query, "trace");
  if (trace_flag && *trace_flag != "0" && *trace_flag != "1") {
    return answer(400, "trace must be 0 or 1, got '" + std::string(*trace_flag) + "'");
  }
  const bool with_trace = trace_flag && *trace_flag == "1";
  const auto& sessions = daemon->activity.sessions();
  const auto it = sessions.find(*id);
  if (it == sessions.end()) return answer(404, "no session " + std::to_string(*id));
  std::shared_ptr<profiler::Profiler> profiler = it->second->profiler();
  if (profiler->active()) {
    return answer(409, "session " + std::to_string(*id) +
                           " is being profiled by its client (or another dashboard request)");
  }
  profiler::ProfileOptions options;  // tracing only: memory records would double the cost
  profiler->start(options);
  auto ours = std::make_shared<OwnProfile>(profiler);
  const auto delay = static_cast<int64_t>(seconds * 1e3) * kj::MILLISECONDS;
  return timer.afterDelay(delay).then([ours, seconds, with_trace, id = *id]() {
    const std::shared_ptr<profiler::Profiler> traced = ours->release();
    if (!traced) {
      return answer(409, "session " + std::to_string(id) +
                             "'s client started a profile of its own meanwhile; it has the trace");
    }
    traced->stop();
    profiler::Trace trace;  // as a client reads it: the drained records as chunks
    profiler::Pending pending;
    while (traced->drain(pending, SIZE_MAX)) {
      trace.append_chunk(profiler::encode_chunk(pending, id));
    }
    return DashboardAnswer{200, key_averages_json(id, seconds, trace, with_trace)};
  });
}

}  // namespace tensord::server
