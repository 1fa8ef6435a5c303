// Shared pieces of the linear algebra reference (reference_linalg*.cpp): float64 matrices,
// the small dense algorithms the references are built from (reference_linalg_matrix.cpp), and
// each family's reference (factorizations and solves in reference_linalg.cpp, composites in
// reference_linalg_composite.cpp).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <utility>
#include <vector>

#include "tests/conformance/reference.h"

namespace tensord::conformance::linalg_ref {

using Matrix = std::vector<double>;  // row-major

struct Batch {
  Shape batch;  // leading dims
  int64_t m = 0, n = 0;
  int64_t count() const {
    int64_t c = 1;
    for (int64_t d : batch) c *= d;
    return c;
  }
};

void require_lapack_dtype(DType t);
Batch matrices(const RefTensor& x, bool square);
Matrix matrix_at(const RefTensor& x, int64_t index, int64_t m, int64_t n);
Shape with(Shape s, std::initializer_list<int64_t> tail);

// LU with partial pivoting in place; returns the permutation's sign, 0 when a pivot is zero
// (then `zero` is the first zero column).
double lu(Matrix& a, int64_t n, std::vector<int64_t>& perm, int64_t& zero);
// Solves A X = B (n x k) by LU; throws the singular error.
Matrix lu_solve(Matrix a, int64_t n, const Matrix& b, int64_t k);
// Eigenvalues (ascending) and eigenvectors (columns of v) of a symmetric matrix: cyclic Jacobi.
std::vector<double> jacobi_eigen(Matrix a, int64_t n, Matrix* v);
// The symmetric matrix LAPACK's ?syevd sees: the lower (or upper) triangle mirrored.
Matrix symmetric_from(const Matrix& a, int64_t n, bool upper);

// Thin SVD A = U diag(s) V^T (m x n, k = min(m, n)) by one-sided Jacobi; s descending.
struct Svd {
  std::vector<double> s;
  Matrix u, v;  // u: m x k, v: n x k (row-major)
};
Svd hestenes(const Matrix& a, int64_t m, int64_t n);

double cond_of(const std::vector<double>& s);
double max_abs(const double* p, int64_t n);

// Expected with a per-matrix scale over `terms`.
struct Builder {
  Expected e;
  explicit Builder(RefTensor t, int64_t terms) : e(std::move(t)) {
    e.terms = std::max<int64_t>(terms, 1);
    e.scale.assign(static_cast<size_t>(e.value.numel()), 0.0);
  }
  void set(int64_t begin, int64_t len, const double* values, double scale) {
    for (int64_t i = 0; i < len; ++i) {
      e.value.f[begin + i] = round_to(e.value.dtype, values[i]);
      e.scale[begin + i] = scale;
    }
  }
};

double rank_cutoff(const ir::Attrs& attrs, DType t, int64_t m, int64_t n, double largest);
void check_tolerances(const ir::Attrs& attrs);
// The batch index of `in_batch` (right-aligned) for flat index k of `out_batch`.
int64_t source_of(int64_t k, const Shape& out_batch, const Shape& in_batch);

// The references, by family.
Expected factorization(ir::Op op, const RefTensor& x, const ir::Attrs& attrs);
Expected solve(const RefTensor& a, const RefTensor& bt);
// lstsq's output `output`: 0 the minimum-norm solution pinv(A) B with singular values up to
// rcond * s_max dropped, 1 |A x - b|^2 per column when m > n (else empty), 2 the rank (singular
// values above the cutoff), 3 the singular values.
Expected lstsq(const RefTensor& a, const RefTensor& bt, const ir::Attrs& attrs, uint32_t output);
Expected distances(ir::Op op, std::span<const RefTensor> in, const ir::Attrs& attrs);
// trace, outer, kron, cross, matrix_norm, matrix_power and the other IR composites.
Expected composite(ir::Op op, std::span<const RefTensor> in, const ir::Attrs& attrs);

}  // namespace tensord::conformance::linalg_ref
