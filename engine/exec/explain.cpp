#include "engine/exec/explain.h"

#include <algorithm>

namespace tensord::engine {

Explanation explain(Engine& engine, ir::Graph graph, std::span<const ir::TensorType> input_types,
                    std::span<const ir::ValueRef> outputs, CompileMode mode) {
  PlanInfo info;
  std::shared_ptr<const Plan> plan = engine.plan_for(graph, input_types, outputs, mode, &info);
  Explanation e;
  e.mode = mode;
  e.plan_cached = info.plan_cached;
  e.kernels_cached = info.kernels_cached;
  e.steps = static_cast<uint32_t>(plan->steps.size());
  if (mode != CompileMode::ReduceOverhead) {
    e.capture = "not captured (mode " + std::string(name(mode)) + ")";
  } else if (!engine.backend().can_capture()) {
    e.capture = "not captured (" + engine.backend().info().kind + ": nothing to capture)";
  } else {
    CapturedPlans::Status status = engine.capture_status(plan.get());
    if (status == CapturedPlans::Status::Pending && !worth_capturing(*plan)) {
      status = CapturedPlans::Status::TooLarge;
    }
    switch (status) {
      case CapturedPlans::Status::Pending:
        e.captured = true;
        e.capture = "captured as a CUDA graph on its second run, replayed from then on";
        break;
      case CapturedPlans::Status::Recorded:
        e.captured = true;
        e.capture = "replays a CUDA graph";
        break;
      case CapturedPlans::Status::TooLarge:
        e.capture =
            "not captured: copying its inputs and outputs into a recording would cost more than "
            "the launches it saves";
        break;
      case CapturedPlans::Status::Unusable:
        e.capture = "not captured: its recording could not be replayed (a step needs the host)";
        break;
    }
  }
  for (const FusedGroup& g : plan->groups) {
    ExplainedGroup out;
    out.kernel = codegen::describe(g.kernel);
    for (uint32_t m : g.members) {
      out.ops.emplace_back(ir::name(plan->nodes[m].op));
      const uint32_t origin = plan->origin[m];
      if (std::find(out.nodes.begin(), out.nodes.end(), origin) == out.nodes.end()) {
        out.nodes.push_back(origin);
      }
    }
    e.groups.push_back(std::move(out));
  }
  for (uint32_t n = 0; n < plan->boundaries.size(); ++n) {
    if (plan->boundaries[n].empty()) continue;
    e.boundaries.push_back(
        {plan->origin[n], std::string(ir::name(plan->nodes[n].op)), plan->boundaries[n]});
  }
  return e;
}

std::string Explanation::text() const {
  // Appends only: GCC 12 warns (-Wrestrict, a false positive) on some operator+ chains.
  std::string s = "mode ";
  s += name(mode);
  s += ": ";
  s += std::to_string(steps);
  s += " kernel launches, ";
  s += std::to_string(groups.size());
  s += " fused groups; plan ";
  s += plan_cached ? "cached" : "built";
  s += ", kernels ";
  s += kernels_cached ? "cached" : "compiled";
  s += ", ";
  s += capture;
  s += '\n';
  for (size_t i = 0; i < groups.size(); ++i) {
    s += "group ";
    s += std::to_string(i);
    s += ':';
    for (const std::string& op : groups[i].ops) {
      s += " ";
      s += op;
    }
    s += " (user nodes";
    for (uint32_t n : groups[i].nodes) {
      s += ' ';
      s += std::to_string(n);
    }
    s += ")\n";
  }
  for (const ExplainedBoundary& b : boundaries) {
    s += "boundary at user node ";
    s += std::to_string(b.node);
    s += " (";
    s += b.op;
    s += "): ";
    s += b.reason;
    s += "\n";
  }
  return s;
}

}  // namespace tensord::engine
