// The float64 reference of the linear algebra ops (docs/ops.md "Linear algebra"), written
// straightforwardly for small matrices: Gaussian elimination with partial pivoting (det, inv,
// solve), Cholesky-Banachiewicz, the cyclic Jacobi eigenvalue method (eigvalsh), one-sided
// Jacobi (Hestenes) SVD (svdvals, pinv, matrix_rank, lstsq), and the definitions of the rest.
//
// Tolerances: LAPACK's results are backward stable, so the forward error of det, inv, solve,
// cholesky, pinv and lstsq grows with the condition number cond = s_max / s_min. Each result is
// Accumulated with a per-element scale of cond (cond^2 for lstsq) times the largest magnitude
// of that matrix's result, over n terms: the table's rtol (1e-11 float64, 1e-5 float32) times
// that. Singular values and eigenvalues are perturbed by at most eps * s_max: scale s_max.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace {

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

void require_lapack_dtype(DType t) {
  if (t != DType::Float32 && t != DType::Float64) {
    reject(ErrorCode::DType, "the factorizations take float32 or float64");
  }
}

Batch matrices(const RefTensor& x, bool square) {
  if (x.shape.size() < 2) reject(ErrorCode::Shape, "needs (..., m, n)");
  Batch b;
  b.batch.assign(x.shape.begin(), x.shape.end() - 2);
  b.m = x.shape[x.shape.size() - 2];
  b.n = x.shape.back();
  if (square && b.m != b.n) reject(ErrorCode::Shape, "needs square matrices");
  return b;
}

Matrix matrix_at(const RefTensor& x, int64_t index, int64_t m, int64_t n) {
  return Matrix(x.f.begin() + index * m * n, x.f.begin() + (index + 1) * m * n);
}

Shape with(Shape s, std::initializer_list<int64_t> tail) {
  s.insert(s.end(), tail.begin(), tail.end());
  return s;
}

// LU with partial pivoting in place; returns the permutation's sign, 0 when a pivot is zero
// (then `zero` is the first zero column).
double lu(Matrix& a, int64_t n, std::vector<int64_t>& perm, int64_t& zero) {
  double sign = 1;
  zero = -1;
  perm.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; ++i) {
      if (std::fabs(a[i * n + k]) > std::fabs(a[p * n + k])) p = i;
    }
    if (a[p * n + k] == 0) {
      if (zero < 0) zero = k;
      continue;
    }
    if (p != k) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      std::swap(perm[k], perm[p]);
      sign = -sign;
    }
    for (int64_t i = k + 1; i < n; ++i) {
      const double f = a[i * n + k] / a[k * n + k];
      a[i * n + k] = f;
      for (int64_t j = k + 1; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
    }
  }
  return zero >= 0 ? 0.0 : sign;
}

// Solves A X = B (n x k) by LU; throws the singular error.
Matrix lu_solve(Matrix a, int64_t n, const Matrix& b, int64_t k) {
  std::vector<int64_t> perm;
  int64_t zero;
  lu(a, n, perm, zero);
  if (zero >= 0) reject(ErrorCode::Shape, "singular matrix", true);
  Matrix x(static_cast<size_t>(n * k));
  for (int64_t c = 0; c < k; ++c) {
    std::vector<double> y(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      double s = b[perm[i] * k + c];
      for (int64_t j = 0; j < i; ++j) s -= a[i * n + j] * y[j];
      y[i] = s;
    }
    for (int64_t i = n - 1; i >= 0; --i) {
      double s = y[i];
      for (int64_t j = i + 1; j < n; ++j) s -= a[i * n + j] * x[j * k + c];
      x[i * k + c] = s / a[i * n + i];
    }
  }
  return x;
}

// Eigenvalues (ascending) and eigenvectors (columns of v) of a symmetric matrix: cyclic Jacobi.
std::vector<double> jacobi_eigen(Matrix a, int64_t n, Matrix* v) {
  if (v) {
    v->assign(static_cast<size_t>(n * n), 0.0);
    for (int64_t i = 0; i < n; ++i) (*v)[i * n + i] = 1;
  }
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) off += a[i * n + j] * a[i * n + j];
    }
    if (off == 0) break;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (apq == 0) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::hypot(theta, 1.0));
        const double c = 1 / std::hypot(t, 1.0), s = t * c;
        for (int64_t k = 0; k < n; ++k) {  // A <- A J (columns p, q)
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int64_t k = 0; k < n; ++k) {  // A <- J^T A (rows p, q)
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        if (v) {
          for (int64_t k = 0; k < n; ++k) {
            const double vkp = (*v)[k * n + p], vkq = (*v)[k * n + q];
            (*v)[k * n + p] = c * vkp - s * vkq;
            (*v)[k * n + q] = s * vkp + c * vkq;
          }
        }
      }
    }
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](int64_t x, int64_t y) { return a[x * n + x] < a[y * n + y]; });
  std::vector<double> w;
  for (int64_t i : order) w.push_back(a[i * n + i]);
  if (v) {
    Matrix sorted(static_cast<size_t>(n * n));
    for (int64_t k = 0; k < n; ++k) {
      for (int64_t j = 0; j < n; ++j) sorted[k * n + j] = (*v)[k * n + order[j]];
    }
    *v = std::move(sorted);
  }
  return w;
}

