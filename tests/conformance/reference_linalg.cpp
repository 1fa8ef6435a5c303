// The float64 reference of the linear algebra ops (docs/ops.md "Linear algebra"), written
// straightforwardly for small matrices: Gaussian elimination with partial pivoting (det, inv,
// solve), Cholesky-Banachiewicz, the cyclic Jacobi eigenvalue method (eigvalsh), one-sided
// Jacobi (Hestenes) SVD (svdvals, pinv, matrix_rank, lstsq), and the definitions of the rest.
//
// Tolerances: LAPACK's results are backward stable, so the forward error of det, inv, solve,
// cholesky, pinv and lstsq grows with the condition number cond = s_max / s_min. Each result is
// accumulated with a per-element scale of cond (cond^2 for lstsq) times the largest magnitude
// of that matrix's result, over n terms: the table's rtol (1e-11 float64, 1e-5 float32) times
// that. Singular values and eigenvalues are perturbed by at most eps * s_max: scale s_max.
//
// This file: the factorizations, solve, lstsq and distances, and the entry points; the
// algorithms are in reference_linalg_matrix.cpp, the composites in reference_linalg_composite.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "tests/conformance/reference_linalg_internal.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace linalg_ref {

Expected factorization(Op op, const RefTensor& x, const ir::Attrs& attrs) {
  require_lapack_dtype(x.dtype);
  const bool square =
      op == Op::det || op == Op::inv || op == Op::cholesky || op == Op::eigvalsh ||
      ((op == Op::pinv || op == Op::matrix_rank) && attrs.get_bool(Attr::hermitian, false));
  if (op == Op::pinv || op == Op::matrix_rank) check_tolerances(attrs);
  const Batch b = matrices(x, square);
  const int64_t m = b.m, n = b.n, k = std::min(m, n), count = b.count();
  switch (op) {
    case Op::det: {
      Builder r(RefTensor(x.dtype, b.batch), n);
      for (int64_t i = 0; i < count; ++i) {
        Matrix a = matrix_at(x, i, n, n);
        std::vector<int64_t> perm;
        int64_t zero;
        double d = lu(a, n, perm, zero);
        for (int64_t j = 0; j < n; ++j) d *= a[j * n + j];
        const double c = cond_of(hestenes(matrix_at(x, i, n, n), n, n).s);
        // A singular input (cond inf): its det is 0 in exact arithmetic and a rounding-level
        // value in floats; scale by the product of the column norms (Hadamard's bound).
        double hadamard = 1;
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          for (int64_t l = 0; l < n; ++l)
            s += x.f[i * n * n + l * n + j] * x.f[i * n * n + l * n + j];
          hadamard *= std::sqrt(s);
        }
        r.set(i, 1, &d, std::min(c * std::fabs(d), hadamard));
      }
      return r.e;
    }
    case Op::inv: {
      Builder r(RefTensor(x.dtype, x.shape), n);
      Matrix eye(static_cast<size_t>(n * n), 0.0);
      for (int64_t j = 0; j < n; ++j) eye[j * n + j] = 1;
      for (int64_t i = 0; i < count; ++i) {
        const Matrix a = matrix_at(x, i, n, n);
        Matrix inv = lu_solve(a, n, eye, n);
        const double c = cond_of(hestenes(a, n, n).s);
        r.set(i * n * n, n * n, inv.data(), c * max_abs(inv.data(), n * n));
      }
      return r.e;
    }
    case Op::cholesky: {
      const bool upper = attrs.get_bool(Attr::upper, false);
      Builder r(RefTensor(x.dtype, x.shape), n);
      for (int64_t i = 0; i < count; ++i) {
        const Matrix a = symmetric_from(matrix_at(x, i, n, n), n, upper);
        Matrix l(static_cast<size_t>(n * n), 0.0);
        for (int64_t p = 0; p < n; ++p) {
          for (int64_t q = 0; q <= p; ++q) {
            double s = a[p * n + q];
            for (int64_t t = 0; t < q; ++t) s -= l[p * n + t] * l[q * n + t];
            if (p == q) {
              if (!(s > 0)) reject(ErrorCode::Shape, "not positive-definite", true);
              l[p * n + p] = std::sqrt(s);
            } else {
              l[p * n + q] = s / l[q * n + q];
            }
          }
        }
        if (upper) {
          Matrix u(static_cast<size_t>(n * n));
          for (int64_t p = 0; p < n; ++p) {
            for (int64_t q = 0; q < n; ++q) u[p * n + q] = l[q * n + p];
          }
          l = u;
        }
        const double c = cond_of(hestenes(a, n, n).s);
        r.set(i * n * n, n * n, l.data(), std::sqrt(c) * max_abs(l.data(), n * n));
      }
      return r.e;
    }
    case Op::eigvalsh: {
      const bool upper = attrs.get_bool(Attr::upper, false);
      Builder r(RefTensor(x.dtype, with(b.batch, {n})), n);
      for (int64_t i = 0; i < count; ++i) {
        const std::vector<double> w =
            jacobi_eigen(symmetric_from(matrix_at(x, i, n, n), n, upper), n, nullptr);
        r.set(i * n, n, w.data(), w.empty() ? 0.0 : max_abs(w.data(), n));
      }
      return r.e;
    }
    case Op::svdvals: {
      Builder r(RefTensor(x.dtype, with(b.batch, {k})), std::max(m, n));
      for (int64_t i = 0; i < count; ++i) {
        const Svd s = hestenes(matrix_at(x, i, m, n), m, n);
        r.set(i * k, k, s.s.data(), s.s.empty() ? 0.0 : s.s[0]);
      }
      return r.e;
    }
    case Op::matrix_rank: {
      RefTensor out(DType::Int64, b.batch);
      const bool hermitian = attrs.get_bool(Attr::hermitian, false);
      for (int64_t i = 0; i < count; ++i) {
        std::vector<double> s;
        if (hermitian) {
          s = jacobi_eigen(symmetric_from(matrix_at(x, i, n, n), n, false), n, nullptr);
          for (double& v : s) v = std::fabs(v);
        } else {
          s = hestenes(matrix_at(x, i, m, n), m, n).s;
        }
        const double largest = s.empty() ? 0.0 : *std::max_element(s.begin(), s.end());
        const double cut = rank_cutoff(attrs, x.dtype, m, n, largest);
        int64_t rank = 0;
        for (double v : s) rank += v > cut;
        out.i[i] = rank;
      }
      return out;
    }
    case Op::pinv: {
      const bool hermitian = attrs.get_bool(Attr::hermitian, false);
      Builder r(RefTensor(x.dtype, with(b.batch, {n, m})), std::max(m, n));
      for (int64_t i = 0; i < count; ++i) {
        const Matrix a = matrix_at(x, i, m, n);
        Matrix u, v;
        std::vector<double> s;
        if (hermitian) {  // A = V diag(w) V^T: U = V, singular values |w|, 1/w keeps the sign
          s = jacobi_eigen(symmetric_from(a, n, false), n, &v);
          u = v;
        } else {
          Svd d = hestenes(a, m, n);
          s = d.s, u = d.u, v = d.v;
        }
        double largest = 0;
        for (double w : s) largest = std::max(largest, std::fabs(w));
        const double cut = rank_cutoff(attrs, x.dtype, m, n, largest);
        Matrix p(static_cast<size_t>(n * m), 0.0);
        double smallest_kept = largest;
        for (int64_t l = 0; l < k; ++l) {
          if (!(std::fabs(s[l]) > cut)) continue;
          smallest_kept = std::min(smallest_kept, std::fabs(s[l]));
          for (int64_t p_ = 0; p_ < n; ++p_) {
            for (int64_t q = 0; q < m; ++q) p[p_ * m + q] += v[p_ * k + l] / s[l] * u[q * k + l];
          }
        }
        const double c = smallest_kept > 0 ? largest / smallest_kept : 1.0;
        r.set(i * n * m, n * m, p.data(), c * max_abs(p.data(), n * m));
      }
      return r.e;
    }
    default:
      break;
  }
  reject(ErrorCode::Internal, "no linear algebra reference for this op");
}

