// The engine's front door: validate -> decompose -> simplify -> plan (cached) -> execute.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/exec/backend.h"
#include "engine/exec/captured_plans.h"
#include "engine/exec/compile_mode.h"
#include "engine/exec/preemption.h"
#include "engine/exec/run_profile.h"
#include "engine/exec/tensor_value.h"
#include "engine/ir/graph.h"
#include "engine/ir/passes.h"

namespace tensord::engine {

struct EngineOptions {
  ir::Limits limits;
  size_t plan_cache_capacity = 512;  // plans, least recently used evicted
  // Called with a reproducer (engine/exec/reproducer.h) when a run fails with an Internal
  // error: a generated kernel that did not compile, a kernel that threw. Returns where the
  // reproducer went, which the run's error then names (the user may not see the daemon's log),
  // or "". Must not throw.
  std::function<std::string(const std::string& reproducer)> on_internal_error;
  // When a plan's generated kernels do not compile: run the graph unfused (after the reproducer
  // above), or fail the run with the Internal error (tensord-replay, which reproduces it).
  bool unfused_on_compile_error = true;
  // Whether each plan that runs generated kernels keeps its graph as a reproducer, which the
  // thread running it points at (engine/exec/running_plan.h) for the daemon's crash handler.
  // Costs one serialization per new fused plan.
  bool crash_reproducers = false;
  // Whether a new fused plan runs unfused while its kernels compile on a background thread
  // (where the backend can: Backend::compiles_in_background), instead of waiting for the host
  // compiler; later runs use the fused plan once its kernels are in. A failed background
  // compile leaves a reproducer and keeps the unfused plan, whatever the option above says.
  // The daemon turns it on (--background-compile); off, every first run waits.
  bool compile_in_background = false;
  // At most this many plans wait for the background compiler at once: a new plan past it runs
  // unfused without entering the plan cache, and its next run tries again. The device's
  // worker never waits for the compiler, and a burst of new graphs queues bounded work.
  size_t max_background_compiles = 16;
  // Where runs may pause between steps for other sessions (the device's worker: time slicing);
  // null: runs never pause. Not owned; outlives the engine.
  Preemption* preemption = nullptr;
};

// What plan_for found in the caches before it built anything.
struct PlanInfo {
  bool plan_cached = false;
  bool kernels_cached = false;  // every fused kernel was loaded already (or there are none)
  uint64_t plan_hash = 0;       // the canonical hash the plan cache keys it by (with the mode)
  bool compiling = false;       // the plan is an unfused stand-in while its kernels compile
};

// What plan_for is asked for: a plan to run now (the stand-in while kernels compile in the
// background), or the plan later runs will use (explain: it waits for the kernels).
enum class PlanUse : uint8_t { Run, Inspect };

struct EngineStats {
  uint64_t runs = 0;
  uint64_t plan_cache_hits = 0;
  uint64_t plan_cache_misses = 0;
  uint64_t fused_groups = 0;  // groups in the plans built (not counting plan cache hits)
  uint64_t unfused_after_compile_error = 0;  // plans run unfused: their kernels did not compile
  uint64_t background_compiles = 0;  // plans whose first runs went unfused while they compiled
  uint64_t background_compiles_deferred = 0;  // runs unfused: the background queue was full
};

class BackgroundCompiler;
class PlanCache;
class Engine;

// A graph validated once and run many times with inputs of the same types (Session.function):
// its runs skip validation and the plan cache's canonical hashing, and keep their plan (one per
// compile mode, built at the first run in that mode) even when the plan cache evicts it.
// A value type, but its runs belong to the engine that prepared it (its thread only).
class PreparedGraph {
 public:
  const ir::Graph& graph() const { return graph_; }
  const std::vector<ir::TensorType>& input_types() const { return types_; }
  const std::vector<ir::ValueRef>& outputs() const { return outputs_; }
  // What the plan lookup of its latest run found (compiling: it ran the unfused stand-in).
  const PlanInfo& plan_info() const { return plan_info_; }

