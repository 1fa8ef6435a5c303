#include "engine/backends/cuda/matmul_layout.h"

#include <algorithm>
#include <vector>

namespace tensord::cuda {
namespace {

struct Matrix {
  int64_t rows = 0, cols = 0, row_stride = 0, col_stride = 0;
};

// Size-1 dims get the stride that makes the matrix plainly row- or column-major.
void normalize_unit_dims(Matrix& x) {
  if (x.rows == 1) x.row_stride = x.col_stride == 1 ? std::max<int64_t>(x.cols, 1) : 1;
  if (x.cols == 1 && x.rows != 1) x.col_stride = x.row_stride == 1 ? x.rows : 1;
  if (x.rows == 1 && x.cols == 1) x.row_stride = x.col_stride = 1;
}

// The column-major stored form of `x` (rows x cols of ours) when it is used transposed (`t`:
// we need x^T in cuBLASLt's column-major world).
std::optional<LtOperand> stored_transposed(const Matrix& x) {
  LtOperand o;
  if (x.col_stride == 1 && x.row_stride >= std::max<int64_t>(x.cols, 1)) {
    // Row-major x is column-major x^T (cols x rows) with ld = row stride: op N.
    o.rows = x.cols, o.cols = x.rows, o.ld = x.row_stride, o.transpose = false;
    return o;
  }
  if (x.row_stride == 1 && x.col_stride >= std::max<int64_t>(x.rows, 1)) {
    // Column-major x (rows x cols, ld = col stride), used as op T.
    o.rows = x.rows, o.cols = x.cols, o.ld = x.col_stride, o.transpose = true;
    return o;
  }
  return std::nullopt;
}

// One stride for the flattened batch index, or nullopt when the dims do not collapse.
std::optional<int64_t> batch_stride(std::span<const int64_t> shape,
                                    std::span<const int64_t> strides, int matrix_dims,
                                    std::span<const int64_t> batch) {
  const int rank = static_cast<int>(shape.size()) - matrix_dims;
  const int out_rank = static_cast<int>(batch.size());
  // Per output batch dim: this operand's stride there, 0 where it broadcasts.
  std::vector<int64_t> s(batch.size(), 0);
  for (int d = 0; d < rank; ++d) {
    const int od = out_rank - rank + d;
    if (shape[d] != 1) s[od] = strides[d];
  }
  if (std::all_of(s.begin(), s.end(), [](int64_t v) { return v == 0; })) return 0;
  // Collapse: walking out from the innermost non-unit dim, each stride is the next's times
  // its extent.
  int64_t expected = -1, result = 0;
  for (int d = out_rank - 1; d >= 0; --d) {
    if (batch[d] == 1) continue;
    if (s[d] <= 0) return std::nullopt;
    if (expected < 0) {
      result = s[d];
    } else if (s[d] != expected) {
      return std::nullopt;
    }
    expected = s[d] * batch[d];
  }
  return result;
}

}  // namespace

std::optional<LtProblem> describe_lt_matmul(std::span<const int64_t> a_shape,
                                            std::span<const int64_t> a_strides,
                                            std::span<const int64_t> b_shape,
                                            std::span<const int64_t> b_strides,
                                            std::span<const int64_t> out_shape,
                                            std::string& why_not) {
  const int ra = static_cast<int>(a_shape.size()), rb = static_cast<int>(b_shape.size());
  if (ra < 1 || rb < 1) {
    why_not = "matmul operands must have rank >= 1";
    return std::nullopt;
  }
  Matrix A, B;
  if (ra == 1) {
    A = {1, a_shape[0], 0, a_strides[0]};
  } else {
    A = {a_shape[ra - 2], a_shape[ra - 1], a_strides[ra - 2], a_strides[ra - 1]};
  }
  if (rb == 1) {
    B = {b_shape[0], 1, b_strides[0], 0};
  } else {
    B = {b_shape[rb - 2], b_shape[rb - 1], b_strides[rb - 2], b_strides[rb - 1]};
  }
  normalize_unit_dims(A);
  normalize_unit_dims(B);
  if (A.cols != B.rows) {
    why_not = "matmul inner dims differ";
    return std::nullopt;
  }
  // The output's batch dims: all but the matrix dims that survive.
  const int out_matrix_dims = (ra > 1 ? 1 : 0) + (rb > 1 ? 1 : 0);
  const int out_rank = static_cast<int>(out_shape.size());
  std::span<const int64_t> batch = out_shape.first(static_cast<size_t>(out_rank - out_matrix_dims));

  LtProblem p;
  p.m = B.cols;
  p.n = A.rows;
  p.k = A.cols;
  for (int64_t e : batch) p.batch *= e;
  auto lt_a = stored_transposed(B), lt_b = stored_transposed(A);
  auto sa = batch_stride(b_shape, b_strides, rb > 1 ? 2 : 1, batch);
  auto sb = batch_stride(a_shape, a_strides, ra > 1 ? 2 : 1, batch);
  if (!lt_a || !lt_b || !sa || !sb) {
    why_not =
        "matmul operand layout is neither row- nor column-major with collapsible batch "
        "dims (CudaBackend::fit_lt_layout copies such operands first)";
    return std::nullopt;
  }
  p.a = *lt_a;
  p.a.batch_stride = *sa;
  p.b = *lt_b;
  p.b.batch_stride = *sb;
  p.c = {p.m, p.n, std::max<int64_t>(p.m, 1), false, p.m * p.n};
  return p;
}

}  // namespace tensord::cuda
