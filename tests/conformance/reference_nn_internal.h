// Shared pieces of the neural-network reference (reference_nn.cpp: convolutions, pooling and
// interpolation; reference_nn_composite.cpp: the composites and ctc_loss).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

#include "tests/conformance/reference.h"

namespace tensord::conformance::nn_ref {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Each rejects the case with its error code when the input does not qualify.
void need_float(const RefTensor& t);
void need_same(const RefTensor& a, const RefTensor& b);
void need_rank(const RefTensor& t, size_t lo, size_t hi);
int64_t product(const Shape& s, size_t from = 0);

// The composites' references (reference_nn_composite.cpp).
Expected linear(std::span<const RefTensor> in);
Expected embedding(std::span<const RefTensor> in);
Expected norms(ir::Op op, std::span<const RefTensor> in, const ir::Attrs& attrs);
Expected attention(std::span<const RefTensor> in, const ir::Attrs& attrs);
Expected pixel_shuffle(ir::Op op, const RefTensor& x, const ir::Attrs& attrs);
Expected dropout(const RefTensor& x, const ir::Attrs& attrs);
Expected ctc(std::span<const RefTensor> in, const ir::Attrs& attrs);

}  // namespace tensord::conformance::nn_ref
