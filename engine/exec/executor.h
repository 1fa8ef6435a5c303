// Runs a plan: the one loop every engine run goes through, so it keeps per-step work small.
#pragma once

#include <span>
#include <vector>

#include "engine/exec/backend.h"
#include "engine/exec/preemption.h"
#include "engine/exec/run_profile.h"
#include "engine/exec/tensor_value.h"
#include "engine/ir/graph.h"
#include "engine/plan/plan.h"

namespace tensord::engine {

// Allocates the plan's slots from `backend` when first written, runs its steps in order, drops
// each slot after its last use and returns the outputs. `inputs` are the caller's tensors (by
// input index; never written). A failing step throws tensord::Error attributed to the node of
// `user_graph` it stems from, with that node's source location; exceptions that are not
// tensord::Error become Internal (std::bad_alloc: OutOfMemory). With an active `profile`, each
// step is traced and its allocations recorded (engine/exec/step_hook.h). With `preemption`, the
// run may pause between steps for other sessions' work (engine/exec/preemption.h).
std::vector<TensorValue> execute(const Plan& plan, Backend& backend,
                                 std::span<const TensorValue> inputs, const ir::Graph& user_graph,
                                 const RunProfile* profile = nullptr,
                                 Preemption* preemption = nullptr);

}  // namespace tensord::engine
