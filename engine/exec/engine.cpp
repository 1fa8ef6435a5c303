#include "engine/exec/engine.h"

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "engine/exec/background_compiler.h"
#include "engine/exec/executor.h"
#include "engine/exec/pending_plan.h"
#include "engine/exec/reproducer.h"
#include "engine/exec/running_plan.h"
#include "engine/ir/dynamic.h"
#include "engine/ir/error.h"
#include "engine/ir/hash.h"
#include "engine/ir/passes.h"
#include "engine/plan/plan_cache.h"

namespace tensord::engine {
namespace {

// The engine's callers (the daemon) only ever hold contiguous tensors of their own, so plans
// may assume every input starts at offset 0 in row-major order; anything else is a caller bug.
std::vector<ir::TensorType> input_types(std::span<const TensorValue> inputs) {
  std::vector<ir::TensorType> types;
  types.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorValue& in = inputs[i];
    const std::string which = "engine input " + std::to_string(i);
    if (!in.buffer) throw Error(ErrorCode::Internal, which + " has no buffer");
    if (in.offset != 0 || in.strides.size() != in.type.shape.size() || !in.is_contiguous()) {
      throw Error(ErrorCode::Internal, which + " is not a contiguous tensor at offset 0");
    }
    if (in.buffer->bytes() < in.nbytes()) {
      throw Error(ErrorCode::Internal, which + " is larger than its buffer");
    }
    types.push_back(in.type);
  }
  return types;
}

// `e` with where its reproducer went, for whoever reads the run's error.
Error naming_reproducer(const Error& e, const std::string& path) {
  return Error(e.code(), e.message() + " (reproducer: " + path + ")", e.node(), e.op(), e.where());
}

// The inputs' bytes for a reproducer, those within kReproducerInputBytes each and
// kReproducerAllInputBytes in all (a daemon's tensors are contiguous; a view is not kept).
// Reading must not hide the failure being reported: a read that fails keeps nothing.
std::vector<InputBytes> reproducer_values(Backend& backend, std::span<const TensorValue> inputs) {
  std::vector<InputBytes> values(inputs.size());
  size_t total = 0;
  try {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const TensorValue& v = inputs[i];
      const size_t n = v.nbytes();
      if (!v.buffer || !v.is_contiguous() || v.conj || n > kReproducerInputBytes ||
          total + n > kReproducerAllInputBytes) {
        continue;
      }
      values[i].emplace(n);
      if (n != 0) {
        backend.read(*v.buffer, static_cast<size_t>(v.offset) * ir::itemsize(v.type.dtype),
                     values[i]->data(), n);
      }
      total += n;
    }
  } catch (const std::exception&) {
    return {};
  }
  return values;
}

// decompose -> simplify -> plan, with every plan node traced back to the user's node.
Plan compile(const ir::Graph& graph, std::span<const ir::ValueRef> outputs, PlanOptions options) {
  ir::Rewritten decomposed = ir::decompose(graph, outputs);
  ir::Rewritten simplified = ir::simplify(decomposed.graph, decomposed.outputs);
  std::vector<uint32_t> origin = std::move(simplified.origin);
  for (uint32_t& o : origin) o = decomposed.origin[o];
  return build_plan(std::move(simplified.graph), simplified.outputs, std::move(origin), options);
}

