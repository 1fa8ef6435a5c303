#include "engine/exec/executor.h"

#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "engine/exec/preemption.h"
#include "engine/exec/step_hook.h"
#include "engine/ir/error.h"

namespace tensord::engine {
namespace {

class Execution {
 public:
  Execution(const Plan& plan, Backend& backend, std::span<const TensorValue> inputs, StepHook* hook)
      : plan_(plan),
        backend_(backend),
        hook_(hook),
        inputs_(inputs),
        slots_(plan.slot_bytes.size()),
        args_(plan.max_step_values) {}

  void run(const Step& step) {
    // Every value's type and layout come from the plan; only the buffers are this run's.
    size_t k = 0;
    for (ValueId v : plan_[step.inputs]) bind(args_[k++], plan_.values[v], buffer(v));
    for (ValueId v : plan_[step.outputs]) {
      const PlanValue& pv = plan_.values[v];
      std::shared_ptr<Buffer>& slot = slots_[pv.base.index];
      if (!slot) {
        size_t bytes = plan_.slot_bytes[pv.base.index];
        slot = hook_ ? hook_->allocate(backend_, bytes) : backend_.allocate(bytes);
      }
      bind(args_[k++], pv, slot);
    }
    const std::span<const TensorValue> args(args_.data(), k);
    if (step.kind == StepKind::Fused && plan_.groups[step.group].epilogue) {
      run_epilogue(step, args.first(step.inputs.count), args.subspan(step.inputs.count));
    } else if (step.kind == StepKind::Fused) {
      backend_.run_fused(*plan_.compiled, step.group, plan_.groups[step.group],
                         args.first(step.inputs.count), args.subspan(step.inputs.count));
    } else {
      backend_.run(plan_.nodes[step.node], args.first(step.inputs.count),
                   args.subspan(step.inputs.count));
    }
    // The arguments hold buffer references too; drop them so released slots really go.
    for (size_t i = 0; i < k; ++i) args_[i].buffer.reset();
    for (SlotId s : plan_[step.release]) slots_[s].reset();
  }

  // The unfused pair, for the backend to run or measure: the product in a temporary that
  // lives for this step only (what the plan without the epilogue holds in a slot), then the
  // chain's kernel on it.
  void run_epilogue(const Step& step, std::span<const TensorValue> in,
                    std::span<const TensorValue> out) {
    const FusedGroup& g = plan_.groups[step.group];
    const ir::Node& matmul = plan_.nodes[g.epilogue->matmul];
    const auto unfused = [&] {
      const ir::TensorType& t = matmul.outputs[0];
      std::vector<TensorValue> chain_in;
      chain_in.reserve(in.size() - 1);
      chain_in.push_back(
          TensorValue{hook_ ? hook_->allocate(backend_, t.nbytes()) : backend_.allocate(t.nbytes()),
                      t, contiguous_layout(t.shape).strides, 0, false});
      chain_in.insert(chain_in.end(), in.begin() + 2, in.end());
      TensorValue& product = chain_in[0];
      backend_.run(matmul, in.first(2), {&product, 1});
      backend_.run_fused(*plan_.compiled, step.group, g, chain_in, out);
    };
    backend_.run_matmul_epilogue(*plan_.compiled, step.group, g, in, out, unfused);
  }

  TensorValue output(ValueId v) const {
    const PlanValue& pv = plan_.values[v];
    return TensorValue{buffer(v), pv.type, pv.layout.strides, pv.layout.offset, pv.layout.conj};
  }

 private:
  const std::shared_ptr<Buffer>& buffer(ValueId v) const {
    const ValueBase& base = plan_.values[v].base;
    return base.kind == ValueBase::Kind::Input ? inputs_[base.index].buffer : slots_[base.index];
  }

  // Assigns into an existing TensorValue so its vectors keep their capacity from step to step.
  static void bind(TensorValue& arg, const PlanValue& v, const std::shared_ptr<Buffer>& buffer) {
    arg.buffer = buffer;
    arg.type.dtype = v.type.dtype;
    arg.type.shape.assign(v.type.shape.begin(), v.type.shape.end());
    arg.strides.assign(v.layout.strides.begin(), v.layout.strides.end());
    arg.offset = v.layout.offset;
    arg.conj = v.layout.conj;
  }

  const Plan& plan_;
  Backend& backend_;
  StepHook* hook_;
  std::span<const TensorValue> inputs_;
  std::vector<std::shared_ptr<Buffer>> slots_;
  std::vector<TensorValue> args_;
};

// Lets other sessions run between two steps (engine/exec/preemption.h). The paused run's
// profile shows the steps before the pause, and the next step starts when it resumes: the time
// others ran is none of its steps'. Its scratch site is withdrawn from the backend meanwhile,
// so that the work run in the pause is not booked to it.
void pause_between_steps(Preemption& preemption, Backend& backend, StepHook* hook) {
  if (hook) {
    hook->flush();
    backend.set_step_site(nullptr);
  }
  preemption.pause();
  if (hook) {
    backend.set_step_site(hook->scratch_site());
    hook->resume();
  }
}

}  // namespace

std::vector<TensorValue> execute(const Plan& plan, Backend& backend,
                                 std::span<const TensorValue> inputs, const ir::Graph& user_graph,
                                 const RunProfile* profile, Preemption* preemption) {
  std::optional<StepHook> hook;
  if (profile != nullptr && profile->active()) hook.emplace(*profile, plan, user_graph, backend);
  Execution execution(plan, backend, inputs, hook ? &*hook : nullptr);
  // The hook's scratch site is the running step's (before() updates it in place): named to the
  // backend once for the run, not set and cleared around each step.
  {
    StepSiteScope scratch(backend, hook ? hook->scratch_site() : nullptr);
    for (uint32_t i = 0; i < plan.steps.size(); ++i) {
      const Step& step = plan.steps[i];
      try {
        if (hook) [[unlikely]] {
          hook->before(step);
          if (profile->tracing()) backend.trace_step(*profile, i);
          execution.run(step);
          hook->after(i, step);
        } else {
          execution.run(step);
        }
      } catch (const Error& e) {
        user_graph.fail_at(plan.origin[step.node], e);
      } catch (const std::bad_alloc&) {
        user_graph.fail_at(plan.origin[step.node],
                           Error(ErrorCode::OutOfMemory, "host memory exhausted"));
      } catch (const std::exception& e) {
        user_graph.fail_at(plan.origin[step.node], Error(ErrorCode::Internal, e.what()));
      } catch (...) {
        user_graph.fail_at(plan.origin[step.node],
                           Error(ErrorCode::Internal, "unknown exception from the backend"));
      }
      if (preemption && i + 1 < plan.steps.size() && preemption->due()) [[unlikely]] {
        pause_between_steps(*preemption, backend, hook ? &*hook : nullptr);
      }
    }
  }  // the scratch site is cleared before trace_end
  if (hook) [[unlikely]] {
    hook->flush();  // the step spans before what the backend adds and the execute span
    if (profile->tracing()) backend.trace_end(*profile);
  }
  std::vector<TensorValue> outputs;
  outputs.reserve(plan.outputs.size());
  for (ValueId v : plan.outputs) outputs.push_back(execution.output(v));
  return outputs;
}

}  // namespace tensord::engine
