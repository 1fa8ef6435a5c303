#include "engine/profiler/advice.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace tensord::profiler {
namespace {

// Thresholds. Each rule needs repeated evidence, so one odd request never triggers it.
constexpr uint64_t kRepeatedPlan = 10;         // GPU runs of one plan worth capturing
constexpr uint64_t kLoopSyncs = 20;            // syncs of one tiny graph that make a loop
constexpr uint64_t kTinyGraphSteps = 8;        // steps of a "tiny" graph
constexpr uint64_t kTinyGraphBytes = 1 << 20;  // and the bytes its steps read and write
constexpr int64_t kF32HighestNs = 1'000'000;   // GPU time in highest-precision f32 matmuls
constexpr double kFragmentation = 0.25;        // share of free memory unusable for the request
constexpr uint64_t kManyKernels = 50;
constexpr int64_t kSmallKernelNs = 10'000;  // median GPU kernel below this: launch-bound
constexpr uint64_t kOverheadRequests = 20;
constexpr double kComputeShare = 0.25;  // steps below this share of the request time
constexpr int64_t kSmallStepNs = 20'000;
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
std::string us(int64_t ns) {
  return fmt("%.1f us", static_cast<double>(ns) / 1e3);
}
std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}
std::string at(const Trace& t, uint32_t file, uint32_t line) {
  return file == 0 ? std::string("<unknown line>") : t.str(file) + ":" + std::to_string(line);
}

int64_t median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
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
  for (const Record& r : t.records) {
    if (is(r, Stage::Execute) && (r.flags & kOnGpu) && !(r.flags & kGraphCaptured)) {
      Runs& p = plans[r.hash];
      p.n++;
      p.steps += r.value;
      p.ns += r.dur_ns;
    }
  }
  for (const auto& [hash, p] : plans) {
    if (p.n < kRepeatedPlan) continue;
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
                       " times; record several iterations before a sync point, or batch them "
                       "into one tensor op",
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

void launch_overhead(const Trace& t, std::vector<Recommendation>& out) {
  std::vector<int64_t> kernels;
  for (const Record& r : t.records) {
    if (r.kind == RecordKind::Kernel) kernels.push_back(r.dur_ns);
  }
  if (kernels.size() >= kManyKernels && median(kernels) < kSmallKernelNs) {
    out.push_back({"launch_overhead",
                   "most GPU kernels are tiny, so launch overhead dominates; fuse them, batch "
                   "the work, or capture the plan as a CUDA graph",
                   std::to_string(kernels.size()) + " kernels, median " + us(median(kernels))});
  }
  // Host side: requests whose steps are a small share of the request's time.
  std::map<uint64_t, int64_t> step_ns;
  std::vector<int64_t> steps;
  for (const Record& r : t.records) {
    if (is(r, Stage::Step)) {
      step_ns[r.request] += r.dur_ns;
      steps.push_back(r.dur_ns);
    }
  }
  uint64_t requests = 0;
  int64_t request_ns = 0, compute_ns = 0;
  for (const Record& r : t.records) {
    if (!is(r, Stage::Request) || !step_ns.count(r.request)) continue;
    requests++;
    request_ns += r.dur_ns;
    compute_ns += step_ns[r.request];
  }
  if (requests < kOverheadRequests || request_ns == 0) return;
  double share = static_cast<double>(compute_ns) / static_cast<double>(request_ns);
  if (share >= kComputeShare || median(steps) >= kSmallStepNs) return;
  out.push_back({"launch_overhead",
                 "small steps dominated by per-request overhead: the kernels are a small share "
                 "of each request's time; send bigger graphs (fewer sync points) or bigger "
                 "tensors per op",
                 std::to_string(requests) + " requests took " + ms(request_ns) + ", their " +
                     std::to_string(steps.size()) + " steps " + ms(compute_ns) + " (" +
                     fmt("%.0f%%", share * 100) + "), median step " + us(median(steps))});
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
