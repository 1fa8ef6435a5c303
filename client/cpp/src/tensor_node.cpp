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
  attrs = {};
  siblings.clear();
  std::vector<std::byte>().swap(host);
  host_buffer.reset();
  // Last: dropping the history may destroy other nodes.
  std::vector<std::shared_ptr<TensorNode>> history = std::move(inputs);
  inputs.clear();
}

void throw_traced_value(const TensorNode& parameter) {
  throw Error(ErrorCode::InvalidGraph,
              "this value depends on an argument of a tensord::Function while its body is traced; "
              "only the function's results leave it",
              std::nullopt, "input", where(parameter.loc));
}

}  // namespace tensord::detail
