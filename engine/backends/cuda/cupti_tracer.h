// Kernels and copies of profiled runs, from CUPTI's activity records: exact device start and
// end times, launch geometry, registers, shared memory and an occupancy estimate, each tagged
// with the request and the plan step that launched it (CUPTI external correlation ids), so
// that the trace draws a flow from the host step to its kernels. Enabled from a traced run's
// first step until its records are collected; runs while nothing is traced or pending pay
// nothing.
//
// Collection is batched: a traced run's end only notes what it launched; flush() waits for the
// device and CUPTI's buffers and hands every pending run its records. It runs when a profile
// stops (Backend::trace_flush), once kMaxPendingRuns runs wait, or when the oldest has waited
// kMaxPendingAge: waiting for the device and forcing CUPTI's buffers out after every run kept
// the host from queuing the next run while the GPU ran this one (1.5-1.6x a replayed run).
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/exec/run_profile.h"

namespace tensord::cuda {

class CuptiTracer {
 public:
  explicit CuptiTracer(int device);
  ~CuptiTracer();
  CuptiTracer(const CuptiTracer&) = delete;
  CuptiTracer& operator=(const CuptiTracer&) = delete;

  // The device work enqueued from now on belongs to `step` of the profile's request.
  void step(const engine::RunProfile& profile, uint32_t step);
  // The run's device work went to `stream`: its records are added to the profile by a flush.
  void finish(const engine::RunProfile& profile, cudaStream_t stream);
  // Waits for the pending runs' streams, then adds their records to their profiles.
  void flush();
  // flush() if the oldest pending run has waited kMaxPendingAge.
  void flush_if_stale();
  bool pending() const { return !pending_.empty(); }
  // Why there are no device records, or how many CUPTI gave: for tests and logs.
  std::string status() const;

 private:
  int device_;
  bool enabled_ = false;
  bool unavailable_ = false;     // CUPTI refused: profiles carry host spans only
  std::string why_unavailable_;  // the call CUPTI refused and its error
  bool pushed_ = false;
  bool started_ = false;  // a traced step came
  // CUPTI's activity kinds on from a run's first traced step to its finish (counted over the
  // process's tracers: the switches are process-wide); false when CUPTI refused.
  bool start_activity();
  void stop_activity();
  uint64_t matched_ = 0, unpushed_ = 0;
  int64_t clock_offset_ = 0;                        // profiler time minus CUPTI time
  std::unordered_map<uint64_t, uint32_t> step_of_;  // external correlation id -> step

  // A traced run whose records are still to come.
  struct PendingRun {
    std::shared_ptr<profiler::Profiler> profiler;
    uint64_t request = 0;
    int64_t clock_offset = 0;
    std::unordered_map<uint64_t, uint32_t> step_of;
  };
  static constexpr size_t kMaxPendingRuns = 64;
  static constexpr std::chrono::milliseconds kMaxPendingAge{100};
  std::vector<PendingRun> pending_;
  std::vector<cudaStream_t> pending_streams_;  // the streams their work went to
  std::chrono::steady_clock::time_point oldest_pending_;
  // Per-SM limits for the occupancy estimate.
  int regs_per_sm_ = 65536, threads_per_sm_ = 2048, smem_per_sm_ = 233472, blocks_per_sm_ = 32;
};

}  // namespace tensord::cuda
