// The cuSOLVER family's conventions replayed on the host with LAPACK (whose routines cuSOLVER's
// legacy API mirrors argument for argument): the column-major copies, the jobs, leading
// dimensions, triangles and transposes the family passes (solver_factor.cpp, solver_svd.cpp),
// and the index maps that read the results back row-major (svd_layout and the views). Each
// case checks the identity the op's result must satisfy.
#include <lapacke.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/backends/cuda/solver_layout.h"

namespace tensord::cuda::test {
namespace {

using Mat = std::vector<double>;  // row-major unless said otherwise

Mat random_matrix(int64_t rows, int64_t cols, uint32_t seed) {
  Mat a(static_cast<size_t>(rows * cols));
  uint32_t s = seed;
  for (double& v : a) {
    s = s * 1664525u + 1013904223u;
    v = static_cast<double>(static_cast<int>(s >> 16) % 2001 - 1000) / 500.0;
  }
  return a;
}

// Column-major copy of a row-major rows x cols matrix (the strided copy with swapped dims).
Mat colmajor(const Mat& a, int64_t rows, int64_t cols) {
  Mat c(a.size());
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) c[j * rows + i] = a[i * cols + j];
  }
  return c;
}

Mat matmul(const Mat& a, const Mat& b, int64_t m, int64_t k, int64_t n) {
  Mat c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t l = 0; l < k; ++l) {
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += a[i * k + l] * b[l * n + j];
    }
  }
  return c;
}

double max_diff(const Mat& a, const Mat& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

Mat identity(int64_t n) {
  Mat e(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) e[i * n + i] = 1;
  return e;
}

Mat transpose(const Mat& a, int64_t rows, int64_t cols) {
  return colmajor(a, rows, cols);  // row-major A^T has A's column-major bytes
}

TEST_CASE("svd layout: gesvd's outputs read through the maps give A = U S Vh, orthonormal") {
  struct Shape {
    int64_t m, n;
  };
  uint32_t seed = 1;
  for (const Shape sh : {Shape{5, 3}, Shape{3, 5}, Shape{4, 4}, Shape{1, 6}, Shape{7, 2}}) {
    for (bool full : {true, false}) {
      const int64_t m = sh.m, n = sh.n;
      INFO("m " << m << " n " << n << " full " << full);
      const Mat a = random_matrix(m, n, seed++);
      const SvdLayout l = svd_layout(m, n, true, full);
      // The family's copy: plain (A^T column-major) or transposed (A column-major).
      Mat c = l.transpose_input ? colmajor(a, m, n) : a;
      Mat s(static_cast<size_t>(l.k)), u(static_cast<size_t>(l.u_elems)),
          vt(static_cast<size_t>(l.vt_elems)), superb(static_cast<size_t>(l.k));
      REQUIRE(LAPACKE_dgesvd(LAPACK_COL_MAJOR, static_cast<char>(l.jobu),
                             static_cast<char>(l.jobvt), static_cast<lapack_int>(l.rows),
                             static_cast<lapack_int>(l.cols), c.data(),
                             static_cast<lapack_int>(l.rows), s.data(), u.data(),
                             static_cast<lapack_int>(l.ldu), vt.data(),
                             static_cast<lapack_int>(l.ldvt), superb.data()) == 0);
      const Mat& ua = l.ua_in_vt ? vt : u;
      const Mat& vh = l.ua_in_vt ? u : vt;
      Mat U(static_cast<size_t>(m * l.u_cols)), V(static_cast<size_t>(l.vh_rows * n));
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < l.u_cols; ++j) U[i * l.u_cols + j] = ua[i * l.us0 + j * l.us1];
      }
      for (int64_t i = 0; i < l.vh_rows; ++i) {
        for (int64_t j = 0; j < n; ++j) V[i * n + j] = vh[i * l.vs0 + j * l.vs1];
      }
      Mat r(static_cast<size_t>(m * n), 0.0);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          for (int64_t q = 0; q < l.k; ++q)
            r[i * n + j] += U[i * l.u_cols + q] * s[q] * V[q * n + j];
        }
      }
      CHECK(max_diff(r, a) < 1e-12 * 10);
      CHECK(max_diff(matmul(transpose(U, m, l.u_cols), U, l.u_cols, m, l.u_cols),
                     identity(l.u_cols)) < 1e-12);
      CHECK(max_diff(matmul(V, transpose(V, l.vh_rows, n), l.vh_rows, n, l.vh_rows),
                     identity(l.vh_rows)) < 1e-12);
      for (int64_t q = 0; q + 1 < l.k; ++q) CHECK(s[q] >= s[q + 1]);
      // The pinv kernel's sum over the same maps: A P A = A.
      if (!full) {
        Mat p(static_cast<size_t>(n * m), 0.0);
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < m; ++j) {
            for (int64_t q = 0; q < l.k; ++q) {
              p[i * m + j] += vh[q * l.vs0 + i * l.vs1] / s[q] * ua[j * l.us0 + q * l.us1];
            }
          }
        }
        CHECK(max_diff(matmul(matmul(a, p, m, n, m), a, m, m, n), a) < 1e-10);
      }
    }
  }
}

