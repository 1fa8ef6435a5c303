// Linear algebra over LAPACK (LAPACKE on Debian's OpenBLAS): det, inv, solve, cholesky,
// svdvals, eigvalsh, pinv, matrix_rank; slogdet, qr, svd, eigh, lstsq with several outputs
// (docs/ops.md "Linear algebra"). float32 runs the
// s* routines, float64 the d* ones. Each matrix of the batch is copied into a column-major
// scratch matrix (LAPACK overwrites its input), factored, and its result written back row-major.
// Batches run one matrix per OpenMP thread with OpenBLAS single-threaded; a single matrix lets
// OpenBLAS use the backend's threads. Data errors (a singular matrix for inv and solve, a
// matrix that is not positive-definite for cholesky, an SVD that does not converge) raise a
// Shape error naming the op and the batch element, as docs/ops.md says for run-time errors.
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/lapack_routines.h"

extern "C" void openblas_set_num_threads(int num_threads);

namespace tensord::cpu {
namespace {

using ir::Attr;
using ir::Op;
using lapack_detail::kNotFinite;
using lapack_detail::Lapack;
using lapack_detail::li;

// LAPACKE checks every input for NaN by default and refuses it; NaN propagates here instead
// (det of a NaN matrix is NaN), as in NumPy and PyTorch.
void lapack_setup(int threads) {
  static std::once_flag once;
  std::call_once(once, [] { LAPACKE_set_nancheck(0); });
  openblas_set_num_threads(threads);
}

// Row-major (rows x cols, at `src`) <-> column-major scratch with leading dimension ld.
template <typename T>
void to_colmajor(const T* src, int64_t rows, int64_t cols, T* dst, int64_t ld) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[j * ld + i] = src[i * cols + j];
  }
}
template <typename T>
void from_colmajor(const T* src, int64_t ld, int64_t rows, int64_t cols, T* dst) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[i * cols + j] = src[j * ld + i];
  }
}

int64_t numel(const ir::Shape& s, size_t drop = 0) {
  int64_t n = 1;
  for (size_t d = 0; d + drop < s.size(); ++d) n *= s[d];
  return n;
}

// For each element of the output batch, the flat batch index of an input whose batch dims
// (the leading `in_batch_rank` dims of its shape) broadcast to `out_batch`.
std::vector<int64_t> batch_sources(const ir::Shape& out_batch, const ir::Shape& in_shape,
                                   size_t in_batch_rank) {
  const int64_t count = numel(out_batch);
  std::vector<int64_t> src(static_cast<size_t>(count));
  const size_t lead = out_batch.size() - in_batch_rank;
  std::vector<int64_t> index(out_batch.size(), 0);
  for (int64_t k = 0; k < count; ++k) {
    int64_t flat = 0;
    for (size_t d = 0; d < in_batch_rank; ++d) {
      flat = flat * in_shape[d] + (in_shape[d] == 1 ? 0 : index[lead + d]);
    }
    src[static_cast<size_t>(k)] = flat;
    for (int64_t d = static_cast<int64_t>(out_batch.size()) - 1;
         d >= 0 && ++index[d] == out_batch[d]; --d) {
      index[d] = 0;
    }
  }
  return src;
}

// Runs fn(b) for b in [0, count), one matrix per thread; fn returns 0 or a LAPACK info code.
// Returns the first batch element (in order) with a non-zero code, or -1.
template <typename Fn>
int64_t for_each_matrix(const KernelContext& ctx, int64_t count, std::vector<li>& info, Fn fn) {
  info.assign(static_cast<size_t>(count), 0);
  lapack_setup(count > 1 ? 1 : ctx.threads);
  const int threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(ctx.threads, count)));
  // As parallel_for: an exception (a work vector of fn's own that cannot be allocated) is kept
  // and rethrown after the region, which it must not leave.
  std::exception_ptr first;
