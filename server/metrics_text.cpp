#include "server/metrics_text.h"

#include <chrono>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

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

// One family over labelled things: `value` gives each one's sample, or nullopt where it has no
// such figure (a CPU has no caching allocator); a family no one has is left out.
template <typename Item, typename Value>
void labelled_family(Exposition& e, std::string_view name, std::string_view type,
                     std::string_view help, const std::vector<std::pair<std::string, Item>>& items,
                     Value value) {
  bool announced = false;
  for (const auto& [labels, item] : items) {
    const std::optional<double> v = value(item);
    if (!v) continue;
    if (!announced) e.family(name, type, help);
    announced = true;
    e.sample(name, labels, *v);
  }
}

void session_families(Exposition& e, const ActivityLog& activity) {
  std::vector<std::pair<std::string, const SessionCore*>> sessions;
  for (const auto& [id, s] : activity.sessions()) {
    sessions.emplace_back(
        "session=\"" + std::to_string(id) + "\",name=\"" + metric_label(s->name()) + "\"", s);
  }
  using S = const SessionCore*;
  labelled_family(e, "session_runs_total", "counter", "Runs of a live session that succeeded.",
                  sessions, [](S s) { return std::optional<double>(s->runs()); });
  labelled_family(e, "session_failed_runs_total", "counter", "Runs of a live session that failed.",
                  sessions, [](S s) { return std::optional<double>(s->failed_runs()); });
  labelled_family(e, "session_live_bytes", "gauge", "Bytes of a live session's tensors.", sessions,
                  [](S s) { return std::optional<double>(s->account()->usage().bytes); });
}

void cache_families(Exposition& e, const DaemonState& daemon) {
  std::vector<std::pair<std::string, cache::KernelCacheStats>> caches;
  for (const auto& [target, k] : kernel_caches(daemon)) {
    caches.emplace_back("target=\"" + metric_label(target) + "\"", k);
  }
  using K = const cache::KernelCacheStats&;
  // Hits carry a second label, where they were found: two samples per cache.
  e.family("kernel_cache_hits_total", "counter",
           "Kernels a plan needed that were loaded already (memory) or read from disk (disk).");
  for (const auto& [labels, k] : caches) {
    e.sample("kernel_cache_hits_total", labels + ",from=\"memory\"",
             static_cast<double>(k.memory_hits));
    e.sample("kernel_cache_hits_total", labels + ",from=\"disk\"",
             static_cast<double>(k.disk_hits));
  }
  labelled_family(e, "kernel_cache_misses_total", "counter", "Kernels that had to be compiled.",
                  caches, [](K k) { return std::optional<double>(k.misses); });
  labelled_family(
      e, "kernel_compile_seconds_total", "counter", "Wall time spent in the kernel compiler.",
      caches, [](K k) { return std::optional<double>(static_cast<double>(k.compile_ns) / 1e9); });
}

void device_families(Exposition& e, const scheduler::Scheduler& scheduler) {
  struct Device {
    uint64_t total_memory;
    engine::DeviceMemoryStats memory;  // read once: each read takes the allocator's lock
    scheduler::SliceStats slices;
    uint64_t engine_loans;
  };
  std::vector<std::pair<std::string, Device>> devices;
  for (size_t i = 0; i < scheduler.device_count(); ++i) {
    const engine::DeviceInfo& d = scheduler.device_info(i);
    devices.emplace_back("device=\"" + metric_label(d.kind + ":" + std::to_string(d.index)) + "\"",
                         Device{d.total_memory, scheduler.memory_stats(i), scheduler.slice_stats(i),
                                scheduler.engine_loans(i)});
  }
  using D = const Device&;
  using Maybe = std::optional<double>;
  labelled_family(e, "device_memory_total_bytes", "gauge", "The device's memory.", devices,
                  [](D d) { return Maybe(d.total_memory); });
  labelled_family(e, "device_allocated_bytes", "gauge",
                  "Bytes the caching allocator has handed out.", devices, [](D d) {
                    return d.memory.allocator ? Maybe(d.memory.allocator->allocated_bytes.current)
                                              : std::nullopt;
                  });
  labelled_family(e, "device_reserved_bytes", "gauge",
                  "Bytes the caching allocator holds from the device.", devices, [](D d) {
                    return d.memory.allocator ? Maybe(d.memory.allocator->reserved_bytes.current)
                                              : std::nullopt;
                  });
  labelled_family(
      e, "device_oom_total", "counter", "Allocations that failed with out of memory.", devices,
      [](D d) { return d.memory.allocator ? Maybe(d.memory.allocator->num_ooms) : std::nullopt; });
  labelled_family(e, "device_host_cached_bytes", "gauge", "Freed large host blocks kept for reuse.",
                  devices, [](D d) {
                    return d.memory.host_cache ? Maybe(d.memory.host_cache->cached_bytes)
                                               : std::nullopt;
                  });
  labelled_family(e, "device_run_pauses_total", "counter",
                  "Runs paused between two steps for other sessions' work (--time-slice-ms).",
                  devices, [](D d) { return Maybe(d.slices.pauses); });
  labelled_family(e, "device_jobs_in_pauses_total", "counter",
                  "Other sessions' requests served while a run was paused.", devices,
                  [](D d) { return Maybe(d.slices.jobs_in_pauses); });
  labelled_family(e, "device_inline_runs_total", "counter",
                  "Small runs the event loop ran itself while the device's worker idled "
                  "(--inline-small-runs).",
                  devices, [](D d) { return Maybe(d.engine_loans); });
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
