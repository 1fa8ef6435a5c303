// The dense algorithms of the linear algebra reference, written straightforwardly for small
// matrices: Gaussian elimination with partial pivoting, Cholesky-Banachiewicz (in
// reference_linalg.cpp), the cyclic Jacobi eigenvalue method and one-sided Jacobi (Hestenes)
// SVD, and the helpers every family shares (reference_linalg_internal.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "tests/conformance/reference_linalg_internal.h"

namespace tensord::conformance::linalg_ref {

using ir::Attr;

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

int64_t source_of(int64_t k, const Shape& out_batch, const Shape& in_batch) {
  std::vector<int64_t> index = unravel(k, out_batch);
  return broadcast_source(index, in_batch);
}

}  // namespace tensord::conformance::linalg_ref
