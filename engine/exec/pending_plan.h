// Engine::PendingPlan: a fused plan whose kernels compile in the background while its unfused
// stand-in runs (engine_background.cpp). Private to the engine's sources.
#pragma once

#include <future>
#include <memory>
#include <vector>

#include "engine/exec/engine.h"
#include "engine/ir/passes.h"

namespace tensord::engine {

struct Engine::PendingPlan {
  ir::CanonicalForm form;                // the plan cache's key of both plans
  std::shared_ptr<const Plan> stand_in;  // unfused, in the plan cache meanwhile
  std::shared_ptr<Plan> fused;           // its `compiled` is set once the kernels are in
  std::future<std::shared_ptr<const CompiledKernels>> kernels;
  // For the reproducer, should the compile fail.
  std::shared_ptr<const ir::Graph> graph;  // shared with the compile job (crash reproducer)
  std::vector<ir::TensorType> types;
  std::vector<ir::ValueRef> outputs;
  CompileMode mode = CompileMode::Default;
};

}  // namespace tensord::engine