// The symmetric matrix LAPACK's ?syevd sees: the lower (or upper) triangle mirrored.
Matrix symmetric_from(const Matrix& a, int64_t n, bool upper) {
  Matrix s(a);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const bool from_lower = i >= j;
      if (from_lower != !upper && i != j) s[i * n + j] = a[j * n + i];
    }
  }
  return s;
}

// Thin SVD A = U diag(s) V^T (m x n, k = min(m, n)) by one-sided Jacobi; s descending.
struct Svd {
  std::vector<double> s;
  Matrix u, v;  // u: m x k, v: n x k (row-major)
};
Svd hestenes(const Matrix& a, int64_t m, int64_t n) {
  if (m < n) {  // A^T = V S U^T
    Matrix t(static_cast<size_t>(m * n));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) t[j * m + i] = a[i * n + j];
    }
    Svd r = hestenes(t, n, m);
    std::swap(r.u, r.v);
    return r;
  }
  Matrix w(a), v(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) v[i * n + i] = 1;
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        double alpha = 0, beta = 0, gamma = 0;
        for (int64_t i = 0; i < m; ++i) {
          alpha += w[i * n + p] * w[i * n + p];
          beta += w[i * n + q] * w[i * n + q];
          gamma += w[i * n + p] * w[i * n + q];
        }
        if (gamma == 0 || std::fabs(gamma) <= 1e-300 + 1e-17 * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::fabs(zeta) + std::hypot(zeta, 1.0));
        const double c = 1 / std::hypot(t, 1.0), s = c * t;
        for (int64_t i = 0; i < m; ++i) {
          const double x = w[i * n + p], y = w[i * n + q];
          w[i * n + p] = c * x - s * y;
          w[i * n + q] = s * x + c * y;
        }
        for (int64_t i = 0; i < n; ++i) {
          const double x = v[i * n + p], y = v[i * n + q];
          v[i * n + p] = c * x - s * y;
          v[i * n + q] = s * x + c * y;
        }
      }
    }
    if (!rotated) break;
  }
  std::vector<double> norms(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    double s = 0;
    for (int64_t i = 0; i < m; ++i) s += w[i * n + j] * w[i * n + j];
    norms[j] = std::sqrt(s);
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return norms[x] > norms[y]; });
  Svd r;
  r.u.assign(static_cast<size_t>(m * n), 0.0);
  r.v.assign(static_cast<size_t>(n * n), 0.0);
  for (int64_t j = 0; j < n; ++j) {
    const int64_t src = order[j];
    r.s.push_back(norms[src]);
    for (int64_t i = 0; i < m; ++i) {
      r.u[i * n + j] = norms[src] > 0 ? w[i * n + src] / norms[src] : 0.0;
    }
    for (int64_t i = 0; i < n; ++i) r.v[i * n + j] = v[i * n + src];
  }
  return r;
}

double cond_of(const std::vector<double>& s) {
  if (s.empty()) return 1;
  const double lo = *std::min_element(s.begin(), s.end());
  const double hi = *std::max_element(s.begin(), s.end());
  return lo > 0 ? hi / lo : 1e300;
}

double max_abs(const double* p, int64_t n) {
  double r = 0;
  for (int64_t i = 0; i < n; ++i) r = std::max(r, std::fabs(p[i]));
  return r;
}

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

double rank_cutoff(const ir::Attrs& attrs, DType t, int64_t m, int64_t n, double largest) {
  const double eps = t == DType::Float32 ? std::numeric_limits<float>::epsilon()
                                         : std::numeric_limits<double>::epsilon();
  const double atol = attrs.get_float(Attr::atol, 0.0);
  double rtol = attrs.has(Attr::rtol)                 ? attrs.get_float(Attr::rtol)
                : (attrs.has(Attr::atol) && atol > 0) ? 0.0
                                                      : eps * static_cast<double>(std::max(m, n));
  return std::max(atol, rtol * largest);
}

