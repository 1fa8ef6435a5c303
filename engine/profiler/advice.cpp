#include "engine/profiler/advice.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace tensord::profiler {
namespace {

// Thresholds. Each rule needs repeated evidence, so one odd request never triggers it.
constexpr uint64_t kRepeatedPlan = 10;         // GPU runs of one plan worth capturing
constexpr uint64_t kLoopSyncs = 20;            // syncs of one tiny graph that make a loop
constexpr uint64_t kTinyGraphSteps = 8;        // steps of a "tiny" graph
constexpr uint64_t kTinyGraphBytes = 1 << 20;  // and the bytes its steps read and write
constexpr int64_t kF32HighestNs = 1'000'000;   // GPU time in highest-precision f32 matmuls
constexpr double kFragmentation = 0.25;        // share of free memory unusable for the request
// launch_overhead, on counts and sizes like sync_in_loop: a kernel that moves 256 KiB runs for
// well under a microsecond on a GPU (TB/s), below its launch cost of a few microseconds; one
// with no step to attribute bytes to is tiny when it launches fewer threads than a quarter of a
// wave of a large GPU. A request whose steps touch 1 MiB in all is microseconds of work on any
// device, below the tens of microseconds a request costs (RPC, validation, plan lookup).
constexpr uint64_t kManyKernels = 50;
constexpr uint64_t kSmallKernelBytes = 256 << 10;
constexpr uint64_t kSmallKernelThreads = 32768;
constexpr uint64_t kOverheadRequests = 20;
constexpr uint64_t kSmallRequestBytes = 1 << 20;
constexpr uint64_t kRepeatedUploads = 3;
constexpr uint64_t kUploadBytes = 4096;  // smaller uploads are constants, not data

std::string fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}
std::string ms(int64_t ns) {
  return fmt("%.3f ms", static_cast<double>(ns) / 1e6);
}
std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}
std::string at(const Trace& t, uint32_t file, uint32_t line) {
  return file == 0 ? std::string("<unknown line>") : t.str(file) + ":" + std::to_string(line);
}

bool is(const Record& r, Stage s) {
  return r.kind == RecordKind::Span && static_cast<Stage>(r.stage) == s;
}

void cuda_graph(const Trace& t, std::vector<Recommendation>& out) {
  struct Runs {
    uint64_t n = 0, steps = 0;
    int64_t ns = 0;
  };
  std::map<uint64_t, Runs> plans;
  // Plans that reduce-overhead mode declined or could not capture (CaptureNote): capturing is
  // what was tried there, so "capture it" would be wrong advice.
  std::set<uint64_t> declined;
  for (const Record& r : t.records) {
    if (is(r, Stage::Execute) && (r.flags & kOnGpu) && !(r.flags & kGraphCaptured)) {
      if (r.id != static_cast<uint64_t>(CaptureNote::None)) declined.insert(r.hash);
      Runs& p = plans[r.hash];
      p.n++;
      p.steps += r.value;
      p.ns += r.dur_ns;
    }
  }
  for (const auto& [hash, p] : plans) {
    if (p.n < kRepeatedPlan || declined.count(hash) != 0) continue;
    out.push_back({"cuda_graph",
                   "plan " + hex(hash) + " ran " + std::to_string(p.n) +
                       " times on the GPU without being captured as a CUDA graph; capture it "
                       "to launch its kernels in one call",
                   std::to_string(p.n) + " runs, " + std::to_string(p.steps / p.n) +
                       " steps each, " + ms(p.ns) + " in total"});
  }
}

void fusion_break(const Trace& t, std::vector<Recommendation>& out) {
  std::map<std::pair<uint32_t, std::pair<uint32_t, uint32_t>>, uint64_t> breaks;
  for (const Record& r : t.records) {
    if (r.kind == RecordKind::FusionBreak) breaks[{r.name, {r.file, r.line}}]++;
  }
  for (const auto& [key, n] : breaks) {
    std::string op = t.str(key.first);
    std::string line = at(t, key.second.first, key.second.second);
    out.push_back({"fusion_break",
                   "op '" + op + "' at " + line +
                       " breaks fusion of its neighbours; move it out of the elementwise chain "
                       "or replace it by ops that fuse",
                   std::to_string(n) + " fusion breaks at " + line});
  }
}

