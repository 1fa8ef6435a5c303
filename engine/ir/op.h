// The op registry: one constant table describing every op (no mutable global state).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "engine/ir/attrs.h"
#include "engine/ir/shape.h"

namespace tensord::ir {

enum class Op : uint16_t {
#define X(id, kind, min_in, max_in) id,
#include "engine/ir/ops.def"
#undef X
};

enum class OpKind : uint8_t {
  Input,      // a graph input: a tensor the caller supplies
  Creation,   // no inputs: full, arange, eye, rand, randn
  Unary,      // elementwise, one input
  Binary,     // elementwise, two broadcast inputs
  Ternary,    // elementwise, three broadcast inputs (where)
  Reduction,  // over a set of axes
  View,       // a new shape/stride over the same data
  Movement,   // copies data into a new layout
  Matmul,
  Composite,  // defined by its decomposition into the kinds above
};

struct AttrSpec {
  Attr attr;
  AttrKind kind;
  bool required;
};

struct OpInfo {
  Op op;
  std::string_view name;
  OpKind kind;
  int min_inputs;
  int max_inputs;  // -1: any number >= min_inputs
  std::span<const AttrSpec> attrs;
};

const OpInfo& op_info(Op op);
inline std::string_view name(Op op) {
  return op_info(op).name;
}
std::optional<Op> op_from_name(std::string_view name);
std::span<const OpInfo> all_ops();

// Shape and dtype inference. Throws tensord::Error (Shape, DType or InvalidGraph) without a
// node attribution; callers attribute it. The arity and attribute kinds are checked first.
std::vector<TensorType> infer(Op op, std::span<const TensorType* const> inputs, const Attrs& attrs);

// Checks arity and attribute names/kinds against the schema (part of infer; exposed for tests).
void check_schema(Op op, size_t num_inputs, const Attrs& attrs);

}  // namespace tensord::ir
