#include "engine/exec/explain.h"

#include <algorithm>

namespace tensord::engine {

namespace {

// Fills `e` from one plan; `user_node` maps the plan's origin numbers to the user's nodes.
void describe_plan(Engine& engine, const Plan& plan, const PlanInfo& info,
                   const std::vector<uint32_t>* user_node, Explanation& e) {
  auto user = [&](uint32_t n) { return user_node ? (*user_node)[n] : n; };
  const CompileMode mode = e.mode;
  e.plan_cached = info.plan_cached;
  e.kernels_cached = info.kernels_cached;
  e.steps = static_cast<uint32_t>(plan.steps.size());
  if (mode != CompileMode::ReduceOverhead) {
    e.capture = "not captured (mode " + std::string(name(mode)) + ")";
  } else if (!engine.backend().can_capture()) {
    e.capture = "not captured (" + engine.backend().info().kind + ": nothing to capture)";
  } else {
    CapturedPlans::Status status = engine.capture_status(&plan);
    if (status == CapturedPlans::Status::Pending && !worth_capturing(plan)) {
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
  e.unfused_because = plan.unfused_because;
  e.unfused_reproducer = plan.unfused_reproducer;
  for (const FusedGroup& g : plan.groups) {
    ExplainedGroup out;
    out.kernel = codegen::describe(g.kernel);
    if (g.epilogue) {
      out.epilogue = g.epilogue->text();
      // The listing is the chain's kernel, what runs after the matmul when unfused is faster.
      out.kernel = "matmul epilogue " + g.epilogue->text() +
                   " (the matmul library's epilogue or the matmul then this kernel, whichever "
                   "measures faster per shape)\n" +
                   out.kernel;
    }
    for (uint32_t m : g.members) {
      out.ops.emplace_back(ir::name(plan.nodes[m].op));
      const uint32_t origin = user(plan.origin[m]);
      if (std::find(out.nodes.begin(), out.nodes.end(), origin) == out.nodes.end()) {
        out.nodes.push_back(origin);
      }
    }
    e.groups.push_back(std::move(out));
  }
  for (uint32_t n = 0; n < plan.boundaries.size(); ++n) {
    if (plan.boundaries[n].empty()) continue;
    e.boundaries.push_back(
        {user(plan.origin[n]), std::string(ir::name(plan.nodes[n].op)), plan.boundaries[n]});
  }
}

}  // namespace

Explanation explain(Engine& engine, ir::Graph graph, std::span<const ir::TensorType> input_types,
                    std::span<const ir::ValueRef> outputs, CompileMode mode) {
  Explanation e;
  e.mode = mode;
  if (!has_data_dependent_op(graph)) {
    PlanInfo info;
    std::shared_ptr<const Plan> plan =
        engine.plan_for(graph, input_types, outputs, mode, &info, nullptr, PlanUse::Inspect);
    describe_plan(engine, *plan, info, nullptr, e);
    return e;
  }
  // Segments (engine_dynamic.cpp): the first is planned now, the rest only once the run knows
  // the sizes the cuts produce, so they cannot be shown before it.
  SegmentOutline outline = engine.outline_segments(graph, input_types, outputs, mode);
  if (outline.first) {
    describe_plan(engine, *outline.first, outline.first_info, &outline.first_origin, e);
  } else {
    e.plan_cached = e.kernels_cached = true;  // nothing to build
    e.capture = "not captured (nothing to plan before the first cut)";
  }
  for (const SegmentOutline::Cut& c : outline.cuts) {
    e.cuts.push_back({c.node, std::string(ir::name(c.op))});
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
  if (!unfused_because.empty()) {
    // The daemon's log is on another host for many users: the path is what they report.
    s += "runs unfused: its fused kernels did not compile (";
    s += unfused_reproducer.empty() ? std::string("no reproducer was written")
                                    : "reproducer: " + unfused_reproducer;
    s += "): ";
    s += unfused_because.substr(0, unfused_because.find('\n'));
    s += '\n';
  }
  if (!cuts.empty()) {
    // Appends only (see above).
    s += "runs in ";
    s += std::to_string(cuts.size() + 1);
    s += " segments: an op whose output size depends on the data ends each but the last, runs "
         "alone and sizes its output; the plan shown is segment 0's\n";
    for (size_t i = 0; i <= cuts.size(); ++i) {
      s += "segment ";
      s += std::to_string(i);
      s += ": ";
      if (i == 0) {
        s += "the nodes before";
      } else {
        s += "after user node ";
        s += std::to_string(cuts[i - 1].node);
        s += " (";
        s += cuts[i - 1].op;
        s += "), ";
        s += i < cuts.size() ? "up to" : "to the outputs";
      }
      if (i < cuts.size()) {
        s += " user node ";
        s += std::to_string(cuts[i].node);
        s += " (";
        s += cuts[i].op;
        s += ")";
      }
      s += i == 0 ? ": planned now" : ": planned at run time, once the sizes are known";
      s += '\n';
    }
  }
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
    s += ")";
    if (!groups[i].epilogue.empty()) {
      s += ": matmul epilogue ";
      s += groups[i].epilogue;
      s += ", fused or not as measured per shape";
    }
    s += '\n';
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
