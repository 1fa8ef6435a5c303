// Linear algebra (docs/ops.md "Linear algebra"), torch.linalg's names. Matrices are the last two
// dims; leading dims are a batch. The factorizations take float32 or float64 (DType error
// otherwise); a singular matrix for inv/solve or a matrix that is not positive-definite for
// cholesky fails when the graph runs (code Shape, naming the op and the batch element).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "tensord/ops.h"
#include "tensord/tensor.h"

namespace tensord::linalg {

// (..., n, n) -> (...). Singular matrices give 0.
Tensor det(const Tensor& x, Loc loc = Loc::current());
// (..., n, n) -> (..., n, n); singular -> error when run.
Tensor inv(const Tensor& x, Loc loc = Loc::current());
// X with A X = B. B is (..., n, k), or (..., n) / (n,) for vectors; batch dims broadcast.
Tensor solve(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
// L with L L^T = x (reads the lower triangle); upper: U with U^T U = x (reads the upper one).
Tensor cholesky(const Tensor& x, bool upper = false, Loc loc = Loc::current());
// Singular values, descending: (..., m, n) -> (..., min(m, n)).
Tensor svdvals(const Tensor& x, Loc loc = Loc::current());
// Eigenvalues of a symmetric matrix, ascending (reads the lower triangle, upper: the upper one).
Tensor eigvalsh(const Tensor& x, bool upper = false, Loc loc = Loc::current());
// Rank tolerances: singular values above max(atol, rtol * largest) count; rtol defaults to
// eps * max(m, n) (0 when only a positive atol is given).
struct RankTolerance {
  std::optional<double> rtol;
  std::optional<double> atol;
  bool hermitian = false;  // use the eigendecomposition of a symmetric matrix
};
Tensor pinv(const Tensor& x, const RankTolerance& tol = {}, Loc loc = Loc::current());
Tensor matrix_rank(const Tensor& x, const RankTolerance& tol = {}, Loc loc = Loc::current());
// Sum of the diagonal of the last two dims (offset as diagonal's); sum's dtype rule.
Tensor trace(const Tensor& x, int64_t offset = 0, Loc loc = Loc::current());
Tensor outer(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor kron(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
// Cross product of 3-vectors along `axis` (inputs broadcast).
Tensor cross(const Tensor& a, const Tensor& b, int64_t axis = -1, Loc loc = Loc::current());
// ord: "fro" (default), "nuc", or a number 1, -1, 2, -2, inf, -inf; over dims (default -2, -1).
Tensor matrix_norm(const Tensor& x, const std::string& ord = "fro",
                   std::vector<int64_t> dims = {-2, -1}, bool keepdim = false,
                   Loc loc = Loc::current());
Tensor matrix_norm(const Tensor& x, double ord, std::vector<int64_t> dims = {-2, -1},
                   bool keepdim = false, Loc loc = Loc::current());
// x^n by repeated squaring; n < 0 inverts first (float32/float64 only); n = 0 is the identity.
Tensor matrix_power(const Tensor& x, int64_t n, Loc loc = Loc::current());
// p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M) -> (..., P, R);
// pdist: between the rows of x (N, M), pairs i < j in row-major order -> (N (N - 1) / 2,).
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2.0, Loc loc = Loc::current());
Tensor pdist(const Tensor& x, double p = 2.0, Loc loc = Loc::current());
// Matmul composites recorded by the client (permutes, reshapes, matmuls, sums).
// tensordot: contracts a's axes_a with b's axes_b (pairwise).
Tensor tensordot(const Tensor& a, const Tensor& b, const std::vector<int64_t>& axes_a,
                 const std::vector<int64_t>& axes_b, Loc loc = Loc::current());
// tensordot over a's last n and b's first n axes.
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t n = 2, Loc loc = Loc::current());
// The product of the matrices in the cheapest order (dynamic programming over the chain); the
// first may be 1-D (a row vector) and the last 1-D (a column vector), as numpy's multi_dot.
Tensor multi_dot(const std::vector<Tensor>& xs, Loc loc = Loc::current());
// torch.chain_matmul: 2-D matrices only.
Tensor chain_matmul(const std::vector<Tensor>& xs, Loc loc = Loc::current());
// Einstein summation, e.g. "bij,bjk->bik", "ii->i", "ij->", "...ij,...jk"; implicit output
// (no "->": the letters seen once, sorted). Lowered to diagonal, sum, permute, reshape,
// multiply and matmul nodes.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands,
              Loc loc = Loc::current());
// Several outputs over one recorded node (syncing one computes the node once). Signs of the
// columns of Q, U, V and the eigenvectors are LAPACK's (not unique; Q R, U diag(S) Vh and
// V diag(w) V^T reproduce the input).
struct Slogdet {
  Tensor sign;       // -1, 0 (singular) or 1
  Tensor logabsdet;  // log |det|, -inf when singular
};
Slogdet slogdet(const Tensor& x, Loc loc = Loc::current());
struct QR {
  Tensor Q;  // (..., m, k) reduced, (..., m, m) complete; k = min(m, n)
  Tensor R;  // (..., k, n) reduced, (..., m, n) complete
};
QR qr(const Tensor& x, const std::string& mode = "reduced", Loc loc = Loc::current());
struct SVD {
  Tensor U;   // (..., m, m) full_matrices, else (..., m, k)
  Tensor S;   // (..., k), descending
  Tensor Vh;  // (..., n, n) full_matrices, else (..., k, n)
};
SVD svd(const Tensor& x, bool full_matrices = true, Loc loc = Loc::current());
struct Eigh {
  Tensor eigenvalues;   // (..., n), ascending
  Tensor eigenvectors;  // (..., n, n), column j for eigenvalue j
};
Eigh eigh(const Tensor& x, bool upper = false, Loc loc = Loc::current());
// Least squares as torch.linalg.lstsq with driver gelsd: A (..., m, n), B (..., m, k), batch
// dims broadcast to (...). Singular values up to rcond * largest count as zero (default
// eps * max(m, n)). One node computes all four.
struct Lstsq {
  Tensor solution;         // (..., n, k): the minimum-norm least-squares solution
  Tensor residuals;        // (..., k): |A x - b|^2 per column when m > n and every matrix has
                           // rank n, else empty (0,); deciding that syncs `rank` when m > n
  Tensor rank;             // (...) int64: singular values above the cutoff
  Tensor singular_values;  // (..., min(m, n)), descending
};
Lstsq lstsq(const Tensor& a, const Tensor& b, std::optional<double> rcond = std::nullopt,
            Loc loc = Loc::current());
// Existing ops under their linalg names.
Tensor matmul(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor vecdot(const Tensor& a, const Tensor& b, int64_t axis = -1, Loc loc = Loc::current());
Tensor vector_norm(const Tensor& x, double ord = 2.0, const Axes& axes = {}, bool keepdim = false,
                   Loc loc = Loc::current());
Tensor diagonal(const Tensor& x, int64_t offset = 0, Loc loc = Loc::current());
Tensor matrix_transpose(const Tensor& x, Loc loc = Loc::current());

}  // namespace tensord::linalg
