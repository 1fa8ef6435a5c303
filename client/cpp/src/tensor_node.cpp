#include "client/cpp/src/tensor_node.h"

#include <optional>
#include <utility>

#include "client/cpp/src/recorder.h"

namespace tensord::detail {

TensorNode::~TensorNode() {
  // Take over inputs that this node holds the last reference to, so their destructors find an
  // empty input list and the depth stays constant. Single-threaded per session, so a use count
  // of 1 cannot change under us.
  std::vector<std::shared_ptr<TensorNode>> doomed = std::move(inputs);
  while (!doomed.empty()) {
    std::shared_ptr<TensorNode> next = std::move(doomed.back());
    doomed.pop_back();
    if (next.use_count() == 1) {
      for (auto& input : next->inputs) doomed.push_back(std::move(input));
      next->inputs.clear();
    }
  }
}

void TensorNode::materialize(wire::Tensor::Client tensor) {
  remote = std::move(tensor);
  state = State::Materialized;
  in_flight.reset();
  attrs = {};
  siblings.clear();
  std::vector<std::byte>().swap(host);
  host_buffer.reset();
  // Last: dropping the history may destroy other nodes.
  std::vector<std::shared_ptr<TensorNode>> history = std::move(inputs);
  inputs.clear();
}

void settle(TensorNode& node) {
  if (node.state != TensorNode::State::InFlight) return;
  std::shared_ptr<CallInFlight> call = node.in_flight;  // the reply resets node.in_flight
  call->replied.addBranch().wait(node.session->wait_scope());
  if (call->error) throw *call->error;
  if (node.state != TensorNode::State::Materialized) {
    throw Error(ErrorCode::Internal, "a Function call's reply did not materialize its result",
                std::nullopt, std::string(ir::name(node.op)), where(node.loc));
  }
}

wire::Tensor::Client promised_tensor(TensorNode& node) {
  if (node.in_flight->error) throw *node.in_flight->error;  // the reply came: it failed
  if (!node.remote) {
    auto request = node.in_flight->outputs.getRequest();
    request.setIndex(node.in_flight_index);
    node.remote = request.send().getTensor();
  }
  return *node.remote;
}

void throw_traced_value(const TensorNode& parameter) {
  throw Error(ErrorCode::InvalidGraph,
              "this value depends on an argument of a tensord::Function while its body is traced; "
              "only the function's results leave it",
              std::nullopt, "input", where(parameter.loc));
}

}  // namespace tensord::detail
