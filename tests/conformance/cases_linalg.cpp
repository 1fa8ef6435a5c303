// Table rows for the linear algebra ops (docs/ops.md "Linear algebra"): float32 and float64
// over single, batched, empty and non-contiguous matrices; positive-definite, singular and
// rank-deficient inputs written out here; the dtype, shape and run-time (singular, not
// positive-definite) errors. The composites (trace, outer, kron, cross, matrix_power) run on
// every dtype they accept.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "tests/conformance/case.h"
#include "tests/conformance/sweep.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Attrs;
using ir::Op;
using Ints = std::vector<int64_t>;

namespace {

Case make(Op op, std::vector<InputSpec> inputs, Attrs attrs = {},
          std::optional<ErrorCode> error = std::nullopt) {
  Case c;
  c.op = op;
  c.inputs = std::move(inputs);
  c.attrs = std::move(attrs);
  c.accuracy = Accuracy::Accumulated;
  c.error = error;
  return c;
}

constexpr DType kLapack[] = {DType::Float32, DType::Float64};

// `count` symmetric positive-definite n x n matrices, M M^T + n I with M's entries in [-1, 1]
// from a fixed linear congruential sequence (values exact in float32).
std::vector<double> spd(int64_t count, int64_t n, uint32_t seed) {
  std::vector<double> out;
  uint32_t s = seed;
  for (int64_t b = 0; b < count; ++b) {
    std::vector<double> m(static_cast<size_t>(n * n));
    for (double& v : m) {
      s = s * 1664525u + 1013904223u;
      v = static_cast<double>(static_cast<int>(s >> 24) - 128) / 128.0;
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double a = i == j ? static_cast<double>(n) : 0.0;
        for (int64_t k = 0; k < n; ++k) a += m[i * n + k] * m[j * n + k];
        out.push_back(static_cast<float>(a));
      }
    }
  }
  return out;
}

// Identities of the factorizations whose factors are unique only up to signs. Errors are
// measured against tol = eps-scale(dtype) * max(m, n) * the input's magnitude.
struct Mat {
  int64_t rows = 0, cols = 0;
  const double* p = nullptr;
  double operator()(int64_t i, int64_t j) const { return p[i * cols + j]; }
};

Mat mat_at(const RefTensor& t, int64_t b) {
  const int64_t r = t.shape[t.shape.size() - 2], c = t.shape.back();
  return Mat{r, c, t.f.data() + b * r * c};
}

int64_t batch_count(const RefTensor& t, size_t core) {
  int64_t c = 1;
  for (size_t d = 0; d + core < t.shape.size(); ++d) c *= t.shape[d];
  return c;
}

double eps_of(DType t) {
  return t == DType::Float32 ? 1e-5 : 1e-12;
}

std::string where(const char* what, int64_t b, int64_t i, int64_t j, double err, double tol) {
  return std::string(what) + " off at batch " + std::to_string(b) + " [" + std::to_string(i) +
         ", " + std::to_string(j) + "] by " + std::to_string(err) + " (allowed " +
         std::to_string(tol) + ")";
}

// Columns (by_rows: rows) of `q` orthonormal.
std::string orthonormal(const Mat& q, bool by_rows, double tol, int64_t b, const char* what) {
  const int64_t count = by_rows ? q.rows : q.cols, len = by_rows ? q.cols : q.rows;
  for (int64_t i = 0; i < count; ++i) {
    for (int64_t j = 0; j < count; ++j) {
      double s = 0;
      for (int64_t l = 0; l < len; ++l) s += by_rows ? q(i, l) * q(j, l) : q(l, i) * q(l, j);
      const double err = std::fabs(s - (i == j ? 1.0 : 0.0));
      if (!(err <= tol)) return where(what, b, i, j, err, tol);
    }
  }
  return {};
}

double magnitude(const Mat& a) {
  double r = 0;
  for (int64_t i = 0; i < a.rows * a.cols; ++i) r = std::max(r, std::fabs(a.p[i]));
  return std::max(r, 1e-300);
}