void check_tolerances(const ir::Attrs& attrs) {
  for (Attr a : {Attr::rtol, Attr::atol}) {
    if (attrs.has(a) && !(attrs.get_float(a) >= 0 && std::isfinite(attrs.get_float(a)))) {
      reject(ErrorCode::Shape, "tolerance must be finite and >= 0");
    }
  }
}

// The batch index of `in_batch` (right-aligned) for flat index k of `out_batch`.
int64_t source_of(int64_t k, const Shape& out_batch, const Shape& in_batch) {
  std::vector<int64_t> index = unravel(k, out_batch);
  return broadcast_source(index, in_batch);
}

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

// lstsq's output `output`: 0 the minimum-norm solution pinv(A) B with singular values up to
// rcond * s_max dropped, 1 |A x - b|^2 per column when m > n (else empty), 2 the rank (singular
// values above the cutoff), 3 the singular values.
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

// Integer and bool arithmetic of the composites: Num in the output dtype (wrapping).
Num mul_in(DType t, Num a, Num b) {
  if (ir::is_floating(t)) return Num::of_float(round_to(t, a.f * b.f));
  if (t == DType::Bool) return Num::of_int(a.i && b.i);
  return Num::of_int(
      wrap_to(t, static_cast<int64_t>(static_cast<uint64_t>(a.i) * static_cast<uint64_t>(b.i))));
}

