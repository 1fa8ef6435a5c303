// Table rows for malformed nodes, which every backend must see rejected before it runs
// anything: arity, unknown or missing attributes, attributes of the wrong kind.
#include "tests/conformance/case.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace {

Case schema_case(Op op, ir::Attrs attrs, std::vector<InputSpec> inputs, std::string note,
                 std::optional<ErrorCode> error = ErrorCode::InvalidGraph) {
  Case c;
  c.op = op;
  c.attrs = std::move(attrs);
  c.inputs = std::move(inputs);
  c.error = error;
  c.note = std::move(note);
  return c;
}

}  // namespace

void add_schema_cases(std::vector<Case>& out) {
  const InputSpec x = in(DType::Float32, {2, 3});
  out.push_back(schema_case(Op::add, {}, {x}, "one input"));
  out.push_back(schema_case(Op::add, {}, {x, x, x}, "three inputs"));
  out.push_back(schema_case(Op::neg, {}, {x, x}, "two inputs"));
  out.push_back(schema_case(Op::where, {}, {x, x}, "two inputs"));
  out.push_back(schema_case(Op::layer_norm, {{Attr::normalized_ndim, int64_t{1}}},
                            {x, in(DType::Float32, {3}), in(DType::Float32, {3}), x},
                            "four inputs"));
  out.push_back(schema_case(Op::add, {{Attr::axis, int64_t{0}}}, {x, x}, "unknown attribute"));
  out.push_back(schema_case(Op::reshape, {}, {x}, "shape missing"));
  out.push_back(schema_case(Op::slice, {{Attr::axis, 1.0}}, {x}, "float for an int"));
  out.push_back(schema_case(Op::sum, {{Attr::axes, int64_t{1}}}, {x}, "int for a list"));
  out.push_back(schema_case(Op::sum, {{Attr::keepdim, int64_t{1}}}, {x}, "int for a bool"));
  out.push_back(schema_case(Op::cast, {{Attr::dtype, int64_t{3}}}, {x}, "int for a dtype"));
  out.push_back(
      schema_case(Op::clamp, {{Attr::min, std::vector<int64_t>{1}}}, {x}, "list for a scalar"));
  // Float attributes also take ints (docs/ops.md, "Schema").
  Case var =
      schema_case(Op::var, {{Attr::correction, int64_t{1}}}, {x}, "int correction", std::nullopt);
  var.accuracy = Accuracy::Accumulated;
  out.push_back(var);
  Case ln =
      schema_case(Op::layer_norm, {{Attr::normalized_ndim, int64_t{1}}, {Attr::eps, int64_t{1}}},
                  {x}, "int eps", std::nullopt);
  ln.accuracy = Accuracy::Accumulated;
  out.push_back(ln);
}

}  // namespace tensord::conformance
