#include "engine/profiler/chrome.h"

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

namespace tensord::profiler {
namespace {

using nlohmann::json;

double us(int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string thread_name(uint32_t tid) {
  if (tid == kEventLoopThread) return "event loop (RPC)";
  if (tid == kWorkerThread) return "device worker";
  if (tid >= kGpuStreamThread) return "GPU stream " + std::to_string(tid - kGpuStreamThread);
  return "thread " + std::to_string(tid);
}

std::string at(const Trace& t, const Record& r) {
  if (r.file == 0) return "";
  return t.str(r.file) + ":" + std::to_string(r.line);
}

json span_event(const Trace& t, const Record& r, int pid) {
  auto stage = static_cast<Stage>(r.stage);
  json e = {{"ph", "X"},           {"pid", pid},
            {"tid", r.thread},     {"ts", us(r.start_ns)},
            {"dur", us(r.dur_ns)}, {"cat", std::string(stage_name(stage))}};
  json args = {{"request", r.request}};
  if (stage == Stage::Step) {
    e["name"] = t.str(r.name).empty() ? "step" : t.str(r.name);
    args["step"] = r.id;
    if (r.file != 0) args["source"] = at(t, r);
  } else {
    e["name"] = std::string(stage_name(stage));
  }
  if (r.hash != 0) args[stage == Stage::Upload ? "content_hash" : "plan_hash"] = hex(r.hash);
  if (stage == Stage::PlanLookup) args["cache_hit"] = (r.flags & kCacheHit) != 0;
  if ((stage == Stage::PlanLookup || stage == Stage::PlanBuild) && (r.flags & kStandIn) != 0) {
    args["unfused_while_compiling"] = true;
  }
  if (stage == Stage::Execute) {
    args["steps"] = r.value;
    args["cuda_graph"] = (r.flags & kGraphCaptured) != 0;
  }
  if (r.bytes != 0) args["bytes"] = r.bytes;
  e["args"] = std::move(args);
  return e;
}

}  // namespace

std::string_view memcpy_name(const Record& r) {
  static constexpr std::string_view kNames[] = {"memcpy HtoD", "memcpy DtoH", "memcpy DtoD"};
  return kNames[r.stage < 3 ? r.stage : 0];
}

std::string chrome_trace_json(const Trace& t) {
  const int pid = static_cast<int>(t.session == 0 ? 1 : t.session);
  json events = json::array();
  std::set<uint32_t> threads;
  std::array<int64_t, static_cast<size_t>(MemoryCategory::kCount)> live{};
  int64_t reserved = 0;  // the sum of the segments the trace saw
  // Reserved (segments) against allocated (this session's live blocks), after a memory event.
  auto reserved_counter = [&](int64_t ts_ns) {
    int64_t allocated = 0;
    for (int64_t b : live) allocated += b;
    return json{{"ph", "C"},       {"name", "reserved vs allocated (bytes)"},
                {"pid", pid},      {"tid", kWorkerThread},
                {"ts", us(ts_ns)}, {"args", {{"reserved", reserved}, {"allocated", allocated}}}};
  };
  // Flows only where both ends exist: requests with a request span and an execute span, GPU
  // steps with a kernel.
  std::set<uint64_t> requests, executed;
  std::set<std::pair<uint64_t, uint64_t>> gpu_steps, kernels;
  // Frees that waited on other streams (a CUDA block other streams still used, flag
  // kDeferredFree) get instants for their request and their completion; the rest (host frees,
  // completed at once) show in the counters only.
  std::array<int64_t, static_cast<size_t>(MemoryCategory::kCount)> reserved_by{};
  auto free_instant = [&](const Record& r, const char* name) {
    json args = {{"bytes", r.bytes},
                 {"category", std::string(category_name(static_cast<MemoryCategory>(
                                  r.stage < reserved_by.size() ? r.stage : 0)))},
                 {"stream", r.stream},
                 {"block", r.id},
                 {"op", t.str(r.name)},
                 {"source", at(t, r)}};
    if (r.session != 0) args["session"] = r.session;
    return json{{"ph", "i"},
                {"s", "t"},
                {"name", name},
                {"pid", pid},
                {"tid", kWorkerThread},
                {"ts", us(r.start_ns)},
                {"cat", "memory"},
                {"args", args}};
  };
  for (const Record& r : t.records) {
    if (r.kind == RecordKind::Kernel) kernels.insert({r.request, r.id});
    if (r.kind != RecordKind::Span) continue;
    auto stage = static_cast<Stage>(r.stage);
    if (stage == Stage::Request) requests.insert(r.request);
    if (stage == Stage::Execute) executed.insert(r.request);
    if (stage == Stage::Step && (r.flags & kOnGpu) != 0) gpu_steps.insert({r.request, r.id});
  }
  for (const Record& r : t.records) {
    switch (r.kind) {
      case RecordKind::Span: {
        threads.insert(r.thread);
        events.push_back(span_event(t, r, pid));
        auto stage = static_cast<Stage>(r.stage);
        // A request flows from the event loop, where it arrived, to the worker that ran it.
        if (stage == Stage::Request && executed.count(r.request)) {
          events.push_back({{"ph", "s"},
                            {"id", r.request},
                            {"pid", pid},
                            {"tid", r.thread},
                            {"ts", us(r.start_ns)},
                            {"name", "request"},
                            {"cat", "flow"}});
        } else if (stage == Stage::Execute && requests.count(r.request)) {
          events.push_back({{"ph", "f"},
                            {"bp", "e"},
                            {"id", r.request},
                            {"pid", pid},
                            {"tid", r.thread},
                            {"ts", us(r.start_ns)},
                            {"name", "request"},
                            {"cat", "flow"}});
        } else if (stage == Stage::Step && kernels.count({r.request, r.id})) {
          uint64_t flow = (r.request << 20) ^ r.id ^ (uint64_t{1} << 63);
          events.push_back({{"ph", "s"},
                            {"id", flow},
                            {"pid", pid},
                            {"tid", r.thread},
                            {"ts", us(r.start_ns)},
                            {"name", "launch"},
                            {"cat", "flow"}});
        }
        break;
      }
      case RecordKind::FreeRequested:
        // The books do not change until the free completes (torch's active_pending_free).
        if (r.flags & kDeferredFree) events.push_back(free_instant(r, "free requested"));
        break;
      case RecordKind::Alloc:
      case RecordKind::Free: {
        if (r.kind == RecordKind::Free && (r.flags & kDeferredFree)) {
          events.push_back(free_instant(r, "free completed"));
        }
        size_t c = r.stage < live.size() ? r.stage : 0;
        live[c] += r.kind == RecordKind::Alloc ? static_cast<int64_t>(r.bytes)
                                               : -static_cast<int64_t>(r.bytes);
        json args = json::object();
        for (size_t i = 0; i < live.size(); ++i) {
          args[std::string(category_name(static_cast<MemoryCategory>(i)))] = live[i];
        }
        events.push_back({{"ph", "C"},
                          {"name", "memory (bytes)"},
                          {"pid", pid},
                          {"tid", kWorkerThread},
                          {"ts", us(r.start_ns)},
                          {"args", args}});
        events.push_back(reserved_counter(r.start_ns));
        break;
      }
      case RecordKind::SegmentAlloc:
      case RecordKind::SegmentFree: {
        const int64_t delta = r.kind == RecordKind::SegmentAlloc ? static_cast<int64_t>(r.bytes)
                                                                 : -static_cast<int64_t>(r.bytes);
        reserved += delta;
        reserved_by[r.stage < reserved_by.size() ? r.stage : 0] += delta;
        events.push_back(reserved_counter(r.start_ns));
        json args = json::object();
        for (size_t i = 0; i < reserved_by.size(); ++i) {
          args[std::string(category_name(static_cast<MemoryCategory>(i)))] = reserved_by[i];
        }
        events.push_back({{"ph", "C"},
                          {"name", "reserved by category (bytes)"},
                          {"pid", pid},
                          {"tid", kWorkerThread},
                          {"ts", us(r.start_ns)},
                          {"args", args}});
        break;
      }
      case RecordKind::Oom:
        events.push_back({{"ph", "i"},
                          {"s", "p"},
                          {"name", "out of memory"},
                          {"pid", pid},
                          {"tid", kWorkerThread},
                          {"ts", us(r.start_ns)},
                          {"args",
                           {{"requested", r.bytes},
                            {"live", r.value},
                            {"free", r.free_bytes},
                            {"largest_free", r.largest_free},
                            {"source", at(t, r)},
                            {"op", t.str(r.name)}}}});
        break;
      case RecordKind::Kernel: {
        threads.insert(r.thread);
        json args = {{"grid", {r.grid[0], r.grid[1], r.grid[2]}},
                     {"block", {r.block[0], r.block[1], r.block[2]}},
                     {"registers", r.registers},
                     {"static_smem", r.static_smem},
                     {"dynamic_smem", r.dynamic_smem},
                     {"occupancy", r.occupancy_permille / 1000.0},
                     {"request", r.request},
                     {"step", r.id}};
        events.push_back({{"ph", "X"},
                          {"name", t.str(r.name)},
                          {"cat", "kernel"},
                          {"pid", pid},
                          {"tid", r.thread},
                          {"ts", us(r.start_ns)},
                          {"dur", us(r.dur_ns)},
                          {"args", args}});
        if (gpu_steps.count({r.request, r.id})) {
          uint64_t flow = (r.request << 20) ^ r.id ^ (uint64_t{1} << 63);
          events.push_back({{"ph", "f"},
                            {"bp", "e"},
                            {"id", flow},
                            {"pid", pid},
                            {"tid", r.thread},
                            {"ts", us(r.start_ns)},
                            {"name", "launch"},
                            {"cat", "flow"}});
        }
        break;
      }
      case RecordKind::Memcpy: {
        threads.insert(r.thread);
        double gbps =
            r.dur_ns > 0 ? static_cast<double>(r.bytes) / static_cast<double>(r.dur_ns) : 0.0;
        events.push_back({{"ph", "X"},
                          {"name", memcpy_name(r)},
                          {"cat", "memcpy"},
                          {"pid", pid},
                          {"tid", r.thread},
                          {"ts", us(r.start_ns)},
                          {"dur", us(r.dur_ns)},
                          {"args", {{"bytes", r.bytes}, {"GB/s", gbps}}}});
        break;
      }
      case RecordKind::FusionBreak:
        events.push_back({{"ph", "i"},
                          {"s", "t"},
                          {"name", "fusion break: " + t.str(r.name)},
                          {"pid", pid},
                          {"tid", kWorkerThread},
                          {"ts", us(r.start_ns)},
                          {"args", {{"source", at(t, r)}, {"request", r.request}}}});
        break;
    }
  }
  threads.insert(kWorkerThread);
  events.push_back({{"ph", "M"},
                    {"name", "process_name"},
                    {"pid", pid},
                    {"tid", 0},
                    {"args", {{"name", "tensord session " + std::to_string(t.session)}}}});
  for (uint32_t tid : threads) {
    events.push_back({{"ph", "M"},
                      {"name", "thread_name"},
                      {"pid", pid},
                      {"tid", tid},
                      {"args", {{"name", thread_name(tid)}}}});
  }
  json doc = {{"traceEvents", std::move(events)},
              {"displayTimeUnit", "ns"},
              {"otherData", {{"producer", "tensord"}, {"dropped_records", t.dropped}}}};
  return doc.dump();
}

}  // namespace tensord::profiler