Expected solve(const RefTensor& a, const RefTensor& bt) {
  require_lapack_dtype(a.dtype);
  require_lapack_dtype(bt.dtype);
  if (a.dtype != bt.dtype) reject(ErrorCode::DType, "A and B differ in dtype");
  const Batch ab = matrices(a, true);
  const int64_t m = ab.m, n = ab.n;
  Shape a_vec_batch(a.shape.begin(), a.shape.end() - 1);
  const bool vector =
      bt.shape.size() == 1 || (bt.shape.size() + 1 == a.shape.size() && bt.shape == a_vec_batch);
  if (!vector && bt.shape.size() < 2) reject(ErrorCode::Shape, "B needs (..., m, k)");
  const size_t core = vector ? 1 : 2;
  if (bt.shape[bt.shape.size() - core] != m) reject(ErrorCode::Shape, "rows differ");
  const int64_t nrhs = vector ? 1 : bt.shape.back();
  const Shape b_batch(bt.shape.begin(), bt.shape.end() - static_cast<int64_t>(core));
  const Shape batch = ref_broadcast(ab.batch, b_batch);
  Shape out_shape = vector ? with(batch, {n}) : with(batch, {n, nrhs});
  int64_t count = 1;
  for (int64_t d : batch) count *= d;
  Builder r(RefTensor(a.dtype, out_shape), std::max(m, n));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t ia = source_of(i, batch, ab.batch), ib = source_of(i, batch, b_batch);
    const Matrix am = matrix_at(a, ia, m, n);
    const Matrix bm(bt.f.begin() + ib * m * nrhs, bt.f.begin() + (ib + 1) * m * nrhs);
    if (n == 0 || nrhs == 0) continue;
    const Matrix xm = lu_solve(am, n, bm, nrhs);
    const double scale = cond_of(hestenes(am, n, n).s);
    r.set(i * n * nrhs, n * nrhs, xm.data(), scale * max_abs(xm.data(), n * nrhs));
  }
  return r.e;
}