#pragma omp parallel for schedule(dynamic) num_threads(threads) if (threads > 1)
  for (int64_t b = 0; b < count; ++b) {
    try {
      info[static_cast<size_t>(b)] = fn(b);
    } catch (...) {
#pragma omp critical(tensord_for_each_matrix_error)
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
  for (int64_t b = 0; b < count; ++b) {
    if (info[static_cast<size_t>(b)] != 0) return b;
  }
  return -1;
}

[[noreturn]] void data_error(Op op, const std::string& what, int64_t batch, int64_t count) {
  std::string where = count > 1 ? " (batch element " + std::to_string(batch) + ")" : "";
  throw Error(ErrorCode::Shape, std::string(ir::name(op)) + ": " + what + where);
}

[[noreturn]] void lapack_failed(Op op, const char* routine, li info, int64_t batch, int64_t count) {
  if (info == LAPACK_WORK_MEMORY_ERROR) {
    throw Error(ErrorCode::OutOfMemory,
                std::string(ir::name(op)) + ": no memory for LAPACK " + routine + "'s work arrays");
  }
  if (info == kNotFinite) {
    data_error(
        op, std::string("the input contains NaN or infinity, which ") + routine + " cannot factor",
        batch, count);
  }
  if (info < 0) {
    throw Error(ErrorCode::Internal, std::string(ir::name(op)) + ": LAPACK " + routine +
                                         " rejected argument " + std::to_string(-info));
  }
  data_error(op, std::string(routine) + " did not converge (info " + std::to_string(info) + ")",
             batch, count);
}

// The singular-value cutoff of pinv and matrix_rank (docs/ops.md): max(atol, rtol * largest);
// rtol defaults to eps * max(m, n), or to 0 when only a positive atol is given.
template <typename T>
double rank_cutoff(const ir::Attrs& attrs, int64_t m, int64_t n, double largest) {
  const double atol = attrs.get_float(Attr::atol, 0.0);
  double rtol;
  if (attrs.has(Attr::rtol)) {
    rtol = attrs.get_float(Attr::rtol);
  } else if (attrs.has(Attr::atol) && atol > 0) {
    rtol = 0;
  } else {
    rtol = std::numeric_limits<T>::epsilon() * static_cast<double>(std::max(m, n));
  }
  return std::max(atol, rtol * largest);
}

template <typename T>
void run_typed(const KernelContext& ctx, const ir::Node& node, std::span<const TensorValue> inputs,
               const TensorValue& out) {
  const Op op = node.op;
  const TensorValue a_value = make_contiguous(ctx, inputs[0]);
  const ir::Shape& as = a_value.type.shape;
  const int64_t rank = static_cast<int64_t>(as.size());
  const int64_t m = as[rank - 2], n = as[rank - 1];
  const T* a = a_value.data<T>();
  std::vector<li> info;

  switch (op) {
    case Op::det: {
      const int64_t count = numel(as, 2);
      T* y = out.data<T>();
      for_each_matrix(ctx, count, info, [&](int64_t b) -> li {
        ScratchVector<T> work(ctx.scratch, static_cast<size_t>(n * n));
        std::vector<li> ipiv(static_cast<size_t>(n));
        to_colmajor(a + b * n * n, n, n, work.data(), n);
        // info > 0: U has an exact zero pivot, and the product below is 0, as it should be.
        if (n > 0) Lapack<T>::getrf(n, n, work.data(), n, ipiv.data());
        T d = 1;
        for (int64_t i = 0; i < n; ++i) {
          d *= work[i * n + i];
          if (ipiv[i] != i + 1) d = -d;
        }
        y[b] = d;
        return 0;
      });
      return;
    }
    case Op::inv: {
      const int64_t count = numel(as, 2);
      T* y = out.data<T>();
      const int64_t bad = for_each_matrix(ctx, count, info, [&](int64_t b) -> li {
        if (n == 0) return 0;
        ScratchVector<T> work(ctx.scratch, static_cast<size_t>(n * n));
        std::vector<li> ipiv(static_cast<size_t>(n));
        to_colmajor(a + b * n * n, n, n, work.data(), n);
        li r = Lapack<T>::getrf(n, n, work.data(), n, ipiv.data());
        if (r == 0) r = Lapack<T>::getri(ctx.scratch, n, work.data(), n, ipiv.data());
        if (r == 0) from_colmajor(work.data(), n, n, n, y + b * n * n);
        return r;
      });
      if (bad >= 0) {
        const li r = info[static_cast<size_t>(bad)];
        if (r < 0) lapack_failed(op, "getrf/getri", r, bad, count);
        data_error(op,
                   "the matrix is singular (U[" + std::to_string(r - 1) + ", " +
                       std::to_string(r - 1) + "] of its LU factorization is exactly zero)",
                   bad, count);
      }
      return;
    }
    case Op::cholesky: {
      const int64_t count = numel(as, 2);
      const bool upper = node.attrs.get_bool(Attr::upper, false);
      T* y = out.data<T>();
      const int64_t bad = for_each_matrix(ctx, count, info, [&](int64_t b) -> li {
        if (n == 0) return 0;
        ScratchVector<T> work(ctx.scratch, static_cast<size_t>(n * n));
        to_colmajor(a + b * n * n, n, n, work.data(), n);
        // The lower triangle is read (upper: the upper one), as torch.linalg.cholesky.
        const li r = Lapack<T>::potrf(upper ? 'U' : 'L', n, work.data(), n);
        if (r != 0) return r;
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            const bool keep = upper ? j >= i : j <= i;
            y[b * n * n + i * n + j] = keep ? work[j * n + i] : T(0);
          }
        }
        return 0;
      });
      if (bad >= 0) {
        const li r = info[static_cast<size_t>(bad)];
        if (r < 0) lapack_failed(op, "potrf", r, bad, count);
        data_error(op,
                   "the matrix is not positive-definite (its leading minor of order " +
                       std::to_string(r) + " is not positive)",
                   bad, count);
      }
      return;
    }
    case Op::eigvalsh: {
      const int64_t count = numel(as, 2);
      const bool upper = node.attrs.get_bool(Attr::upper, false);
      T* y = out.data<T>();
      const int64_t bad = for_each_matrix(ctx, count, info, [&](int64_t b) -> li {
        if (n == 0) return 0;
        ScratchVector<T> work(ctx.scratch, static_cast<size_t>(n * n));
        to_colmajor(a + b * n * n, n, n, work.data(), n);
        return Lapack<T>::syevd(ctx.scratch, 'N', upper ? 'U' : 'L', n, work.data(), n, y + b * n);
      });
      if (bad >= 0) lapack_failed(op, "syevd", info[static_cast<size_t>(bad)], bad, count);
      return;
    }
    case Op::svdvals: {
      const int64_t count = numel(as, 2), k = std::min(m, n);
      T* y = out.data<T>();
      const int64_t bad = for_each_matrix(ctx, count, info, [&](int64_t b) -> li {
        if (k == 0) return 0;
        ScratchVector<T> work(ctx.scratch, static_cast<size_t>(m * n));
        to_colmajor(a + b * m * n, m, n, work.data(), m);
        return Lapack<T>::gesdd(ctx.scratch, 'N', m, n, work.data(), m, y + b * k, nullptr, 1,
                                nullptr, 1);
      });
      if (bad >= 0) lapack_failed(op, "gesdd", info[static_cast<size_t>(bad)], bad, count);
      return;
    }
    case Op::pinv:
    case Op::matrix_rank: {
      const int64_t count = numel(as, 2), k = std::min(m, n);
      const bool hermitian = node.attrs.get_bool(Attr::hermitian, false);
      const bool want_pinv = op == Op::pinv;
      const int64_t bad = for_each_matrix(ctx, count, info, [&](int64_t b) -> li {
        // pinv = V diag(1/s) U^T over the singular values above the cutoff; a Hermitian
        // matrix uses its eigendecomposition (U = V, s = |w| with w's sign kept in 1/w).
        ScratchVector<T> work(ctx.scratch, static_cast<size_t>(m * n)),
            s(ctx.scratch, static_cast<size_t>(k));
        const bool factors = k > 0 && !hermitian && want_pinv;
        ScratchVector<T> u(ctx.scratch, factors ? static_cast<size_t>(m * k) : 0),
            vt(ctx.scratch, factors ? static_cast<size_t>(k * n) : 0);
        li r = 0;
        if (k > 0) {
          to_colmajor(a + b * m * n, m, n, work.data(), m);
          if (hermitian) {
            r = Lapack<T>::syevd(ctx.scratch, want_pinv ? 'V' : 'N', 'L', n, work.data(), n,
                                 s.data());
          } else if (want_pinv) {
            r = Lapack<T>::gesdd(ctx.scratch, 'S', m, n, work.data(), m, s.data(), u.data(), m,
                                 vt.data(), k);
          } else {
            r = Lapack<T>::gesdd(ctx.scratch, 'N', m, n, work.data(), m, s.data(), nullptr, 1,
                                 nullptr, 1);
          }
          if (r != 0) return r;
        }
        double largest = 0;
        for (T v : s) largest = std::max(largest, static_cast<double>(std::fabs(v)));
        const double cutoff = rank_cutoff<T>(node.attrs, m, n, largest);
        if (!want_pinv) {
          int64_t rank_count = 0;
          for (T v : s) rank_count += std::fabs(v) > cutoff;
          out.data<int64_t>()[b] = rank_count;
          return 0;
        }
        T* y = out.data<T>() + b * n * m;  // (n, m) row-major
        std::fill(y, y + n * m, T(0));
        for (int64_t l = 0; l < k; ++l) {
          if (!(std::fabs(s[l]) > cutoff)) continue;
          const T inv_s = T(1) / s[l];
          for (int64_t i = 0; i < n; ++i) {
            // V[i, l]: vt is k x n column-major, so V[i, l] = vt[i * k + l]; Hermitian: the
            // eigenvector matrix (n x n column-major) in work.
            const T vil = hermitian ? work[l * n + i] : vt[i * k + l];
            if (vil == 0) continue;
            const T f = vil * inv_s;
            for (int64_t j = 0; j < m; ++j) {
              const T ujl = hermitian ? work[l * n + j] : u[l * m + j];
              y[i * m + j] += f * ujl;
            }
          }
        }
        return 0;
      });
      if (bad >= 0) {
        lapack_failed(op, hermitian ? "syevd" : "gesdd", info[static_cast<size_t>(bad)], bad,
                      count);
      }
      return;
    }
    case Op::solve: {
      const TensorValue b_value = make_contiguous(ctx, inputs[1]);
      const ir::Shape& bs = b_value.type.shape;
      const ir::Shape& os = out.type.shape;
      // The vector case: B (..., n) and the output (..., n), one right-hand side.
      const bool vector = static_cast<int64_t>(os.size()) == rank - 1 || bs.size() == 1;
      const size_t out_core = vector ? 1 : 2;
      const ir::Shape batch(os.begin(), os.end() - static_cast<int64_t>(out_core));
      const int64_t count = numel(batch);
      const int64_t nrhs = vector ? 1 : bs.back();
      const std::vector<int64_t> a_src = batch_sources(batch, as, as.size() - 2);
      const std::vector<int64_t> b_src = batch_sources(batch, bs, bs.size() - out_core);
      const T* bdata = b_value.data<T>();
      T* y = out.data<T>();
      const int64_t bad = for_each_matrix(ctx, count, info, [&](int64_t b) -> li {
        T* yb = y + b * n * nrhs;
        if (n == 0 || nrhs == 0) return 0;
        ScratchVector<T> work(ctx.scratch, static_cast<size_t>(n * n)),
            rhs(ctx.scratch, static_cast<size_t>(n * nrhs));
        std::vector<li> ipiv(static_cast<size_t>(n));
        to_colmajor(a + a_src[b] * n * n, n, n, work.data(), n);
        to_colmajor(bdata + b_src[b] * n * nrhs, n, nrhs, rhs.data(), n);
        const li r = Lapack<T>::gesv(n, nrhs, work.data(), n, ipiv.data(), rhs.data(), n);
        if (r == 0) from_colmajor(rhs.data(), n, n, nrhs, yb);
        return r;
      });
      if (bad >= 0) {
        const li r = info[static_cast<size_t>(bad)];
        if (r < 0) lapack_failed(op, "gesv", r, bad, count);
        data_error(op,
                   "A is singular (U[" + std::to_string(r - 1) + ", " + std::to_string(r - 1) +
                       "] of its LU factorization is exactly zero)",
                   bad, count);
      }
      return;
    }
    default:
      break;
  }
  throw Error(ErrorCode::Internal, "no linear algebra kernel for " + std::string(ir::name(op)));
}