TEST_CASE("inv and solve: LU of column-major A, getrs trans for inv, plain for solve") {
  const int64_t n = 5, k = 3;
  const Mat a = random_matrix(n, n, 11);
  Mat lu = colmajor(a, n, n);
  std::vector<lapack_int> ipiv(n);
  REQUIRE(LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, lu.data(), n, ipiv.data()) == 0);
  // inv: getrs('T') on the identity, read row-major.
  Mat y = identity(n);
  REQUIRE(LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'T', n, n, lu.data(), n, ipiv.data(), y.data(), n) == 0);
  CHECK(max_diff(matmul(a, y, n, n, n), identity(n)) < 1e-12);
  // solve: B copied column-major, getrs('N'), X read back with strides (1, n).
  const Mat b = random_matrix(n, k, 12);
  Mat x = colmajor(b, n, k);
  REQUIRE(LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', n, k, lu.data(), n, ipiv.data(), x.data(), n) == 0);
  Mat xr(static_cast<size_t>(n * k));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t c = 0; c < k; ++c) xr[i * k + c] = x[i * 1 + c * n];
  }
  CHECK(max_diff(matmul(a, xr, n, n, k), b) < 1e-12);
}

Mat spd(int64_t n, uint32_t seed) {
  const Mat m = random_matrix(n, n, seed);
  Mat a = matmul(m, transpose(m, n, n), n, n, n);
  for (int64_t i = 0; i < n; ++i) a[i * n + i] += static_cast<double>(n);
  return a;
}

TEST_CASE("cholesky: potrf of column-major A on the asked triangle, the other one zeroed") {
  const int64_t n = 4;
  for (bool upper : {false, true}) {
    Mat a = spd(n, 21);
    // Garbage in the triangle that is not read.
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        if (upper ? j < i : j > i) a[i * n + j] = 99;
      }
    }
    Mat c = colmajor(a, n, n);
    REQUIRE(LAPACKE_dpotrf(LAPACK_COL_MAJOR, upper ? 'U' : 'L', n, c.data(), n) == 0);
    Mat t(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const bool keep = upper ? j >= i : j <= i;  // triangle 2 / 1 of the copy kernel
        t[i * n + j] = keep ? c[i * 1 + j * n] : 0;
      }
    }
    const Mat sym = spd(n, 21);
    const Mat r =
        upper ? matmul(transpose(t, n, n), t, n, n, n) : matmul(t, transpose(t, n, n), n, n, n);
    CHECK(max_diff(r, sym) < 1e-12);
  }
}

TEST_CASE("eigh: syevd of column-major A on the asked triangle, eigenvectors read (1, n)") {
  const int64_t n = 5;
  for (bool upper : {false, true}) {
    const Mat sym = spd(n, 31);
    Mat a = sym;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        if (upper ? j < i : j > i) a[i * n + j] = -7;
      }
    }
    Mat c = colmajor(a, n, n), w(static_cast<size_t>(n));
    REQUIRE(LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', upper ? 'U' : 'L', n, c.data(), n, w.data()) ==
            0);
    Mat v(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) v[i * n + j] = c[i * 1 + j * n];
    }
    Mat vw = v;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) vw[i * n + j] *= w[j];
    }
    CHECK(max_diff(matmul(sym, v, n, n, n), vw) < 1e-10);
    for (int64_t j = 0; j + 1 < n; ++j) CHECK(w[j] <= w[j + 1]);
  }
}

TEST_CASE("qr: geqrf on column-major A (ld m), R off its upper triangle, orgqr for Q") {
  struct Shape {
    int64_t m, n;
  };
  for (const Shape sh : {Shape{6, 4}, Shape{3, 5}, Shape{4, 4}}) {
    for (bool complete : {false, true}) {
      const int64_t m = sh.m, n = sh.n, k = std::min(m, n);
      const int64_t qcols = complete ? m : k, rrows = qcols, cols = std::max(n, qcols);
      INFO("m " << m << " n " << n << " complete " << complete);
      const Mat a = random_matrix(m, n, 41);
      Mat w(static_cast<size_t>(m * cols), 0.0), tau(static_cast<size_t>(k));
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j)
          w[j * m + i] = a[i * n + j];  // dst strides (m, 1) of (n, m)
      }
      REQUIRE(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, w.data(), m, tau.data()) == 0);
      Mat r(static_cast<size_t>(rrows * n));
      for (int64_t i = 0; i < rrows; ++i) {
        for (int64_t j = 0; j < n; ++j) r[i * n + j] = j >= i ? w[i * 1 + j * m] : 0;
      }
      REQUIRE(LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, qcols, k, w.data(), m, tau.data()) == 0);
      Mat q(static_cast<size_t>(m * qcols));
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < qcols; ++j) q[i * qcols + j] = w[i * 1 + j * m];
      }
      CHECK(max_diff(matmul(q, r, m, qcols, n), a) < 1e-12);
      CHECK(max_diff(matmul(transpose(q, m, qcols), q, qcols, m, qcols), identity(qcols)) < 1e-12);
    }
  }
}

}  // namespace
}  // namespace tensord::cuda::test
