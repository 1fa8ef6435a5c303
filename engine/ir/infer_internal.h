// Pieces of shape and dtype inference shared by infer*.cpp; not part of the IR's interface.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/error.h"
#include "engine/ir/op.h"

namespace tensord::ir::detail {

[[noreturn]] void fail(ErrorCode code, std::string message);

// The one output of an op, after checking what every value must satisfy: rank <= kMaxRank,
// dimensions >= 0, and an element count (of the non-zero dims) and byte size that int64 holds.
std::vector<TensorType> result(DType dtype, Shape shape);

// A shape taken from an attribute (input, full, rand, ...): rank <= kMaxRank (else
// InvalidGraph) and no negative dimension (else Shape).
void check_shape_attr(std::span<const int64_t> shape);

// The length of a shape or axes attribute that sets a rank: at most kMaxRank (else
// InvalidGraph), checked before anything of that length is built.
void check_attr_rank(size_t rank);

// Float-only ops (mean, var, softmax, layer_norm) reject integer and bool inputs.
void require_floating(Op op, DType t);

using Inputs = std::span<const TensorType* const>;

std::vector<TensorType> infer_reduction(Op op, const TensorType& x, const Attrs& attrs);
std::vector<TensorType> infer_view(Op op, const TensorType& x, const Attrs& attrs);
std::vector<TensorType> infer_movement(Op op, Inputs in, const Attrs& attrs);
std::vector<TensorType> infer_matmul(const TensorType& a, const TensorType& b);
std::vector<TensorType> infer_normalization(Op op, Inputs in, const Attrs& attrs);
// Issue 4 (infer_issue4.cpp).
std::vector<TensorType> infer_pointwise3(Op op, Inputs in, const Attrs& attrs);
std::vector<TensorType> infer_activation(Op op, Inputs in, const Attrs& attrs);
std::vector<TensorType> infer_reduction_more(Op op, const TensorType& x, const Attrs& attrs);
std::vector<TensorType> infer_scan(Op op, const TensorType& x, const Attrs& attrs);
std::vector<TensorType> infer_loss(Op op, Inputs in, const Attrs& attrs);  // infer_losses.cpp
// infer_shape_more.cpp
std::vector<TensorType> infer_shape_more(Op op, Inputs in, const Attrs& attrs);
std::vector<TensorType> infer_scatter(Op op, Inputs in, const Attrs& attrs);
// issue 4: special functions with attributes or two arguments, sorting (infer_sort_special.cpp)
std::vector<TensorType> infer_sort_special(Op op, Inputs in, const Attrs& attrs);
// infer_index_more.cpp (issue 4, h/datadep): searchsorted ... repeat_interleave_tensor, and
// inference from inputs with kDynamic dimensions (engine/ir/dynamic.h) through `infer_fn`.
std::vector<TensorType> infer_index_more(Op op, Inputs in, const Attrs& attrs);
std::vector<TensorType> infer_with_dynamic(Op op, Inputs in, const Attrs& attrs,
                                           std::vector<TensorType> (*infer_fn)(Op, Inputs,
                                                                               const Attrs&));
// Ops with several outputs (infer_multi_output.cpp).
std::vector<TensorType> infer_multi_output(Op op, Inputs in, const Attrs& attrs);
// Linear algebra (infer_linalg.cpp).
std::vector<TensorType> infer_linalg(Op op, Inputs in, const Attrs& attrs);
// infer_nn.cpp: convolution, pooling, normalization, attention, ... (issue 4)
std::vector<TensorType> infer_nn(Op op, Inputs in, const Attrs& attrs);
// Issue 4: complex dtypes and FFT (infer_complex.cpp). reject_complex raises the DType error of
// an op that is not defined on complex inputs (before the schema check, so the error names the
// dtype); infer_complex infers the ops that are, and returns nullopt for real-only graphs.
bool accepts_complex(Op op);
// The elementwise functions of one complex value added after the first set (sin ... isfinite:
// NumPy's complex ufuncs); isnan/isinf/isfinite give bool, the others keep the dtype.
bool is_complex_math(Op op);
void reject_complex(Op op, Inputs in, const Attrs& attrs);
std::optional<std::vector<TensorType>> infer_complex(Op op, Inputs in, const Attrs& attrs);

}  // namespace tensord::ir::detail
