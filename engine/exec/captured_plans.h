// CUDA-graph-style replays of repeated plans ("reduce-overhead"). A plan's second run records
// its device work once (Backend::begin_capture/end_capture) and every later run replays it:
// the caller's inputs are copied into the capture's own input buffers, the recording replays,
// and the outputs are copied out into fresh buffers, so that a client still holding the
// outputs of one replay never sees them overwritten by the next. A plan whose recording cannot
// be replayed (a step needs the host) is marked and runs as usual from then on. A shape change
// is a different plan (the plan cache keys by shapes), so it records its own, and so does a
// change of what the backend bakes into a recording (Backend::capture_key).
//
// A replay saves a few microseconds of launch per step and pays a copy of every input and
// output: a plan is recorded only when those copies move at most kCaptureBytesPerStep per step
// (about a quarter of the launch time saved, at an H100's copy bandwidth). Big tensors through
// few kernels run as usual: their copies would cost more than the launches.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/exec/backend.h"
#include "engine/exec/run_profile.h"
#include "engine/ir/graph.h"
#include "engine/plan/plan.h"

namespace tensord::engine {

struct CaptureStats {
  uint64_t captures = 0;  // plans recorded
  uint64_t replays = 0;   // runs served by a replay
  uint64_t failures = 0;  // recordings that could not be replayed (those plans run as usual)
};

inline constexpr uint64_t kCaptureBytesPerStep = uint64_t{1} << 20;

// The step number a replay's device work is traced under: all of the plan's steps at once.
inline constexpr uint32_t kReplayStep = 0xffffff;

// The bytes a replay of `plan` copies: its inputs in, its outputs out.
uint64_t replay_copy_bytes(const Plan& plan);
// Whether a plan's replays would save more launch time than their copies cost.
bool worth_capturing(const Plan& plan);

class CapturedPlans {
 public:
  explicit CapturedPlans(size_t capacity = 64) : capacity_(capacity) {}

  // The outputs of `plan` on `inputs` by replay (recording it first on its second run), or
  // nullopt when the caller must execute the plan itself. A profiled replay stays one replay:
  // its device work is traced as a whole (Backend::trace_step with kReplayStep) and the
  // outputs it copies out are booked to the steps that produce them.
  std::optional<std::vector<TensorValue>> run(const std::shared_ptr<const Plan>& plan,
                                              Backend& backend, std::span<const TensorValue> inputs,
                                              const ir::Graph& user_graph,
                                              const RunProfile* profile = nullptr);

  // What happens to `plan` in reduce-overhead mode, for explain.
  enum class Status : uint8_t { Pending, Recorded, Unusable, TooLarge };
  Status status(const Plan* plan, uint64_t key) const;

  const CaptureStats& stats() const { return stats_; }
  size_t size() const { return states_.size(); }

 private:
  struct State {
    std::weak_ptr<const Plan> plan;
    uint32_t runs = 0;
    bool unusable = false;
    bool too_large = false;
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
  struct Key {
    const Plan* plan;
    uint64_t backend_key;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<const void*>{}(k.plan) ^ (k.backend_key * 0x9e3779b97f4a7c15ULL);
    }
  };
  std::unordered_map<Key, State, KeyHash> states_;
  CaptureStats stats_;
};

}  // namespace tensord::engine