// lstsq: (solution, residuals, rank, singular_values) of gelsd per matrix (docs/ops.md). A and
// B's batch dims broadcast; every output has the broadcast batch.
template <typename T>
void run_lstsq(const KernelContext& ctx, const ir::Node& node, std::span<const TensorValue> inputs,
               std::span<const TensorValue> outputs) {
  const TensorValue a_value = make_contiguous(ctx, inputs[0]);
  const TensorValue b_value = make_contiguous(ctx, inputs[1]);
  const ir::Shape &as = a_value.type.shape, &bs = b_value.type.shape;
  const int64_t m = as[as.size() - 2], n = as.back(), k = std::min(m, n), nrhs = bs.back();
  const ir::Shape& os = outputs[0].type.shape;
  const ir::Shape batch(os.begin(), os.end() - 2);
  const int64_t count = numel(batch);
  const std::vector<int64_t> a_src = batch_sources(batch, as, as.size() - 2);
  const std::vector<int64_t> b_src = batch_sources(batch, bs, bs.size() - 2);
  const T* a = a_value.data<T>();
  const T* bdata = b_value.data<T>();
  T* x = outputs[0].data<T>();
  T* residuals = m > n ? outputs[1].data<T>() : nullptr;
  int64_t* ranks = outputs[2].data<int64_t>();
  T* sv = outputs[3].data<T>();
  const double rcond = node.attrs.get_float(
      Attr::rtol, std::numeric_limits<T>::epsilon() * static_cast<double>(std::max(m, n)));
  std::vector<li> info;
  const int64_t bad = for_each_matrix(ctx, count, info, [&](int64_t b) -> li {
    T* xb = x + b * n * nrhs;
    const T* ab = a + a_src[b] * m * n;
    const T* bb = bdata + b_src[b] * m * nrhs;
    ranks[b] = 0;
    std::fill(xb, xb + n * nrhs, T(0));  // no equations or no unknowns: the solution is 0
    // gelsd needs one right-hand side at least for the rank and singular values of A alone.
    const int64_t cols = std::max<int64_t>(nrhs, 1), ldb = std::max<int64_t>({m, n, 1});
    ScratchVector<T> rhs(ctx.scratch, static_cast<size_t>(ldb * cols), T(0));
    if (k > 0) {
      ScratchVector<T> work(ctx.scratch, static_cast<size_t>(m * n));
      to_colmajor(ab, m, n, work.data(), m);
      to_colmajor(bb, m, nrhs, rhs.data(), ldb);
      li rank_found = 0;
      const li r = Lapack<T>::gelsd(ctx.scratch, m, n, cols, work.data(), m, rhs.data(), ldb,
                                    sv + b * k, static_cast<T>(rcond), &rank_found);
      if (r != 0) return r;
      ranks[b] = rank_found;
      from_colmajor(rhs.data(), ldb, n, nrhs, xb);
    }
    if (residuals == nullptr) return 0;
    for (int64_t c = 0; c < nrhs; ++c) {
      double sum = 0;
      if (k > 0 && ranks[b] == n) {
        // Full rank: gelsd leaves Q^T b's components outside A's range in rows n .. m-1.
        for (int64_t i = n; i < m; ++i) {
          const double v = rhs[c * ldb + i];
          sum += v * v;
        }
      } else {
        // Rank-deficient (or n = 0): |A x - b|^2 from its definition.
        for (int64_t i = 0; i < m; ++i) {
          double v = -static_cast<double>(bb[i * nrhs + c]);
          for (int64_t j = 0; j < n; ++j) {
            v += static_cast<double>(ab[i * n + j]) * static_cast<double>(xb[j * nrhs + c]);
          }
          sum += v * v;
        }
      }
      residuals[b * nrhs + c] = static_cast<T>(sum);
    }
    return 0;
  });
  if (bad >= 0) lapack_failed(Op::lstsq, "gelsd", info[static_cast<size_t>(bad)], bad, count);
}