// Plans of different modes differ, so the mode is part of the plan cache's key.
void add_mode(ir::CanonicalForm& form, CompileMode mode) {
  form.words.push_back(0x6d6f6465'00000000ULL | static_cast<uint64_t>(mode));
  ir::WordHasher h;
  h.add(form.hash);
  h.add(static_cast<uint64_t>(mode));
  form.hash = h.finish();
}

// Spans of the stages of one run, back to back, when the session traces; nothing otherwise.
class StageTimer {
 public:
  explicit StageTimer(const RunProfile* profile)
      : tracer_(profile != nullptr && profile->tracing() ? profile->profiler.get() : nullptr),
        request_(profile != nullptr ? profile->request : 0),
        start_(tracer_ ? tracer_->now() : 0) {}

  // A span of `stage` from the end of the previous one to now; `value` is the stage's count,
  // `id` and `bytes` what the stage's record kind says (record.h).
  void span(profiler::Stage stage, uint64_t hash = 0, uint8_t flags = 0, uint64_t value = 0,
            uint64_t id = 0, uint64_t bytes = 0) {
    if (!tracer_) return;
    profiler::Record r;
    r.stage = static_cast<uint8_t>(stage);
    r.thread = profiler::kWorkerThread;
    r.request = request_;
    r.hash = hash;
    r.flags = flags;
    r.value = value;
    r.id = id;
    r.bytes = bytes;
    r.start_ns = start_;
    start_ = tracer_->now();
    r.dur_ns = start_ - r.start_ns;
    tracer_->add(r);
  }

 private:
  profiler::Profiler* tracer_;
  uint64_t request_;
  int64_t start_;
};

// Why a run in reduce-overhead mode on a GPU was not a replay (record.h).
profiler::CaptureNote capture_note(const Backend& backend, const CapturedPlans& captured,
                                   const Plan* plan) {
  if (!backend.can_capture()) return profiler::CaptureNote::NoCapture;
  switch (captured.status(plan, backend.capture_key())) {
    case CapturedPlans::Status::TooLarge:
      return profiler::CaptureNote::TooLarge;
    case CapturedPlans::Status::Unusable:
      return profiler::CaptureNote::Unusable;
    case CapturedPlans::Status::Pending:
    case CapturedPlans::Status::Recorded:
      break;
  }
  return profiler::CaptureNote::None;
}

// One FusionBreak record per op that split a fused kernel in this run, at the user's line.
void trace_fusion_breaks(const Plan& plan, const ir::Graph& user_graph, const RunProfile& profile) {
  profiler::Profiler& p = *profile.profiler;
  for (uint32_t n : plan.fusion_breaks) {
    const ir::Node& user_node = user_graph.nodes[plan.origin[n]];
    profiler::Record r;
    r.kind = profiler::RecordKind::FusionBreak;
    r.thread = profiler::kWorkerThread;
    r.request = profile.request;
    r.start_ns = p.now();
    r.line = user_node.loc.line;
    p.add_named(r, ir::name(plan.nodes[n].op), user_graph.files[user_node.loc.file]);
  }
}

}  // namespace

Engine::Engine(Backend& backend, EngineOptions options)
    : backend_(backend),
      options_(std::move(options)),
      plans_(std::make_unique<PlanCache>(options_.plan_cache_capacity)) {}

Engine::~Engine() = default;

