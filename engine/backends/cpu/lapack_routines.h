// The LAPACK routines the CPU backend's linear algebra calls (kernels_linalg.cpp), float and
// double under one name (Lapack<T>): LAPACKE's _work interface with the work arrays as kernel
// scratch, and the iterative routines refusing non-finite input before LAPACK sees it.
// Internal to that file's translation unit.
#pragma once

#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>

#include "engine/backends/cpu/scratch.h"

namespace tensord::cpu::lapack_detail {

using li = lapack_int;

// float and double entry points under one name. The routines that need work arrays go through
// LAPACKE's _work interface, with the sizes LAPACK asks for (a query with lwork = -1, as the
// high-level interface does), so that the arrays are kernel scratch (scratch.h).
template <typename T>
struct Lapack;

// The size a workspace query returned (LAPACK gives it as the array's element type).
inline size_t queried(double size) {
  return size > 1 ? static_cast<size_t>(size) : 1;
}

// Runs `fn`, which allocates LAPACK's work arrays and calls it; LAPACK_WORK_MEMORY_ERROR when an
// allocation fails, as LAPACKE's high-level interface answers (nothing may throw out of the
// OpenMP regions these run in).
template <typename Fn>
li with_work(Fn fn) noexcept {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return LAPACK_WORK_MEMORY_ERROR;
  }
}

// What the iterative routines (gesdd, syevd, gelsd) answer for a matrix with a NaN or an
// infinity: LAPACK itself refuses some (gesdd: "argument 4", since 3.10), loops to its iteration
// limit on others, or returns garbage (gesdd of an infinity gave 0 and 1 as singular vectors).
// PyTorch and NumPy raise for these too; det, inv, solve, cholesky and qr propagate the NaN.
constexpr li kNotFinite = std::numeric_limits<li>::min();

// Whether the rows x cols column-major matrix at `a` (leading dimension ld) is all finite.
template <typename T>
bool finite_colmajor(const T* a, li rows, li cols, li ld) {
  for (li j = 0; j < cols; ++j) {
    for (li i = 0; i < rows; ++i) {
      if (!std::isfinite(a[j * ld + i])) return false;
    }
  }
  return true;
}

// The same for the triangle of an n x n matrix that syevd reads ('L' or 'U').
template <typename T>
bool finite_triangle(const T* a, li n, li ld, char uplo) {
  for (li j = 0; j < n; ++j) {
    for (li i = uplo == 'L' ? j : 0; i < (uplo == 'L' ? n : j + 1); ++i) {
      if (!std::isfinite(a[j * ld + i])) return false;
    }
  }
  return true;
}

