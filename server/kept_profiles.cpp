#include "server/kept_profiles.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace tensord::server {

profiler::Trace KeptProfile::decode() const {
  profiler::Trace trace;
  for (const std::vector<uint8_t>& chunk : chunks) trace.append_chunk(chunk);
  return trace;
}

uint64_t KeptProfiles::keep(KeptProfile profile) {
  profile.id = next_id_++;
  kept_.push_back(std::move(profile));
  while (kept_.size() > kMaxProfiles) kept_.pop_front();
  return kept_.back().id;
}

const KeptProfile* KeptProfiles::find(uint64_t id) const {
  for (const KeptProfile& p : kept_) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

DashboardAnswer profile_window(const KeptProfiles& kept, std::string_view query) {
  const std::optional<std::string_view> id_text = query_parameter(query, "id");
  const std::optional<uint64_t> id = id_text ? query_number<uint64_t>(*id_text) : std::nullopt;
  if (!id)
    return error_answer(400, "profile/timeline needs ?id=N (the id of an /api/profile answer)");
  const KeptProfile* p = kept.find(*id);
  if (p == nullptr) {
    return error_answer(404, "no profile " + std::to_string(*id) +
                                 ": the dashboard keeps its last " +
                                 std::to_string(KeptProfiles::kMaxProfiles));
  }
  const double duration_us = static_cast<double>(p->elapsed_ns) / 1e3;
  double bounds[2] = {0, duration_us};
  const char* keys[2] = {"from_us", "to_us"};
  for (int i = 0; i < 2; ++i) {
    const std::optional<std::string_view> text = query_parameter(query, keys[i]);
    if (!text) continue;
    const std::optional<double> value = query_number<double>(*text);
    if (!value || !std::isfinite(*value) || *value < 0) {
      return error_answer(400, std::string(keys[i]) + " must be a time in microseconds since the " +
                                   "profile started, got '" + std::string(*text) + "'");
    }
    bounds[i] = std::min(*value, duration_us);
  }
  TimeWindow window{static_cast<int64_t>(bounds[0] * 1e3), static_cast<int64_t>(bounds[1] * 1e3)};
  if (window.from_ns >= window.to_ns) {
    return error_answer(400, "from_us must be before to_us, within the profile's " +
                                 std::to_string(static_cast<int64_t>(duration_us)) + " us");
  }
  const profiler::Trace trace = p->decode();
  return {200, nlohmann::json{{"id", p->id},
                              {"session", p->session},
                              {"timeline",
                               profile_timeline(trace, p->elapsed_ns, p->memory, p->held, window)}}
                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

}  // namespace tensord::server
