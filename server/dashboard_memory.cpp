#include "server/dashboard_memory.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "server/session_core.h"

namespace tensord::server {

void MemoryHistory::add(Clock::time_point at, std::vector<SessionBytes> sessions,
                        std::vector<DeviceMemory> devices) {
  Sample sample{at, added_++, {}, std::move(devices)};
  sample.session.reserve(sessions.size());
  for (SessionBytes& s : sessions) {
    sample.session.emplace_back(s.id, s.live_bytes);
    auto [seen, fresh] = sessions_.try_emplace(s.id);
    if (fresh) seen->second.name = std::move(s.name);  // a session's name never changes
    seen->second.last = sample.number;
  }
  std::sort(sample.session.begin(), sample.session.end());  // live_bytes looks ids up by halves
  samples_.push_back(std::move(sample));
  if (samples_.size() > kSamples) samples_.pop_front();
  const uint64_t oldest = samples_.front().number;
  std::erase_if(sessions_, [oldest](const auto& s) { return s.second.last < oldest; });
}

std::vector<uint64_t> MemoryHistory::live_bytes(uint64_t id) const {
  std::vector<uint64_t> out;
  out.reserve(samples_.size());
  for (const Sample& sample : samples_) {
    const auto it = std::lower_bound(sample.session.begin(), sample.session.end(),
                                     std::pair<uint64_t, uint64_t>{id, 0});
    out.push_back(it != sample.session.end() && it->first == id ? it->second : 0);
  }
  return out;
}

MemoryHistory::Series MemoryHistory::series(size_t cap) const {
  // Every session of the window with its peak, by id (sessions_ holds each id of each sample).
  std::vector<std::pair<uint64_t, uint64_t>> peaks;  // (id, peak bytes)
  peaks.reserve(sessions_.size());
  for (const auto& [id, seen] : sessions_) peaks.emplace_back(id, 0);
  const auto index = [&peaks](uint64_t id) {
    return static_cast<size_t>(
        std::lower_bound(peaks.begin(), peaks.end(), std::pair<uint64_t, uint64_t>{id, 0}) -
        peaks.begin());
  };
  for (const Sample& sample : samples_) {
    for (const auto& [id, bytes] : sample.session) {
      uint64_t& peak = peaks[index(id)].second;
      peak = std::max(peak, bytes);
    }
  }
  // The `cap` highest peaks, of equal ones the lower ids.
  std::vector<size_t> order(peaks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (order.size() > cap) {
    std::nth_element(order.begin(), order.begin() + cap, order.end(), [&peaks](size_t a, size_t b) {
      return peaks[a].second != peaks[b].second ? peaks[a].second > peaks[b].second : a < b;
    });
    order.resize(cap);
    std::sort(order.begin(), order.end());  // by id again
  }
  constexpr size_t kOther = SIZE_MAX;
  std::vector<size_t> slot(peaks.size(), kOther);
  Series out;
  out.sessions.reserve(order.size());
  for (size_t i : order) {
    slot[i] = out.sessions.size();
    out.sessions.push_back({peaks[i].first, sessions_.at(peaks[i].first).name,
                            std::vector<uint64_t>(samples_.size(), 0)});
  }
  out.other_count = peaks.size() - order.size();
  if (out.other_count > 0) out.other.assign(samples_.size(), 0);
  for (size_t i = 0; i < samples_.size(); ++i) {
    for (const auto& [id, bytes] : samples_[i].session) {
      const size_t s = slot[index(id)];
      if (s == kOther) {
        out.other[i] += bytes;
      } else {
        out.sessions[s].live_bytes[i] = bytes;
      }
    }
  }
  return out;
}

namespace {

using Device = MemoryHistory::DeviceMemory;

// One device figure over the samples, or nothing when the device never had it. A sample without
// the figure (none so far: a device's parts are fixed) counts as 0, keeping the series aligned.
template <typename T>
std::optional<nlohmann::json> series(const MemoryHistory& history, size_t device,
                                     std::optional<T> Device::*figure) {
  nlohmann::json out = nlohmann::json::array();
  bool any = false;
  for (const MemoryHistory::Sample& sample : history.samples()) {
    const std::optional<T> value =
        device < sample.devices.size() ? sample.devices[device].*figure : std::nullopt;
    any = any || value.has_value();
    out.push_back(value.value_or(0));
  }
  if (!any) return std::nullopt;
  return out;
}

void sample_now(const DaemonState& daemon, MemoryHistory& history) {
  std::vector<MemoryHistory::SessionBytes> sessions;
  for (const auto& [id, session] : daemon.activity.sessions()) {
    sessions.push_back({id, session->name(), session->account()->usage().bytes});
  }
  const scheduler::Scheduler& scheduler = *daemon.scheduler;
  std::vector<Device> devices(scheduler.device_count());
  for (size_t i = 0; i < devices.size(); ++i) {
    const engine::DeviceMemoryStats stats = scheduler.memory_stats(i);
    if (const auto& a = stats.allocator) {
      devices[i].allocated = a->allocated_bytes.current;
      devices[i].reserved = a->reserved_bytes.current;
    }
    if (const auto& c = stats.host_cache) devices[i].host_cached = c->cached_bytes;
  }
  history.add(MemoryHistory::Clock::now(), std::move(sessions), std::move(devices));
}

kj::Promise<void> sample_at(const DaemonState& daemon, MemoryHistory& history, kj::Timer& timer,
                            kj::TimePoint when) {
  return timer.atTime(when).then([&daemon, &history, &timer, when] {
    sample_now(daemon, history);
    // Seconds apart on schedule, not a second after each late wake-up; after a stall, from now.
    kj::TimePoint next = when + 1 * kj::SECONDS;
    if (next <= timer.now()) next = timer.now() + 1 * kj::SECONDS;
    return sample_at(daemon, history, timer, next);
  });
}

}  // namespace

nlohmann::json memory_history_json(const MemoryHistory& history, const DaemonState& daemon) {
  nlohmann::json t_s = nlohmann::json::array();
  for (const MemoryHistory::Sample& sample : history.samples()) {
    // Milliseconds are plenty for a once-a-second series, and keep the numbers short.
    t_s.push_back(std::round(seconds(sample.at - daemon.activity.started()) * 1e3) / 1e3);
  }
  nlohmann::json devices = nlohmann::json::array();
  const scheduler::Scheduler& scheduler = *daemon.scheduler;
  for (size_t i = 0; i < scheduler.device_count(); ++i) {
    const engine::DeviceInfo& info = scheduler.device_info(i);
    nlohmann::json device = {{"kind", info.kind}, {"index", info.index}};
    if (auto s = series(history, i, &Device::allocated)) device["allocated"] = std::move(*s);
    if (auto s = series(history, i, &Device::reserved)) device["reserved"] = std::move(*s);
    if (auto s = series(history, i, &Device::host_cached)) device["host_cached"] = std::move(*s);
    devices.push_back(std::move(device));
  }
  nlohmann::json out = {{"interval_s", 1}, {"t_s", std::move(t_s)}};
  memory_sessions_json(history, out);
  out["devices"] = std::move(devices);
  return out;
}

void memory_sessions_json(const MemoryHistory& history, nlohmann::json& out, size_t cap) {
  MemoryHistory::Series series = history.series(cap);
  nlohmann::json sessions = nlohmann::json::array();
  for (MemoryHistory::SessionSeries& s : series.sessions) {
    sessions.push_back(
        {{"id", s.id}, {"name", std::move(s.name)}, {"live_bytes", std::move(s.live_bytes)}});
  }
  out["sessions"] = std::move(sessions);
  if (series.other_count > 0) {
    out["other_sessions"] = {{"count", series.other_count},
                             {"live_bytes", std::move(series.other)}};
  }
}

kj::Promise<void> sample_memory(const DaemonState& daemon, MemoryHistory& history,
                                kj::Timer& timer) {
  return sample_at(daemon, history, timer, timer.now());
}

}  // namespace tensord::server
