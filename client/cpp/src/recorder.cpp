#include "client/cpp/src/recorder.h"

#include <string>

#include "client/cpp/src/thread_owned.h"

namespace tensord::detail {
namespace {

Error error_at(ErrorCode code, std::string message, ir::Op op, std::source_location loc) {
  return Error(code, std::move(message), std::nullopt, std::string(ir::name(op)), where(loc));
}

// One Tensor per output: the first records the op, the others are its projections.
std::vector<Tensor> record_nodes(std::shared_ptr<SessionState> session, ir::Op op,
                                 std::vector<std::shared_ptr<TensorNode>> inputs, ir::Attrs attrs,
                                 std::source_location loc) {
  std::vector<const ir::TensorType*> types;
  types.reserve(inputs.size());
  for (const auto& input : inputs) types.push_back(&input->type);
  std::vector<ir::TensorType> outputs;
  try {
    outputs = ir::infer(op, types, attrs);
  } catch (const Error& e) {
    throw error_at(e.code(), e.message(), op, loc);
  }
  auto node =
      make_thread_owned<TensorNode>(session->thread, session, std::move(outputs[0]), op, loc);
  node->inputs = std::move(inputs);
  node->attrs = std::move(attrs);
  std::vector<Tensor> results;
  results.reserve(outputs.size());
  for (uint32_t k = 1; k < outputs.size(); ++k) {
    auto projection =
        make_thread_owned<TensorNode>(session->thread, session, std::move(outputs[k]), op, loc);
    projection->output = k;
    projection->inputs.push_back(node);
    node->siblings.push_back(projection);
    results.push_back(TensorAccess::wrap(std::move(projection)));
  }
  results.insert(results.begin(), TensorAccess::wrap(std::move(node)));
  return results;
}

Tensor record_single(std::shared_ptr<SessionState> session, ir::Op op,
                     std::vector<std::shared_ptr<TensorNode>> inputs, ir::Attrs attrs,
                     std::source_location loc) {
  std::vector<Tensor> results =
      record_nodes(std::move(session), op, std::move(inputs), std::move(attrs), loc);
  if (results.size() != 1) {
    throw error_at(
        ErrorCode::Internal,
        "has " + std::to_string(results.size()) + " outputs: record it with record_multi", op, loc);
  }
  return std::move(results[0]);
}

std::shared_ptr<SessionState> common_session(ir::Op op,
                                             const std::vector<std::shared_ptr<TensorNode>>& nodes,
                                             std::source_location loc) {
  if (nodes.empty()) throw error_at(ErrorCode::InvalidGraph, "no input tensors", op, loc);
  for (const auto& node : nodes) {
    if (node->session != nodes.front()->session) {
      throw error_at(ErrorCode::InvalidGraph, "the inputs belong to different sessions", op, loc);
    }
  }
  return nodes.front()->session;
}

std::vector<std::shared_ptr<TensorNode>> nodes_of(std::span<const Tensor> inputs,
                                                  std::source_location loc) {
  std::vector<std::shared_ptr<TensorNode>> nodes;
  nodes.reserve(inputs.size());
  for (const Tensor& t : inputs) nodes.push_back(TensorAccess::node(t, loc));
  return nodes;
}

ir::DType default_dtype(ir::ScalarKind kind) {
  switch (kind) {
    case ir::ScalarKind::Bool:
      return ir::DType::Bool;
    case ir::ScalarKind::Int:
      return ir::kDefaultInt;
    case ir::ScalarKind::Float:
      return ir::kDefaultFloat;
  }
  return ir::kDefaultFloat;
}

}  // namespace

const std::shared_ptr<TensorNode>& TensorAccess::node(const Tensor& t, std::source_location loc) {
  if (!t.node_) {
    throw Error(ErrorCode::InvalidGraph, "use of an undefined (default-constructed) Tensor",
                std::nullopt, {}, where(loc));
  }
  return t.node_;
}

SourceLocation where(const std::source_location& loc) {
  return SourceLocation{loc.file_name(), static_cast<uint32_t>(loc.line())};
}

Tensor record(ir::Op op, std::initializer_list<const Tensor*> inputs, ir::Attrs attrs,
              std::source_location loc) {
  std::vector<std::shared_ptr<TensorNode>> nodes;
  nodes.reserve(inputs.size());
  for (const Tensor* t : inputs) nodes.push_back(TensorAccess::node(*t, loc));
  auto session = common_session(op, nodes, loc);
  return record_single(std::move(session), op, std::move(nodes), std::move(attrs), loc);
}

Tensor record(ir::Op op, std::span<const Tensor> inputs, ir::Attrs attrs,
              std::source_location loc) {
  std::vector<std::shared_ptr<TensorNode>> nodes = nodes_of(inputs, loc);
  auto session = common_session(op, nodes, loc);
  return record_single(std::move(session), op, std::move(nodes), std::move(attrs), loc);
}

std::vector<Tensor> record_multi(ir::Op op, std::span<const Tensor> inputs, ir::Attrs attrs,
                                 std::source_location loc) {
  std::vector<std::shared_ptr<TensorNode>> nodes = nodes_of(inputs, loc);
  auto session = common_session(op, nodes, loc);
  return record_nodes(std::move(session), op, std::move(nodes), std::move(attrs), loc);
}

Tensor record_creation(const std::shared_ptr<SessionState>& session, ir::Op op, ir::Attrs attrs,
                       std::source_location loc) {
  return record_single(session, op, {}, std::move(attrs), loc);
}

ir::AttrValue attr_value(const Scalar& s) {
  return std::visit([](auto v) -> ir::AttrValue { return v; }, s.value());
}

Tensor record_elementwise(ir::Op op, std::span<const Operand* const> operands,
                          const Tensor* session_of, std::source_location loc) {
  std::optional<ir::DType> tensor_dtype;
  const Tensor* first_tensor = session_of;
  for (const Operand* operand : operands) {
    if (const Tensor* t = operand->tensor()) {
      ir::DType d = TensorAccess::node(*t, loc)->type.dtype;
      tensor_dtype = tensor_dtype ? ir::promote(*tensor_dtype, d) : d;
      if (!first_tensor) first_tensor = t;
    }
  }
  if (!first_tensor) {
    throw error_at(ErrorCode::InvalidGraph, "needs at least one tensor operand", op, loc);
  }
  const auto& session = TensorAccess::node(*first_tensor, loc)->session;

  std::vector<Tensor> inputs;
  inputs.reserve(operands.size() + 1);
  if (session_of) inputs.push_back(*session_of);
  for (const Operand* operand : operands) {
    if (const Tensor* t = operand->tensor()) {
      inputs.push_back(*t);
      continue;
    }
    const Scalar& s = operand->scalar();
    ir::DType dtype =
        tensor_dtype ? ir::promote_with_scalar(*tensor_dtype, s.kind()) : default_dtype(s.kind());
    ir::Attrs attrs{{ir::Attr::shape, std::vector<int64_t>{}},
                    {ir::Attr::value, attr_value(s)},
                    {ir::Attr::dtype, dtype}};
    inputs.push_back(record_creation(session, ir::Op::full, std::move(attrs), loc));
  }
  return record(op, std::span<const Tensor>(inputs), {}, loc);
}

}  // namespace tensord::detail
