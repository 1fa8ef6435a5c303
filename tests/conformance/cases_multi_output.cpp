// Table rows for the ops with several outputs: each row checks one output (Case::output), so
// every output of every op is swept.
#include <cmath>

#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Op;

namespace {

Case make(Op op, InputSpec input, uint32_t output) {
  Case c;
  c.op = op;
  c.inputs = {std::move(input)};
  c.output = output;
  return c;
}

}  // namespace

void add_multi_output_cases(std::vector<Case>& out) {
  const std::vector<double> edges = {0.0,    -0.0,   1.0,    -1.0,    0.5,      0.75,      3.0,
                                     1e-300, 5e-324, -1e300, 1.7e308, INFINITY, -INFINITY, NAN};
  for (uint32_t output : {0u, 1u}) {
    for (DType t : kFloatDTypes) {
      for (const InputSpec& s : single_input_sweep(t, Values::Mixed)) {
        out.push_back(make(Op::frexp, s, output));
      }
      Case c = make(Op::frexp, in_values(t, {static_cast<int64_t>(edges.size())}, edges), output);
      c.note = "edges";
      out.push_back(std::move(c));
    }
    for (DType t : {DType::Int32, DType::Bool}) {
      Case c = make(Op::frexp, in(t, {3}), output);
      c.error = ErrorCode::DType;
      out.push_back(std::move(c));
    }
  }
}

}  // namespace tensord::conformance
