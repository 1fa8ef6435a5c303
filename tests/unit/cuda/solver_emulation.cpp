// cuSOLVER's legacy dense API (the routines solver_common.h's Dn<T> calls) on the host through
// LAPACK, for the emulated CUDA backend (movement_emulation.cpp: device memory is host memory):
// the solver family's host code, its NVRTC kernels and its calling conventions (column-major
// copies, jobs, leading dimensions, triangles) then run without a GPU. cuSOLVER mirrors LAPACK
// argument for argument, so each routine is one LAPACKE call; workspace sizes are 1 (LAPACKE
// allocates its own). This checks the family's logic, not cuSOLVER: the conformance table on a
// GPU does that.
#include <cusolverDn.h>
#include <lapacke.h>

#include <algorithm>
#include <vector>

namespace {

char fill(cublasFillMode_t u) {
  return u == CUBLAS_FILL_MODE_LOWER ? 'L' : 'U';
}

char job(cusolverEigMode_t j) {
  return j == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N';
}

char op(cublasOperation_t t) {
  return t == CUBLAS_OP_N ? 'N' : 'T';
}

cusolverStatus_t done(lapack_int info, int* dev_info) {
  *dev_info = static_cast<int>(info);
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t one(int* lwork) {
  *lwork = 1;
  return CUSOLVER_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

cusolverStatus_t CUSOLVERAPI cusolverDnCreate(cusolverDnHandle_t* handle) {
  // NaN inputs reach the routines as they reach cuSOLVER's (no argument error for them).
  LAPACKE_set_nancheck(0);
  static int token = 0;
  *handle = reinterpret_cast<cusolverDnHandle_t>(&token);
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t CUSOLVERAPI cusolverDnDestroy(cusolverDnHandle_t) {
  return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t CUSOLVERAPI cusolverDnSetStream(cusolverDnHandle_t, cudaStream_t) {
  return CUSOLVER_STATUS_SUCCESS;
}

#define TENSORD_EMU_SOLVER(T, p, P)                                                                \
  cusolverStatus_t CUSOLVERAPI cusolverDn##P##getrf_bufferSize(cusolverDnHandle_t, int, int, T*,   \
                                                               int, int* lwork) {                  \
    return one(lwork);                                                                             \
  }                                                                                                \
  cusolverStatus_t CUSOLVERAPI cusolverDn##P##getrf(cusolverDnHandle_t, int m, int n, T* a,        \
                                                    int lda, T*, int* ipiv, int* info) {           \
    return done(LAPACKE_##p##getrf(LAPACK_COL_MAJOR, m, n, a, lda, ipiv), info);                   \
  }                                                                                                \
  cusolverStatus_t CUSOLVERAPI cusolverDn##P##getrs(cusolverDnHandle_t, cublasOperation_t t,       \
                                                    int n, int nrhs, const T* a, int lda,          \
                                                    const int* ipiv, T* b, int ldb, int* info) {   \
    return done(LAPACKE_##p##getrs(LAPACK_COL_MAJOR, op(t), n, nrhs, a, lda, ipiv, b, ldb), info); \
  }                                                                                                \
  cusolverStatus_t CUSOLVERAPI cusolverDn##P##potrf_bufferSize(                                    \
      cusolverDnHandle_t, cublasFillMode_t, int, T*, int, int* lwork) {                            \
    return one(lwork);                                                                             \
  }                                                                                                \
  cusolverStatus_t CUSOLVERAPI cusolverDn##P##potrf(cusolverDnHandle_t, cublasFillMode_t u, int n, \
                                                    T* a, int lda, T*, int, int* info) {           \
    return done(LAPACKE_##p##potrf(LAPACK_COL_MAJOR, fill(u), n, a, lda), info);                   \
  }                                                                                                \
  cusolverStatus_t CUSOLVERAPI cusolverDn##P##geqrf_bufferSize(cusolverDnHandle_t, int, int, T*,   \
                                                               int, int* lwork) {                  \
    return one(lwork);                                                                             \
  }                                                                                                \
  cusolverStatus_t CUSOLVERAPI cusolverDn##P##geqrf(cusolverDnHandle_t, int m, int n, T* a,        \
                                                    int lda, T* tau, T*, int, int* info) {         \
    return done(LAPACKE_##p##geqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau), info);                    \
  }                                                                                                \
  cusolverStatus_t CUSOLVERAPI cusolverDn##P##orgqr_bufferSize(                                    \
      cusolverDnHandle_t, int, int, int, const T*, int, const T*, int* lwork) {                    \
    return one(lwork);                                                                             \
  }                                                                                                \
  cusolverStatus_t CUSOLVERAPI cusolverDn##P##orgqr(cusolverDnHandle_t, int m, int n, int k, T* a, \
                                                    int lda, const T* tau, T*, int, int* info) {   \
    return done(LAPACKE_##p##orgqr(LAPACK_COL_MAJOR, m, n, k, a, lda, tau), info);                 \
  }                                                                                                \
  cusolverStatus_t CUSOLVERAPI cusolverDn##P##gesvd_bufferSize(cusolverDnHandle_t, int, int,       \
                                                               int* lwork) {                       \
    return one(lwork);                                                                             \
  }                                                                                                \
  cusolverStatus_t CUSOLVERAPI cusolverDn##P##gesvd(                                               \
      cusolverDnHandle_t, signed char ju, signed char jvt, int m, int n, T* a, int lda, T* s,      \
      T* u, int ldu, T* vt, int ldvt, T*, int, T*, int* info) {                                    \
    std::vector<T> superb(static_cast<size_t>(std::max(1, std::min(m, n))));                       \
    return done(                                                                                   \
        LAPACKE_##p##gesvd(LAPACK_COL_MAJOR, static_cast<char>(ju), static_cast<char>(jvt), m, n,  \
                           a, lda, s, u, ldu, vt, ldvt, superb.data()),                            \
        info);                                                                                     \
  }                                                                                                \
  cusolverStatus_t CUSOLVERAPI cusolverDn##P##syevd_bufferSize(                                    \
      cusolverDnHandle_t, cusolverEigMode_t, cublasFillMode_t, int, const T*, int, const T*,       \
      int* lwork) {                                                                                \
    return one(lwork);                                                                             \
  }                                                                                                \
  cusolverStatus_t CUSOLVERAPI cusolverDn##P##syevd(cusolverDnHandle_t, cusolverEigMode_t j,       \
                                                    cublasFillMode_t u, int n, T* a, int lda,      \
                                                    T* w, T*, int, int* info) {                    \
    return done(LAPACKE_##p##syevd(LAPACK_COL_MAJOR, job(j), fill(u), n, a, lda, w), info);        \
  }

TENSORD_EMU_SOLVER(float, s, S)
TENSORD_EMU_SOLVER(double, d, D)
#undef TENSORD_EMU_SOLVER

}  // extern "C"
