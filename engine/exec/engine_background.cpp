// Background compiles (EngineOptions::compile_in_background): a new fused plan's first runs go
// unfused, through a stand-in plan in the plan cache, while a BackgroundCompiler builds its
// kernels; the next plan lookup after they are in swaps the fused plan into the cache. Only
// the engine's thread touches the plan cache and the pending list: the compiler's thread sees
// nothing but the fused plan's groups and the backend's compile().
#include <algorithm>
#include <chrono>
#include <utility>

#include "engine/exec/background_compiler.h"
#include "engine/exec/engine.h"
#include "engine/exec/pending_plan.h"
#include "engine/exec/reproducer.h"
#include "engine/plan/plan_cache.h"

namespace tensord::engine {

bool Engine::compiles_in_background() const {
  return options_.compile_in_background && backend_.compiles_in_background();
}

bool Engine::lendable() const {
  return backend_.runs_on_any_thread() && (!backend_.can_fuse() || compiles_in_background());
}

void Engine::start_background_compile(ir::CanonicalForm form, std::shared_ptr<Plan> fused,
                                      std::shared_ptr<const Plan> stand_in, const ir::Graph& graph,
                                      std::span<const ir::TensorType> types,
                                      std::span<const ir::ValueRef> outputs, CompileMode mode) {
  if (!compiler_) compiler_ = std::make_unique<BackgroundCompiler>();
  PendingPlan p;
  p.form = std::move(form);
  p.stand_in = std::move(stand_in);
  p.graph = std::make_shared<const ir::Graph>(graph);
  p.types.assign(types.begin(), types.end());
  p.outputs.assign(outputs.begin(), outputs.end());
  p.mode = mode;
  // The job shares the fused plan: it reads only its groups, which nothing changes meanwhile,
  // and writes its crash reproducer there, off the worker's thread (nothing reads that before
  // the plan is adopted, after the job ended).
  const bool note = options_.crash_reproducers && !fused->groups.empty();
  p.kernels = compiler_->submit([&backend = backend_, fused, note, graph = p.graph, types = p.types,
                                 outputs = p.outputs, mode] {
    std::shared_ptr<const CompiledKernels> kernels = backend.compile(fused->groups);
    if (note) {
      fused->reproducer =
          std::make_shared<const std::string>(crash_reproducer_json(*graph, types, outputs, mode));
    }
    return kernels;
  });
  p.fused = std::move(fused);
  pending_.push_back(std::move(p));
  ++stats_.background_compiles;
}

void Engine::adopt_compiled_plans(const Plan* wait_for) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->stand_in.get() == wait_for) it->kernels.wait();
    if (it->kernels.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
      ++it;
      continue;
    }
    try {
      it->fused->compiled = it->kernels.get();
      stats_.fused_groups += it->fused->groups.size();
      plans_->insert(std::move(it->form), std::move(it->fused));
    } catch (const std::exception& e) {
      // The stand-in's runs gave the user's results already: keep running it, say why in
      // explain, and leave a reproducer as a foreground compile error would.
      auto unfused = std::make_shared<Plan>(*it->stand_in);
      unfused->unfused_because = e.what();
      if (options_.on_internal_error) {
        unfused->unfused_reproducer = options_.on_internal_error(
            reproducer_json(*it->graph, it->types, it->outputs, it->mode, e.what()));
      }
      ++stats_.unfused_after_compile_error;
      plans_->insert(std::move(it->form), std::move(unfused));
    }
    it = pending_.erase(it);
  }
}

bool Engine::is_stand_in(const Plan* plan) const {
  return std::any_of(pending_.begin(), pending_.end(),
                     [&](const PendingPlan& p) { return p.stand_in.get() == plan; });
}

}  // namespace tensord::engine
