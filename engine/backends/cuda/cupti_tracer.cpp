#include "engine/backends/cuda/cupti_tracer.h"

#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tensord::cuda {
namespace {

constexpr CUpti_ExternalCorrelationKind kStepKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
constexpr size_t kBufferBytes = size_t{4} << 20;

struct DeviceWork {
  bool kernel = true;
  uint32_t correlation = 0;
  uint64_t start = 0, end = 0;
  uint32_t stream = 0;
  std::string name;
  int32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  uint32_t registers = 0, static_smem = 0, dynamic_smem = 0;
  uint8_t copy_kind = 0;
  uint64_t bytes = 0;
};

// CUPTI's buffer callbacks are plain C functions without a user pointer, and its activity
// switches are process-wide: what the callbacks parse has to wait in process-wide storage
// until the tracer of its device takes it. This is that storage and nothing else.
struct Collected {
  std::mutex mutex;
  int enabled = 0;                                                      // tracers with activity on
  std::unordered_map<uint32_t, std::vector<DeviceWork>> work;           // by device
  std::unordered_map<uint32_t, uint64_t> external;                      // correlation -> step id
  uint64_t kernel_records = 0, copy_records = 0, external_records = 0;  // for status()
  bool callbacks = false;  // registered once for the process
};
Collected& collected() {
  static Collected c;
  return c;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  Collected& c = collected();
  std::lock_guard lock(c.mutex);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      DeviceWork w;
      w.correlation = k->correlationId;
      w.start = k->start;
      w.end = k->end;
      w.stream = k->streamId;
      w.name = k->name ? k->name : "kernel";
      w.grid[0] = k->gridX, w.grid[1] = k->gridY, w.grid[2] = k->gridZ;
      w.block[0] = k->blockX, w.block[1] = k->blockY, w.block[2] = k->blockZ;
      w.registers = k->registersPerThread;
      w.static_smem = static_cast<uint32_t>(k->staticSharedMemory);
      w.dynamic_smem = static_cast<uint32_t>(k->dynamicSharedMemory);
      c.work[k->deviceId].push_back(std::move(w));
      ++c.kernel_records;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      DeviceWork w;
      w.kernel = false;
      w.correlation = m->correlationId;
      w.start = m->start;
      w.end = m->end;
      w.stream = m->streamId;
      w.copy_kind = m->copyKind;
      w.bytes = m->bytes;
      c.work[m->deviceId].push_back(std::move(w));
      ++c.copy_records;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
      const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      ++c.external_records;
      if (e->externalKind == kStepKind) c.external[e->correlationId] = e->externalId;
    }
  }
  std::free(buffer);
}

uint8_t memcpy_kind(uint8_t cupti) {
  switch (cupti) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return static_cast<uint8_t>(profiler::MemcpyKind::HostToDevice);
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return static_cast<uint8_t>(profiler::MemcpyKind::DeviceToHost);
    default:
      return static_cast<uint8_t>(profiler::MemcpyKind::DeviceToDevice);
  }
}

}  // namespace