#define TENSORD_LAPACK(T, p)                                                                      \
  template <>                                                                                     \
  struct Lapack<T> {                                                                              \
    static li getrf(li m, li n, T* a, li lda, li* ipiv) {                                         \
      return LAPACKE_##p##getrf(LAPACK_COL_MAJOR, m, n, a, lda, ipiv);                            \
    }                                                                                             \
    static li getri(const ScratchSite& sc, li n, T* a, li lda, const li* ipiv) {                  \
      return with_work([&] {                                                                      \
        T q = 0;                                                                                  \
        li r = LAPACKE_##p##getri_work(LAPACK_COL_MAJOR, n, a, lda, ipiv, &q, -1);                \
        if (r != 0) return r;                                                                     \
        ScratchVector<T> work(sc, queried(q));                                                    \
        return LAPACKE_##p##getri_work(LAPACK_COL_MAJOR, n, a, lda, ipiv, work.data(),            \
                                       static_cast<li>(work.size()));                             \
      });                                                                                         \
    }                                                                                             \
    static li gesv(li n, li nrhs, T* a, li lda, li* ipiv, T* b, li ldb) {                         \
      return LAPACKE_##p##gesv(LAPACK_COL_MAJOR, n, nrhs, a, lda, ipiv, b, ldb);                  \
    }                                                                                             \
    static li potrf(char uplo, li n, T* a, li lda) {                                              \
      return LAPACKE_##p##potrf(LAPACK_COL_MAJOR, uplo, n, a, lda);                               \
    }                                                                                             \
    static li gesdd(const ScratchSite& sc, char jobz, li m, li n, T* a, li lda, T* s, T* u,       \
                    li ldu, T* vt, li ldvt) {                                                     \
      if (!finite_colmajor(a, m, n, lda)) return kNotFinite;                                      \
      return with_work([&] {                                                                      \
        ScratchVector<li> iwork(sc, static_cast<size_t>(8 * std::max<li>(1, std::min(m, n))));    \
        T q = 0;                                                                                  \
        li r = LAPACKE_##p##gesdd_work(LAPACK_COL_MAJOR, jobz, m, n, a, lda, s, u, ldu, vt, ldvt, \
                                       &q, -1, iwork.data());                                     \
        if (r != 0) return r;                                                                     \
        ScratchVector<T> work(sc, queried(q));                                                    \
        return LAPACKE_##p##gesdd_work(LAPACK_COL_MAJOR, jobz, m, n, a, lda, s, u, ldu, vt, ldvt, \
                                       work.data(), static_cast<li>(work.size()), iwork.data());  \
      });                                                                                         \
    }                                                                                             \
    static li syevd(const ScratchSite& sc, char jobz, char uplo, li n, T* a, li lda, T* w) {      \
      if (!finite_triangle(a, n, lda, uplo)) return kNotFinite;                                   \
      return with_work([&] {                                                                      \
        T q = 0;                                                                                  \
        li iq = 0;                                                                                \
        li r =                                                                                    \
            LAPACKE_##p##syevd_work(LAPACK_COL_MAJOR, jobz, uplo, n, a, lda, w, &q, -1, &iq, -1); \
        if (r != 0) return r;                                                                     \
        ScratchVector<T> work(sc, queried(q));                                                    \
        ScratchVector<li> iwork(sc, queried(iq));                                                 \
        return LAPACKE_##p##syevd_work(LAPACK_COL_MAJOR, jobz, uplo, n, a, lda, w, work.data(),   \
                                       static_cast<li>(work.size()), iwork.data(),                \
                                       static_cast<li>(iwork.size()));                            \
      });                                                                                         \
    }                                                                                             \
    static li gelsd(const ScratchSite& sc, li m, li n, li nrhs, T* a, li lda, T* b, li ldb, T* s, \
                    T rcond, li* rank) {                                                          \
      if (!finite_colmajor(a, m, n, lda) || !finite_colmajor(b, m, nrhs, ldb)) return kNotFinite; \
      return with_work([&] {                                                                      \
        T q = 0;                                                                                  \
        li iq = 0;                                                                                \
        li r = LAPACKE_##p##gelsd_work(LAPACK_COL_MAJOR, m, n, nrhs, a, lda, b, ldb, s, rcond,    \
                                       rank, &q, -1, &iq);                                        \
        if (r != 0) return r;                                                                     \
        ScratchVector<T> work(sc, queried(q));                                                    \
        ScratchVector<li> iwork(sc, queried(iq));                                                 \
        return LAPACKE_##p##gelsd_work(LAPACK_COL_MAJOR, m, n, nrhs, a, lda, b, ldb, s, rcond,    \
                                       rank, work.data(), static_cast<li>(work.size()),           \
                                       iwork.data());                                             \
      });                                                                                         \
    }                                                                                             \
    static li geqrf(const ScratchSite& sc, li m, li n, T* a, li lda, T* tau) {                    \
      return with_work([&] {                                                                      \
        T q = 0;                                                                                  \
        li r = LAPACKE_##p##geqrf_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, &q, -1);              \
        if (r != 0) return r;                                                                     \
        ScratchVector<T> work(sc, queried(q));                                                    \
        return LAPACKE_##p##geqrf_work(LAPACK_COL_MAJOR, m, n, a, lda, tau, work.data(),          \
                                       static_cast<li>(work.size()));                             \
      });                                                                                         \
    }                                                                                             \
    static li orgqr(const ScratchSite& sc, li m, li n, li k, T* a, li lda, const T* tau) {        \
      return with_work([&] {                                                                      \
        T q = 0;                                                                                  \
        li r = LAPACKE_##p##orgqr_work(LAPACK_COL_MAJOR, m, n, k, a, lda, tau, &q, -1);           \
        if (r != 0) return r;                                                                     \
        ScratchVector<T> work(sc, queried(q));                                                    \
        return LAPACKE_##p##orgqr_work(LAPACK_COL_MAJOR, m, n, k, a, lda, tau, work.data(),       \
                                       static_cast<li>(work.size()));                             \
      });                                                                                         \
    }                                                                                             \
  };
TENSORD_LAPACK(float, s)
TENSORD_LAPACK(double, d)
#undef TENSORD_LAPACK

}  // namespace tensord::cpu::lapack_detail
