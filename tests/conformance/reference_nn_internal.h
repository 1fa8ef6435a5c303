// Shared pieces of the neural-network reference (reference_nn.cpp: convolutions and
// interpolation; reference_pool.cpp: pooling; reference_nn_composite.cpp: the composites and
// ctc_loss).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "tests/conformance/reference.h"

namespace tensord::conformance::nn_ref {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Each rejects the case with its error code when the input does not qualify.
void need_float(const RefTensor& t);
void need_same(const RefTensor& a, const RefTensor& b);
void need_rank(const RefTensor& t, size_t lo, size_t hi);
int64_t product(const Shape& s, size_t from = 0);
// A spatial attribute as nd values (absent: `fallback`; one value: repeated), each >= lo.
std::vector<int64_t> spatial(const ir::Attrs& attrs, ir::Attr a, int nd, int64_t fallback,
                             int64_t lo);

// Every pool and max_unpool; `output` 1 is a max pool's indices (reference_pool.cpp).
Expected pool(ir::Op op, std::span<const RefTensor> in, const ir::Attrs& attrs, uint32_t output);

// The composites' references (reference_nn_composite.cpp).
Expected linear(std::span<const RefTensor> in);
Expected embedding(std::span<const RefTensor> in);
Expected norms(ir::Op op, std::span<const RefTensor> in, const ir::Attrs& attrs);
Expected attention(std::span<const RefTensor> in, const ir::Attrs& attrs);
Expected pixel_shuffle(ir::Op op, const RefTensor& x, const ir::Attrs& attrs);
Expected dropout(const RefTensor& x, const ir::Attrs& attrs);
Expected ctc(std::span<const RefTensor> in, const ir::Attrs& attrs);

}  // namespace tensord::conformance::nn_ref