CuptiTracer::CuptiTracer(int device) : device_(device) {
  cudaDeviceGetAttribute(&regs_per_sm_, cudaDevAttrMaxRegistersPerMultiprocessor, device);
  cudaDeviceGetAttribute(&threads_per_sm_, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  cudaDeviceGetAttribute(&smem_per_sm_, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  cudaDeviceGetAttribute(&blocks_per_sm_, cudaDevAttrMaxBlocksPerMultiprocessor, device);
}

CuptiTracer::~CuptiTracer() {
  stop_activity();
}

// The activity kinds a traced run needs. CUPTI writes an external correlation record for each
// API record only: without the API kinds on, the H200 gave kernel records and no correlations.
constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                         CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                                         CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER};

bool CuptiTracer::start_activity() {
  Collected& c = collected();
  std::lock_guard lock(c.mutex);
  if (c.enabled == 0) {
    // A profile without device records beats a failed run: CUPTI may be refused (another
    // profiler holds it, or the container forbids it); the host spans still come.
    auto refused = [&](CUptiResult r, const char* call) {
      if (r == CUPTI_SUCCESS) return false;
      const char* text = nullptr;
      cuptiGetResultString(r, &text);
      why_unavailable_ = std::string(call) + ": " + (text ? text : "unknown CUPTI error") + " (" +
                         std::to_string(static_cast<int>(r)) + ")";
      std::fprintf(stderr,
                   "tensord: CUPTI refused %s; profiles on CUDA device %d carry host spans only\n",
                   why_unavailable_.c_str(), device_);
      return true;
    };
    if (!c.callbacks && refused(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
                                "cuptiActivityRegisterCallbacks")) {
      return false;
    }
    c.callbacks = true;
    for (CUpti_ActivityKind kind : kKinds) {
      if (refused(cuptiActivityEnable(kind), "cuptiActivityEnable")) {
        for (CUpti_ActivityKind k : kKinds) cuptiActivityDisable(k);
        return false;
      }
    }
  }
  ++c.enabled;
  enabled_ = true;
  return true;
}

void CuptiTracer::stop_activity() {
  if (!enabled_) return;
  enabled_ = false;
  Collected& c = collected();
  std::lock_guard lock(c.mutex);
  if (--c.enabled == 0) {
    for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
  }
}

void CuptiTracer::step(const engine::RunProfile& profile, uint32_t step) {
  if (unavailable_) return;
  if (!enabled_ && !start_activity()) {
    unavailable_ = true;
    return;
  }
  started_ = true;
  if (pushed_) {
    uint64_t last = 0;
    cuptiActivityPopExternalCorrelationId(kStepKind, &last);
  } else {
    uint64_t now = 0;
    cuptiGetTimestamp(&now);
    clock_offset_ = profile.profiler->now() - static_cast<int64_t>(now);
  }
  // Ids are unique within the process's lifetime of this tracer: request and step.
  const uint64_t id =
      (profile.request << 24) ^ (uint64_t{static_cast<uint32_t>(device_)} << 56) ^ step;
  step_of_[id] = step;
  pushed_ = cuptiActivityPushExternalCorrelationId(kStepKind, id) == CUPTI_SUCCESS;
  if (!pushed_) ++unpushed_;
}

std::string CuptiTracer::status() const {
  if (unavailable_) return "CUPTI refused " + why_unavailable_;
  if (!started_) return "CUPTI not started (no traced step yet)";
  Collected& c = collected();
  std::lock_guard lock(c.mutex);
  return "CUPTI records: " + std::to_string(c.kernel_records) + " kernels, " +
         std::to_string(c.copy_records) + " copies, " + std::to_string(c.external_records) +
         " external correlations; " + std::to_string(matched_) + " matched to steps, " +
         std::to_string(unpushed_) + " steps whose correlation id CUPTI refused";
}

void CuptiTracer::finish(const engine::RunProfile& profile, cudaStream_t stream) {
  if (!pushed_) {
    if (pending_.empty()) stop_activity();
    return;
  }
  uint64_t last = 0;
  cuptiActivityPopExternalCorrelationId(kStepKind, &last);
  pushed_ = false;
  if (pending_.empty()) oldest_pending_ = std::chrono::steady_clock::now();
  pending_.push_back(
      PendingRun{profile.profiler, profile.request, clock_offset_, std::move(step_of_)});
  step_of_.clear();
  if (std::find(pending_streams_.begin(), pending_streams_.end(), stream) ==
      pending_streams_.end()) {
    pending_streams_.push_back(stream);
  }
  if (pending_.size() >= kMaxPendingRuns ||
      std::chrono::steady_clock::now() - oldest_pending_ >= kMaxPendingAge) {
    flush();
  }
}

void CuptiTracer::flush_if_stale() {
  if (!pending_.empty() && std::chrono::steady_clock::now() - oldest_pending_ >= kMaxPendingAge) {
    flush();
  }
}

void CuptiTracer::flush() {
  if (pending_.empty()) return;
  for (cudaStream_t s : pending_streams_) cudaStreamSynchronize(s);
  // Forced: buffers still being filled are flushed too, so the pending runs' records are all here.
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::vector<DeviceWork> work;
  std::unordered_map<uint32_t, uint64_t> external;
  {
    Collected& c = collected();
    std::lock_guard lock(c.mutex);
    work.swap(c.work[static_cast<uint32_t>(device_)]);
    for (const DeviceWork& w : work) {
      if (auto it = c.external.find(w.correlation); it != c.external.end()) {
        external.emplace(w.correlation, it->second);
        c.external.erase(it);
      }
    }
  }
  // External id -> (pending run, step).
  std::unordered_map<uint64_t, std::pair<size_t, uint32_t>> owner;
  for (size_t i = 0; i < pending_.size(); ++i) {
    for (const auto& [id, step] : pending_[i].step_of) owner.emplace(id, std::make_pair(i, step));
  }
  for (const DeviceWork& w : work) {
    const auto ext = external.find(w.correlation);
    if (ext == external.end()) continue;  // not launched by a traced step of this backend
    const auto at = owner.find(ext->second);
    if (at == owner.end()) continue;
    const PendingRun& run = pending_[at->second.first];
    profiler::Profiler& p = *run.profiler;
    profiler::Record r;
    r.flags = profiler::kOnGpu;
    r.thread = profiler::kGpuStreamThread + (w.stream % 1024);
    r.request = run.request;
    r.id = at->second.second;
    r.start_ns = static_cast<int64_t>(w.start) + run.clock_offset;
    r.dur_ns = static_cast<int64_t>(w.end - w.start);
    if (w.kernel) {
      r.kind = profiler::RecordKind::Kernel;
      r.name = p.intern(w.name);
      for (int d = 0; d < 3; ++d) {
        r.grid[d] = static_cast<uint32_t>(w.grid[d]);
        r.block[d] = static_cast<uint32_t>(w.block[d]);
      }
      r.registers = w.registers;
      r.static_smem = w.static_smem;
      r.dynamic_smem = w.dynamic_smem;
      // Blocks per SM as the tightest of the register, thread, shared-memory and block limits.
      const int threads = std::max(1, w.block[0] * w.block[1] * w.block[2]);
      const int warps = (threads + 31) / 32;
      int blocks = std::min(blocks_per_sm_, threads_per_sm_ / (warps * 32));
      if (w.registers > 0) {
        blocks = std::min(blocks, regs_per_sm_ / static_cast<int>(w.registers * 32 * warps));
      }
      const uint32_t smem = w.static_smem + w.dynamic_smem;
      if (smem > 0) blocks = std::min(blocks, smem_per_sm_ / static_cast<int>(smem));
      r.occupancy_permille =
          static_cast<uint32_t>(std::max(0, blocks) * warps * 32 * 1000 / threads_per_sm_);
    } else {
      r.kind = profiler::RecordKind::Memcpy;
      r.stage = memcpy_kind(w.copy_kind);
      r.bytes = w.bytes;
    }
    p.add(r);
    ++matched_;
  }
  pending_.clear();
  pending_streams_.clear();
  // Off until the next traced run: untraced runs pay nothing and leave no records to pile up.
  if (!pushed_) stop_activity();
}

}  // namespace tensord::cuda
