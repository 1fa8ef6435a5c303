// det, slogdet, inv, solve (getrf/getrs), cholesky (potrf), eigvalsh, eigh (syevd), qr
// (geqrf/orgqr) on the CUDA backend. Each matrix of the batch is copied column-major into
// scratch (the strided copy with the last two dims swapped, batch broadcast included), so that
// cuSOLVER factors the very matrix the CPU's LAPACK factors: the same pivots come out exactly
// zero for singular inputs, the same triangle is read. Results go back row-major through the
// same copy, or are solved transposed straight into the output (inv).
#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/solver_common.h"
#include "engine/backends/cuda/solver_layout.h"

namespace tensord::cuda::solver {
namespace {

using ir::Attr;
using ir::DType;
using ir::Op;

struct Batch {
  ir::Shape batch;
  int64_t count = 0, m = 0, n = 0;
};

Batch batch_of(const engine::TensorValue& a) {
  const ir::Shape& s = a.type.shape;
  Batch b;
  b.batch.assign(s.begin(), s.end() - 2);
  b.count = numel_prefix(s, 2);
  b.m = s[s.size() - 2];
  b.n = s.back();
  return b;
}

// The batch of `a` (broadcast to `batch`) as contiguous column-major matrices.
template <typename T>
T* copy_colmajor(CudaContext& ctx, Scratch& scratch, const engine::TensorValue& a,
                 const ir::Shape& batch) {
  const DeviceView v =
      batch_view(data_of(a), a.type.dtype, a.type.shape, strides_of(a), batch, 2, true);
  return contiguous_copy<T>(ctx, scratch, v, a.type.dtype);
}

// getrf of each n x n matrix at `a` (in place); pivots and infos per matrix.
template <typename T>
void lu(CudaContext& ctx, Scratch& scratch, Op op, T* a, int64_t count, int64_t n, int* ipiv,
        int* info) {
  cusolverDnHandle_t h = handle(ctx);
  const int ni = as_int(op, n);
  T* work = scratch.alloc<T>(Dn<T>::getrf_lwork(h, ni, ni, a, ni));
  for (int64_t b = 0; b < count; ++b) {
    Dn<T>::getrf(h, ni, ni, a + b * n * n, ni, work, ipiv + b * n, info + b);
  }
}

template <typename T>
void singular_check(CudaContext& ctx, Op op, const int* info, int64_t count, const char* who) {
  const std::vector<int> infos = read_infos(ctx, info, count);
  const int64_t bad = first_bad(infos);
  if (bad < 0) return;
  const int r = infos[static_cast<size_t>(bad)];
  if (r < 0) routine_failed(op, "getrf", r, bad, count);
  data_error(op,
             std::string(who) + " is singular (U[" + std::to_string(r - 1) + ", " +
                 std::to_string(r - 1) + "] of its LU factorization is exactly zero)",
             bad, count);
}

template <typename T>
void run_det(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  const Batch b = batch_of(in[0]);
  if (b.count == 0) return;
  Scratch scratch(ctx);
  // The LU of A itself (not of A^T, though the determinant is the same): the factors, and so
  // which pivots come out exactly zero, are those of the CPU's LAPACK. n = 0 leaves det 1,
  // sign 1, log 0.
  T* a = copy_colmajor<T>(ctx, scratch, in[0], b.batch);
  int* ipiv = scratch.alloc<int>(b.count * b.n);
  int* info = scratch.alloc<int>(b.count);
  // A matrix with a NaN has det NaN, as LAPACK's LU gives on the CPU (cuSOLVER's may not).
  int* nan = scratch.alloc<int>(b.count);
  const DType t = in[0].type.dtype;
  int64_t count = b.count, n = b.n, nn = b.n * b.n;
  check(cudaMemsetAsync(nan, 0, static_cast<size_t>(count) * sizeof(int), ctx.stream),
        "cudaMemsetAsync");
  if (nn > 0) {
    void* args[] = {&a, &count, &nn, &nan};
    launch_solver_kernel(ctx, "has_nan", t, count * nn, args);
  }
  if (b.n > 0) lu(ctx, scratch, node.op, a, b.count, b.n, ipiv, info);
  // A zero pivot (info > 0) is a singular matrix: det 0, slogdet (0, -inf), as on the CPU.
  if (node.op == Op::det) {
    void* y = out_ptr(out[0]);
    void* args[] = {&a, &ipiv, &nan, &count, &n, &y};
    launch_solver_kernel(ctx, "lu_det", t, count, args);
  } else {
    void* sign = out_ptr(out[0]);
    void* logabs = out_ptr(out[1]);
    void* args[] = {&a, &ipiv, &nan, &count, &n, &sign, &logabs};
    launch_solver_kernel(ctx, "lu_slogdet", t, count, args);
  }
}

// The LU of A (column-major, as the CPU's getrf sees it); getrs(trans) solves A^T X = I, and
// X = inv(A)^T column-major is inv(A) row-major: solved straight in the output.
template <typename T>
void run_inv(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  const Batch b = batch_of(in[0]);
  if (b.count == 0 || b.n == 0) return;
  Scratch scratch(ctx);
  T* a = copy_colmajor<T>(ctx, scratch, in[0], b.batch);
  int* ipiv = scratch.alloc<int>(b.count * b.n);
  int* info = scratch.alloc<int>(b.count);
  lu(ctx, scratch, node.op, a, b.count, b.n, ipiv, info);
  singular_check<T>(ctx, node.op, info, b.count, "the matrix");
  T* y = out_data<T>(out[0]);
  int64_t count = b.count, n = b.n;
  void* args[] = {&y, &count, &n, &n};
  launch_solver_kernel(ctx, "eye", in[0].type.dtype, count * n * n, args);
  cusolverDnHandle_t h = handle(ctx);
  const int ni = as_int(node.op, n);
  for (int64_t k = 0; k < count; ++k) {
    Dn<T>::getrs(h, CUBLAS_OP_T, ni, ni, a + k * n * n, ni, ipiv + k * n, y + k * n * n, ni,
                 info + k);
  }
}

// A X = B from the LU of A (column-major, as the CPU's gesv), B and X column-major.
template <typename T>
void run_solve(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  const engine::TensorValue &a = in[0], &bv = in[1], &x = out[0];
  const ir::Shape& os = x.type.shape;
  const auto rank = static_cast<int64_t>(a.type.rank());
  const bool vector = static_cast<int64_t>(os.size()) == rank - 1 || bv.type.rank() == 1;
  const size_t core = vector ? 1 : 2;
  const ir::Shape batch(os.begin(), os.end() - static_cast<int64_t>(core));
  const int64_t count = ir::numel(batch), n = a.type.shape.back();
  const int64_t nrhs = vector ? 1 : bv.type.shape.back();
  if (count == 0 || n == 0 || nrhs == 0) return;
  Scratch scratch(ctx);
  T* lu_a = copy_colmajor<T>(ctx, scratch, a, batch);
  int* ipiv = scratch.alloc<int>(count * n);
  int* info = scratch.alloc<int>(count);
  lu(ctx, scratch, node.op, lu_a, count, n, ipiv, info);
  singular_check<T>(ctx, node.op, info, count, "A");
  // B column-major (n x nrhs per matrix): a vector is its own column; a matrix is copied
  // transposed. Vectors are solved in the output itself.
  const DeviceView bview =
      batch_view(data_of(bv), bv.type.dtype, bv.type.shape, strides_of(bv), batch, core, !vector);
  T* rhs = vector ? out_data<T>(x) : scratch.alloc<T>(count * n * nrhs);
  strided_copy(ctx, bview, bview.shape, rhs, bv.type.dtype, ir::contiguous_strides(bview.shape));
  cusolverDnHandle_t h = handle(ctx);
  const int ni = as_int(node.op, n), ri = as_int(node.op, nrhs);
  for (int64_t k = 0; k < count; ++k) {
    Dn<T>::getrs(h, CUBLAS_OP_N, ni, ri, lu_a + k * n * n, ni, ipiv + k * n, rhs + k * n * nrhs, ni,
                 info + k);
  }
  if (!vector) {
    // X column-major -> the row-major output.
    const DeviceView xv = matrices(rhs, x.type.dtype, batch, n * nrhs, n, nrhs, 1, n);
    strided_copy(ctx, xv, xv.shape, out_ptr(x), x.type.dtype, ir::contiguous_strides(os));
  }
}

// potrf of A reading its lower triangle gives L (column-major) with L L^T = A; upper = true:
// the upper triangle and U with U^T U = A. The other triangle is zeroed on the way out.
template <typename T>
void run_cholesky(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  const Batch b = batch_of(in[0]);
  if (b.count == 0 || b.n == 0) return;
  const bool upper = node.attrs.get_bool(Attr::upper, false);
  Scratch scratch(ctx);
  T* a = copy_colmajor<T>(ctx, scratch, in[0], b.batch);
  int* info = scratch.alloc<int>(b.count);
  cusolverDnHandle_t h = handle(ctx);
  const int ni = as_int(node.op, b.n);
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const int lwork = Dn<T>::potrf_lwork(h, uplo, ni, a, ni);
  T* work = scratch.alloc<T>(lwork);
  for (int64_t k = 0; k < b.count; ++k) {
    Dn<T>::potrf(h, uplo, ni, a + k * b.n * b.n, ni, work, lwork, info + k);
  }
  const std::vector<int> infos = read_infos(ctx, info, b.count);
  if (const int64_t bad = first_bad(infos); bad >= 0) {
    const int r = infos[static_cast<size_t>(bad)];
    if (r < 0) routine_failed(node.op, "potrf", r, bad, b.count);
    data_error(node.op,
               "the matrix is not positive-definite (its leading minor of order " +
                   std::to_string(r) + " is not positive)",
               bad, b.count);
  }
  const DeviceView v = matrices(a, out[0].type.dtype, b.batch, b.n * b.n, b.n, b.n, 1, b.n);
  CopyOptions keep;
  keep.triangle = upper ? 2 : 1;
  strided_copy(ctx, v, v.shape, out_ptr(out[0]), out[0].type.dtype,
               ir::contiguous_strides(out[0].type.shape), keep);
}

// syevd of A reading its lower (upper) triangle. Eigenvalues ascending, straight into the
// output; eigenvectors are the columns of the column-major result.
template <typename T>
void run_eigh(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  const Batch b = batch_of(in[0]);
  if (b.count == 0 || b.n == 0) return;
  const bool upper = node.attrs.get_bool(Attr::upper, false);
  const bool vectors = node.op == Op::eigh;
  Scratch scratch(ctx);
  T* a = copy_colmajor<T>(ctx, scratch, in[0], b.batch);
  T* w = out_data<T>(out[0]);
  int* info = scratch.alloc<int>(b.count);
  cusolverDnHandle_t h = handle(ctx);
  const int ni = as_int(node.op, b.n);
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const int lwork = Dn<T>::syevd_lwork(h, jobz, uplo, ni, a, ni, w);
  T* work = scratch.alloc<T>(lwork);
  for (int64_t k = 0; k < b.count; ++k) {
    Dn<T>::syevd(h, jobz, uplo, ni, a + k * b.n * b.n, ni, w + k * b.n, work, lwork, info + k);
  }
  const std::vector<int> infos = read_infos(ctx, info, b.count);
  if (const int64_t bad = first_bad(infos); bad >= 0) {
    routine_failed(node.op, "syevd", infos[static_cast<size_t>(bad)], bad, b.count);
  }
  if (vectors) {
    const DeviceView v = matrices(a, out[1].type.dtype, b.batch, b.n * b.n, b.n, b.n, 1, b.n);
    strided_copy(ctx, v, v.shape, out_ptr(out[1]), out[1].type.dtype,
                 ir::contiguous_strides(out[1].type.shape));
  }
}

// Householder QR of A (copied transposed: column-major, ld m, max(n, qcols) columns, zeroed),
// R read off its upper triangle, Q formed in place by orgqr: reduced Q (m, k), R (k, n);
// complete Q (m, m), R (m, n).
template <typename T>
void run_qr(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  const Batch b = batch_of(in[0]);
  const int64_t m = b.m, n = b.n, k = std::min(m, n);
  const bool complete = node.attrs.get_int(Attr::mode, 0) == 1;
  const int64_t qcols = complete ? m : k, rrows = qcols, cols = std::max(n, qcols);
  if (b.count == 0) return;
  const DType t = in[0].type.dtype;
  Scratch scratch(ctx);
  const int64_t per = m * cols;
  T* a = scratch.alloc<T>(b.count * per);
  T* tau = scratch.alloc<T>(b.count * k);
  int* info = scratch.alloc<int>(b.count);
  if (per > 0) {
    check(cudaMemsetAsync(a, 0, static_cast<size_t>(b.count * per) * sizeof(T), ctx.stream),
          "cudaMemsetAsync (qr)");
    const DeviceView av = batch_view(data_of(in[0]), t, in[0].type.shape, strides_of(in[0]),
                                     b.batch, 2, true);  // (n, m): A^T row-major = A col-major
    const DeviceView dst = matrices(a, t, b.batch, per, n, m, m, 1);
    strided_copy(ctx, av, av.shape, a, t, dst.strides);
  }
  cusolverDnHandle_t h = handle(ctx);
  const int mi = as_int(node.op, m), ni = as_int(node.op, n), ki = as_int(node.op, k);
  const int qi = as_int(node.op, qcols);
  if (k > 0) {
    const int lwork = Dn<T>::geqrf_lwork(h, mi, ni, a, mi);
    T* work = scratch.alloc<T>(lwork);
    for (int64_t j = 0; j < b.count; ++j) {
      Dn<T>::geqrf(h, mi, ni, a + j * per, mi, tau + j * k, work, lwork, info + j);
    }
    const std::vector<int> infos = read_infos(ctx, info, b.count);
    if (const int64_t bad = first_bad(infos); bad >= 0) {
      routine_failed(node.op, "geqrf", infos[static_cast<size_t>(bad)], bad, b.count);
    }
  }
  // R (rrows, n) = the upper triangle of the factored matrix.
  const DeviceView rv = matrices(a, t, b.batch, per, rrows, n, 1, m);
  CopyOptions upper;
  upper.triangle = 2;
  strided_copy(ctx, rv, rv.shape, out_ptr(out[1]), t, ir::contiguous_strides(out[1].type.shape),
               upper);
  if (qcols == 0) return;
  T* q = out_data<T>(out[0]);
  if (k == 0) {  // no reflectors: Q is the identity
    int64_t count = b.count, rows = m, qc = qcols;
    void* args[] = {&q, &count, &rows, &qc};
    launch_solver_kernel(ctx, "eye", t, count * rows * qc, args);
    return;
  }
  const int lwork = Dn<T>::orgqr_lwork(h, mi, qi, ki, a, mi, tau);
  T* work = scratch.alloc<T>(lwork);
  for (int64_t j = 0; j < b.count; ++j) {
    Dn<T>::orgqr(h, mi, qi, ki, a + j * per, mi, tau + j * k, work, lwork, info + j);
  }
  const std::vector<int> infos = read_infos(ctx, info, b.count);
  if (const int64_t bad = first_bad(infos); bad >= 0) {
    routine_failed(node.op, "orgqr", infos[static_cast<size_t>(bad)], bad, b.count);
  }
  const DeviceView qv = matrices(a, t, b.batch, per, m, qcols, 1, m);
  strided_copy(ctx, qv, qv.shape, q, t, ir::contiguous_strides(out[0].type.shape));
}

}  // namespace

template <typename T>
void run_factor(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  switch (node.op) {
    case Op::det:
    case Op::slogdet:
      return run_det<T>(ctx, node, in, out);
    case Op::inv:
      return run_inv<T>(ctx, node, in, out);
    case Op::solve:
      return run_solve<T>(ctx, node, in, out);
    case Op::cholesky:
      return run_cholesky<T>(ctx, node, in, out);
    case Op::eigvalsh:
    case Op::eigh:
      return run_eigh<T>(ctx, node, in, out);
    case Op::qr:
      return run_qr<T>(ctx, node, in, out);
    default:
      break;
  }
  throw Error(ErrorCode::Internal,
              "no CUDA linear algebra kernel for " + std::string(ir::name(node.op)));
}

template void run_factor<float>(CudaContext&, const ir::Node&, Values, Values);
template void run_factor<double>(CudaContext&, const ir::Node&, Values, Values);

}  // namespace tensord::cuda::solver