Identities qr_identities() {
  return [](std::span<const RefTensor> in, std::span<const RefTensor> out) -> std::string {
    const RefTensor &a = in[0], &q = out[0], &r = out[1];
    for (int64_t b = 0; b < batch_count(a, 2); ++b) {
      const Mat A = mat_at(a, b), Q = mat_at(q, b), R = mat_at(r, b);
      const double tol = eps_of(a.dtype) * static_cast<double>(std::max(A.rows, A.cols) + 1);
      if (std::string e = orthonormal(Q, false, tol, b, "Q^T Q - I"); !e.empty()) return e;
      for (int64_t i = 0; i < R.rows; ++i) {
        for (int64_t j = 0; j < std::min(i, R.cols); ++j) {
          if (R(i, j) != 0) return where("R below its diagonal", b, i, j, R(i, j), 0);
        }
      }
      const double scale = magnitude(A);
      for (int64_t i = 0; i < A.rows; ++i) {
        for (int64_t j = 0; j < A.cols; ++j) {
          double s = 0;
          for (int64_t l = 0; l < Q.cols; ++l) s += Q(i, l) * R(l, j);
          const double err = std::fabs(s - A(i, j));
          if (!(err <= tol * scale)) return where("Q R - A", b, i, j, err, tol * scale);
        }
      }
    }
    return {};
  };
}

Identities svd_identities() {
  return [](std::span<const RefTensor> in, std::span<const RefTensor> out) -> std::string {
    const RefTensor &a = in[0], &u = out[0], &s = out[1], &vh = out[2];
    for (int64_t b = 0; b < batch_count(a, 2); ++b) {
      const Mat A = mat_at(a, b), U = mat_at(u, b), V = mat_at(vh, b);
      const int64_t k = std::min(A.rows, A.cols);
      const double* S = s.f.data() + b * k;
      const double tol = eps_of(a.dtype) * static_cast<double>(std::max(A.rows, A.cols) + 1);
      if (std::string e = orthonormal(U, false, tol, b, "U^T U - I"); !e.empty()) return e;
      if (std::string e = orthonormal(V, true, tol, b, "Vh Vh^T - I"); !e.empty()) return e;
      for (int64_t l = 0; l + 1 < k; ++l) {
        if (S[l] < S[l + 1] || S[l + 1] < 0) return where("S not descending", b, l, l, 0, 0);
      }
      const double scale = k > 0 ? std::max(S[0], 1e-300) : 1.0;
      for (int64_t i = 0; i < A.rows; ++i) {
        for (int64_t j = 0; j < A.cols; ++j) {
          double t = 0;
          for (int64_t l = 0; l < k; ++l) t += U(i, l) * S[l] * V(l, j);
          const double err = std::fabs(t - A(i, j));
          if (!(err <= tol * scale)) return where("U diag(S) Vh - A", b, i, j, err, tol * scale);
        }
      }
    }
    return {};
  };
}

Identities eigh_identities(bool upper) {
  return [upper](std::span<const RefTensor> in, std::span<const RefTensor> out) -> std::string {
    const RefTensor &a = in[0], &w = out[0], &v = out[1];
    for (int64_t b = 0; b < batch_count(a, 2); ++b) {
      const Mat A = mat_at(a, b), V = mat_at(v, b);
      const int64_t n = A.rows;
      const double* W = w.f.data() + b * n;
      const double tol = eps_of(a.dtype) * static_cast<double>(n + 1);
      if (std::string e = orthonormal(V, false, tol, b, "V^T V - I"); !e.empty()) return e;
      // The symmetric matrix syevd sees: one triangle mirrored.
      auto sym = [&](int64_t i, int64_t j) {
        const bool lower = i >= j;
        return (lower != upper || i == j) ? A(i, j) : A(j, i);
      };
      double scale = 1e-300;
      for (int64_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(W[i]));
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double t = 0;
          for (int64_t l = 0; l < n; ++l) t += sym(i, l) * V(l, j);
          const double err = std::fabs(t - W[j] * V(i, j));
          if (!(err <= tol * scale)) return where("A V - V diag(w)", b, i, j, err, tol * scale);
        }
      }
    }
    return {};
  };
}

Case with_identities(Case c, uint32_t output, Identities check) {
  c.output = output;
  c.identities = std::move(check);
  return c;
}

}  // namespace

