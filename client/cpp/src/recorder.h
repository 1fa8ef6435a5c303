// Recording ops: inference at the caller's line, then a new pending node.
#pragma once

#include <initializer_list>
#include <memory>
#include <source_location>
#include <span>
#include <vector>

#include "client/cpp/src/tensor_node.h"
#include "engine/ir/attrs.h"
#include "engine/ir/error.h"
#include "engine/ir/op.h"
#include "tensord/tensor.h"

namespace tensord::detail {

// The private side of Tensor, for the client's own sources.
struct TensorAccess {
  // Throws tensord::Error(InvalidGraph) at `loc` for an undefined tensor.
  static const std::shared_ptr<TensorNode>& node(const Tensor& t, std::source_location loc);
  static Tensor wrap(std::shared_ptr<TensorNode> node) { return Tensor(std::move(node)); }
};

SourceLocation where(const std::source_location& loc);

// Records `op` reading `inputs` (all of one session) and returns its value. Inference runs
// now; its errors are thrown attributed to `op` at `loc`.
Tensor record(ir::Op op, std::initializer_list<const Tensor*> inputs, ir::Attrs attrs,
              std::source_location loc);
Tensor record(ir::Op op, std::span<const Tensor> inputs, ir::Attrs attrs, std::source_location loc);
// An op with several outputs (docs/ops.md): one Tensor per output, in order. They share one
// node; syncing any of them computes the node once and materializes every one still held.
std::vector<Tensor> record_multi(ir::Op op, std::span<const Tensor> inputs, ir::Attrs attrs,
                                 std::source_location loc);
// An op without inputs (creation), recorded on `session`.
Tensor record_creation(const std::shared_ptr<SessionState>& session, ir::Op op, ir::Attrs attrs,
                       std::source_location loc);

ir::AttrValue attr_value(const Scalar& s);

// Elementwise ops with weak scalars: each number becomes a 0-d `full` whose dtype is
// ir::promote_with_scalar of the tensor operands' promoted dtype (or, with no tensor operand,
// the number's kind's default: bool, int64 or float32). `session_of` supplies the session when
// every operand is a number (where's condition); null means at least one must be a tensor.
Tensor record_elementwise(ir::Op op, std::span<const Operand* const> operands,
                          const Tensor* session_of, std::source_location loc);

}  // namespace tensord::detail
