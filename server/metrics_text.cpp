#include "server/metrics_text.h"

#include <chrono>
#include <cstdio>

#include "server/kernel_caches.h"
#include "server/session_core.h"

namespace tensord::server {
namespace {

// Writes families: a HELP and TYPE line once, then samples.
class Exposition {
 public:
  void family(std::string_view name, std::string_view type, std::string_view help) {
    out_ += "# HELP tensord_";
    out_ += name;
    out_ += ' ';
    out_ += help;
    out_ += "\n# TYPE tensord_";
    out_ += name;
    out_ += ' ';
    out_ += type;
    out_ += '\n';
  }
  // `labels`: already formatted, e.g. `target="host"` (empty: none).
  void sample(std::string_view name, const std::string& labels, double value) {
    char number[32];
    std::snprintf(number, sizeof number, "%.15g", value);
    out_ += "tensord_";
    out_ += name;
    if (!labels.empty()) out_ += "{" + labels + "}";
    out_ += ' ';
    out_ += number;
    out_ += '\n';
  }
  void single(std::string_view name, std::string_view type, std::string_view help, double value) {
    family(name, type, help);
    sample(name, {}, value);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

std::string device_label(const engine::DeviceInfo& d) {
  return "device=\"" + metric_label(d.kind + ":" + std::to_string(d.index)) + "\"";
}

void session_families(Exposition& e, const ActivityLog& activity) {
  e.family("session_runs_total", "counter", "Runs of a live session that succeeded.");
  for (const auto& [id, s] : activity.sessions()) {
    e.sample("session_runs_total",
             "session=\"" + std::to_string(id) + "\",name=\"" + metric_label(s->name()) + "\"",
             static_cast<double>(s->runs()));
  }
  e.family("session_failed_runs_total", "counter", "Runs of a live session that failed.");
  for (const auto& [id, s] : activity.sessions()) {
    e.sample("session_failed_runs_total",
             "session=\"" + std::to_string(id) + "\",name=\"" + metric_label(s->name()) + "\"",
             static_cast<double>(s->failed_runs()));
  }
  e.family("session_live_bytes", "gauge", "Bytes of a live session's tensors.");
  for (const auto& [id, s] : activity.sessions()) {
    e.sample("session_live_bytes",
             "session=\"" + std::to_string(id) + "\",name=\"" + metric_label(s->name()) + "\"",
             static_cast<double>(s->account()->usage().bytes));
  }
}

void cache_families(Exposition& e, const DaemonState& daemon) {
  const auto caches = kernel_caches(daemon);
  e.family("kernel_cache_hits_total", "counter",
           "Kernels a plan needed that were loaded already (memory) or read from disk (disk).");
  for (const auto& [target, k] : caches) {
    const std::string t = "target=\"" + metric_label(target) + "\"";
    e.sample("kernel_cache_hits_total", t + ",from=\"memory\"", static_cast<double>(k.memory_hits));
    e.sample("kernel_cache_hits_total", t + ",from=\"disk\"", static_cast<double>(k.disk_hits));
  }
  e.family("kernel_cache_misses_total", "counter", "Kernels that had to be compiled.");
  for (const auto& [target, k] : caches) {
    e.sample("kernel_cache_misses_total", "target=\"" + metric_label(target) + "\"",
             static_cast<double>(k.misses));
  }
  e.family("kernel_compile_seconds_total", "counter", "Wall time spent in the kernel compiler.");
  for (const auto& [target, k] : caches) {
    e.sample("kernel_compile_seconds_total", "target=\"" + metric_label(target) + "\"",
             static_cast<double>(k.compile_ns) / 1e9);
  }
}

void device_families(Exposition& e, const scheduler::Scheduler& scheduler) {
  e.family("device_memory_total_bytes", "gauge", "The device's memory.");
  for (size_t i = 0; i < scheduler.device_count(); ++i) {
    const engine::DeviceInfo& d = scheduler.device_info(i);
    e.sample("device_memory_total_bytes", device_label(d), static_cast<double>(d.total_memory));
  }
  // Each family only for the devices that have the figure (a CPU has no caching allocator).
  struct Figure {
    const char* name;
    const char* type;
    const char* help;
  };
  const Figure allocator[] = {
      {"device_allocated_bytes", "gauge", "Bytes the caching allocator has handed out."},
      {"device_reserved_bytes", "gauge", "Bytes the caching allocator holds from the device."},
      {"device_oom_total", "counter", "Allocations that failed with out of memory."},
  };
  for (size_t f = 0; f < std::size(allocator); ++f) {
    bool announced = false;
    for (size_t i = 0; i < scheduler.device_count(); ++i) {
      const auto stats = scheduler.memory_stats(i).allocator;
      if (!stats) continue;
      if (!announced) e.family(allocator[f].name, allocator[f].type, allocator[f].help);
      announced = true;
      const double value = f == 0   ? static_cast<double>(stats->allocated_bytes.current)
                           : f == 1 ? static_cast<double>(stats->reserved_bytes.current)
                                    : static_cast<double>(stats->num_ooms);
      e.sample(allocator[f].name, device_label(scheduler.device_info(i)), value);
    }
  }
  bool announced = false;
  for (size_t i = 0; i < scheduler.device_count(); ++i) {
    const auto cache = scheduler.memory_stats(i).host_cache;
    if (!cache) continue;
    if (!announced) {
      e.family("device_host_cached_bytes", "gauge", "Freed large host blocks kept for reuse.");
    }
    announced = true;
    e.sample("device_host_cached_bytes", device_label(scheduler.device_info(i)),
             static_cast<double>(cache->cached_bytes));
  }
}

}  // namespace

std::string metric_label(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string metrics_text(const DaemonState& daemon) {
  const ActivityLog& activity = daemon.activity;
  Exposition e;
  e.single("uptime_seconds", "gauge", "Seconds since the daemon started.",
           seconds(ActivityLog::Clock::now() - activity.started()));
  e.single("sessions", "gauge", "Sessions connected now.",
           static_cast<double>(activity.sessions().size()));
  e.single("live_tensors", "gauge", "Tensors held by all sessions.",
           static_cast<double>(daemon.usage->tensors));
  e.single("live_bytes", "gauge", "Bytes of the tensors held by all sessions.",
           static_cast<double>(daemon.usage->bytes));
  e.single("runs_total", "counter", "Runs that succeeded.", static_cast<double>(activity.runs()));
  e.single("failed_runs_total", "counter", "Runs that failed.",
           static_cast<double>(activity.failed_runs()));
  e.single("run_seconds_total", "counter", "Time of all ended runs, arrival to end.",
           seconds(activity.run_time()));
  e.single("run_wait_seconds_total", "counter",
           "The part of run_seconds_total before a device worker took the run.",
           seconds(activity.wait_time()));
  session_families(e, activity);
  cache_families(e, daemon);
  device_families(e, *daemon.scheduler);
  return e.take();
}

}  // namespace tensord::server