void add_linalg_cases(std::vector<Case>& out) {
  using L = Layout;
  using A = Attrs;
  const Values S = Values::Mixed;
  for (DType t : kLapack) {
    // det, inv: square matrices, batches, empty batches and 0 x 0 matrices, layouts.
    for (Op op : {Op::det, Op::inv}) {
      for (const Shape& s : std::vector<Shape>{{1, 1},
                                               {3, 3},
                                               {5, 5},
                                               {2, 4, 4},
                                               {2, 1, 3, 3},
                                               {0, 3, 3},
                                               {0, 0},
                                               {2, 0, 0},
                                               {16, 16}}) {
        out.push_back(make(op, {in(t, s, L::Contiguous, S)}));
      }
      out.push_back(make(op, {in(t, {4, 4}, L::Permuted, S)}));
      out.push_back(make(op, {in(t, {3, 5, 5}, L::Mixed, S)}));
      out.push_back(make(op, {in(t, {3, 4, 4}, L::Broadcast, S)}));
      out.push_back(make(op, {in_values(t, {2, 2}, {4, 7, 2, 6})}));
      // Singular: det 0, inv fails when run.
      out.push_back(make(op, {in_values(t, {2, 2}, {1, 2, 2, 4})}, {},
                         op == Op::inv ? std::optional(ErrorCode::Shape) : std::nullopt));
      out.push_back(make(op,
                         {in_values(t, {2, 3, 3},
                                    {2, 0, 0, 0, 3, 0, 0, 0, 4,  //
                                     1, 2, 3, 2, 4, 6, 1, 0, 1})},
                         {}, op == Op::inv ? std::optional(ErrorCode::Shape) : std::nullopt));
      out.push_back(make(op, {in(t, {3, 4}, L::Contiguous, S)}, {}, ErrorCode::Shape));
      out.push_back(make(op, {in(t, {3}, L::Contiguous, S)}, {}, ErrorCode::Shape));
    }
    // det of NaN and inf entries.
    out.push_back(make(Op::det, {in_values(t, {2, 2}, {1, NAN, 2, 3})}));
    // solve: matrix and vector right-hand sides, batch broadcasting, empty systems.
    struct Pair {
      Shape a, b;
    };
    for (const Pair& p : std::vector<Pair>{{{3, 3}, {3, 2}},
                                           {{3, 3}, {3}},
                                           {{2, 4, 4}, {2, 4}},
                                           {{2, 4, 4}, {4}},
                                           {{2, 4, 4}, {2, 4, 3}},
                                           {{4, 3, 3}, {1, 3, 2}},
                                           {{3, 3}, {2, 5, 3, 1}},
                                           {{3, 3}, {3, 0}},
                                           {{0, 0}, {0, 2}},
                                           {{0, 3, 3}, {3, 1}},
                                           {{12, 12}, {12, 5}}}) {
      out.push_back(make(Op::solve, {in(t, p.a, L::Contiguous, S), in(t, p.b, L::Contiguous, S)}));
    }
    out.push_back(make(Op::solve, {in(t, {5, 5}, L::Permuted, S), in(t, {5, 3}, L::Mixed, S)}));
    out.push_back(
        make(Op::solve, {in_values(t, {2, 2}, {1, 2, 2, 4}), in(t, {2, 1})}, {}, ErrorCode::Shape));
    out.push_back(make(Op::solve, {in(t, {3, 4}), in(t, {3, 1})}, {}, ErrorCode::Shape));
    out.push_back(make(Op::solve, {in(t, {3, 3}), in(t, {4, 1})}, {}, ErrorCode::Shape));
    out.push_back(make(Op::solve, {in(t, {2, 3, 3}), in(t, {3, 3, 1})}, {}, ErrorCode::Shape));
    // cholesky: positive-definite inputs (lower and upper), batches, empty; not positive-
    // definite fails when run.
    for (bool upper : {false, true}) {
      const A attrs = upper ? A{{Attr::upper, true}} : A{};
      out.push_back(make(Op::cholesky, {in_values(t, {4, 4}, spd(1, 4, 1))}, attrs));
      out.push_back(make(Op::cholesky, {in_values(t, {3, 5, 5}, spd(3, 5, 2))}, attrs));
      out.push_back(make(Op::cholesky, {in_values(t, {12, 12}, spd(1, 12, 3))}, attrs));
      out.push_back(make(Op::cholesky, {in(t, {0, 3, 3})}, attrs));
      out.push_back(make(Op::cholesky, {in(t, {0, 0})}, attrs));
      out.push_back(
          make(Op::cholesky, {in_values(t, {2, 2}, {1, 2, 2, 1})}, attrs, ErrorCode::Shape));
    }
    // Only the lower triangle is read: an upper triangle of garbage changes nothing.
    out.push_back(make(Op::cholesky, {in_values(t, {2, 2}, {4, 99, 2, 5})}));
    out.push_back(make(Op::cholesky, {in_values(t, {2, 2}, {4, 2, -7, 5})}, {{Attr::upper, true}}));
    out.push_back(make(Op::cholesky, {in_values(t, {2, 2, 2}, {4, 2, 2, 5, -1, 0, 0, 1})}, {},
                       ErrorCode::Shape));
    out.push_back(make(Op::cholesky, {in(t, {2, 3})}, {}, ErrorCode::Shape));
    // svdvals and eigvalsh (eigvalsh reads one triangle of any matrix).
    for (const Shape& s : std::vector<Shape>{
             {3, 5}, {5, 3}, {4, 4}, {2, 3, 6}, {0, 3}, {3, 0}, {0, 2, 2}, {1, 1}, {14, 9}}) {
      out.push_back(make(Op::svdvals, {in(t, s, L::Contiguous, S)}));
    }
    out.push_back(make(Op::svdvals, {in(t, {4, 6}, L::Permuted, S)}));
    out.push_back(make(Op::svdvals, {in_values(t, {3, 3}, {1, 2, 3, 2, 4, 6, 1, 1, 1})}));
    out.push_back(make(Op::svdvals, {in(t, {4})}, {}, ErrorCode::Shape));
    for (const Shape& s :
         std::vector<Shape>{{1, 1}, {4, 4}, {3, 5, 5}, {0, 3, 3}, {0, 0}, {11, 11}}) {
      out.push_back(make(Op::eigvalsh, {in(t, s, L::Contiguous, S)}));
      out.push_back(make(Op::eigvalsh, {in(t, s, L::Contiguous, S)}, {{Attr::upper, true}}));
    }
    out.push_back(make(Op::eigvalsh, {in(t, {5, 5}, L::Mixed, S)}));
    out.push_back(make(Op::eigvalsh, {in(t, {3, 4})}, {}, ErrorCode::Shape));
    // pinv and matrix_rank: full-rank, rank-deficient, tolerances, Hermitian.
    const std::vector<double> rank2 = {1, 2, 3, 2, 4, 6, 1, 0, 1, 0, 2, 2};  // (4, 3), rank 2
    for (Op op : {Op::pinv, Op::matrix_rank}) {
      for (const Shape& s :
           std::vector<Shape>{{4, 3}, {3, 5}, {2, 4, 4}, {0, 3}, {3, 0}, {0, 2, 2}, {1, 1}}) {
        out.push_back(make(op, {in(t, s, L::Contiguous, S)}));
      }
      out.push_back(make(op, {in(t, {4, 6}, L::Permuted, S)}));
      out.push_back(make(op, {in_values(t, {4, 3}, rank2)}));
      out.push_back(make(op, {in_values(t, {3, 3}, {1, 0, 0, 0, 1e-3, 0, 0, 0, 1e-9})},
                         {{Attr::atol, 1e-6}}));
      out.push_back(make(op, {in_values(t, {3, 3}, {1, 0, 0, 0, 1e-3, 0, 0, 0, 1e-9})},
                         {{Attr::rtol, 1e-2}}));
      out.push_back(make(op, {in_values(t, {2, 2}, {0, 0, 0, 0})}));
      out.push_back(make(op, {in_values(t, {4, 4}, spd(1, 4, 5))}, {{Attr::hermitian, true}}));
      out.push_back(make(op, {in_values(t, {3, 3}, {2, 0, 0, 1, -3, 0, 0, 0, 0})},
                         {{Attr::hermitian, true}}));
      out.push_back(make(op, {in(t, {3, 4})}, {{Attr::hermitian, true}}, ErrorCode::Shape));
      out.push_back(make(op, {in(t, {3, 3})}, {{Attr::rtol, -1.0}}, ErrorCode::Shape));
    }
    // lstsq: each of (solution, residuals, rank, singular_values) over over- and
    // underdetermined, batched (either side broadcasting), rank-deficient and empty systems.
    for (uint32_t o = 0; o < 4; ++o) {
      const auto row = [&](Case c) {
        c.output = o;
        out.push_back(std::move(c));
      };
      for (const Pair& p : std::vector<Pair>{{{5, 3}, {5, 2}},
                                             {{3, 5}, {3, 1}},
                                             {{4, 4}, {4, 3}},
                                             {{2, 6, 3}, {2, 6, 1}},
                                             {{2, 6, 3}, {6, 2}},
                                             {{6, 3}, {3, 6, 2}},
                                             {{0, 6, 3}, {6, 2}},
                                             {{0, 3}, {0, 2}},
                                             {{3, 0}, {3, 2}},
                                             {{3, 3}, {3, 0}},
                                             {{5, 2}, {5, 0}},
                                             {{20, 7}, {20, 4}}}) {
        row(make(Op::lstsq, {in(t, p.a, L::Contiguous, S), in(t, p.b, L::Contiguous, S)}));
      }
      // rank 2 of 3 columns, tall (residuals from A x - b) and wide (A^T)
      row(make(Op::lstsq, {in_values(t, {4, 3}, rank2), in(t, {4, 2}, L::Contiguous, S)}));
      row(make(Op::lstsq, {in_values(t, {3, 4}, {1, 2, 1, 0, 2, 4, 0, 2, 3, 6, 1, 2}),
                           in(t, {3, 2}, L::Contiguous, S)}));
      // a cutoff that drops the small singular value, and one that keeps it
      const std::vector<double> graded = {1, 0, 0, 0, 1e-3, 0, 0, 0, 1, 1, 1, 1};
      row(make(Op::lstsq, {in_values(t, {4, 3}, graded), in(t, {4, 1}, L::Contiguous, S)},
               {{Attr::rtol, 1e-2}}));
      row(make(Op::lstsq, {in_values(t, {4, 3}, graded), in(t, {4, 1}, L::Contiguous, S)},
               {{Attr::rtol, 1e-5}}));
      row(make(Op::lstsq, {in(t, {6, 4}, L::Permuted, S), in(t, {6, 2}, L::Mixed, S)}));
    }
    out.push_back(make(Op::lstsq, {in(t, {5, 3}), in(t, {5})}, {}, ErrorCode::Shape));
    out.push_back(make(Op::lstsq, {in(t, {5, 3}), in(t, {4, 2})}, {}, ErrorCode::Shape));
    // cdist and pdist: p in {0, 1, 2, 3, inf}, broadcasting batches, empty sets.
    for (double p : {2.0, 0.0, 1.0, 3.0, std::numeric_limits<double>::infinity()}) {
      const A attrs = p == 2.0 ? A{} : A{{Attr::ord, p}};
      out.push_back(make(Op::cdist, {in(t, {4, 3}, L::Contiguous, S), in(t, {5, 3})}, attrs));
      out.push_back(make(Op::pdist, {in(t, {6, 4}, L::Contiguous, S)}, attrs));
    }
    out.push_back(make(Op::cdist, {in(t, {2, 4, 3}), in(t, {2, 5, 3})}));
    out.push_back(make(Op::cdist, {in(t, {1, 4, 3}), in(t, {3, 2, 3})}));
    out.push_back(make(Op::cdist, {in(t, {0, 3}), in(t, {5, 3})}));
    out.push_back(make(Op::cdist, {in(t, {4, 0}), in(t, {5, 0})}));
    out.push_back(make(Op::cdist, {in(t, {6, 5}, L::Permuted, S), in(t, {7, 5}, L::Mixed, S)}));
    out.push_back(make(Op::cdist, {in(t, {40, 16}), in(t, {50, 16})}));
    out.push_back(make(Op::cdist, {in(t, {4, 3}), in(t, {5, 2})}, {}, ErrorCode::Shape));
    out.push_back(
        make(Op::cdist, {in(t, {4, 3}), in(t, {5, 3})}, {{Attr::ord, -1.0}}, ErrorCode::Shape));
    out.push_back(make(Op::cdist, {in(t, {3}), in(t, {5, 3})}, {}, ErrorCode::Shape));
    out.push_back(make(Op::pdist, {in(t, {1, 3})}));
    out.push_back(make(Op::pdist, {in(t, {0, 3})}));
    out.push_back(make(Op::pdist, {in(t, {5, 4}, L::Permuted, S)}));
    out.push_back(make(Op::pdist, {in(t, {60, 8})}));
    out.push_back(make(Op::pdist, {in(t, {2, 3, 3})}, {}, ErrorCode::Shape));
    // matrix_norm: every ord, keepdim, other dims.
    std::vector<A> ords = {A{}, A{{Attr::mode, int64_t{1}}}};
    for (double o : {1.0, -1.0, 2.0, -2.0, std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity()}) {
      ords.push_back(A{{Attr::ord, o}});
    }
    for (const A& a : ords) {
      out.push_back(make(Op::matrix_norm, {in(t, {3, 4}, L::Contiguous, S)}, a));
      out.push_back(make(Op::matrix_norm, {in(t, {2, 5, 3}, L::Permuted, S)}, a));
      A k = a;
      k.set(Attr::keepdim, true);
      k.set(Attr::dims, Ints{0, 2});
      out.push_back(make(Op::matrix_norm, {in(t, {3, 2, 4}, L::Contiguous, S)}, k));
    }
    out.push_back(make(Op::matrix_norm, {in(t, {0, 3})}));
    out.push_back(make(Op::matrix_norm, {in(t, {3, 0})}, {{Attr::ord, 1.0}}, ErrorCode::Shape));
    out.push_back(make(Op::matrix_norm, {in(t, {3, 4})}, {{Attr::ord, 3.0}}, ErrorCode::Shape));
    out.push_back(
        make(Op::matrix_norm, {in(t, {3, 4})}, {{Attr::dims, Ints{1, 1}}}, ErrorCode::Shape));
    out.push_back(make(Op::matrix_norm, {in(t, {4})}, {}, ErrorCode::Shape));
    // matrix_power: positive, zero and negative powers.
    for (int64_t n : {0, 1, 2, 3, 5, -1, -2}) {
      out.push_back(
          make(Op::matrix_power, {in(t, {3, 3}, L::Contiguous, Values::Small)}, {{Attr::n, n}}));
      out.push_back(
          make(Op::matrix_power, {in(t, {2, 4, 4}, L::Permuted, Values::NearOne)}, {{Attr::n, n}}));
    }
    out.push_back(make(Op::matrix_power, {in(t, {0, 0})}, {{Attr::n, int64_t{3}}}));
    out.push_back(make(Op::matrix_power, {in_values(t, {2, 2}, {1, 2, 2, 4})},
                       {{Attr::n, int64_t{-1}}}, ErrorCode::Shape));
    out.push_back(
        make(Op::matrix_power, {in(t, {3, 4})}, {{Attr::n, int64_t{2}}}, ErrorCode::Shape));
  }
  // Several outputs. slogdet: both outputs against the reference; eigh's eigenvalues and svd's
  // singular values too; Q, R, U, Vh and the eigenvectors (unique only up to signs) by the
  // identities above, all outputs fetched in one run.
  for (DType t : kLapack) {
    const std::vector<Shape> square = {{1, 1}, {4, 4}, {3, 5, 5}, {0, 3, 3}, {0, 0}, {12, 12}};
    const std::vector<Shape> any = {{5, 3}, {3, 5}, {4, 4},    {2, 6, 4}, {2, 3, 7},
                                    {0, 3}, {3, 0}, {0, 2, 2}, {1, 1},    {14, 9}};
    for (uint32_t o : {0u, 1u}) {
      for (const Shape& s : square) {
        Case c = make(Op::slogdet, {in(t, s, L::Contiguous, S)});
        c.output = o;
        out.push_back(c);
      }
      for (const std::vector<double>& v :
           {std::vector<double>{1, 2, 2, 4}, std::vector<double>{0, 1, 1, 0},
            std::vector<double>{-3, 0, 0, 2}}) {
        Case c = make(Op::slogdet, {in_values(t, {2, 2}, v)});
        c.output = o;
        out.push_back(c);
      }
      Case p = make(Op::slogdet, {in(t, {4, 4}, L::Permuted, S)});
      p.output = o;
      out.push_back(p);
    }
    for (bool upper : {false, true}) {
      const A attrs = upper ? A{{Attr::upper, true}} : A{};
      for (const Shape& s : square) {
        Case c = make(Op::eigh, {in(t, s, L::Contiguous, S)}, attrs);
        out.push_back(c);  // eigenvalues against the reference
        out.push_back(with_identities(c, 1, eigh_identities(upper)));
      }
      out.push_back(with_identities(make(Op::eigh, {in(t, {5, 5}, L::Mixed, S)}, attrs), 1,
                                    eigh_identities(upper)));
      out.push_back(with_identities(
          make(Op::eigh, {in_values(t, {3, 3}, {2, 0, 0, 0, 2, 0, 0, 0, 1})}, attrs), 1,
          eigh_identities(upper)));  // a repeated eigenvalue
    }
    for (int64_t mode : {0, 1}) {
      const A attrs = mode == 0 ? A{} : A{{Attr::mode, mode}};
      for (const Shape& s : any) {
        out.push_back(
            with_identities(make(Op::qr, {in(t, s, L::Contiguous, S)}, attrs), 0, qr_identities()));
      }
      out.push_back(with_identities(make(Op::qr, {in(t, {6, 4}, L::Permuted, S)}, attrs), 1,
                                    qr_identities()));
      out.push_back(with_identities(
          make(Op::qr, {in_values(t, {4, 3}, {1, 2, 3, 2, 4, 6, 1, 0, 1, 0, 2, 2})}, attrs), 0,
          qr_identities()));  // rank-deficient
    }
    for (bool full : {true, false}) {
      const A attrs = full ? A{} : A{{Attr::full_matrices, false}};
      for (const Shape& s : any) {
        Case c = make(Op::svd, {in(t, s, L::Contiguous, S)}, attrs);
        c.output = 1;
        out.push_back(c);  // singular values against the reference
        out.push_back(with_identities(c, 0, svd_identities()));
      }
      out.push_back(
          with_identities(make(Op::svd, {in(t, {7, 5}, L::Mixed, S)}, attrs), 2, svd_identities()));
      out.push_back(with_identities(
          make(Op::svd, {in_values(t, {4, 3}, {1, 2, 3, 2, 4, 6, 1, 0, 1, 0, 2, 2})}, attrs), 2,
          svd_identities()));  // rank-deficient
    }
    out.push_back(make(Op::slogdet, {in(t, {3, 4})}, {}, ErrorCode::Shape));
    out.push_back(make(Op::eigh, {in(t, {3, 4})}, {}, ErrorCode::Shape));
    out.push_back(make(Op::qr, {in(t, {4})}, {}, ErrorCode::Shape));
    out.push_back(make(Op::qr, {in(t, {3, 3})}, {{Attr::mode, int64_t{2}}}, ErrorCode::Shape));
    out.push_back(make(Op::svd, {in(t, {4})}, {}, ErrorCode::Shape));
  }
  // float16/bfloat16 and integers: the LAPACK ops refuse them.
  for (DType t : {DType::Float16, DType::BFloat16, DType::Int32, DType::Bool}) {
    for (Op op : {Op::det, Op::inv, Op::cholesky, Op::svdvals, Op::eigvalsh, Op::pinv,
                  Op::matrix_rank, Op::slogdet, Op::qr, Op::svd, Op::eigh}) {
      out.push_back(make(op, {in(t, {3, 3})}, {}, ErrorCode::DType));
    }
    out.push_back(make(Op::solve, {in(t, {3, 3}), in(t, {3, 1})}, {}, ErrorCode::DType));
    out.push_back(make(Op::lstsq, {in(t, {3, 3}), in(t, {3, 1})}, {}, ErrorCode::DType));
    out.push_back(make(Op::cdist, {in(t, {3, 3}), in(t, {3, 3})}, {}, ErrorCode::DType));
    out.push_back(make(Op::pdist, {in(t, {3, 3})}, {}, ErrorCode::DType));
    out.push_back(
        make(Op::matrix_power, {in(t, {3, 3})}, {{Attr::n, int64_t{-1}}}, ErrorCode::DType));
  }
  out.push_back(make(Op::solve, {in(DType::Float32, {3, 3}), in(DType::Float64, {3, 1})}, {},
                     ErrorCode::DType));
  out.push_back(make(Op::cdist, {in(DType::Float32, {3, 3}), in(DType::Float64, {3, 3})}, {},
                     ErrorCode::DType));
  // matrix_norm: float16/bfloat16 compute in float32 (fro, 1, inf); nuc and 2 need LAPACK.
  for (DType t : {DType::Float16, DType::BFloat16}) {
    out.push_back(make(Op::matrix_norm, {in(t, {3, 4}, L::Contiguous, Values::Small)}));
    out.push_back(
        make(Op::matrix_norm, {in(t, {3, 4}, L::Contiguous, Values::Small)}, {{Attr::ord, 1.0}}));
    out.push_back(
        make(Op::matrix_norm, {in(t, {3, 4})}, {{Attr::mode, int64_t{1}}}, ErrorCode::DType));
  }
  out.push_back(make(Op::matrix_norm, {in(DType::Int32, {3, 4})}, {}, ErrorCode::DType));

  // The composites on every dtype they accept.
  for (DType t : kAllDTypes) {
    const Values v = Values::Small;
    for (int64_t k : {0, 1, -2, 7}) {
      const A attrs = k == 0 ? A{} : A{{Attr::k, k}};
      out.push_back(make(Op::trace, {in(t, {4, 5}, L::Contiguous, v)}, attrs));
    }
    out.push_back(make(Op::trace, {in(t, {2, 3, 3}, L::Permuted, v)}));
    out.push_back(make(Op::trace, {in(t, {0, 3})}));
    out.push_back(make(Op::trace, {in(t, {5})}, {}, ErrorCode::Shape));
    out.push_back(make(Op::outer, {in(t, {4}, L::Contiguous, v), in(t, {3}, L::Contiguous, v)}));
    out.push_back(make(Op::outer, {in(t, {0}), in(t, {3})}));
    out.push_back(make(Op::outer, {in(t, {5}, L::Strided, v), in(t, {5}, L::Reversed, v)}));
    out.push_back(make(Op::outer, {in(t, {2, 2}), in(t, {3})}, {}, ErrorCode::Shape));
    out.push_back(
        make(Op::kron, {in(t, {2, 3}, L::Contiguous, v), in(t, {3, 2}, L::Contiguous, v)}));
    out.push_back(make(Op::kron, {in(t, {2}, L::Contiguous, v), in(t, {2, 3}, L::Permuted, v)}));
    out.push_back(make(Op::kron, {in(t, {}, L::Contiguous, v), in(t, {2, 2}, L::Contiguous, v)}));
    out.push_back(make(Op::kron, {in(t, {2, 0}), in(t, {3, 2})}));
    if (t == DType::Bool) {
      out.push_back(make(Op::cross, {in(t, {3}), in(t, {3})}, {}, ErrorCode::DType));
      out.push_back(
          make(Op::matrix_power, {in(t, {3, 3})}, {{Attr::n, int64_t{2}}}, ErrorCode::DType));
      continue;
    }
    out.push_back(
        make(Op::cross, {in(t, {4, 3}, L::Contiguous, v), in(t, {4, 3}, L::Contiguous, v)}));
    out.push_back(make(Op::cross, {in(t, {3}, L::Contiguous, v), in(t, {5, 3}, L::Contiguous, v)}));
    out.push_back(make(Op::cross, {in(t, {3, 4}, L::Permuted, v), in(t, {3, 1}, L::Contiguous, v)},
                       {{Attr::axis, int64_t{0}}}));
    out.push_back(make(Op::cross, {in(t, {0, 3}), in(t, {0, 3})}));
    out.push_back(make(Op::cross, {in(t, {4, 2}), in(t, {4, 2})}, {}, ErrorCode::Shape));
    out.push_back(make(Op::cross, {in(t, {4, 3}), in(t, {4, 3})}, {{Attr::axis, int64_t{0}}},
                       ErrorCode::Shape));
    if (!ir::is_floating(t)) {
      for (int64_t n : {0, 1, 2, 3}) {
        out.push_back(make(Op::matrix_power, {in(t, {3, 3}, L::Contiguous, v)}, {{Attr::n, n}}));
      }
    }
  }
  for (DType t : {DType::Float16, DType::BFloat16}) {
    out.push_back(make(Op::matrix_power, {in(t, {3, 3}, L::Contiguous, Values::NearOne)},
                       {{Attr::n, int64_t{2}}}));
  }
}

}  // namespace tensord::conformance
