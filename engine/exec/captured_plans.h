// CUDA-graph-style replays of repeated plans ("reduce-overhead"). A plan's second run records
// its device work once (Backend::begin_capture/end_capture) and every later run replays it:
// the caller's inputs are copied into the capture's own input buffers, the recording replays,
// and the outputs are copied out into fresh buffers, so that a client still holding the
// outputs of one replay never sees them overwritten by the next. A plan whose recording cannot
// be replayed (a step needs the host) is marked and runs as usual from then on. A shape change
// is a different plan (the plan cache keys by shapes), so it records its own.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/exec/backend.h"
#include "engine/ir/graph.h"
#include "engine/plan/plan.h"

namespace tensord::engine {

struct CaptureStats {
  uint64_t captures = 0;  // plans recorded
  uint64_t replays = 0;   // runs served by a replay
  uint64_t failures = 0;  // recordings that could not be replayed (those plans run as usual)
};

class CapturedPlans {
 public:
  explicit CapturedPlans(size_t capacity = 64) : capacity_(capacity) {}

  // The outputs of `plan` on `inputs` by replay (recording it first on its second run), or
  // nullopt when the caller must execute the plan itself.
  std::optional<std::vector<TensorValue>> run(const std::shared_ptr<const Plan>& plan,
                                              Backend& backend, std::span<const TensorValue> inputs,
                                              const ir::Graph& user_graph);

  // What happens to `plan` in reduce-overhead mode, for explain.
  enum class Status : uint8_t { Pending, Recorded, Unusable };
  Status status(const Plan* plan) const;

  const CaptureStats& stats() const { return stats_; }
  size_t size() const { return states_.size(); }

 private:
  struct State {
    std::weak_ptr<const Plan> plan;
    uint32_t runs = 0;
    bool unusable = false;
    uint64_t last_use = 0;
    std::unique_ptr<CapturedRun> recording;
    std::vector<TensorValue> inputs;   // the buffers the recording reads its inputs from
    std::vector<TensorValue> outputs;  // where the recording leaves its outputs
  };
  bool record(State& state, const Plan& plan, Backend& backend, std::span<const TensorValue> inputs,
              const ir::Graph& user_graph);
  void evict();

  size_t capacity_;
  uint64_t clock_ = 0;
  std::unordered_map<const Plan*, State> states_;
  CaptureStats stats_;
};

}  // namespace tensord::engine