std::shared_ptr<const Plan> Engine::plan_for(ir::Graph& graph,
                                             std::span<const ir::TensorType> types,
                                             std::span<const ir::ValueRef> outputs,
                                             CompileMode mode, PlanInfo* info,
                                             const RunProfile* profile, PlanUse use) {
  StageTimer timer(profile);
  ir::validate(graph, types, options_.limits);
  ir::validate_outputs(graph, outputs);
  if (has_data_dependent_op(graph)) {
    throw Error(ErrorCode::Unsupported,
                "this graph has ops whose output shape depends on the data (nonzero, unique, "
                "masked_select, ...); it runs as several plans (docs/design-notes.md), which "
                "explain cannot show yet");
  }
  timer.span(profiler::Stage::Validate);

  ir::CanonicalForm form = ir::canonical_form(graph, outputs);
  add_mode(form, mode);
  const uint64_t plan_hash = form.hash;
  if (!pending_.empty()) adopt_compiled_plans();
  std::shared_ptr<const Plan> plan = plans_->find(form);
  bool waited = false;  // for kernels still compiling: not "cached" to explain
  if (plan && use == PlanUse::Inspect && is_stand_in(plan.get())) {
    adopt_compiled_plans(plan.get());
    plan = plans_->find(form);
    waited = true;
  }
  const bool found_stand_in = plan && !pending_.empty() && is_stand_in(plan.get());
  timer.span(profiler::Stage::PlanLookup, plan_hash,
             (plan ? profiler::kCacheHit : 0) | (found_stand_in ? profiler::kStandIn : 0));
  if (info) *info = PlanInfo{plan != nullptr, plan != nullptr && !waited, plan_hash};
  if (plan) {
    ++stats_.plan_cache_hits;
    if (info) info->compiling = found_stand_in;
    return plan;
  }
  ++stats_.plan_cache_misses;
  bool keep = true;       // in the plan cache
  bool stand_in = false;  // an unfused stand-in while the kernels compile
  try {
    auto built = std::make_shared<Plan>(
        compile(graph, outputs,
                PlanOptions{.fuse = mode != CompileMode::Eager && backend_.can_fuse(),
                            .autotune = mode == CompileMode::MaxAutotune}));
    const bool kernels_cached = built->groups.empty() || backend_.kernels_cached(built->groups);
    if (info) info->kernels_cached = kernels_cached;
    backend_.prepare(*built);
    if (!kernels_cached && use == PlanUse::Run && compiles_in_background()) {
      auto unfused = std::make_shared<Plan>(compile(graph, outputs, PlanOptions{}));
      backend_.prepare(*unfused);
      if (pending_.size() < options_.max_background_compiles) {
        start_background_compile(form, std::move(built), unfused, graph, types, outputs, mode);
      } else {
        // The compiler has enough to do: run unfused, uncached, and try again next time.
        ++stats_.background_compiles_deferred;
        keep = false;
      }
      if (info) info->compiling = true;
      stand_in = true;
      built = std::move(unfused);
    } else if (!built->groups.empty()) {
      try {
        built->compiled = backend_.compile(built->groups);
        stats_.fused_groups += built->groups.size();
        keep_crash_reproducer(*built, graph, types, outputs, mode);
      } catch (const Error& e) {
        if (e.code() != ErrorCode::Internal || !options_.unfused_on_compile_error) throw;
        // A generated kernel that does not compile is our bug (or the host compiler's): leave
        // a reproducer as for any internal error, and run the graph unfused rather than fail
        // the user's run. The plan cache keeps the unfused plan, so nothing recompiles.
        std::string reproducer;
        if (options_.on_internal_error) {
          reproducer =
              options_.on_internal_error(reproducer_json(graph, types, outputs, mode, e.what()));
        }
        ++stats_.unfused_after_compile_error;
        built = std::make_shared<Plan>(compile(graph, outputs, PlanOptions{}));
        built->unfused_because = e.what();
        built->unfused_reproducer = std::move(reproducer);
        backend_.prepare(*built);
      }
    }
    plan = std::move(built);
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "host memory exhausted while planning");
  } catch (const std::exception& e) {
    throw Error(ErrorCode::Internal, std::string("planning failed: ") + e.what());
  }
  if (keep) plans_->insert(std::move(form), plan);
  timer.span(profiler::Stage::PlanBuild, plan_hash, stand_in ? profiler::kStandIn : 0);
  return plan;
}

void Engine::keep_crash_reproducer(Plan& plan, const ir::Graph& graph,
                                   std::span<const ir::TensorType> types,
                                   std::span<const ir::ValueRef> outputs, CompileMode mode) const {
  if (!options_.crash_reproducers || plan.groups.empty()) return;
  plan.reproducer =
      std::make_shared<const std::string>(crash_reproducer_json(graph, types, outputs, mode));
}

std::vector<TensorValue> Engine::run_planned(ir::Graph& graph,
                                             std::span<const ir::TensorType> types,
                                             std::span<const TensorValue> inputs,
                                             std::span<const ir::ValueRef> outputs,
                                             CompileMode mode, const RunProfile* profile) {
  PlanInfo info;
  std::shared_ptr<const Plan> plan = plan_for(graph, types, outputs, mode, &info, profile);
  return execute_plan(plan, info, graph, inputs, mode, profile);
}

std::vector<TensorValue> Engine::execute_plan(const std::shared_ptr<const Plan>& plan,
                                              const PlanInfo& info, const ir::Graph& graph,
                                              std::span<const TensorValue> inputs, CompileMode mode,
                                              const RunProfile* profile) {
  StageTimer timer(profile);
  const RunningPlan running(plan->reproducer.get());
  const uint8_t device = backend_.on_gpu() ? profiler::kOnGpu : 0;
  // A profiled replay stays a replay (what the user runs is what the trace shows); its trace
  // has the run's span and the device's work, no host step spans.
  profiler::CaptureNote note = profiler::CaptureNote::None;
  if (mode == CompileMode::ReduceOverhead) {
    if (std::optional<std::vector<TensorValue>> out =
            captured_.run(plan, backend_, inputs, graph, profile)) {
      timer.span(profiler::Stage::Execute, info.plan_hash, device | profiler::kGraphCaptured,
                 plan->steps.size());
      return std::move(*out);
    }
    // Why not, on a GPU (the cuda_graph rule must not advise capturing what was declined).
    if (backend_.on_gpu() && profile != nullptr && profile->tracing()) {
      note = capture_note(backend_, captured_, plan.get());
    }
  }
  // A run traced on a GPU does not pause: the device's kernel tracer follows one run at a
  // time (CuptiTracer), and a run traced in the pause would be mixed into it.
  const bool traced_on_gpu = backend_.on_gpu() && profile != nullptr && profile->tracing();
  std::vector<TensorValue> out = execute(*plan, backend_, inputs, graph, profile,
                                         traced_on_gpu ? nullptr : options_.preemption);
  timer.span(profiler::Stage::Execute, info.plan_hash, device, plan->steps.size(),
             static_cast<uint64_t>(note),
             note == profiler::CaptureNote::TooLarge ? replay_copy_bytes(*plan) : 0);
  if (profile != nullptr && profile->tracing() && !plan->fusion_breaks.empty()) [[unlikely]] {
    trace_fusion_breaks(*plan, graph, *profile);
  }
  return out;
}

