#include "server/dashboard_status.h"

#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "server/kernel_caches.h"
#include "server/session_core.h"

namespace tensord::server {
namespace {

using Clock = ActivityLog::Clock;

// What the device says of its memory (Session.memoryStats' figures): a caching allocator's
// allocated and reserved bytes, or the host block cache's; absent parts stay absent.
nlohmann::json memory(const engine::DeviceMemoryStats& stats) {
  nlohmann::json out = nlohmann::json::object();
  if (const auto& a = stats.allocator) {
    out["allocated"] = a->allocated_bytes.current;
    out["allocated_peak"] = a->allocated_bytes.peak;
    out["reserved"] = a->reserved_bytes.current;
    out["reserved_peak"] = a->reserved_bytes.peak;
    out["ooms"] = a->num_ooms;
  }
  if (const auto& c = stats.host_cache) out["host_cached"] = c->cached_bytes;
  return out;
}

nlohmann::json devices(const scheduler::Scheduler& scheduler) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < scheduler.device_count(); ++i) {
    const engine::DeviceInfo& d = scheduler.device_info(i);
    out.push_back({{"kind", d.kind},
                   {"index", d.index},
                   {"name", d.name},
                   {"total_memory", d.total_memory},
                   {"threads", d.threads},
                   {"memory", memory(scheduler.memory_stats(i))},
                   {"pauses", scheduler.slice_stats(i).pauses},
                   {"jobs_in_pauses", scheduler.slice_stats(i).jobs_in_pauses},
                   {"inline_runs", scheduler.engine_loans(i)}});
  }
  return out;
}

nlohmann::json sessions(const ActivityLog& activity, Clock::time_point now) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [id, session] : activity.sessions()) {
    const Usage& usage = session->account()->usage();
    out.push_back({{"id", id},
                   {"name", session->name()},
                   {"client", session->client()},
                   {"peer", session->peer()},
                   {"runs", session->runs()},
                   {"failed_runs", session->failed_runs()},
                   {"live_tensors", usage.tensors},
                   {"live_bytes", usage.bytes},
                   {"holdings", holdings_json(*session->account())},
                   {"compile_mode", engine::name(session->compile_mode())},
                   {"profiling", session->profiler()->active()},
                   {"age_s", seconds(now - session->opened())},
                   {"idle_s", seconds(now - session->last_active())}});
    // How long its current run has been on a device worker; absent when none is.
    if (const int64_t since = session->running_since()->load(); since != 0) {
      const Clock::time_point start{Clock::duration(since)};
      out.back()["running_s"] = seconds(now > start ? now - start : Clock::duration{});
    }
  }
  return out;
}

nlohmann::json recent_runs(const ActivityLog& activity) {
  nlohmann::json out = nlohmann::json::array();
  for (const ActivityLog::Run& run : activity.recent_runs()) {
    out.push_back({{"session", run.session},
                   {"session_name", run.session_name},
                   {"start_s", seconds(run.start - activity.started())},
                   {"duration_ms", seconds(run.duration) * 1e3},
                   {"wait_ms", seconds(run.waited) * 1e3},
                   {"nodes", run.nodes},
                   {"ok", run.error.empty()},
                   {"error", run.error}});
  }
  return out;
}

nlohmann::json kernels(const DaemonState& daemon) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [target, k] : kernel_caches(daemon)) {
    out.push_back({{"target", target},
                   {"memory_hits", k.memory_hits},
                   {"disk_hits", k.disk_hits},
                   {"misses", k.misses},
                   {"compiles", k.compiles},
                   {"compile_ms", static_cast<double>(k.compile_ns) / 1e6}});
  }
  return out;
}

}  // namespace

nlohmann::json holdings_json(const Account& account) {
  nlohmann::json out = nlohmann::json::array();
  for (const Holding& h : account.largest_holdings(3)) {
    out.push_back({{"origin", h.origin}, {"bytes", h.bytes}, {"tensors", h.tensors}});
  }
  return out;
}

std::string dashboard_status_json(const DaemonState& daemon, const MemoryHistory& memory) {
  const ActivityLog& activity = daemon.activity;
  const Clock::time_point now = Clock::now();
  nlohmann::json status = {
      {"daemon",
       {{"version", TENSORD_VERSION},
        {"pid", static_cast<int64_t>(getpid())},
        {"uptime_s", seconds(now - activity.started())},
        {"listen", daemon.listen},
        {"session_memory_limit", daemon.config.session_memory_limit}}},
      {"devices", devices(*daemon.scheduler)},
      {"totals",
       {{"sessions", activity.sessions().size()},
        {"live_tensors", daemon.usage->tensors},
        {"live_bytes", daemon.usage->bytes},
        {"runs", activity.runs()},
        {"failed_runs", activity.failed_runs()}}},
      {"kernels", kernels(daemon)},
      {"sessions", sessions(activity, now)},
      {"recent_runs", recent_runs(activity)},
      {"memory_history", memory_history_json(memory, daemon)},
  };
  // Session names and error texts come from clients: never fail on bytes that are not UTF-8.
  return status.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace tensord::server
