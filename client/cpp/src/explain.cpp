// Session.explain from the client: the pending graph goes out as for a run, but to `explain`.
#include "tensord/explain.h"

#include "client/cpp/src/errors.h"
#include "client/cpp/src/explain_wire.h"
#include "client/cpp/src/graph_builder.h"
#include "client/cpp/src/recorder.h"
#include "client/cpp/src/session_state.h"
#include "client/cpp/src/shared_transfer.h"
#include "client/cpp/src/wire_graph.h"
#include "tensord/session.h"

namespace tensord {

Explanation detail::explanation_from_wire(::Explanation::Reader e) {
  Explanation out;
  out.mode = e.getMode();
  out.steps = e.getSteps();
  out.plan_cached = e.getPlanCached();
  out.kernels_cached = e.getKernelsCached();
  out.captured = e.getCaptured();
  out.text = e.getText();
  for (auto grp : e.getGroups()) {
    ExplainedGroup eg;
    eg.kernel = grp.getKernel();
    for (auto op : grp.getOps()) eg.ops.emplace_back(op);
    for (uint32_t n : grp.getNodes()) eg.nodes.push_back(n);
    out.groups.push_back(std::move(eg));
  }
  for (auto b : e.getBoundaries()) {
    out.boundaries.push_back({b.getNode(), b.getOp(), b.getReason()});
  }
  return out;
}

Explanation explain(const std::vector<Tensor>& tensors, std::source_location loc) {
  std::vector<std::shared_ptr<detail::TensorNode>> roots;
  for (const Tensor& t : tensors) roots.push_back(detail::TensorAccess::node(t, loc));
  if (roots.empty()) {
    throw Error(ErrorCode::InvalidGraph, "explain of no tensors", std::nullopt, {},
                detail::where(loc));
  }
  detail::SessionState& s = *roots.front()->session;
  for (const auto& r : roots) {
    if (r->session != roots.front()->session) {
      throw Error(ErrorCode::InvalidGraph, "explain of tensors of different sessions", std::nullopt,
                  {}, detail::where(loc));
    }
  }
  s.check_thread();
  s.flush();
  detail::PendingGraph g = detail::collect_pending(roots);
  for (const detail::PendingGraph::Leaf& leaf : g.leaves) detail::settle(*leaf.node);
  auto request = s.session.explainRequest();
  auto graph = request.initGraph();
  detail::write_graph(g, graph);
  auto inputs = graph.initInputs(static_cast<unsigned>(g.leaves.size()));
  std::vector<detail::Upload> uploads;  // alive until the reply: the daemon reads them
  uint64_t inline_budget = s.chunk_bytes;
  for (unsigned i = 0; i < g.leaves.size(); ++i) {
    detail::TensorNode& leaf = *g.leaves[i].node;
    if (leaf.state == detail::TensorNode::State::Parameter) {
      detail::throw_traced_value(leaf);
    } else if (leaf.state == detail::TensorNode::State::Materialized) {
      inputs[i].setTensor(*leaf.remote);
    } else if (leaf.host_bytes().size() <= inline_budget) {
      inline_budget -= leaf.host_bytes().size();
      detail::write_inline(leaf, inputs[i].initInline());
    } else {
      uploads.push_back(detail::upload_leaf(s, leaf));
      inputs[i].setTensor(uploads.back().tensor);
    }
  }
  auto outputs = request.initOutputs(static_cast<unsigned>(roots.size()));
  for (unsigned k = 0; k < roots.size(); ++k) {
    const detail::WireValue v = g.wire_index.at(roots[k].get());
    auto value = outputs[k].initValue();
    value.setNode(v.node);
    value.setOutput(v.output);
  }
  try {
    return detail::explanation_from_wire(request.send().wait(s.wait_scope()).getExplanation());
  } catch (const kj::Exception& e) {
    // Upload chunks reference the leaves' bytes in place: they finish (or fail) before the
    // leaves may go.
    for (auto& u : uploads) {
      try {
        u.writes.wait(s.wait_scope());
      } catch (const kj::Exception&) {
      }
    }
    throw detail::translate(e, &g, loc);
  }
}

void Session::set_compile_mode(const std::string& mode) {
  state_->check_thread();
  try {
    auto request = state_->session.setCompileModeRequest();
    request.setMode(mode);
    request.send().wait(state_->wait_scope());
  } catch (const kj::Exception& e) {
    throw detail::translate(e, nullptr, std::source_location::current());
  }
}

}  // namespace tensord
