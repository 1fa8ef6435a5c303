// tensord::Function: traces a body per argument signature into a Session.function graph and
// calls it with arguments only.
#include "tensord/function.h"

#include <algorithm>
#include <string>
#include <utility>

#include "client/cpp/src/errors.h"
#include "client/cpp/src/explain_wire.h"
#include "client/cpp/src/graph_builder.h"
#include "client/cpp/src/recorder.h"
#include "client/cpp/src/sync.h"
#include "client/cpp/src/thread_owned.h"
#include "client/cpp/src/wire_graph.h"
#include "engine/ir/dynamic.h"
#include "tensord/session.h"

namespace tensord::detail {

// What a call's result is known to be before the reply: the traced value's type (kDynamic
// where a size depends on the data), and the op and line that made it, for errors.
struct TracedResult {
  ir::TensorType type;
  ir::Op op;
  std::source_location loc;
};

// One signature's graph on the daemon.
struct FunctionTrace {
  std::vector<ir::TensorType> signature;
  wire::Function::Client remote = nullptr;
  std::vector<size_t> arguments;  // the call's arguments the graph reads, in its input order
  std::vector<TracedResult> results;

  bool sizes_known() const {
    return std::none_of(results.begin(), results.end(), [](const TracedResult& r) {
      return std::find(r.type.shape.begin(), r.type.shape.end(), ir::kDynamic) !=
             r.type.shape.end();
    });
  }
};

struct FunctionState {
  // First member, so it is destroyed last: the capabilities need the session's event loop.
  std::shared_ptr<SessionState> session;
  Function::Body body;
  std::vector<FunctionTrace> traces;  // few: searched in order
};

namespace {

Error error_at(ErrorCode code, std::string message, std::source_location loc) {
  return Error(code, std::move(message), std::nullopt, {}, where(loc));
}

// The traced result types hold kDynamic where a size depends on the data; a call learns it.
bool result_fits(const ir::TensorType& traced, const ir::TensorType& got) {
  if (traced.dtype != got.dtype || traced.shape.size() != got.shape.size()) return false;
  for (size_t d = 0; d < got.shape.size(); ++d) {
    if (traced.shape[d] == ir::kDynamic ? got.shape[d] < 0 : traced.shape[d] != got.shape[d]) {
      return false;
    }
  }
  return true;
}

// Host data that will not fit in the request next to the rest becomes a daemon tensor first
// (one run); pending values too.
void send_what_cannot_ride_along(SessionState& s, std::span<TensorNode* const> nodes,
                                 std::source_location loc) {
  std::vector<SyncRequest> first;
  uint64_t budget = s.chunk_bytes;
  for (TensorNode* node : nodes) {
    if (node->state == TensorNode::State::Pending) {
      first.push_back({node->shared_from_this(), false});
    } else if (node->state == TensorNode::State::Host) {
      const size_t n = node->host_bytes().size();
      if (n <= budget) {
        budget -= n;
      } else {
        first.push_back({node->shared_from_this(), false});
      }
    }
  }
  if (!first.empty()) sync_point(s, first, loc);
}

ir::TensorType type_of(::Result::Reader r) {
  const auto dtype = ir::dtype_from_name(std::string(r.getDtype().cStr()));
  ir::TensorType type{dtype.value_or(ir::DType::Bool), {}};
  for (int64_t d : r.getShape()) type.shape.push_back(d);
  if (!dtype) type.shape.push_back(ir::kDynamic);  // fits no traced type
  return type;
}

// The results of a call whose reply came: materialized tensors, their sizes learned.
std::vector<Tensor> take_results(FunctionState& f, const FunctionTrace& t,
                                 capnp::Response<wire::Function::CallResults> response,
                                 std::source_location loc) {
  auto results = response.getResults();
  if (results.size() != t.results.size()) {
    throw error_at(ErrorCode::Internal,
                   "the daemon returned " + std::to_string(results.size()) +
                       " results for a function of " + std::to_string(t.results.size()),
                   loc);
  }
  std::vector<Tensor> out;
  out.reserve(results.size());
  for (unsigned k = 0; k < results.size(); ++k) {
    const TracedResult& traced = t.results[k];
    ir::TensorType type = type_of(results[k]);
    if (!result_fits(traced.type, type)) {
      throw error_at(ErrorCode::Internal,
                     "the daemon returned " + ir::to_string(type) + " for result " +
                         std::to_string(k) + ", traced as " + ir::to_string(traced.type),
                     loc);
    }
    auto node = make_thread_owned<TensorNode>(f.session->thread, f.session, std::move(type),
                                              traced.op, traced.loc);
    node->materialize(results[k].getTensor());
    out.push_back(TensorAccess::wrap(std::move(node)));
  }
  return out;
}

FunctionTrace trace(FunctionState& f, std::vector<ir::TensorType> signature,
                    std::source_location loc) {
  SessionState& s = *f.session;
  std::vector<Tensor> stand_ins;
  std::vector<const TensorNode*> parameters;
  for (const ir::TensorType& type : signature) {
    auto node =
        make_thread_owned<TensorNode>(f.session->thread, f.session, type, ir::Op::input, loc);
    node->state = TensorNode::State::Parameter;
    parameters.push_back(node.get());
    stand_ins.push_back(TensorAccess::wrap(std::move(node)));
  }
  const std::vector<Tensor> results = f.body(stand_ins);
  if (results.empty()) {
    throw error_at(ErrorCode::InvalidGraph, "a tensord::Function's body returned no tensors", loc);
  }
  FunctionTrace t;
  t.signature = std::move(signature);
  std::vector<std::shared_ptr<TensorNode>> roots;
  for (size_t k = 0; k < results.size(); ++k) {
    const auto& node = TensorAccess::node(results[k], loc);
    if (node->session != f.session) {
      throw error_at(ErrorCode::InvalidGraph,
                     "result " + std::to_string(k) +
                         " of a tensord::Function's body is a tensor of another session",
                     loc);
    }
    roots.push_back(node);
    t.results.push_back({node->type, node->op, node->loc});
  }
  {
    std::vector<TensorNode*> leaves;
    for (const PendingGraph::Leaf& leaf : collect_pending(roots).leaves) {
      leaves.push_back(leaf.node);
    }
    send_what_cannot_ride_along(s, leaves, loc);
  }
  PendingGraph g = collect_pending(roots);
  for (const PendingGraph::Leaf& leaf : g.leaves) settle(*leaf.node);
  auto request = s.session.functionRequest();
  auto graph = request.initGraph();
  write_graph(g, graph);
  auto inputs = graph.initInputs(static_cast<unsigned>(g.leaves.size()));
  for (unsigned i = 0; i < g.leaves.size(); ++i) {
    TensorNode& leaf = *g.leaves[i].node;
    if (leaf.state == TensorNode::State::Parameter) {
      auto it = std::find(parameters.begin(), parameters.end(), &leaf);
      if (it == parameters.end()) throw_traced_value(leaf);  // another Function's stand-in
      inputs[i].setArgument();
      t.arguments.push_back(static_cast<size_t>(it - parameters.begin()));
    } else if (leaf.state == TensorNode::State::Materialized) {
      inputs[i].setTensor(*leaf.remote);
    } else {
      write_inline(leaf, inputs[i].initInline());
    }
  }
  auto outputs = request.initOutputs(static_cast<unsigned>(roots.size()));
  for (unsigned k = 0; k < roots.size(); ++k) {
    const WireValue v = g.wire_index.at(roots[k].get());
    outputs[k].initValue().setNode(v.node);
    outputs[k].getValue().setOutput(v.output);
  }
  try {
    t.remote = request.send().wait(s.wait_scope()).getFunction();
  } catch (const kj::Exception& e) {
    throw translate(e, &g, loc);
  }
  return t;
}

}  // namespace
}  // namespace tensord::detail