std::vector<TensorValue> Engine::run(ir::Graph graph, std::span<const TensorValue> inputs,
                                     std::span<const ir::ValueRef> outputs, CompileMode mode,
                                     const RunProfile* profile) {
  ++stats_.runs;
  const std::vector<ir::TensorType> types = input_types(inputs);
  try {
    // issue 4 (h/datadep): ops whose output shape depends on the data run between plans.
    if (has_data_dependent_op(graph)) [[unlikely]] {
      return run_segmented(graph, inputs, outputs, mode, profile);
    }
    return run_planned(graph, types, inputs, outputs, mode, profile);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::Internal && options_.on_internal_error) {
      const std::string path = options_.on_internal_error(reproducer_json(
          graph, types, outputs, mode, e.what(), reproducer_values(backend_, inputs)));
      if (!path.empty()) throw naming_reproducer(e, path);
    }
    throw;
  }
}

PreparedGraph Engine::prepare(ir::Graph graph, std::vector<ir::TensorType> input_types,
                              std::vector<ir::ValueRef> outputs) {
  ir::validate(graph, input_types, options_.limits);
  ir::validate_outputs(graph, outputs);
  PreparedGraph p;
  p.data_dependent_ = has_data_dependent_op(graph);
  p.graph_ = std::move(graph);
  p.types_ = std::move(input_types);
  p.outputs_ = std::move(outputs);
  return p;
}

std::vector<TensorValue> Engine::run_prepared(PreparedGraph& prepared,
                                              std::span<const TensorValue> inputs, CompileMode mode,
                                              const RunProfile* profile) {
  ++stats_.runs;
  const std::vector<ir::TensorType> types = input_types(inputs);
  if (types.size() != prepared.types_.size()) {
    throw Error(ErrorCode::InvalidGraph, "the graph takes " +
                                             std::to_string(prepared.types_.size()) +
                                             " inputs, got " + std::to_string(types.size()));
  }
  for (size_t i = 0; i < types.size(); ++i) {
    if (types[i] != prepared.types_[i]) {
      throw Error(ErrorCode::InvalidGraph, "input " + std::to_string(i) + " is " +
                                               ir::to_string(types[i]) + "; the graph takes " +
                                               ir::to_string(prepared.types_[i]));
    }
  }
  try {
    if (prepared.data_dependent_) [[unlikely]] {
      return run_segmented(prepared.graph_, inputs, prepared.outputs_, mode, profile);
    }
    // A stand-in is looked up again until its fused plan is in.
    if (!prepared.plan_ || prepared.plan_mode_ != mode || prepared.plan_info_.compiling) {
      prepared.plan_ =
          plan_for(prepared.graph_, types, prepared.outputs_, mode, &prepared.plan_info_, profile);
      prepared.plan_mode_ = mode;
    } else {
      ++stats_.plan_cache_hits;
    }
    return execute_plan(prepared.plan_, prepared.plan_info_, prepared.graph_, inputs, mode,
                        profile);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::Internal && options_.on_internal_error) {
      const std::string path = options_.on_internal_error(
          reproducer_json(prepared.graph_, types, prepared.outputs_, mode, e.what(),
                          reproducer_values(backend_, inputs)));
      if (!path.empty()) throw naming_reproducer(e, path);
    }
    throw;
  }
}

}  // namespace tensord::engine