// slogdet, eigh, qr, svd, lstsq: every output of the node in one factorization per matrix.
template <typename T>
void run_typed_multi(const KernelContext& ctx, const ir::Node& node,
                     std::span<const TensorValue> inputs, std::span<const TensorValue> outputs) {
  const Op op = node.op;
  if (op == Op::lstsq) return run_lstsq<T>(ctx, node, inputs, outputs);
  const TensorValue a_value = make_contiguous(ctx, inputs[0]);
  const ir::Shape& as = a_value.type.shape;
  const int64_t rank = static_cast<int64_t>(as.size());
  const int64_t m = as[rank - 2], n = as[rank - 1], k = std::min(m, n);
  const int64_t count = numel(as, 2);
  const T* a = a_value.data<T>();
  std::vector<li> info;
  switch (op) {
    case Op::slogdet: {
      T* sign = outputs[0].data<T>();
      T* logabs = outputs[1].data<T>();
      for_each_matrix(ctx, count, info, [&](int64_t b) -> li {
        ScratchVector<T> work(ctx.scratch, static_cast<size_t>(n * n));
        std::vector<li> ipiv(static_cast<size_t>(n));
        to_colmajor(a + b * n * n, n, n, work.data(), n);
        if (n > 0) Lapack<T>::getrf(n, n, work.data(), n, ipiv.data());
        T s = 1, l = 0;
        for (int64_t i = 0; i < n; ++i) {
          const T u = work[i * n + i];
          if (u < 0) s = -s;
          if (ipiv[i] != i + 1) s = -s;
          l += std::log(std::fabs(u));
          if (u == 0) s = 0;
          if (u != u) s = u;  // NaN
        }
        if (s == 0) l = -std::numeric_limits<T>::infinity();
        sign[b] = s;
        logabs[b] = l;
        return 0;
      });
      return;
    }
    case Op::eigh: {
      const bool upper = node.attrs.get_bool(Attr::upper, false);
      T* w = outputs[0].data<T>();
      T* v = outputs[1].data<T>();
      const int64_t bad = for_each_matrix(ctx, count, info, [&](int64_t b) -> li {
        if (n == 0) return 0;
        ScratchVector<T> work(ctx.scratch, static_cast<size_t>(n * n));
        to_colmajor(a + b * n * n, n, n, work.data(), n);
        const li r =
            Lapack<T>::syevd(ctx.scratch, 'V', upper ? 'U' : 'L', n, work.data(), n, w + b * n);
        if (r == 0) from_colmajor(work.data(), n, n, n, v + b * n * n);
        return r;
      });
      if (bad >= 0) lapack_failed(op, "syevd", info[static_cast<size_t>(bad)], bad, count);
      return;
    }
    case Op::qr: {
      // Householder QR (geqrf), Q formed by orgqr: reduced Q (m, k), R (k, n); complete Q
      // (m, m), R (m, n).
      const bool complete = node.attrs.get_int(Attr::mode, 0) == 1;
      const int64_t qcols = complete ? m : k, rrows = qcols;
      T* q = outputs[0].data<T>();
      T* r = outputs[1].data<T>();
      const int64_t bad = for_each_matrix(ctx, count, info, [&](int64_t b) -> li {
        T* qb = q + b * m * qcols;
        T* rb = r + b * rrows * n;
        const int64_t cols = std::max(n, qcols);
        ScratchVector<T> work(ctx.scratch, static_cast<size_t>(m * cols), T(0)),
            tau(ctx.scratch, static_cast<size_t>(k));
        to_colmajor(a + b * m * n, m, n, work.data(), m);
        if (k > 0) {
          const li status = Lapack<T>::geqrf(ctx.scratch, m, n, work.data(), m, tau.data());
          if (status != 0) return status;
        }
        for (int64_t i = 0; i < rrows; ++i) {
          for (int64_t j = 0; j < n; ++j) rb[i * n + j] = j >= i ? work[j * m + i] : T(0);
        }
        if (qcols == 0) return 0;
        if (k == 0) {  // no reflectors: Q is the identity
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < qcols; ++j) qb[i * qcols + j] = i == j ? T(1) : T(0);
          }
          return 0;
        }
        const li status = Lapack<T>::orgqr(ctx.scratch, m, qcols, k, work.data(), m, tau.data());
        if (status == 0) from_colmajor(work.data(), m, m, qcols, qb);
        return status;
      });
      if (bad >= 0) lapack_failed(op, "geqrf/orgqr", info[static_cast<size_t>(bad)], bad, count);
      return;
    }
    case Op::svd: {
      const bool full = node.attrs.get_bool(Attr::full_matrices, true);
      const int64_t ucols = full ? m : k, vrows = full ? n : k;
      T* u = outputs[0].data<T>();
      T* s = outputs[1].data<T>();
      T* vh = outputs[2].data<T>();
      const int64_t bad = for_each_matrix(ctx, count, info, [&](int64_t b) -> li {
        T* ub = u + b * m * ucols;
        T* vb = vh + b * vrows * n;
        if (k == 0) {  // no singular values: the full bases are identities
          for (int64_t i = 0; i < m * ucols; ++i) ub[i] = (i / ucols == i % ucols) ? T(1) : T(0);
          for (int64_t i = 0; i < vrows * n; ++i) vb[i] = (i / n == i % n) ? T(1) : T(0);
          return 0;
        }
        ScratchVector<T> work(ctx.scratch, static_cast<size_t>(m * n)),
            uc(ctx.scratch, static_cast<size_t>(m * ucols)),
            vc(ctx.scratch, static_cast<size_t>(vrows * n));
        to_colmajor(a + b * m * n, m, n, work.data(), m);
        const li r = Lapack<T>::gesdd(ctx.scratch, full ? 'A' : 'S', m, n, work.data(), m,
                                      s + b * k, uc.data(), m, vc.data(), vrows);
        if (r != 0) return r;
        from_colmajor(uc.data(), m, m, ucols, ub);
        from_colmajor(vc.data(), vrows, vrows, n, vb);
        return 0;
      });
      if (bad >= 0) lapack_failed(op, "gesdd", info[static_cast<size_t>(bad)], bad, count);
      return;
    }
    default:
      break;
  }
  throw Error(ErrorCode::Internal, "no linear algebra kernel for " + std::string(ir::name(op)));
}

}  // namespace

