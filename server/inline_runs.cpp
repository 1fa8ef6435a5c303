#include "server/inline_runs.h"

#include "engine/ir/error.h"

namespace tensord::server {

bool linear_in_elements(ir::Op op) {
  using ir::Op;
  switch (ir::op_info(op).kind) {
    case ir::OpKind::Input:
    case ir::OpKind::Creation:
    case ir::OpKind::Unary:
    case ir::OpKind::Binary:
    case ir::OpKind::Ternary:
    case ir::OpKind::Reduction:
    case ir::OpKind::View:
      return true;
    case ir::OpKind::Matmul:
      return false;
    case ir::OpKind::Movement:
      switch (op) {
        case Op::contiguous:
        case Op::concat:
        case Op::pad:
        case Op::index_select:
        case Op::gather:
        case Op::scatter:
        case Op::scatter_add:
        case Op::index_put:
        case Op::cumsum:
        case Op::cumprod:
        case Op::logcumsumexp:
        case Op::cummax:
        case Op::cummin:
          return true;
        default:  // sorting, linear algebra, convolutions, pooling, FFT, data-dependent sizes
          return false;
      }
    case ir::OpKind::Composite:
      switch (op) {
        case Op::linear:
        case Op::scaled_dot_product_attention:
        case Op::matrix_norm:
        case Op::matrix_power:
        case Op::max_unpool:
        case Op::bucketize:
          return false;
        default:  // elementwise, normalizations, losses and shape ops made of the kinds above
          return true;
      }
  }
  return false;
}

bool few_linear_nodes(const ir::Graph& graph) {
  if (graph.nodes.size() > kInlineRunMaxNodes) return false;
  for (const ir::Node& node : graph.nodes) {
    if (!linear_in_elements(node.op)) return false;
  }
  return true;
}

bool small_enough_to_run_inline(ir::Graph& graph, std::span<const ir::TensorType> input_types,
                                const ir::Limits& limits) {
  try {
    ir::validate(graph, input_types, limits);
  } catch (const Error&) {
    return false;
  }
  return few_elements(graph);
}

bool small_function(const ir::Graph& validated) {
  return few_linear_nodes(validated) && few_elements(validated);
}

bool few_elements(const ir::Graph& validated) {
  int64_t elements = 0;
  for (const ir::Node& node : validated.nodes) {
    for (const ir::TensorType& t : node.outputs) {
      elements += t.numel();
      if (elements > kInlineRunMaxElements) return false;
    }
  }
  return true;
}

}  // namespace tensord::server