void tf32(const Trace& t, std::vector<Recommendation>& out) {
  int64_t ns = 0;
  uint64_t n = 0;
  std::map<std::pair<uint32_t, uint32_t>, int64_t> lines;
  for (const Record& r : t.records) {
    bool span = is(r, Stage::Step) || r.kind == RecordKind::Kernel;
    if (span && (r.flags & kOnGpu) && (r.flags & kF32Highest)) {
      ns += r.dur_ns;
      n++;
      lines[{r.file, r.line}] += r.dur_ns;
    }
  }
  if (ns < kF32HighestNs) return;
  auto top = std::max_element(lines.begin(), lines.end(),
                              [](const auto& a, const auto& b) { return a.second < b.second; });
  out.push_back({"tf32",
                 "float32 matmuls run at \"highest\" precision on the GPU; set matmul precision "
                 "to \"high\" (TF32) for about 2x or more where that precision is enough",
                 std::to_string(n) + " matmuls, " + ms(ns) + "; most at " +
                     at(t, top->first.first, top->first.second)});
}

// Decided on counts and sizes only, never on times, so that a loaded or slow machine gives the
// same answer: a graph that touches little memory per sync does microseconds of work anywhere,
// while its round trip costs tens of microseconds anywhere.
void sync_in_loop(const Trace& t, std::vector<Recommendation>& out) {
  struct Plan {
    uint64_t n = 0, steps = 0, bytes = 0;
  };
  std::map<uint64_t, Plan> plans;
  std::map<uint64_t, uint64_t> plan_of_request;
  for (const Record& r : t.records) {
    if (!is(r, Stage::Execute)) continue;
    Plan& p = plans[r.hash];
    p.n++;
    p.steps += r.value;
    plan_of_request[r.request] = r.hash;
  }
  // The work of a sync: the bytes its steps read and write. The user's line: that of the last
  // step of the request (the value the loop syncs on).
  std::map<uint64_t, std::pair<uint32_t, uint32_t>> last_line;
  std::map<uint64_t, uint64_t> last_step;
  for (const Record& r : t.records) {
    if (!is(r, Stage::Step)) continue;
    auto plan = plan_of_request.find(r.request);
    if (plan != plan_of_request.end()) plans[plan->second].bytes += r.bytes;
    if (r.file == 0) continue;
    if (!last_step.count(r.request) || r.id >= last_step[r.request]) {
      last_step[r.request] = r.id;
      last_line[r.request] = {r.file, r.line};
    }
  }
  for (const auto& [hash, p] : plans) {
    if (p.n < kLoopSyncs || p.steps > kTinyGraphSteps * p.n || p.bytes > kTinyGraphBytes * p.n) {
      continue;
    }
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> lines;
    for (const auto& [req, h] : plan_of_request) {
      if (h == hash && last_line.count(req)) lines[last_line[req]]++;
    }
    std::string line = "<unknown line>";
    if (!lines.empty()) {
      auto top = std::max_element(lines.begin(), lines.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
      line = at(t, top->first.first, top->first.second);
    }
    out.push_back({"sync_in_loop",
                   "host round trips inside a loop: the same tiny graph (ending at " + line +
                       ") was sent and synced " + std::to_string(p.n) +
                       " times; record several iterations before a sync point, keep the step "
                       "on the daemon as a function (td.function, Session::function: calls "
                       "that do not wait for each other), or batch them into one tensor op",
                   std::to_string(p.n) + " syncs of plan " + hex(hash) + ", each " +
                       std::to_string(p.steps / p.n) + " steps touching " +
                       std::to_string(p.bytes / p.n) +
                       " bytes (tiny: <= " + std::to_string(kTinyGraphSteps) + " steps and " +
                       std::to_string(kTinyGraphBytes) + " bytes per sync)"});
  }
}

void fragmentation(const Trace& t, std::vector<Recommendation>& out) {
  for (const Record& r : t.records) {
    if (r.kind != RecordKind::Oom || r.free_bytes == 0 || r.bytes > r.free_bytes) continue;
    double unusable =
        static_cast<double>(r.free_bytes - r.largest_free) / static_cast<double>(r.free_bytes);
    if (unusable < kFragmentation) continue;
    out.push_back({"fragmentation",
                   "out of memory with enough free memory in total: it is fragmented. Free large "
                   "tensors earlier, allocate long-lived tensors first, or lower the cached pool",
                   std::to_string(r.bytes) + " bytes requested at " + at(t, r.file, r.line) + "; " +
                       std::to_string(r.free_bytes) + " free, largest block " +
                       std::to_string(r.largest_free) + " (" + fmt("%.0f%%", unusable * 100) +
                       " unusable)"});
  }
}

uint64_t median(std::vector<uint64_t> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// Decided on counts and sizes only (as sync_in_loop): the same workload gets the same answer on
// a quiet machine and under load.
void launch_overhead(const Trace& t, std::vector<Recommendation>& out) {
  // The bytes of each step, and how many kernels each launched.
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> step_bytes, step_kernels;
  for (const Record& r : t.records) {
    if (is(r, Stage::Step)) step_bytes[{r.request, r.id}] = r.bytes;
    if (r.kind == RecordKind::Kernel) step_kernels[{r.request, r.id}]++;
  }
  uint64_t kernels = 0, tiny = 0;
  std::vector<uint64_t> kernel_bytes, kernel_threads;
  for (const Record& r : t.records) {
    if (r.kind != RecordKind::Kernel) continue;
    kernels++;
    auto bytes = step_bytes.find({r.request, r.id});
    const uint64_t threads = uint64_t{std::max(r.grid[0], 1u)} * std::max(r.grid[1], 1u) *
                             std::max(r.grid[2], 1u) * std::max(r.block[0], 1u) *
                             std::max(r.block[1], 1u) * std::max(r.block[2], 1u);
    kernel_threads.push_back(threads);
    if (bytes != step_bytes.end() && bytes->second != 0) {
      const uint64_t b = bytes->second / step_kernels[{r.request, r.id}];
      kernel_bytes.push_back(b);
      tiny += b <= kSmallKernelBytes;
    } else {
      tiny += threads <= kSmallKernelThreads;
    }
  }
  if (kernels >= kManyKernels && 2 * tiny > kernels) {
    std::string sizes = kernel_bytes.empty() ? std::string()
                                             : ", median " + std::to_string(median(kernel_bytes)) +
                                                   " bytes moved per kernel";
    out.push_back({"launch_overhead",
                   "most GPU kernels are tiny, so launch overhead dominates; fuse them, batch "
                   "the work, or capture the plan as a CUDA graph",
                   std::to_string(tiny) + " of " + std::to_string(kernels) + " kernels tiny" +
                       sizes + ", median " + std::to_string(median(kernel_threads)) +
                       " threads (tiny: <= " + std::to_string(kSmallKernelBytes) +
                       " bytes moved, or <= " + std::to_string(kSmallKernelThreads) +
                       " threads where no step gives the bytes)"});
  }
  // Host side: many requests each doing a few microseconds of work.
  struct Work {
    uint64_t steps = 0, bytes = 0;
  };
  std::map<uint64_t, Work> work;
  for (const Record& r : t.records) {
    if (!is(r, Stage::Step)) continue;
    Work& w = work[r.request];
    w.steps++;
    w.bytes += r.bytes;
  }
  uint64_t requests = 0, small = 0;
  std::vector<uint64_t> request_bytes, request_steps;
  for (const Record& r : t.records) {
    if (!is(r, Stage::Request)) continue;
    auto w = work.find(r.request);
    if (w == work.end()) continue;
    requests++;
    if (w->second.bytes > kSmallRequestBytes) continue;
    small++;
    request_bytes.push_back(w->second.bytes);
    request_steps.push_back(w->second.steps);
  }
  if (small < kOverheadRequests) return;
  out.push_back({"launch_overhead",
                 "small requests dominated by per-request overhead: each runs microseconds of "
                 "work behind tens of microseconds of round trip and dispatch; send bigger graphs "
                 "(fewer sync points) or bigger tensors per op",
                 std::to_string(small) + " of " + std::to_string(requests) +
                     " requests touched <= " + std::to_string(kSmallRequestBytes) +
                     " bytes each (median " + std::to_string(median(request_bytes)) + " bytes in " +
                     std::to_string(median(request_steps)) + " steps)"});
}

void repeated_transfer(const Trace& t, std::vector<Recommendation>& out) {
  struct Seen {
    uint64_t n = 0, bytes = 0;
  };
  std::map<uint64_t, Seen> uploads;
  for (const Record& r : t.records) {
    bool upload =
        is(r, Stage::Upload) || (r.kind == RecordKind::Memcpy &&
                                 static_cast<MemcpyKind>(r.stage) == MemcpyKind::HostToDevice);
    if (!upload || r.hash == 0 || r.bytes < kUploadBytes) continue;
    Seen& s = uploads[r.hash ^ (r.bytes * 0x9e3779b97f4a7c15ull)];
    s.n++;
    s.bytes = r.bytes;
  }
  for (const auto& [key, s] : uploads) {
    if (s.n < kRepeatedUploads) continue;
    out.push_back({"repeated_transfer",
                   "the same data was sent to the daemon " + std::to_string(s.n) +
                       " times; upload it once and reuse the tensor (keep a reference to it)",
                   std::to_string(s.n) + " transfers of the same " + std::to_string(s.bytes) +
                       " bytes (content hash " + hex(key) + ")"});
  }
}

}  // namespace

std::vector<Recommendation> recommend(const Trace& trace) {
  std::vector<Recommendation> out;
  cuda_graph(trace, out);
  fusion_break(trace, out);
  tf32(trace, out);
  sync_in_loop(trace, out);
  fragmentation(trace, out);
  launch_overhead(trace, out);
  repeated_transfer(trace, out);
  return out;
}

}  // namespace tensord::profiler