namespace tensord {

using detail::TensorAccess;
using detail::TensorNode;

size_t Function::traces() const {
  return state_->traces.size();
}

// The trace of `args`' signature (traced now if new); `nodes` gets the arguments' nodes, each
// on the daemon or small enough to go inline.
detail::FunctionTrace& Function::trace_for(const std::vector<Tensor>& args,
                                           std::vector<detail::TensorNode*>& nodes, Loc loc) const {
  detail::FunctionState& f = *state_;
  detail::SessionState& s = *f.session;
  s.check_thread();
  if (s.info.protocol_major == 1 && s.info.protocol_minor < 6) {
    throw detail::error_at(ErrorCode::Unsupported,
                           "tensord::Function needs a daemon with protocol 1.6 or later; this "
                           "one speaks 1." +
                               std::to_string(s.info.protocol_minor),
                           loc);
  }
  std::vector<ir::TensorType> signature;
  for (size_t k = 0; k < args.size(); ++k) {
    const auto& node = TensorAccess::node(args[k], loc);
    if (node->session != f.session) {
      throw detail::error_at(ErrorCode::InvalidGraph,
                             "argument " + std::to_string(k) + " is a tensor of another session",
                             loc);
    }
    if (node->state == TensorNode::State::Parameter) detail::throw_traced_value(*node);
    nodes.push_back(node.get());
    signature.push_back(node->type);
  }
  detail::send_what_cannot_ride_along(s, nodes, loc);

  auto found = std::find_if(f.traces.begin(), f.traces.end(), [&](const detail::FunctionTrace& t) {
    return t.signature == signature;
  });
  if (found == f.traces.end()) {
    f.traces.push_back(detail::trace(f, std::move(signature), loc));
    found = f.traces.end() - 1;
  }
  return *found;
}

std::vector<Tensor> Function::operator()(const std::vector<Tensor>& args, Loc loc) const {
  detail::FunctionState& f = *state_;
  detail::SessionState& s = *f.session;
  std::vector<TensorNode*> nodes;
  detail::FunctionTrace& t = trace_for(args, nodes, loc);

  auto request = t.remote.callRequest();
  auto list = request.initArguments(static_cast<unsigned>(t.arguments.size()));
  for (unsigned k = 0; k < t.arguments.size(); ++k) {
    TensorNode& arg = *nodes[t.arguments[k]];
    if (arg.state == TensorNode::State::Materialized) {
      list[k].setTensor(*arg.remote);
    } else if (arg.state == TensorNode::State::InFlight) {
      list[k].setTensor(detail::promised_tensor(arg));  // no wait for the call that makes it
    } else {
      detail::write_inline(arg, list[k].initInline());
    }
  }
  // The results are known without the reply unless a size depends on the data: then the call
  // waits. Else it returns at once (the daemon runs calls in order, as torch queues kernels),
  // and the reply materializes the results that are still referenced.
  if (!t.sizes_known()) {
    try {
      return detail::take_results(f, t, request.send().wait(s.wait_scope()), loc);
    } catch (const kj::Exception& e) {
      throw detail::translate(e, nullptr, loc);
    }
  }
  auto call = std::make_shared<detail::CallInFlight>();
  std::vector<Tensor> out;
  std::vector<std::weak_ptr<TensorNode>> pending;
  for (const detail::TracedResult& traced : t.results) {
    auto node = make_thread_owned<TensorNode>(f.session->thread, f.session, traced.type, traced.op,
                                              traced.loc);
    node->state = TensorNode::State::InFlight;
    node->in_flight = call;
    node->in_flight_index = static_cast<uint32_t>(pending.size());
    pending.push_back(node);
    out.push_back(TensorAccess::wrap(std::move(node)));
  }
  // The continuations hold the call weakly: it owns them (through `replied`).
  std::weak_ptr<detail::CallInFlight> weak_call = call;
  auto sent = request.send();
  call->outputs = sent.getOutputs();
  kj::Promise<void> replied = kj::mv(sent).then(
      [pending = std::move(pending), weak_call, loc](auto response) {
        auto results = response.getResults();
        for (unsigned k = 0; k < pending.size(); ++k) {
          std::shared_ptr<TensorNode> node = pending[k].lock();
          if (!node) continue;
          if (k >= results.size() ||
              !detail::result_fits(node->type, detail::type_of(results[k]))) {
            if (auto c = weak_call.lock()) {
              c->error = detail::error_at(ErrorCode::Internal,
                                          "the daemon's reply to a function call does not match "
                                          "its traced results",
                                          loc);
            }
            return;
          }
          node->materialize(results[k].getTensor());
        }
      },
      [weak_call, loc](kj::Exception&& e) {
        if (auto c = weak_call.lock()) c->error = detail::translate(e, nullptr, loc);
      });
  kj::ForkedPromise<void> forked = replied.fork();
  s.calls_in_flight->add(forked.addBranch());
  call->replied = kj::mv(forked);
  return out;
}

Explanation Function::explain(const std::vector<Tensor>& args, Loc loc) const {
  std::vector<TensorNode*> nodes;
  detail::FunctionTrace& t = trace_for(args, nodes, loc);
  try {
    return detail::explanation_from_wire(
        t.remote.explainRequest().send().wait(state_->session->wait_scope()).getExplanation());
  } catch (const kj::Exception& e) {
    throw detail::translate(e, nullptr, loc);
  }
}

Function Session::function(Function::Body body) {
  if (!body) throw Error(ErrorCode::InvalidGraph, "Session::function of an empty body");
  auto state = detail::make_thread_owned<detail::FunctionState>(state_->thread);
  state->session = state_;
  state->body = std::move(body);
  return Function(std::move(state));
}

}  // namespace tensord
