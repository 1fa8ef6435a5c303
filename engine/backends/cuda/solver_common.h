// What the cuSOLVER family's files share: the cusolverDn handle (FamilyStates::solver), the
// float/double routines under one name, device scratch for one node, the per-matrix info codes
// read back to the host, and the errors the CPU backend raises for the same data
// (kernels_linalg.cpp: a Shape error naming the op and the batch element).
//
// First version: cuSOLVER's routines run one matrix at a time in a host loop over the batch
// (the legacy single-matrix API, int sizes); the small kernels around them are batched.
#pragma once

#include <cusolverDn.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/fft_strided_copy.h"
#include "engine/ir/error.h"

namespace tensord::cuda::solver {

void check_solver(cusolverStatus_t status, const char* what);

// The backend's cusolverDn handle, created on first use, bound to ctx.stream.
cusolverDnHandle_t handle(CudaContext& ctx);

// float32 and float64 routines of cusolverDn under one name.
template <typename T>
struct Dn;

#define TENSORD_CUSOLVER(T, p)                                                                    \
  template <>                                                                                     \
  struct Dn<T> {                                                                                  \
    static int getrf_lwork(cusolverDnHandle_t h, int m, int n, T* a, int lda) {                   \
      int l = 0;                                                                                  \
      check_solver(cusolverDn##p##getrf_bufferSize(h, m, n, a, lda, &l), "getrf_bufferSize");     \
      return l;                                                                                   \
    }                                                                                             \
    static void getrf(cusolverDnHandle_t h, int m, int n, T* a, int lda, T* w, int* ipiv,         \
                      int* info) {                                                                \
      check_solver(cusolverDn##p##getrf(h, m, n, a, lda, w, ipiv, info), "getrf");                \
    }                                                                                             \
    static void getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, int nrhs, const T* a,     \
                      int lda, const int* ipiv, T* b, int ldb, int* info) {                       \
      check_solver(cusolverDn##p##getrs(h, t, n, nrhs, a, lda, ipiv, b, ldb, info), "getrs");     \
    }                                                                                             \
    static int potrf_lwork(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a, int lda) {      \
      int l = 0;                                                                                  \
      check_solver(cusolverDn##p##potrf_bufferSize(h, u, n, a, lda, &l), "potrf_bufferSize");     \
      return l;                                                                                   \
    }                                                                                             \
    static void potrf(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a, int lda, T* w,       \
                      int lw, int* info) {                                                        \
      check_solver(cusolverDn##p##potrf(h, u, n, a, lda, w, lw, info), "potrf");                  \
    }                                                                                             \
    static int geqrf_lwork(cusolverDnHandle_t h, int m, int n, T* a, int lda) {                   \
      int l = 0;                                                                                  \
      check_solver(cusolverDn##p##geqrf_bufferSize(h, m, n, a, lda, &l), "geqrf_bufferSize");     \
      return l;                                                                                   \
    }                                                                                             \
    static void geqrf(cusolverDnHandle_t h, int m, int n, T* a, int lda, T* tau, T* w, int lw,    \
                      int* info) {                                                                \
      check_solver(cusolverDn##p##geqrf(h, m, n, a, lda, tau, w, lw, info), "geqrf");             \
    }                                                                                             \
    static int orgqr_lwork(cusolverDnHandle_t h, int m, int n, int k, const T* a, int lda,        \
                           const T* tau) {                                                        \
      int l = 0;                                                                                  \
      check_solver(cusolverDn##p##orgqr_bufferSize(h, m, n, k, a, lda, tau, &l),                  \
                   "orgqr_bufferSize");                                                           \
      return l;                                                                                   \
    }                                                                                             \
    static void orgqr(cusolverDnHandle_t h, int m, int n, int k, T* a, int lda, const T* tau,     \
                      T* w, int lw, int* info) {                                                  \
      check_solver(cusolverDn##p##orgqr(h, m, n, k, a, lda, tau, w, lw, info), "orgqr");          \
    }                                                                                             \
    static int gesvd_lwork(cusolverDnHandle_t h, int m, int n) {                                  \
      int l = 0;                                                                                  \
      check_solver(cusolverDn##p##gesvd_bufferSize(h, m, n, &l), "gesvd_bufferSize");             \
      return l;                                                                                   \
    }                                                                                             \
    static void gesvd(cusolverDnHandle_t h, signed char ju, signed char jvt, int m, int n, T* a,  \
                      int lda, T* s, T* u, int ldu, T* vt, int ldvt, T* w, int lw, T* rw,         \
                      int* info) {                                                                \
      check_solver(                                                                               \
          cusolverDn##p##gesvd(h, ju, jvt, m, n, a, lda, s, u, ldu, vt, ldvt, w, lw, rw, info),   \
          "gesvd");                                                                               \
    }                                                                                             \
    static int syevd_lwork(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n,  \
                           const T* a, int lda, const T* wv) {                                    \
      int l = 0;                                                                                  \
      check_solver(cusolverDn##p##syevd_bufferSize(h, j, u, n, a, lda, wv, &l),                   \
                   "syevd_bufferSize");                                                           \
      return l;                                                                                   \
    }                                                                                             \
    static void syevd(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, T* a, \
                      int lda, T* wv, T* w, int lw, int* info) {                                  \
      check_solver(cusolverDn##p##syevd(h, j, u, n, a, lda, wv, w, lw, info), "syevd");           \
    }                                                                                             \
  };
TENSORD_CUSOLVER(float, S)
TENSORD_CUSOLVER(double, D)
#undef TENSORD_CUSOLVER

// Device scratch for one node, kept until the node is done (the allocator orders reuse on the
// stream anyway; holding it makes the lifetime obvious).
class Scratch {
 public:
  explicit Scratch(CudaContext& ctx) : ctx_(ctx) {}
  template <typename T>
  T* alloc(int64_t count) {
    const size_t bytes = static_cast<size_t>(count > 0 ? count : 1) * sizeof(T);
    buffers_.push_back(ctx_.scratch(bytes));
    return static_cast<T*>(buffers_.back()->data());
  }

 private:
  CudaContext& ctx_;
  std::vector<std::shared_ptr<engine::Buffer>> buffers_;
};

// `count` info codes written by the routines on the device, read back (one synchronization).
std::vector<int> read_infos(CudaContext& ctx, const int* infos, int64_t count);
// The first non-zero code, or -1.
int64_t first_bad(const std::vector<int>& infos);

[[noreturn]] void data_error(ir::Op op, const std::string& what, int64_t batch, int64_t count);
// A routine's failure as the CPU reports LAPACK's: a negative code is Internal (an argument
// cuSOLVER rejected), a positive one a Shape error "<routine> did not converge (info N)".
[[noreturn]] void routine_failed(ir::Op op, const char* routine, int info, int64_t batch,
                                 int64_t count);

// Sizes cuSOLVER's int API can take; Unsupported naming the op otherwise.
int as_int(ir::Op op, int64_t v);

int64_t numel_prefix(const ir::Shape& s, size_t drop);
std::vector<int64_t> strides_of(const engine::TensorValue& v);
const void* data_of(const engine::TensorValue& v);
// An output's first element (null for a value without a buffer: an empty one).
inline void* out_ptr(const engine::TensorValue& v) {
  return v.buffer ? v.raw() : nullptr;
}
template <typename T>
T* out_data(const engine::TensorValue& v) {
  return static_cast<T*>(out_ptr(v));
}

// A view of `count` matrices (batch dims `batch`, `per_matrix` elements apart) whose element
// (i, j) of rows x cols is at i * s0 + j * s1 of its matrix.
DeviceView matrices(const void* data, ir::DType t, const ir::Shape& batch, int64_t per_matrix,
                    int64_t rows, int64_t cols, int64_t s0, int64_t s1);

// `view` copied into fresh contiguous scratch (its own shape, row-major).
template <typename T>
T* contiguous_copy(CudaContext& ctx, Scratch& scratch, const DeviceView& view, ir::DType t) {
  const int64_t n = ir::numel(view.shape);
  T* dst = scratch.alloc<T>(n);
  if (n > 0) strided_copy(ctx, view, view.shape, dst, t, ir::contiguous_strides(view.shape));
  return dst;
}

// Launches solver_kernels.h's `base` kernel for `t` over `items` items.
void launch_solver_kernel(CudaContext& ctx, const char* base, ir::DType t, int64_t items,
                          void** args);

// The op families of this folder, one per file: solver_factor.cpp (det, slogdet, inv, solve,
// cholesky, eigvalsh, eigh, qr), solver_svd.cpp (svdvals, svd, pinv, matrix_rank, lstsq),
// solver_distance.cpp (cdist, pdist). Inputs are float32/float64 of one dtype (checked).
template <typename T>
void run_factor(CudaContext& ctx, const ir::Node& node, Values in, Values out);
template <typename T>
void run_svd(CudaContext& ctx, const ir::Node& node, Values in, Values out);
template <typename T>
void run_distance(CudaContext& ctx, const ir::Node& node, Values in, Values out);

}  // namespace tensord::cuda::solver