Expected lstsq(const RefTensor& a, const RefTensor& bt, const ir::Attrs& attrs, uint32_t output) {
  require_lapack_dtype(a.dtype);
  require_lapack_dtype(bt.dtype);
  if (a.dtype != bt.dtype) reject(ErrorCode::DType, "A and B differ in dtype");
  const Batch ab = matrices(a, false);
  const int64_t m = ab.m, n = ab.n, k = std::min(m, n);
  if (bt.shape.size() < 2) reject(ErrorCode::Shape, "B needs (..., m, k)");
  if (bt.shape[bt.shape.size() - 2] != m) reject(ErrorCode::Shape, "rows differ");
  const int64_t nrhs = bt.shape.back();
  const Shape b_batch(bt.shape.begin(), bt.shape.end() - 2);
  const Shape batch = ref_broadcast(ab.batch, b_batch);
  int64_t count = 1;
  for (int64_t d : batch) count *= d;
  const double eps = a.dtype == DType::Float32 ? std::numeric_limits<float>::epsilon()
                                               : std::numeric_limits<double>::epsilon();
  const double rcond = attrs.get_float(Attr::rtol, eps * static_cast<double>(std::max(m, n)));
  RefTensor rank_out(DType::Int64, batch);
  Builder solution(RefTensor(a.dtype, with(batch, {n, nrhs})), std::max(m, n));
  Builder residuals(RefTensor(a.dtype, m > n ? with(batch, {nrhs}) : Shape{0}), m);
  Builder singular(RefTensor(a.dtype, with(batch, {k})), std::max(m, n));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t ia = source_of(i, batch, ab.batch), ib = source_of(i, batch, b_batch);
    const Matrix am = matrix_at(a, ia, m, n);
    const Matrix bm(bt.f.begin() + ib * m * nrhs, bt.f.begin() + (ib + 1) * m * nrhs);
    Matrix xm(static_cast<size_t>(n * nrhs), 0.0);
    const Svd d = k > 0 ? hestenes(am, m, n) : Svd{};
    int64_t rank = 0;
    double smallest = k > 0 ? d.s[0] : 0.0;
    for (int64_t l = 0; l < k; ++l) {
      if (!(d.s[l] > rcond * d.s[0])) continue;
      ++rank;
      smallest = std::min(smallest, d.s[l]);
      for (int64_t c = 0; c < nrhs; ++c) {
        double utb = 0;
        for (int64_t q = 0; q < m; ++q) utb += d.u[q * k + l] * bm[q * nrhs + c];
        for (int64_t p = 0; p < n; ++p) xm[p * nrhs + c] += d.v[p * k + l] * utb / d.s[l];
      }
    }
    const double cond = smallest > 0 ? d.s[0] / smallest : 1.0;
    rank_out.i[i] = rank;
    solution.set(i * n * nrhs, n * nrhs, xm.data(), cond * cond * max_abs(xm.data(), n * nrhs));
    if (k > 0) singular.set(i * k, k, d.s.data(), d.s[0]);
    if (m <= n) continue;
    // |r|^2 with r = b - A x: its error follows x's (cond^2) times |A| |x| plus |b|.
    double a_norm2 = 0;
    for (double v : am) a_norm2 += v * v;
    for (int64_t c = 0; c < nrhs; ++c) {
      double sum = 0, b_norm2 = 0, x_norm2 = 0;
      for (int64_t p = 0; p < n; ++p) x_norm2 += xm[p * nrhs + c] * xm[p * nrhs + c];
      for (int64_t q = 0; q < m; ++q) {
        double v = bm[q * nrhs + c];
        b_norm2 += v * v;
        for (int64_t p = 0; p < n; ++p) v -= am[q * n + p] * xm[p * nrhs + c];
        sum += v * v;
      }
      residuals.set(i * nrhs + c, 1, &sum, cond * cond * (b_norm2 + a_norm2 * x_norm2));
    }
  }
  switch (output) {
    case 0:
      return solution.e;
    case 1:
      return residuals.e;
    case 2:
      return rank_out;
    default:
      return singular.e;
  }
}

