#include "server/run_graph.h"

#include <string>
#include <utility>
#include <vector>

#include "engine/exec/explain.h"
#include "engine/ir/error.h"
#include "server/exceptions.h"
#include "server/graph_from_wire.h"
#include "server/run_request.h"
#include "server/worker_call.h"

namespace tensord::server {
namespace {

// Run and explain requests carry the same graph and outputs. A run has no parameters: an
// `argument` input is for Session.function only.
template <typename Params>
std::shared_ptr<PendingRun> translate(Params params, const DaemonConfig& config) {
  auto run = std::make_shared<PendingRun>();
  WireGraph wire =
      graph_from_wire(params.getGraph(), {config.max_tensor_bytes, config.max_chunk_bytes});
  RunRequest& request = run->request;
  request.graph = std::move(wire.graph);
  request.outputs = outputs_from_wire(params.getOutputs());
  for (::Output::Reader o : params.getOutputs()) request.fetch.push_back(o.getFetch());
  for (size_t i = 0; i < wire.inputs.size(); ++i) {
    WireInput& in = wire.inputs[i];
    if (auto* bytes = std::get_if<InlineInput>(&in)) {
      request.slots.emplace_back(std::move(*bytes));
    } else if (auto* client = std::get_if<::Tensor::Client>(&in)) {
      request.slots.emplace_back(engine::TensorValue{});  // filled in by resolve()
      run->tensors.push_back({i, kj::mv(*client), "graph input " + std::to_string(i)});
    } else {
      throw Error(ErrorCode::InvalidGraph,
                  "graph input " + std::to_string(i) +
                      " is a function argument; only Session.function takes those");
    }
  }
  return run;
}

// The run itself.
kj::Promise<void> run_steps(std::shared_ptr<SessionCore> session, RunContext context,
                            std::shared_ptr<RunMarks> marks) {
  RequestProfile profile(*session);
  std::shared_ptr<PendingRun> run = translate(context.getParams(), session->config());
  context.releaseParams();  // inline bytes are copied; free the request early
  marks->nodes = run->request.graph.nodes.size();
  profile.received();
  return run_request(std::move(session), std::move(run), std::move(profile), std::move(marks),
                     [context](unsigned n) mutable { return context.getResults().initResults(n); });
}

}  // namespace

kj::Promise<void> run_graph(std::shared_ptr<SessionCore> session, RunContext context) {
  return counted_run(session, [session, context](std::shared_ptr<RunMarks> marks) mutable {
    return run_steps(session, context, std::move(marks));
  });
}

kj::Promise<void> explain_graph(std::shared_ptr<SessionCore> session, ExplainContext context) {
  std::shared_ptr<PendingRun> run = translate(context.getParams(), session->config());
  context.releaseParams();
  const engine::CompileMode mode = session->compile_mode();
  return resolve(*session, run)
      .then([session, run, mode]() {
        return run_on_worker(session->queue(), [run, mode](engine::Engine& engine) {
          std::vector<ir::TensorType> types;
          for (const InputSlot& slot : run->request.slots) {
            if (const auto* v = std::get_if<engine::TensorValue>(&slot)) {
              types.push_back(v->type);
            } else if (const auto* queued = std::get_if<QueuedInput>(&slot)) {
              types.push_back(queued->type);
            } else {
              types.push_back(std::get<InlineInput>(slot).type);
            }
          }
          return engine::explain(engine, std::move(run->request.graph), types, run->request.outputs,
                                 mode);
        });
      })
      .then([context](kj::Own<engine::Explanation> e) mutable {
        with_wire_errors([&] { explanation_to_wire(*e, context.getResults().initExplanation()); });
      });
}

void explanation_to_wire(const engine::Explanation& e, ::Explanation::Builder out) {
  out.setMode(std::string(engine::name(e.mode)));
  out.setSteps(e.steps);
  out.setPlanCached(e.plan_cached);
  out.setKernelsCached(e.kernels_cached);
  out.setCaptured(e.captured);
  out.setText(e.text());
  auto groups = out.initGroups(static_cast<unsigned>(e.groups.size()));
  for (size_t i = 0; i < e.groups.size(); ++i) {
    const engine::ExplainedGroup& g = e.groups[i];
    groups[i].setKernel(g.kernel);
    auto ops = groups[i].initOps(static_cast<unsigned>(g.ops.size()));
    for (size_t k = 0; k < g.ops.size(); ++k) ops.set(k, g.ops[k]);
    auto nodes = groups[i].initNodes(static_cast<unsigned>(g.nodes.size()));
    for (size_t k = 0; k < g.nodes.size(); ++k) nodes.set(k, g.nodes[k]);
  }
  auto bounds = out.initBoundaries(static_cast<unsigned>(e.boundaries.size()));
  for (size_t i = 0; i < e.boundaries.size(); ++i) {
    bounds[i].setNode(e.boundaries[i].node);
    bounds[i].setOp(e.boundaries[i].op);
    bounds[i].setReason(e.boundaries[i].reason);
  }
}

}  // namespace tensord::server
