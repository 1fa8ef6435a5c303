// The executor's profiling hook: a span per step tagged with the op and the user's line, and
// allocations recorded in the memory ledger with the same tags. Only built when the run's
// session profiles, so an unprofiled run pays one branch per step and per allocation.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/exec/backend.h"
#include "engine/exec/run_profile.h"
#include "engine/ir/graph.h"
#include "engine/plan/plan.h"

namespace tensord::engine {

// Names a step's site to the backend for its scratch while it runs (nullptr: nothing to name)
// and clears it however the step ends.
class StepSiteScope {
 public:
  StepSiteScope(Backend& backend, const profiler::AllocSite* site)
      : backend_(site ? &backend : nullptr) {
    if (backend_) backend_->set_step_site(site);
  }
  ~StepSiteScope() {
    if (backend_) backend_->set_step_site(nullptr);
  }
  StepSiteScope(const StepSiteScope&) = delete;
  StepSiteScope& operator=(const StepSiteScope&) = delete;

 private:
  Backend* backend_;
};

// Step spans are kept here, a few dozen at a time, and appended to the profile together
// (flush): a traced step costs a read of the CPU's tick counter and a few stores, not a
// steady_clock read, an encode and a lock (~120 ns a step on the 2-core VM, with the daemon's
// whole op at ~1.4 us). The ticks are mapped onto the profile's clock at the flush, between the
// steady_clock readings that bracket them (engine/profiler/tick_clock.h).
class StepHook {
 public:
  StepHook(const RunProfile& profile, const Plan& plan, const ir::Graph& user_graph,
           const Backend& backend);
  ~StepHook();  // flushes (records of a run that failed half-way are kept)
  StepHook(const StepHook&) = delete;
  StepHook& operator=(const StepHook&) = delete;

  void before(const Step& step);
  void after(uint32_t index, const Step& step);
  // Appends the step spans kept so far to the profile, in step order. Called when kBatch are
  // kept or the oldest is a few ms old (so that the stream shows long runs as they go), by the
  // executor at the end of the run, and by the destructor.
  void flush();
  // backend.allocate(bytes), tracked in the ledger; an out-of-memory error gets the ledger's
  // report (what is live, top holders by session and by line) appended to its message.
  std::shared_ptr<Buffer> allocate(Backend& backend, size_t bytes);
  // The same for a plan output that a replay copies out (engine/exec/captured_plans.h): booked
  // to the step that produces `output` (untracked when no step does).
  std::shared_ptr<Buffer> allocate_output(Backend& backend, size_t bytes, ValueId output);
  // The running step's site for its kernels' scratch (Backend::set_step_site) while memory is
  // recorded; null otherwise. Valid until the next before().
  const profiler::AllocSite* scratch_site() const { return memory_ ? &scratch_site_ : nullptr; }

 private:
  // The site of an allocation by `step`, in site_ (which holds the profiler: no reference
  // counting per allocation), with the op and file as string ids already interned; looked up
  // once per step (before() and after() and the step's allocations share it).
  profiler::AllocSite& site_for(const Step& step);
  // String ids of the op names and files seen in this run: interned once per run, so a step
  // takes no lock. A profile restarted during the run has a new string table: the steps kept
  // are dropped (they belong to the stopped profile, whose later records are ignored anyway)
  // and the ids are interned again (check_generation).
  uint32_t op_id(ir::Op op);
  uint32_t file_id(uint32_t file);
  // A fused step is named after its ops ("fused:mul+exp+add"), so traces and key averages
  // show what the generated kernel did rather than only its anchor node.
  uint32_t group_id(uint32_t group);
  void check_generation();
  // Starts a bracket now, the next step starting here too.
  void restart_bracket();

  const RunProfile& profile_;
  const Plan& plan_;
  const ir::Graph& user_graph_;
  const bool tracing_;
  const bool memory_;
  const uint8_t step_flags_;  // kOnGpu on a GPU
  const bool f32_highest_;    // on a GPU at "highest" float32 matmul precision
  const Step* current_ = nullptr;
  profiler::AllocSite scratch_site_;  // of current_, category scratch (memory_ only)

  // A step traced and not yet appended: what its span needs besides the run's constants.
  struct TracedStep {
    uint64_t end;  // ticks, or the profile's ns when ticks_ is false
    uint64_t bytes;
    uint32_t index;
    uint32_t name;
    uint32_t file;
    uint32_t line;
    uint8_t flags;
  };
  static constexpr size_t kBatch = 64;
  std::array<TracedStep, kBatch> traced_;
  size_t traced_count_ = 0;
  const bool ticks_;  // step ends are TickClock ticks, mapped at the flush
  bool started_ = false;
  // The bracket's start: the first step's start, then each flush (ticks and profile ns, read
  // together).
  uint64_t bracket_ticks_ = 0;
  int64_t bracket_ns_ = 0;
  int64_t next_start_ = 0;           // the next step's start: where the previous one ended
  std::vector<uint32_t> op_ids_;     // by Op value; 0: not interned yet
  std::vector<uint32_t> file_ids_;   // by the user graph's file index
  std::vector<uint32_t> group_ids_;  // by Plan::groups index; 0: not interned yet
  uint64_t generation_ = 0;          // the profile's, when the ids above were interned
  profiler::AllocSite site_;
  const Step* site_step_ = nullptr;  // the step site_ was filled for (one lookup per step)
};

}  // namespace tensord::engine
