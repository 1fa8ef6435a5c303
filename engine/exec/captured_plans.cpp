#include "engine/exec/captured_plans.h"

#include <algorithm>

#include "engine/exec/executor.h"
#include "engine/exec/step_hook.h"

namespace tensord::engine {
namespace {

void copy_into(Backend& backend, const TensorValue& dst, const TensorValue& src) {
  const size_t n = src.nbytes();
  if (n == 0) return;
  backend.copy(*dst.buffer, static_cast<size_t>(dst.offset) * ir::itemsize(dst.type.dtype),
               *src.buffer, static_cast<size_t>(src.offset) * ir::itemsize(src.type.dtype), n);
}

}  // namespace

std::optional<std::vector<TensorValue>> CapturedPlans::run(const std::shared_ptr<const Plan>& plan,
                                                           Backend& backend,
                                                           std::span<const TensorValue> inputs,
                                                           const ir::Graph& user_graph,
                                                           const RunProfile* profile) {
  if (!backend.can_capture()) return std::nullopt;
  auto [it, fresh] = states_.try_emplace(Key{plan.get(), backend.capture_key()});
  State& state = it->second;
  if (!fresh && state.plan.lock() != plan) state = State{};  // an evicted plan's address reused
  if (state.runs == 0) state.too_large = !worth_capturing(*plan);
  state.plan = plan;
  state.last_use = ++clock_;
  ++state.runs;
  if (state.unusable || state.too_large || (state.runs < 2 && !state.recording)) {
    if (fresh && states_.size() > capacity_) evict();
    return std::nullopt;
  }
  const bool just_recorded = !state.recording;  // record() copied the inputs in
  if (just_recorded) {
    for (const TensorValue& v : inputs) {
      if (!v.is_contiguous()) return std::nullopt;  // the planner's inputs are; be safe
    }
    if (!record(state, *plan, backend, inputs, user_graph)) {
      const uint32_t runs = state.runs;
      state = State{};
      state.plan = plan;
      state.runs = runs;
      state.unusable = true;
      state.last_use = clock_;
      ++stats_.failures;
      return std::nullopt;
    }
    ++stats_.captures;
  }
  // Traced, the replay's device work (input copies, the graph, output copies) is one step.
  const bool tracing = profile != nullptr && profile->tracing();
  std::optional<StepHook> hook;
  if (profile != nullptr && profile->memory()) hook.emplace(*profile, *plan, user_graph, backend);
  if (tracing) backend.trace_step(*profile, kReplayStep);
  if (!just_recorded) {
    for (size_t i = 0; i < inputs.size(); ++i) copy_into(backend, state.inputs[i], inputs[i]);
  }
  backend.replay(*state.recording);
  ++stats_.replays;
  std::vector<TensorValue> out;
  out.reserve(state.outputs.size());
  for (size_t i = 0; i < state.outputs.size(); ++i) {
    const TensorValue& o = state.outputs[i];
    TensorValue copy = o;
    const size_t bytes = o.buffer->bytes();
    copy.buffer =
        hook ? hook->allocate_output(backend, bytes, plan->outputs[i]) : backend.allocate(bytes);
    if (bytes != 0) backend.copy(*copy.buffer, 0, *o.buffer, 0, bytes);
    out.push_back(std::move(copy));
  }
  if (tracing) backend.trace_end(*profile);
  return out;
}

uint64_t replay_copy_bytes(const Plan& plan) {
  uint64_t bytes = 0;
  for (ValueId v = 0; v < plan.values.size(); ++v) {
    const PlanValue& pv = plan.values[v];
    if (pv.base.kind == ValueBase::Kind::Input && pv.owner == v) bytes += pv.type.nbytes();
  }
  for (ValueId v : plan.outputs) bytes += plan.values[v].type.nbytes();
  return bytes;
}

bool worth_capturing(const Plan& plan) {
  return replay_copy_bytes(plan) <= kCaptureBytesPerStep * plan.steps.size();
}

CapturedPlans::Status CapturedPlans::status(const Plan* plan, uint64_t key) const {
  const auto it = states_.find(Key{plan, key});
  if (it == states_.end() || it->second.plan.lock().get() != plan) return Status::Pending;
  if (it->second.unusable) return Status::Unusable;
  if (it->second.too_large) return Status::TooLarge;
  return it->second.recording ? Status::Recorded : Status::Pending;
}

bool CapturedPlans::record(State& state, const Plan& plan, Backend& backend,
                           std::span<const TensorValue> inputs, const ir::Graph& user_graph) {
  state.inputs.clear();
  for (const TensorValue& v : inputs) {
    TensorValue mine = TensorValue::contiguous(backend.allocate(v.nbytes()), v.type);
    copy_into(backend, mine, v);
    state.inputs.push_back(std::move(mine));
  }
  backend.begin_capture();
  try {
    state.outputs = execute(plan, backend, state.inputs, user_graph);
  } catch (...) {
    // The caller runs the plan as usual, which reports the error if it is one.
    backend.end_capture();
    return false;
  }
  state.recording = backend.end_capture();
  return state.recording != nullptr;
}

void CapturedPlans::evict() {
  // The least recently used half goes: eviction stays rare and cheap.
  std::vector<std::pair<uint64_t, Key>> order;
  for (const auto& [key, state] : states_) order.emplace_back(state.last_use, key);
  std::sort(order.begin(), order.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < order.size() / 2; ++i) states_.erase(order[i].second);
}

}  // namespace tensord::engine
