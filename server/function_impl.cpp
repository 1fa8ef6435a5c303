#include "server/function_impl.h"

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/exec/engine.h"
#include "engine/ir/error.h"
#include "server/accounting.h"
#include "server/device_bytes.h"
#include "server/exceptions.h"
#include "server/graph_from_wire.h"
#include "server/inline_runs.h"
#include "server/run_graph.h"
#include "server/run_request.h"
#include "server/worker_call.h"

namespace tensord::server {
namespace {

// What a Function keeps. Only `prepared` is touched on the worker (its plans), or on the event
// loop while the worker lends it its engine; the rest is read on the event loop.
struct FunctionState {
  std::shared_ptr<engine::PreparedGraph> prepared;
  bool small = false;  // calls may run on the event loop (server/inline_runs.h)
  // Per graph input: its captured value, or none for a parameter.
  std::vector<std::optional<engine::TensorValue>> captured;
  std::vector<size_t> parameters;  // the graph input of each argument, in order
  std::vector<ir::TensorType> parameter_types;
  // The results' types, known before a call runs unless a size depends on the data: then a
  // call's results exist only once it ran (no pipelining on them).
  std::optional<std::vector<ir::TensorType>> result_types;
  // The captured values count as the session's tensors while the function keeps them (their
  // handles on the client may be gone); a buffer a tensor holds too counts once.
  std::vector<Charge> charges;
};

// Charges the captured values to the session, or throws Quota when they do not fit its limit.
void charge_captured(SessionCore& session, FunctionState& state) {
  std::vector<std::pair<const void*, uint64_t>> buffers;
  for (const auto& value : state.captured) {
    if (value) buffers.emplace_back(value->buffer.get(), value->nbytes());
  }
  const std::shared_ptr<Account>& account = session.account();
  account->check_room(account->new_bytes(buffers), "the function's captured tensors");
  for (const auto& [buffer, bytes] : buffers) {
    state.charges.emplace_back(account, buffer, bytes, "captured by a function");
  }
}

// The type a parameter's input node declares (validate() checks the node itself later).
ir::TensorType declared_type(const ir::Graph& graph, size_t input) {
  for (const ir::Node& node : graph.nodes) {
    if (node.op != ir::Op::input || !node.attrs.has(ir::Attr::index) ||
        node.attrs.get_int(ir::Attr::index) != static_cast<int64_t>(input)) {
      continue;
    }
    if (!node.attrs.has(ir::Attr::dtype) || !node.attrs.has(ir::Attr::shape)) break;
    return {node.attrs.get_dtype(ir::Attr::dtype), node.attrs.get_ints(ir::Attr::shape)};
  }
  throw Error(ErrorCode::InvalidGraph, "graph input " + std::to_string(input) +
                                           " is a function argument that no input node with a "
                                           "dtype and shape reads");
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
// A call's published results again, for clients that pipeline on them.
class CallOutputsImpl final : public ::CallOutputs::Server {
 public:
  explicit CallOutputsImpl(std::vector<::Tensor::Client> tensors) : tensors_(kj::mv(tensors)) {}

 protected:
  kj::Promise<void> get(GetContext context) override {
    return with_wire_errors([&] {
      const uint32_t index = context.getParams().getIndex();
      if (index >= tensors_.size()) {
        throw Error(ErrorCode::InvalidGraph, "result " + std::to_string(index) +
                                                 " of a call with " +
                                                 std::to_string(tensors_.size()) + " results");
      }
      context.getResults().setTensor(tensors_[index]);
      return kj::READY_NOW;
    });
  }

 private:
  std::vector<::Tensor::Client> tensors_;
};

class FunctionImpl final : public ::Function::Server {
 public:
  FunctionImpl(std::shared_ptr<SessionCore> session, std::shared_ptr<const FunctionState> state)
      : session_(std::move(session)), state_(std::move(state)) {}

 protected:
  kj::Promise<void> call(CallContext context) override {
    context.allowCancellation();
    return with_wire_errors([&] {
      return counted_run(session_, [session = session_, state = state_,
                                    context](std::shared_ptr<RunMarks> marks) mutable {
        return call_steps(std::move(session), *state, context, std::move(marks));
      });
    });
  }

  kj::Promise<void> explain(ExplainContext context) override {
    const engine::CompileMode mode = session_->compile_mode();
    return run_on_worker(session_->queue(),
                         [state = state_, mode](engine::Engine& engine) {
                           const engine::PreparedGraph& p = *state->prepared;
                           return engine::explain(engine, p.graph(), p.input_types(), p.outputs(),
                                                  mode);
                         })
        .then([context](kj::Own<engine::Explanation> e) mutable {
          with_wire_errors(
              [&] { explanation_to_wire(*e, context.getResults().initExplanation()); });
        });
  }

 private:
  static kj::Promise<void> call_steps(std::shared_ptr<SessionCore> session,
                                      const FunctionState& state, CallContext context,
                                      std::shared_ptr<RunMarks> marks) {
    RequestProfile profile(*session);
    auto run = std::make_shared<PendingRun>();
    RunRequest& request = run->request;
    request.prepared = state.prepared;
    request.small_prepared = state.small;
    marks->nodes = state.prepared->graph().nodes.size();
    for (const auto& value : state.captured) {
      request.slots.emplace_back(value ? *value : engine::TensorValue{});
    }
    auto params = context.getParams();
    auto arguments = params.getArguments();
    if (arguments.size() != state.parameters.size()) {
      throw Error(ErrorCode::InvalidGraph,
                  "the function takes " + std::to_string(state.parameters.size()) +
                      " arguments, got " + std::to_string(arguments.size()));
    }
    const DaemonConfig& config = session->config();
    for (size_t k = 0; k < arguments.size(); ++k) {
      const std::string what = "argument " + std::to_string(k);
      const size_t slot = state.parameters[k];
      const ir::TensorType& expected = state.parameter_types[k];
      WireInput in =
          input_from_wire(arguments[k], what, {config.max_tensor_bytes, config.max_chunk_bytes});
      if (auto* client = std::get_if<::Tensor::Client>(&in)) {
        run->tensors.push_back({slot, kj::mv(*client), what, expected});
      } else if (auto* bytes = std::get_if<InlineInput>(&in)) {
        if (bytes->type != expected) {
          throw Error(ErrorCode::InvalidGraph, what + " is " + ir::to_string(bytes->type) +
                                                   "; the function takes " +
                                                   ir::to_string(expected));
        }
        request.slots[slot] = std::move(*bytes);
      } else {
        throw Error(ErrorCode::InvalidGraph, what + " is an `argument`: a call gives values");
      }
    }
    for (bool f : params.getFetch()) request.fetch.push_back(f);
    context.releaseParams();
    profile.received();
    ::CallOutputs::Client outputs = nullptr;
    const bool pipelined = state.result_types.has_value();
    if (pipelined) {
      // The results exist now: calls pipelined on them queue behind this one at once.
      run->results = std::make_shared<PendingResults>(session, *state.result_types);
      request.queued_outputs = run->results->outputs();
      std::vector<::Tensor::Client> tensors;
      for (::Tensor::Client& t : run->results->tensors()) tensors.emplace_back(t);
      outputs = kj::heap<CallOutputsImpl>(kj::mv(tensors));
      capnp::PipelineBuilder<::Function::CallResults> pipeline;
      pipeline.setOutputs(outputs);
      context.setPipeline(pipeline.build());
    }
    return run_request(
               std::move(session), std::move(run), std::move(profile), std::move(marks),
               [context](unsigned n) mutable { return context.getResults().initResults(n); })
        .then([context, pipelined, outputs = kj::mv(outputs)]() mutable {
          if (!pipelined) {
            std::vector<::Tensor::Client> tensors;
            for (::Result::Builder r : context.getResults().getResults()) {
              tensors.push_back(r.getTensor());
            }
            outputs = kj::heap<CallOutputsImpl>(kj::mv(tensors));
          }
          context.getResults().setOutputs(kj::mv(outputs));
        });
  }

  std::shared_ptr<SessionCore> session_;
  std::shared_ptr<const FunctionState> state_;
};
#pragma GCC diagnostic pop

}  // namespace

kj::Promise<void> define_function(std::shared_ptr<SessionCore> session, FunctionContext context) {
  auto params = context.getParams();
  const DaemonConfig& config = session->config();
  WireGraph wire =
      graph_from_wire(params.getGraph(), {config.max_tensor_bytes, config.max_chunk_bytes});
  auto state = std::make_shared<FunctionState>();
  // The captured tensors resolve as a run's inputs do; the parameters' slots stay empty.
  auto pending = std::make_shared<PendingRun>();
  std::vector<ir::TensorType> types(wire.inputs.size());
  for (size_t i = 0; i < wire.inputs.size(); ++i) {
    WireInput& in = wire.inputs[i];
    pending->request.slots.emplace_back(engine::TensorValue{});
    if (auto* client = std::get_if<::Tensor::Client>(&in)) {
      pending->tensors.push_back({i, kj::mv(*client), "graph input " + std::to_string(i)});
    } else if (auto* bytes = std::get_if<InlineInput>(&in)) {
      types[i] = bytes->type;
      pending->request.slots[i] = std::move(*bytes);
    } else {
      types[i] = declared_type(wire.graph, i);
      state->parameters.push_back(i);
      state->parameter_types.push_back(types[i]);
    }
  }
  pending->request.graph = std::move(wire.graph);
  pending->request.outputs = outputs_from_wire(params.getOutputs());
  context.releaseParams();
  return resolve(*session, pending)
      .then([session, pending, state, types = std::move(types)]() mutable {
        return run_on_worker(session->queue(), [pending, state, types = std::move(types)](
                                                   engine::Engine& engine) mutable {
          RunRequest& r = pending->request;
          std::vector<std::optional<engine::TensorValue>> captured(r.slots.size());
          for (size_t i = 0; i < r.slots.size(); ++i) {
            if (auto* bytes = std::get_if<InlineInput>(&r.slots[i])) {
              captured[i] = upload_device_bytes(engine.backend(), bytes->type, bytes->data.data());
            } else if (const auto* queued = std::get_if<QueuedInput>(&r.slots[i])) {
              types[i] = queued->type;
              captured[i] = queued->take();
            } else if (auto& value = std::get<engine::TensorValue>(r.slots[i]); value.buffer) {
              types[i] = value.type;
              captured[i] = std::move(value);
            }
          }
          state->prepared = std::make_shared<engine::PreparedGraph>(
              engine.prepare(std::move(r.graph), std::move(types), std::move(r.outputs)));
          const ir::Graph& graph = state->prepared->graph();
          state->small = small_function(graph);
          if (!engine::has_data_dependent_op(graph)) {
            state->result_types.emplace();
            for (ir::ValueRef v : state->prepared->outputs()) {
              state->result_types->push_back(graph.type(v));
            }
          }
          state->captured = std::move(captured);
          return true;
        });
      })
      .then([session, state, context](kj::Own<bool>) mutable {
        with_wire_errors([&] { charge_captured(*session, *state); });
        context.getResults().setFunction(kj::heap<FunctionImpl>(session, state));
      });
}

}  // namespace tensord::server