namespace {

double distance(const double* u, const double* v, int64_t m, double p) {
  double acc = 0;
  for (int64_t k = 0; k < m; ++k) {
    const double d = std::fabs(u[k] - v[k]);
    if (p == 0) {
      acc += d != 0 ? 1.0 : (d == d ? 0.0 : d);
    } else if (std::isinf(p)) {
      acc = (d > acc || d != d) ? d : acc;
      if (acc != acc) break;
    } else {
      acc += std::pow(d, p);
    }
  }
  return (p == 0 || std::isinf(p) || p == 1) ? acc : std::pow(acc, 1.0 / p);
}

}  // namespace

Expected distances(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  const RefTensor& x = in[0];
  require_lapack_dtype(x.dtype);
  const double p = attrs.get_float(Attr::ord, 2.0);
  if (op == Op::pdist) {
    if (x.shape.size() != 2) reject(ErrorCode::Shape, "pdist needs (N, M)");
    if (!(p >= 0)) reject(ErrorCode::Shape, "p < 0");
    const int64_t n = x.shape[0], m = x.shape[1];
    Builder r(RefTensor(x.dtype, {n * (n - 1) / 2}), m);
    int64_t o = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j, ++o) {
        const double d = distance(&x.f[i * m], &x.f[j * m], m, p);
        r.set(o, 1, &d, d);
      }
    }
    return r.e;
  }
  const RefTensor& y = in[1];
  require_lapack_dtype(y.dtype);
  if (x.dtype != y.dtype) reject(ErrorCode::DType, "x1 and x2 differ in dtype");
  const Batch bx = matrices(x, false), by = matrices(y, false);
  if (bx.n != by.n) reject(ErrorCode::Shape, "row sizes differ");
  if (!(p >= 0)) reject(ErrorCode::Shape, "p < 0");
  const Shape batch = ref_broadcast(bx.batch, by.batch);
  int64_t count = 1;
  for (int64_t d : batch) count *= d;
  const int64_t m = bx.n;
  Builder r(RefTensor(x.dtype, with(batch, {bx.m, by.m})), m);
  for (int64_t b = 0; b < count; ++b) {
    const int64_t ix = source_of(b, batch, bx.batch), iy = source_of(b, batch, by.batch);
    for (int64_t i = 0; i < bx.m; ++i) {
      for (int64_t j = 0; j < by.m; ++j) {
        const double d = distance(&x.f[(ix * bx.m + i) * m], &y.f[(iy * by.m + j) * m], m, p);
        r.set((b * bx.m + i) * by.m + j, 1, &d, d);
      }
    }
  }
  return r.e;
}

}  // namespace linalg_ref

