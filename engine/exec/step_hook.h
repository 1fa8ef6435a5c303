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
#include "engine/profiler/record_codec.h"

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

// Step spans are kept here, a few dozen at a time, as the fixed-size records the profile keeps
// them in (StepSpanFields), and appended to it together at the flush, still raw: the profile
// encodes them when it is drained (Profiler::append_steps), off the worker. A traced step costs
// a read of the CPU's tick counter, its op, file and line (string ids cached for the run) and a
// few stores; the flush, a lock and a copy per batch. The ticks are mapped onto the profile's
// clock at the flush, between the steady_clock readings that bracket them
// (engine/profiler/tick_clock.h). What a traced step costs, measured: docs/profiler.md ("Cost").
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
  // After the run paused between steps (engine/exec/preemption.h), flushed before: the next
  // step starts now, not where the last one ended.
  void resume() { restart_bracket(); }
  // backend.allocate(bytes), tracked in the ledger; an out-of-memory error gets the ledger's
  // report (what is live, top holders by session and by line) appended to its message.
  std::shared_ptr<Buffer> allocate(Backend& backend, size_t bytes);
  // The same for a plan output that a replay copies out (engine/exec/captured_plans.h): booked
  // to the step that produces `output` (untracked when no step does).
  std::shared_ptr<Buffer> allocate_output(Backend& backend, size_t bytes, ValueId output);
  // The running step's site for its kernels' scratch (Backend::set_step_site) while memory is
  // recorded; null otherwise. The same site for the whole run (the executor names it to the
  // backend once): before() updates it in place to the step that starts.
  const profiler::AllocSite* scratch_site() const { return memory_ ? &scratch_site_ : nullptr; }

 private:
  // The site of an allocation by `step`, in site_ (which holds the profiler: no reference
  // counting per allocation), with the op and file as string ids already interned; looked up
  // once per step (before() and after() and the step's allocations share it).
  profiler::AllocSite& site_for(const Step& step);
  // Fills site_ and scratch_site_ with `step`'s op, file and line (strings and ids): once per step
  // (a run's steps are each seen once, so there is nothing to cache across them; the string ids
  // are cached for the run). The generation is checked already.
  void tag(const Step& step);
  // The user's node that `step` computes (its line and file).
  const ir::Node& user_node(const Step& step) const {
    return user_graph_.nodes[plan_.origin[step.node]];
  }
  // String ids of the op names and files seen in this run: interned once per run, so a step
  // takes no lock. A profile restarted during the run has a new string table: the steps kept
  // are dropped (they belong to the stopped profile, whose later records are ignored anyway)
  // and the ids are interned again (check_generation).
  uint32_t op_id(ir::Op op);
  uint32_t file_id(uint32_t file);
  // A fused step is named after its ops ("fused:mul+exp+add"), so traces and key averages
  // show what the generated kernel did rather than only its anchor node.
  uint32_t group_id(uint32_t group);
  // One relaxed load per step: a new profile (start() again) is rare.
  void check_generation() {
    if (profiler_->generation() != generation_) [[unlikely]]
      new_generation();
  }
  void new_generation();
  uint32_t intern_op(ir::Op op);
  uint32_t intern_file(uint32_t file);
  // Starts a bracket now, the next step starting here too.
  void restart_bracket();

  const RunProfile& profile_;
  profiler::Profiler* const profiler_;  // profile_.profiler's: read per step without the shared_ptr
  const Plan& plan_;
  const ir::Graph& user_graph_;
  const bool tracing_;
  const bool memory_;
  const uint8_t step_flags_;  // kOnGpu on a GPU
  const bool f32_highest_;    // on a GPU at "highest" float32 matmul precision
  const Step* current_ = nullptr;
  profiler::AllocSite scratch_site_;  // of current_, category scratch (memory_ only)

  // Steps traced and not yet appended, as the profile keeps them (Profiler::append_steps), with
  // one field standing in for another until the flush: `dur_ns` holds the step's end (ticks, or
  // the profile's ns when ticks_ is false), `start_ns` and `request` are set at the flush.
  static constexpr size_t kBatch = 64;
  std::array<profiler::StepSpanFields, kBatch> traced_;
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