Expected composite(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  const RefTensor& x = in[0];
  switch (op) {
    case Op::trace: {
      if (x.shape.size() < 2) reject(ErrorCode::Shape, "trace needs (..., m, n)");
      // sum's dtype rule: bool and integers accumulate in int64, floats keep theirs.
      const DType out = ir::is_floating(x.dtype) ? x.dtype : DType::Int64;
      const Batch b = matrices(x, false);
      const int64_t k = attrs.get_int(Attr::k, 0);
      Expected e(RefTensor(out, b.batch));
      e.scale.assign(static_cast<size_t>(b.count()), 0.0);
      e.terms = std::max<int64_t>(1, std::min(b.m, b.n));
      for (int64_t i = 0; i < b.count(); ++i) {
        double f = 0, scale = 0;
        int64_t s = 0;
        for (int64_t r = 0; r < b.m; ++r) {
          const int64_t c = r + k;
          if (c < 0 || c >= b.n) continue;
          const int64_t at = i * b.m * b.n + r * b.n + c;
          f += x.as_double(at);
          scale = std::max(scale, std::fabs(x.as_double(at)));
          if (!x.floating()) s = static_cast<int64_t>(static_cast<uint64_t>(s) + x.i[at]);
        }
        if (ir::is_floating(out)) {
          e.value.f[i] = round_to(out, f);
          e.scale[i] = scale;
        } else {
          e.value.i[i] = s;
        }
      }
      return e;
    }
    case Op::outer:
    case Op::kron: {
      const RefTensor& y = in[1];
      if (op == Op::outer && (x.shape.size() != 1 || y.shape.size() != 1)) {
        reject(ErrorCode::Shape, "outer needs 1-D inputs");
      }
      const DType t = ref_promote(x.dtype, y.dtype);
      const size_t rank = std::max(x.shape.size(), y.shape.size());
      Shape sx(rank, 1), sy(rank, 1), out(rank);
      std::copy(x.shape.begin(), x.shape.end(), sx.end() - static_cast<int64_t>(x.shape.size()));
      std::copy(y.shape.begin(), y.shape.end(), sy.end() - static_cast<int64_t>(y.shape.size()));
      if (op == Op::outer) {
        sx = {x.shape[0], 1}, sy = {1, y.shape[0]}, out = {x.shape[0], y.shape[0]};
      } else {
        for (size_t d = 0; d < rank; ++d) out[d] = sx[d] * sy[d];
      }
      RefTensor r(t, out);
      for (int64_t o = 0; o < r.numel(); ++o) {
        const std::vector<int64_t> idx = unravel(o, out);
        std::vector<int64_t> ix(idx.size()), iy(idx.size());
        for (size_t d = 0; d < idx.size(); ++d) {
          if (op == Op::outer) {
            ix[d] = d == 0 ? idx[0] : 0, iy[d] = d == 1 ? idx[1] : 0;
          } else {
            ix[d] = idx[d] / sy[d], iy[d] = idx[d] % sy[d];
          }
        }
        r.put(o, mul_in(t, cast_to(t, x.at(ravel(ix, sx))), cast_to(t, y.at(ravel(iy, sy)))));
      }
      return r;
    }
    case Op::cross: {
      const RefTensor& y = in[1];
      const Shape out = ref_broadcast(x.shape, y.shape);
      if (out.empty()) reject(ErrorCode::Shape, "cross needs rank >= 1");
      const int64_t axis =
          ref_axis(attrs.get_int(Attr::axis, -1), static_cast<int64_t>(out.size()));
      auto size_at = [&](const Shape& s) {
        const int64_t d = axis - static_cast<int64_t>(out.size() - s.size());
        return d < 0 ? int64_t{1} : s[d];
      };
      if (size_at(x.shape) != 3 || size_at(y.shape) != 3) reject(ErrorCode::Shape, "size 3");
      const DType t = ref_promote(x.dtype, y.dtype);
      if (t == DType::Bool) reject(ErrorCode::DType, "bool");
      RefTensor r(t, out);
      for (int64_t o = 0; o < r.numel(); ++o) {
        std::vector<int64_t> idx = unravel(o, out);
        const int64_t c = idx[axis];
        auto get = [&](const RefTensor& v, int64_t comp) {
          idx[axis] = comp;
          return cast_to(t, v.at(broadcast_source(idx, v.shape)));
        };
        const int64_t i = (c + 1) % 3, j = (c + 2) % 3;
        const Num p = mul_in(t, get(x, i), get(y, j)), q = mul_in(t, get(x, j), get(y, i));
        if (ir::is_floating(t)) {
          r.put(o, Num::of_float(round_to(t, p.f - q.f)));
        } else {
          r.put(o, Num::of_int(wrap_to(t, static_cast<int64_t>(static_cast<uint64_t>(p.i) -
                                                               static_cast<uint64_t>(q.i)))));
        }
      }
      return r;
    }
    case Op::matrix_norm: {
      if (!x.floating()) reject(ErrorCode::DType, "matrix_norm needs floats");
      if (x.shape.size() < 2) reject(ErrorCode::Shape, "rank < 2");
      const int64_t rank = static_cast<int64_t>(x.shape.size());
      const std::vector<int64_t> dims =
          attrs.has(Attr::dims) ? attrs.get_ints(Attr::dims) : std::vector<int64_t>{-2, -1};
      if (dims.size() != 2) reject(ErrorCode::Shape, "two dims");
      const int64_t a = ref_axis(dims[0], rank), b = ref_axis(dims[1], rank);
      if (a == b) reject(ErrorCode::Shape, "equal dims");
      const int64_t mode = attrs.get_int(Attr::mode, 0);
      if (mode != 0 && mode != 1) reject(ErrorCode::Shape, "mode");
      const bool has_ord = attrs.has(Attr::ord);
      const double ord = attrs.get_float(Attr::ord, 0.0);
      if (has_ord && attrs.has(Attr::mode)) reject(ErrorCode::InvalidGraph, "ord and mode");
      if (has_ord && !(std::fabs(ord) == 1 || std::fabs(ord) == 2 || std::isinf(ord))) {
        reject(ErrorCode::Shape, "ord");
      }
      const bool svd = (has_ord && std::fabs(ord) == 2) || (!has_ord && mode == 1);
      if (svd) require_lapack_dtype(x.dtype);
      const int64_t ma = x.shape[a], nb = x.shape[b];
      if (has_ord) {
        const int64_t over = std::fabs(ord) == 1 ? nb : std::isinf(ord) ? ma : std::min(ma, nb);
        if (over == 0) reject(ErrorCode::Shape, "empty max");
      }
      const bool keepdim = attrs.get_bool(Attr::keepdim, false);
      Shape out, outer;
      for (int64_t d = 0; d < rank; ++d) {
        if (d != a && d != b)
          out.push_back(x.shape[d]), outer.push_back(x.shape[d]);
        else if (keepdim)
          out.push_back(1);
      }
      Expected e(RefTensor(x.dtype, out));
      e.scale.assign(static_cast<size_t>(e.value.numel()), 0.0);
      e.terms = std::max<int64_t>(1, ma * nb);
      for (int64_t o = 0; o < e.value.numel(); ++o) {
        const std::vector<int64_t> oi = unravel(o, outer);
        Matrix mat(static_cast<size_t>(ma * nb));
        std::vector<int64_t> idx(static_cast<size_t>(rank));
        for (int64_t i = 0; i < ma; ++i) {
          for (int64_t j = 0; j < nb; ++j) {
            size_t q = 0;
            for (int64_t d = 0; d < rank; ++d) idx[d] = d == a ? i : d == b ? j : oi[q++];
            mat[i * nb + j] = x.f[ravel(idx, x.shape)];
          }
        }
        double v = 0, scale = max_abs(mat.data(), ma * nb);
        if (!has_ord && mode == 0) {
          for (double t : mat) v += t * t;
          v = std::sqrt(v);
        } else if (svd) {
          const std::vector<double> s = hestenes(mat, ma, nb).s;
          if (!has_ord) {
            for (double t : s) v += t;
          } else {
            v = ord > 0 ? s.front() : s.back();
          }
          scale = s.empty() ? 0.0 : s.front();
        } else {
          const bool cols = std::fabs(ord) == 1;
          const int64_t outer_n = cols ? nb : ma, inner_n = cols ? ma : nb;
          bool first = true;
          for (int64_t p = 0; p < outer_n; ++p) {
            double s = 0;
            for (int64_t q = 0; q < inner_n; ++q) {
              s += std::fabs(cols ? mat[q * nb + p] : mat[p * nb + q]);
            }
            if (first || (ord > 0 ? s > v : s < v) || s != s) v = s;
            first = false;
          }
        }
        e.value.f[o] = round_to(x.dtype, v);
        e.scale[o] = scale;
      }
      return e;
    }
    case Op::matrix_power: {
      const Batch b = matrices(x, true);
      if (x.dtype == DType::Bool) reject(ErrorCode::DType, "bool");
      int64_t p = attrs.get_int(Attr::n);
      if (p < 0) require_lapack_dtype(x.dtype);
      const int64_t n = b.n;
      if (!x.floating()) {  // integers: exact, wrapping
        RefTensor r(x.dtype, x.shape);
        for (int64_t i = 0; i < b.count(); ++i) {
          std::vector<int64_t> acc(static_cast<size_t>(n * n), 0);
          for (int64_t j = 0; j < n; ++j) acc[j * n + j] = 1;
          for (int64_t t = 0; t < p; ++t) {
            std::vector<int64_t> next(static_cast<size_t>(n * n), 0);
            for (int64_t r_ = 0; r_ < n; ++r_) {
              for (int64_t c = 0; c < n; ++c) {
                uint64_t s = 0;
                for (int64_t l = 0; l < n; ++l) {
                  s += static_cast<uint64_t>(acc[r_ * n + l]) *
                       static_cast<uint64_t>(x.i[i * n * n + l * n + c]);
                }
                next[r_ * n + c] = wrap_to(x.dtype, static_cast<int64_t>(s));
              }
            }
            acc = next;
          }
          for (int64_t j = 0; j < n * n; ++j) r.i[i * n * n + j] = acc[j];
        }
        return r;
      }
      Builder r(RefTensor(x.dtype, x.shape), n * std::max<int64_t>(1, std::abs(p)));
      for (int64_t i = 0; i < b.count(); ++i) {
        Matrix base = matrix_at(x, i, n, n);
        double c = 1;
        if (p < 0) {
          Matrix eye(static_cast<size_t>(n * n), 0.0);
          for (int64_t j = 0; j < n; ++j) eye[j * n + j] = 1;
          c = cond_of(hestenes(base, n, n).s);
          base = lu_solve(base, n, eye, n);
        }
        // The scale: the same power of |base| (elementwise bound of the rounding errors).
        Matrix acc(static_cast<size_t>(n * n), 0.0), mag(acc);
        Matrix abs_base(base);
        for (double& v : abs_base) v = std::fabs(v);
        for (int64_t j = 0; j < n; ++j) acc[j * n + j] = mag[j * n + j] = 1;
        for (int64_t t = 0; t < std::abs(p); ++t) {
          Matrix next(static_cast<size_t>(n * n), 0.0), next_mag(next);
          for (int64_t r_ = 0; r_ < n; ++r_) {
            for (int64_t col = 0; col < n; ++col) {
              for (int64_t l = 0; l < n; ++l) {
                next[r_ * n + col] += acc[r_ * n + l] * base[l * n + col];
                next_mag[r_ * n + col] += mag[r_ * n + l] * abs_base[l * n + col];
              }
            }
          }
          acc = next, mag = next_mag;
        }
        for (int64_t j = 0; j < n * n; ++j) {
          r.e.value.f[i * n * n + j] = round_to(x.dtype, acc[j]);
          r.e.scale[i * n * n + j] = c * std::abs(p) * mag[j];
        }
      }
      return r.e;
    }
    default:
      break;
  }
  reject(ErrorCode::Internal, "no linear algebra reference for this op");
}

}  // namespace

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