 private:
  friend class Engine;
  ir::Graph graph_;
  std::vector<ir::TensorType> types_;
  std::vector<ir::ValueRef> outputs_;
  bool data_dependent_ = false;  // runs as segments, each re-planned (Engine::run)
  std::shared_ptr<const Plan> plan_;
  CompileMode plan_mode_ = CompileMode::Default;
  PlanInfo plan_info_;
};

// How run() cuts a graph with data-dependent ops into segments (engine_dynamic.cpp), for
// explain. Only the first segment can be planned before the graph runs: the others are
// re-inferred and planned once the sizes of the cuts' outputs are known.
struct SegmentOutline {
  struct Cut {
    uint32_t node = 0;  // the user's node
    ir::Op op = ir::Op::nonzero;
  };
  std::vector<Cut> cuts;  // the data-dependent nodes the outputs need, in run order
  // The plan of the nodes before the first cut, as run() builds and caches it; null when they
  // compute nothing (the cut reads graph inputs) or there is no cut.
  std::shared_ptr<const Plan> first;
  PlanInfo first_info;
  std::vector<uint32_t> first_origin;  // first->origin's node numbers -> the user's nodes
};

// Whether any node of `graph` is an op whose output shape depends on its input values
// (ir::is_data_dependent). Safe on unvalidated graphs.
bool has_data_dependent_op(const ir::Graph& graph);

// One per device worker. Not thread-safe: the scheduler gives each device one worker thread.
class Engine {
 public:
  Engine(Backend& backend, EngineOptions options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Runs an untrusted graph. `inputs[i]` is the tensor for the input node with index i. Returns
  // one contiguous value per requested output. Throws tensord::Error attributed to the node
  // (and source location) of `graph` that failed; the engine stays usable. `mode` eager never
  // fuses; the others fuse when the backend generates code. With an active `profile`, each
  // stage (validate, plan lookup, plan build, execute, steps) is traced and allocations are
  // recorded in its ledger.
  std::vector<TensorValue> run(ir::Graph graph, std::span<const TensorValue> inputs,
                               std::span<const ir::ValueRef> outputs,
                               CompileMode mode = CompileMode::Default,
                               const RunProfile* profile = nullptr);

  // Validates `graph` for inputs of `input_types` and `outputs` as run() does (same errors),
  // for run_prepared. Plans nothing yet: the compile mode is the run's.
  PreparedGraph prepare(ir::Graph graph, std::vector<ir::TensorType> input_types,
                        std::vector<ir::ValueRef> outputs);

  // run() of a prepared graph. Throws InvalidGraph when an input's type is not the one it was
  // prepared for (naming the input), else as run().
  std::vector<TensorValue> run_prepared(PreparedGraph& prepared,
                                        std::span<const TensorValue> inputs,
                                        CompileMode mode = CompileMode::Default,
                                        const RunProfile* profile = nullptr);

  // The plan run() would use for a graph with inputs of `input_types` (validated first;
  // compiled and cached as run() would, so kernels are built). PlanUse::Inspect (explain)
  // waits for kernels compiling in the background and returns the fused plan.
  std::shared_ptr<const Plan> plan_for(ir::Graph& graph,
                                       std::span<const ir::TensorType> input_types,
                                       std::span<const ir::ValueRef> outputs, CompileMode mode,
                                       PlanInfo* info = nullptr,
                                       const RunProfile* profile = nullptr,
                                       PlanUse use = PlanUse::Run);

  // The segments run() would cut `graph` into (when it has data-dependent ops), with the first
  // one planned. Validates as run() does; errors as run().
  SegmentOutline outline_segments(const ir::Graph& graph,
                                  std::span<const ir::TensorType> input_types,
                                  std::span<const ir::ValueRef> outputs, CompileMode mode);

  Backend& backend() { return backend_; }
  // Whether run() may be called from a thread other than the worker's while the worker waits
  // (scheduler::SessionQueue::borrow_idle_engine): the backend allows it and no run ever
  // waits for a compiler (a new plan's kernels compile in the background, or there are none).
  // Constant for the engine's life; any thread.
  bool lendable() const;
  const EngineStats& stats() const { return stats_; }
  const CaptureStats& capture_stats() const { return captured_.stats(); }
  CapturedPlans::Status capture_status(const Plan* plan) const {
    return captured_.status(plan, backend_.capture_key());
  }

 private:
  // validate -> plan (cached) -> execute, for graphs without data-dependent ops.
  std::vector<TensorValue> run_planned(ir::Graph& graph, std::span<const ir::TensorType> types,
                                       std::span<const TensorValue> inputs,
                                       std::span<const ir::ValueRef> outputs, CompileMode mode,
                                       const RunProfile* profile);
  // The execute stage of run_planned: a replay of the plan's CUDA graph where there is one.
  std::vector<TensorValue> execute_plan(const std::shared_ptr<const Plan>& plan,
                                        const PlanInfo& info, const ir::Graph& graph,
                                        std::span<const TensorValue> inputs, CompileMode mode,
                                        const RunProfile* profile);
  // Graphs with data-dependent ops (engine_dynamic.cpp): a plan up to each such node, the
  // node itself, then the rest re-inferred with its actual size.
  std::vector<TensorValue> run_segmented(const ir::Graph& graph,
                                         std::span<const TensorValue> inputs,
                                         std::span<const ir::ValueRef> outputs, CompileMode mode,
                                         const RunProfile* profile);

  // A plan whose kernels compile in the background (engine_background.cpp).
  struct PendingPlan;
  // Whether new plans compile their kernels in the background (option and backend).
  bool compiles_in_background() const;
  // Plan::reproducer of a plan that runs generated kernels, when EngineOptions asks for it.
  void keep_crash_reproducer(Plan& plan, const ir::Graph& graph,
                             std::span<const ir::TensorType> types,
                             std::span<const ir::ValueRef> outputs, CompileMode mode) const;
  // Compiles `fused`'s kernels in the background; `stand_in` (unfused) runs meanwhile. The
  // rest is for the reproducer, should the compile fail.
  void start_background_compile(ir::CanonicalForm form, std::shared_ptr<Plan> fused,
                                std::shared_ptr<const Plan> stand_in, const ir::Graph& graph,
                                std::span<const ir::TensorType> types,
                                std::span<const ir::ValueRef> outputs, CompileMode mode);
  // Puts the plans whose kernels are ready into the plan cache in place of their stand-ins
  // (waiting for the one whose stand-in is `wait_for`, if any).
  void adopt_compiled_plans(const Plan* wait_for = nullptr);
  bool is_stand_in(const Plan* plan) const;

  Backend& backend_;
  EngineOptions options_;
  std::unique_ptr<PlanCache> plans_;
  EngineStats stats_;
  CapturedPlans captured_;  // reduce-overhead: recorded plans (engine/exec/captured_plans.h)
  std::vector<PendingPlan> pending_;
  // Last: destroyed first, so no job still compiles for a backend or plan that is gone.
  std::unique_ptr<BackgroundCompiler> compiler_;
};

}  // namespace tensord::engine
