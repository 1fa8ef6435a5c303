// Kernels and copies of profiled runs, from CUPTI's activity records: exact device start and
// end times, launch geometry, registers, shared memory and an occupancy estimate, each tagged
// with the request and the plan step that launched it (CUPTI external correlation ids), so
// that the trace draws a flow from the host step to its kernels. Enabled only while a run is
// profiled; an unprofiled run pays nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <unordered_map>

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
  // Waits for `stream`, then adds the records of this run's device work to the profile.
  void finish(const engine::RunProfile& profile, cudaStream_t stream);
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
  // Per-SM limits for the occupancy estimate.
  int regs_per_sm_ = 65536, threads_per_sm_ = 2048, smem_per_sm_ = 233472, blocks_per_sm_ = 32;
};

}  // namespace tensord::cuda