using namespace linalg_ref;

Expected ref_linalg_multi(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs,
                          uint32_t output) {
  if (op == Op::lstsq) return lstsq(in[0], in[1], attrs, output);
  const RefTensor& x = in[0];
  require_lapack_dtype(x.dtype);
  const bool square = op == Op::slogdet || op == Op::eigh;
  const Batch b = matrices(x, square);
  const int64_t m = b.m, n = b.n, k = std::min(m, n), count = b.count();
  switch (op) {
    case Op::slogdet: {
      // sign exact; logabsdet absolute error about n eps cond.
      Builder r(RefTensor(x.dtype, b.batch), n);
      for (int64_t i = 0; i < count; ++i) {
        Matrix a = matrix_at(x, i, n, n);
        std::vector<int64_t> perm;
        int64_t zero;
        double sign = lu(a, n, perm, zero), logabs = 0;
        for (int64_t j = 0; j < n; ++j) {
          if (a[j * n + j] < 0) sign = -sign;
          logabs += std::log(std::fabs(a[j * n + j]));
        }
        if (zero >= 0) sign = 0, logabs = -std::numeric_limits<double>::infinity();
        const double c = cond_of(hestenes(matrix_at(x, i, n, n), n, n).s);
        if (output == 0) {
          r.set(i, 1, &sign, 0.0);
        } else {
          r.set(i, 1, &logabs, std::isfinite(logabs) ? c : 0.0);
        }
      }
      return r.e;
    }
    case Op::eigh: {
      if (output == 1) return Expected(RefTensor(x.dtype, x.shape));
      ir::Attrs a;
      if (attrs.get_bool(Attr::upper, false)) a.set(Attr::upper, true);
      return factorization(Op::eigvalsh, x, a);
    }
    case Op::qr: {
      const int64_t mode = attrs.get_int(Attr::mode, 0);
      if (mode != 0 && mode != 1) reject(ErrorCode::Shape, "qr mode");
      const int64_t q = mode == 1 ? m : k;
      return Expected(
          RefTensor(x.dtype, output == 0 ? with(b.batch, {m, q}) : with(b.batch, {q, n})));
    }
    case Op::svd: {
      const bool full = attrs.get_bool(Attr::full_matrices, true);
      if (output == 1) return factorization(Op::svdvals, x, {});
      return Expected(RefTensor(x.dtype, output == 0 ? with(b.batch, {m, full ? m : k})
                                                     : with(b.batch, {full ? n : k, n})));
    }
    default:
      break;
  }
  reject(ErrorCode::Internal, "no linear algebra reference for this op");
}

Expected ref_linalg(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  switch (op) {
    case Op::det:
    case Op::inv:
    case Op::cholesky:
    case Op::svdvals:
    case Op::eigvalsh:
    case Op::pinv:
    case Op::matrix_rank:
      return factorization(op, in[0], attrs);
    case Op::solve:
      return solve(in[0], in[1]);
    case Op::cdist:
    case Op::pdist:
      return distances(op, in, attrs);
    default:
      return composite(op, in, attrs);
  }
}

}  // namespace tensord::conformance
