// The float64 reference: what docs/ops.md says each op returns, computed on the host from the
// same inputs the backend gets. Every function throws RefError when docs/ops.md rejects the
// inputs (with the error code the engine must raise).
#pragma once

#include <span>
#include <vector>

#include "engine/ir/attrs.h"
#include "engine/ir/op.h"
#include "tests/conformance/ref_tensor.h"

namespace tensord::conformance {

struct Expected {
  Expected(RefTensor v) : value(std::move(v)) {}  // NOLINT: plain values convert implicitly

  RefTensor value;  // dtype and shape per docs/ops.md; values rounded to the dtype
  // Accumulated results: per element, the largest magnitude among the terms that were summed
  // (empty: none), and the number of terms. The allowed error grows with sqrt(terms) * scale.
  std::vector<double> scale;
  int64_t terms = 0;
};

// Dispatches on the op; `inputs` are the op's inputs as the op sees them (views applied);
// `output` picks one output of an op with several.
Expected reference(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs,
                   uint32_t output = 0);

// Families (reference_*.cpp).
Expected ref_creation(ir::Op op, const ir::Attrs& attrs);
Expected ref_unary(ir::Op op, const RefTensor& x, const ir::Attrs& attrs);
Expected ref_binary(ir::Op op, const RefTensor& a, const RefTensor& b);
// Issue 4's elementwise math: exp2 ... bitwise_not, and atan2 ... bitwise shifts.
Expected ref_unary_math(ir::Op op, const RefTensor& x);
Expected ref_binary_math(ir::Op op, const RefTensor& a, const RefTensor& b);
Expected ref_nan_to_num(const RefTensor& x, const ir::Attrs& attrs);
// Issue 4: nextafter, lerp/addcmul/addcdiv (reference_pointwise.cpp), the activations
// (reference_activation.cpp).
Expected ref_nextafter(const RefTensor& a, const RefTensor& b);
Expected ref_pointwise3(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs);
Expected ref_activation(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs);
// Issue 4: reductions and scans (reference_reduce_more.cpp), losses (reference_losses.cpp).
Expected ref_reduce_more(ir::Op op, const RefTensor& x, const ir::Attrs& attrs);
Expected ref_scan(ir::Op op, const RefTensor& x, const ir::Attrs& attrs);
Expected ref_loss(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs);
// Shape and indexing ops (reference_shape_more.cpp), special functions (reference_special.cpp).
Expected ref_shape_more(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs);
Expected ref_special(ir::Op op, std::span<const RefTensor> inputs);
// issue 4: polygamma ... zeta and logit with eps (reference_special.cpp), sorting
// (reference_sort.cpp).
Expected ref_special_more(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs);
Expected ref_sort(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs);
// sort, topk, kthvalue, median_axis, nanmedian_axis, mode, cummax, cummin: output 0 values,
// output 1 indices (reference_sort.cpp).
Expected ref_sort_multi(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs,
                        uint32_t output);
// Issue 4's remaining indexing ops, data-dependent ones included (reference_index_more.cpp).
Expected ref_index_more(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs);
// unique's output `output`: 0 values, 1 first-occurrence indices, 2 inverse indices, 3 counts.
Expected ref_unique(std::span<const RefTensor> inputs, uint32_t output);
// Ops with several outputs (reference_multi_output.cpp): output `output` of `op`.
bool is_multi_output(ir::Op op);
Expected ref_multi_output(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs,
                          uint32_t output);
// Linear algebra (reference_linalg.cpp).
Expected ref_linalg(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs);
// slogdet, qr, svd, eigh: output `output`. Outputs unique only up to signs (Q, R, U, Vh, the
// eigenvectors) get their type and zeros: rows check them by identities (cases_linalg.cpp).
Expected ref_linalg_multi(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs,
                          uint32_t output);
// Issue 4: neural-network ops (reference_nn.cpp).
Expected ref_nn(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs);
// Window and adaptive pools (output 1: a max pool's indices) and max_unpool
// (reference_pool.cpp).
Expected ref_pool(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs,
                  uint32_t output);
// The reductions' shared planning (reference_reduce.cpp): which axes are reduced, and where
// each input element lands in the output.
struct RefReduction {
  std::vector<bool> reduced;
  Shape out_shape;
  std::vector<int64_t> bucket;  // per input element: its output element
  std::vector<int64_t> count;   // per output element: how many inputs it reduces
};
std::vector<bool> ref_reduced_axes(const ir::Attrs& attrs, int64_t rank);  // Shape errors
RefReduction ref_plan(const Shape& shape, std::vector<bool> reduced, bool keepdim);
void ref_reject_empty_axes(const Shape& shape, const std::vector<bool>& reduced);
int64_t ref_max_count(const RefReduction& r);
Expected ref_where(const RefTensor& cond, const RefTensor& a, const RefTensor& b);
Expected ref_reduce(ir::Op op, const RefTensor& x, const ir::Attrs& attrs);
Expected ref_normalize(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs);
Expected ref_view(ir::Op op, const RefTensor& x, const ir::Attrs& attrs);
Expected ref_movement(ir::Op op, std::span<const RefTensor> inputs, const ir::Attrs& attrs);
Expected ref_matmul(const RefTensor& a, const RefTensor& b);

// Shared helpers.
// docs/ops.md "Every value": dims >= 0 (Shape), rank <= 16 (InvalidGraph), byte size of the
// non-zero dims within int64 (OutOfMemory). Called before anything is allocated.
void check_value_type(DType t, const Shape& shape);
Shape ref_broadcast(const Shape& a, const Shape& b);  // Shape error when incompatible
int64_t ref_axis(int64_t axis, int64_t rank);         // normalized; Shape error when out of range
// Maps an output index to the flat index of an input broadcast to `out`'s shape.
int64_t broadcast_source(std::span<const int64_t> out_index, const Shape& in_shape);

// Philox4x32-10 as docs/ops.md specifies it (Random123's round and key schedule).
struct Philox {
  uint32_t r[4];
};
Philox philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1);
double rand_value(DType t, int64_t seed, int64_t i);   // rand's element i, in dtype t
double randn_value(DType t, int64_t seed, int64_t i);  // randn's element i, in dtype t

}  // namespace tensord::conformance