void run_linalg_multi(const KernelContext& ctx, const ir::Node& node,
                      std::span<const TensorValue> inputs, std::span<const TensorValue> outputs) {
  const ir::DType t = inputs[0].type.dtype;
  if (t == ir::DType::Float32) return run_typed_multi<float>(ctx, node, inputs, outputs);
  if (t == ir::DType::Float64) return run_typed_multi<double>(ctx, node, inputs, outputs);
  throw Error(ErrorCode::DType, std::string(ir::name(node.op)) + " runs on float32 and float64");
}

bool is_linalg(Op op) {
  switch (op) {
    case Op::det:
    case Op::inv:
    case Op::solve:
    case Op::cholesky:
    case Op::svdvals:
    case Op::eigvalsh:
    case Op::pinv:
    case Op::matrix_rank:
    case Op::lstsq:
    case Op::slogdet:
    case Op::qr:
    case Op::svd:
    case Op::eigh:
      return true;
    default:
      return false;
  }
}

void run_linalg(const KernelContext& ctx, const ir::Node& node, std::span<const TensorValue> inputs,
                const TensorValue& out) {
  const ir::DType t = inputs[0].type.dtype;
  if (t == ir::DType::Float32) return run_typed<float>(ctx, node, inputs, out);
  if (t == ir::DType::Float64) return run_typed<double>(ctx, node, inputs, out);
  throw Error(ErrorCode::DType, std::string(ir::name(node.op)) + " runs on float32 and float64");
}

}  // namespace tensord::cpu
