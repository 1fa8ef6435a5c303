// One row of the conformance table, fully concrete: an op, its attributes, its inputs (dtype,
// logical shape, layout, values) and how exact the result must be.
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/ir/attrs.h"
#include "engine/ir/error.h"
#include "engine/ir/op.h"
#include "tests/conformance/layout.h"
#include "tests/conformance/ref_tensor.h"
#include "tests/conformance/tolerance.h"
#include "tests/conformance/values.h"

namespace tensord::conformance {

struct InputSpec {
  DType dtype = DType::Float32;
  Shape shape;  // as the op sees it
  Layout layout = Layout::Contiguous;
  Values values = Values::Mixed;
  int64_t bound = 0;                    // Values::Index: indices in [-bound, bound)
  std::vector<double> explicit_values;  // Values::Explicit (repeated to fill the tensor)
  // Recorded as a `full` node of explicit_values[0], as a client records a Python or C++ scalar
  // operand (x ** 2), instead of an input the runner uploads: rewrites that look at constants
  // (decompose_power.cpp) see what users send.
  bool constant = false;
};

// An extra check of the output (moments of random tensors); returns "" or what is wrong.
using Property = std::function<std::string(const RefTensor& got)>;
// Checks of defining identities over the inputs and every output of the op (Q R = A with Q
// orthonormal, U diag(S) Vh = A, ...), for ops whose outputs are unique only up to signs: when a
// row has one, the runner fetches all outputs and checks the row's `output` for its type only.
using Identities = std::function<std::string(std::span<const RefTensor> inputs,
                                             std::span<const RefTensor> outputs)>;

// An op applied after the row's op (a matmul epilogue chain, engine/plan/epilogue.h): op(result)
// or, with `input` >= 0, op(result, the row's input `input`). The reference applies it to its
// float64 value and keeps the product's accumulated-error bound: the epilogue ops scale an error
// by at most about 1.13 (gelu's steepest slope), and each adds its own rounding.
struct Then {
  ir::Op op = ir::Op::relu;
  ir::Attrs attrs = {};
  int input = -1;
};

struct Case {
  ir::Op op = ir::Op::input;
  ir::Attrs attrs;
  std::vector<InputSpec> inputs;
  Accuracy accuracy = Accuracy::Exact;
  // The table's own claim that docs/ops.md rejects this case with this code; the runner checks
  // that the reference agrees, so an error row cannot silently turn into a value row.
  std::optional<ErrorCode> error;
  int repeat = 1;       // runs of the same graph (plan cache hits must give the same values)
  uint32_t output = 0;  // which output of an op with several outputs the row checks
  Property property;
  Identities identities;
  std::string note;        // what the case is about, when the inputs do not say it
  std::vector<Then> then;  // ops after this one, in order; the inputs they read come last
};

// How many of a row's inputs its op takes: the others are read by its `then` ops.
inline size_t op_input_count(const Case& c) {
  size_t n = c.inputs.size();
  for (const Then& t : c.then) {
    if (t.input >= 0) n = std::min(n, static_cast<size_t>(t.input));
  }
  return n;
}

// Builders that keep the table rows short.
inline InputSpec in(DType t, Shape s, Layout l = Layout::Contiguous, Values v = Values::Mixed) {
  return InputSpec{t, std::move(s), l, v, 0, {}};
}
inline InputSpec in_values(DType t, Shape s, std::vector<double> values) {
  return InputSpec{t, std::move(s), Layout::Contiguous, Values::Explicit, 0, std::move(values)};
}
inline InputSpec in_index(DType t, Shape s, int64_t bound) {
  return InputSpec{t, std::move(s), Layout::Contiguous, Values::Index, bound, {}};
}
inline InputSpec in_constant(DType t, double value) {
  return InputSpec{t, {}, Layout::Contiguous, Values::Explicit, 0, {value}, true};
}

std::string describe(const Case& c);  // "add float16(5, 7)[permuted] float16(7)  {axis=1}"

// The table, by family (cases_*.cpp); all_cases() concatenates them.
void add_creation_cases(std::vector<Case>& out);
void add_unary_cases(std::vector<Case>& out);
void add_binary_cases(std::vector<Case>& out);
void add_math_cases(std::vector<Case>& out);        // issue 4's elementwise math
void add_pointwise_cases(std::vector<Case>& out);   // nextafter, lerp, addcmul, addcdiv
void add_activation_cases(std::vector<Case>& out);  // elu ... glu
void add_reduce_cases(std::vector<Case>& out);
void add_reduce_more_cases(std::vector<Case>& out);  // all ... norm, cumsum ... logcumsumexp
void add_loss_cases(std::vector<Case>& out);
void add_shape_more_cases(std::vector<Case>& out);  // tril ... diag
void add_special_cases(
    std::vector<Case>& out);  // lgamma ... xlog1py         // mse_loss ... cosine_similarity
// issue 4: polygamma ... zeta, logit's eps (cases_special.cpp); sorting (cases_sort.cpp)
void add_special_more_cases(std::vector<Case>& out);
void add_sort_cases(std::vector<Case>& out);
void add_view_cases(std::vector<Case>& out);
void add_linalg_cases(std::vector<Case>& out);  // det ... matrix_power
void add_movement_cases(std::vector<Case>& out);
void add_matmul_cases(std::vector<Case>& out);
void add_normalize_cases(std::vector<Case>& out);
void add_schema_cases(std::vector<Case>& out);
void add_index_more_cases(std::vector<Case>& out);    // searchsorted ... nonzero, unique
void add_multi_output_cases(std::vector<Case>& out);  // frexp ...
void add_nn_cases(std::vector<Case>& out);    // issue 4: conv ... pixel_unshuffle (cases_nn.cpp)
void add_pool_cases(std::vector<Case>& out);  // every pool, max_unpool (cases_pool.cpp)
// Issue 6: integer and prod/argmax/argmin chains that fused backends run as one kernel.
void add_fused_chain_cases(std::vector<Case>& out);
std::vector<Case> all_cases();

// dtype sets rows draw from.
inline constexpr DType kAllDTypes[] = {
    DType::Bool,  DType::Int8,    DType::UInt8,    DType::Int16,   DType::Int32,
    DType::Int64, DType::Float16, DType::BFloat16, DType::Float32, DType::Float64};
inline constexpr DType kFloatDTypes[] = {DType::Float16, DType::BFloat16, DType::Float32,
                                         DType::Float64};

}  // namespace tensord::conformance
