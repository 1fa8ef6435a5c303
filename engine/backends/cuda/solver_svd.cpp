// svdvals, svd, pinv, matrix_rank, lstsq on the CUDA backend through cuSOLVER's gesvd (and
// syevd for hermitian pinv/matrix_rank). gesvd needs rows >= cols, so a wide matrix is factored
// as A^T from the plain row-major copy and a tall one from a transposed copy; svd_layout
// (solver_layout.h) says where U_A and Vh_A then are. The pseudo-inverse, the rank and lstsq's
// product and residuals are NVRTC kernels (solver_kernels.h); lstsq's four outputs follow the
// CPU's gelsd: the minimum-norm solution pinv(A) B with gelsd's cutoff (singular values <=
// rcond * s_max count as zero), |A x - b|^2 per column when m > n, the rank (the singular values
// above the cutoff) and the singular values.
#include <algorithm>
#include <limits>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/solver_common.h"
#include "engine/backends/cuda/solver_layout.h"

namespace tensord::cuda::solver {
namespace {

using ir::Attr;
using ir::DType;
using ir::Op;

// gesvd of every matrix of `a` broadcast to `batch` (m x n each, min(m, n) > 0): singular
// values into `s` (count x k), vectors (when layout.jobu != 'N') into scratch.
template <typename T>
struct SvdResult {
  T* u = nullptr;   // gesvd's U, layout.u_elems per matrix
  T* vt = nullptr;  // gesvd's VT, layout.vt_elems per matrix
};

template <typename T>
SvdResult<T> gesvd_batch(CudaContext& ctx, Scratch& scratch, Op op, const engine::TensorValue& a,
                         const ir::Shape& batch, const SvdLayout& layout, T* s) {
  const int64_t count = ir::numel(batch);
  const DeviceView view = batch_view(data_of(a), a.type.dtype, a.type.shape, strides_of(a), batch,
                                     2, layout.transpose_input);
  T* c = contiguous_copy<T>(ctx, scratch, view, a.type.dtype);
  SvdResult<T> r;
  r.u = layout.u_elems > 0 ? scratch.alloc<T>(count * layout.u_elems) : nullptr;
  r.vt = layout.vt_elems > 0 ? scratch.alloc<T>(count * layout.vt_elems) : nullptr;
  // Jobs 'N' do not reference U / VT; they get a valid pointer all the same.
  T* unused = r.u && r.vt ? nullptr : scratch.alloc<T>(1);
  int* info = scratch.alloc<int>(count);
  T* rwork = scratch.alloc<T>(layout.k);
  cusolverDnHandle_t h = handle(ctx);
  const int rows = as_int(op, layout.rows), cols = as_int(op, layout.cols);
  const int ldu = as_int(op, layout.ldu), ldvt = as_int(op, layout.ldvt);
  const int lwork = Dn<T>::gesvd_lwork(h, rows, cols);
  T* work = scratch.alloc<T>(lwork);
  const int64_t per = layout.rows * layout.cols;
  for (int64_t b = 0; b < count; ++b) {
    Dn<T>::gesvd(h, layout.jobu, layout.jobvt, rows, cols, c + b * per, rows, s + b * layout.k,
                 r.u ? r.u + b * layout.u_elems : unused, ldu,
                 r.vt ? r.vt + b * layout.vt_elems : unused, ldvt, work, lwork, rwork, info + b);
  }
  const std::vector<int> infos = read_infos(ctx, info, count);
  if (const int64_t bad = first_bad(infos); bad >= 0) {
    routine_failed(op, "gesvd", infos[static_cast<size_t>(bad)], bad, count);
  }
  return r;
}

// Eigenvalues (and vectors, column-major, in the returned scratch) of the symmetric matrices
// read from A's lower triangle, as the CPU's hermitian pinv / matrix_rank.
template <typename T>
T* syevd_lower(CudaContext& ctx, Scratch& scratch, Op op, const engine::TensorValue& a,
               const ir::Shape& batch, int64_t n, bool vectors, T* w) {
  const int64_t count = ir::numel(batch);
  const DeviceView view =
      batch_view(data_of(a), a.type.dtype, a.type.shape, strides_of(a), batch, 2, true);
  T* c = contiguous_copy<T>(ctx, scratch, view, a.type.dtype);
  int* info = scratch.alloc<int>(count);
  cusolverDnHandle_t h = handle(ctx);
  const int ni = as_int(op, n);
  const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const int lwork = Dn<T>::syevd_lwork(h, jobz, CUBLAS_FILL_MODE_LOWER, ni, c, ni, w);
  T* work = scratch.alloc<T>(lwork);
  for (int64_t b = 0; b < count; ++b) {
    Dn<T>::syevd(h, jobz, CUBLAS_FILL_MODE_LOWER, ni, c + b * n * n, ni, w + b * n, work, lwork,
                 info + b);
  }
  const std::vector<int> infos = read_infos(ctx, info, count);
  if (const int64_t bad = first_bad(infos); bad >= 0) {
    routine_failed(op, "syevd", infos[static_cast<size_t>(bad)], bad, count);
  }
  return c;
}

// The cutoff's tolerances (docs/ops.md pinv): rtol defaults to eps * max(m, n), or to 0 when
// only a positive atol is given.
template <typename T>
void tolerances(const ir::Attrs& attrs, int64_t m, int64_t n, double& atol, double& rtol) {
  atol = attrs.get_float(Attr::atol, 0.0);
  if (attrs.has(Attr::rtol)) {
    rtol = attrs.get_float(Attr::rtol);
  } else if (attrs.has(Attr::atol) && atol > 0) {
    rtol = 0;
  } else {
    rtol = std::numeric_limits<T>::epsilon() * static_cast<double>(std::max(m, n));
  }
}

// y (count, n, m) = V diag(1/s) U^T over the s above the cutoff.
template <typename T>
void pinv_kernel(CudaContext& ctx, DType t, const T* u, int64_t ub, int64_t us0, int64_t us1,
                 const T* s, int64_t sb, const T* v, int64_t vb, int64_t vs0, int64_t vs1,
                 int64_t count, int64_t m, int64_t n, int64_t k, double atol, double rtol, T* y) {
  void* args[] = {&u,   &ub,    &us0, &us1, &s, &sb,   &v,    &vb, &vs0,
                  &vs1, &count, &m,   &n,   &k, &atol, &rtol, &y};
  launch_solver_kernel(ctx, "pinv", t, count * n * m, args);
}

// y (count, n, m) = pinv from gesvd's factors (layout `l` with vectors, s (count, k)).
template <typename T>
void pinv_from_svd(CudaContext& ctx, DType t, const SvdLayout& l, const SvdResult<T>& r, const T* s,
                   int64_t count, int64_t m, int64_t n, double atol, double rtol, T* y) {
  const T* ua = l.ua_in_vt ? r.vt : r.u;
  const T* vh = l.ua_in_vt ? r.u : r.vt;
  const int64_t ub = l.ua_in_vt ? l.vt_elems : l.u_elems;
  const int64_t vb = l.ua_in_vt ? l.u_elems : l.vt_elems;
  pinv_kernel<T>(ctx, t, ua, ub, l.us0, l.us1, s, l.k, vh, vb, l.vs0, l.vs1, count, m, n, l.k, atol,
                 rtol, y);
}

// The number of singular values (count x k, rows sb apart) above the cutoff, as int64.
template <typename T>
void rank_kernel(CudaContext& ctx, DType t, const T* s, int64_t sb, int64_t count, int64_t k,
                 double atol, double rtol, void* rank) {
  void* args[] = {&s, &sb, &count, &k, &atol, &rtol, &rank};
  launch_solver_kernel(ctx, "rank", t, count, args);
}

// pinv of `a` broadcast to `batch` into y (count, n, m), or its rank into `rank` (int64).
template <typename T>
void pinv_or_rank(CudaContext& ctx, Scratch& scratch, Op op, const engine::TensorValue& a,
                  const ir::Shape& batch, bool hermitian, double atol, double rtol, T* y,
                  void* rank) {
  const DType t = a.type.dtype;
  const int64_t m = a.type.shape[a.type.rank() - 2], n = a.type.shape.back();
  int64_t k = std::min(m, n), count = ir::numel(batch);
  const bool want_pinv = rank == nullptr;
  T* s = scratch.alloc<T>(count * k);
  int64_t sb = k;
  if (!want_pinv) {
    if (hermitian) {
      syevd_lower<T>(ctx, scratch, op, a, batch, n, false, s);
    } else {
      gesvd_batch<T>(ctx, scratch, op, a, batch, svd_layout(m, n, false, false), s);
    }
    rank_kernel<T>(ctx, t, s, sb, count, k, atol, rtol, rank);
    return;
  }
  if (hermitian) {
    // U = V = the eigenvectors (column-major: W(i, l) = w[l * n + i]); 1/w keeps w's sign.
    const T* w = syevd_lower<T>(ctx, scratch, op, a, batch, n, true, s);
    pinv_kernel<T>(ctx, t, w, n * n, 1, n, s, sb, w, n * n, n, 1, count, m, n, k, atol, rtol, y);
    return;
  }
  const SvdLayout l = svd_layout(m, n, true, false);
  const SvdResult<T> r = gesvd_batch<T>(ctx, scratch, op, a, batch, l, s);
  pinv_from_svd<T>(ctx, t, l, r, s, count, m, n, atol, rtol, y);
}

void fill_eye(CudaContext& ctx, DType t, void* y, int64_t count, int64_t rows, int64_t cols) {
  void* args[] = {&y, &count, &rows, &cols};
  launch_solver_kernel(ctx, "eye", t, count * rows * cols, args);
}

template <typename T>
void run_svdvals_svd(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  const engine::TensorValue& a = in[0];
  const ir::Shape& as = a.type.shape;
  const ir::Shape batch(as.begin(), as.end() - 2);
  const int64_t m = as[as.size() - 2], n = as.back(), k = std::min(m, n);
  const int64_t count = ir::numel(batch);
  const DType t = a.type.dtype;
  if (count == 0) return;
  if (node.op == Op::svdvals) {
    if (k == 0) return;
    Scratch scratch(ctx);
    gesvd_batch<T>(ctx, scratch, node.op, a, batch, svd_layout(m, n, false, false),
                   out_data<T>(out[0]));
    return;
  }
  const bool full = node.attrs.get_bool(Attr::full_matrices, true);
  const SvdLayout l = svd_layout(m, n, true, full);
  if (k == 0) {  // no singular values: the full bases are identities
    fill_eye(ctx, t, out_ptr(out[0]), count, m, l.u_cols);
    fill_eye(ctx, t, out_ptr(out[2]), count, l.vh_rows, n);
    return;
  }
  Scratch scratch(ctx);
  const SvdResult<T> r = gesvd_batch<T>(ctx, scratch, node.op, a, batch, l, out_data<T>(out[1]));
  const T* ua = l.ua_in_vt ? r.vt : r.u;
  const T* vh = l.ua_in_vt ? r.u : r.vt;
  const DeviceView uv =
      matrices(ua, t, batch, l.ua_in_vt ? l.vt_elems : l.u_elems, m, l.u_cols, l.us0, l.us1);
  strided_copy(ctx, uv, uv.shape, out_ptr(out[0]), t, ir::contiguous_strides(out[0].type.shape));
  const DeviceView vv =
      matrices(vh, t, batch, l.ua_in_vt ? l.u_elems : l.vt_elems, l.vh_rows, n, l.vs0, l.vs1);
  strided_copy(ctx, vv, vv.shape, out_ptr(out[2]), t, ir::contiguous_strides(out[2].type.shape));
}

template <typename T>
void run_pinv_rank(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  const engine::TensorValue& a = in[0];
  const ir::Shape& as = a.type.shape;
  const ir::Shape batch(as.begin(), as.end() - 2);
  const int64_t m = as[as.size() - 2], n = as.back(), k = std::min(m, n);
  const int64_t count = ir::numel(batch);
  if (count == 0) return;
  if (k == 0) {
    // pinv is (n, m) with n or m zero: empty. matrix_rank: 0 per matrix.
    if (node.op == Op::matrix_rank) {
      check(cudaMemsetAsync(out_ptr(out[0]), 0, out[0].nbytes(), ctx.stream),
            "cudaMemsetAsync (matrix_rank)");
    }
    return;
  }
  double atol = 0, rtol = 0;
  tolerances<T>(node.attrs, m, n, atol, rtol);
  const bool hermitian = node.attrs.get_bool(Attr::hermitian, false);
  Scratch scratch(ctx);
  if (node.op == Op::pinv) {
    pinv_or_rank<T>(ctx, scratch, node.op, a, batch, hermitian, atol, rtol, out_data<T>(out[0]),
                    nullptr);
  } else {
    pinv_or_rank<T>(ctx, scratch, node.op, a, batch, hermitian, atol, rtol, nullptr,
                    out_ptr(out[0]));
  }
}

// out (count, r) = |A x - b|^2 per column of each matrix: A (count, m, n), x (count, n, r),
// b (count, m, r), all contiguous.
template <typename T>
void residuals_kernel(CudaContext& ctx, DType t, const T* a, const T* x, const T* b, int64_t count,
                      int64_t m, int64_t n, int64_t r, T* out) {
  void* args[] = {&a, &x, &b, &count, &m, &n, &r, &out};
  launch_solver_kernel(ctx, "residuals", t, count * r, args);
}

// lstsq's (solution, residuals, rank, singular_values) as the CPU's gelsd (docs/ops.md), from
// one gesvd per matrix. Residuals come from their definition |A x - b|^2 (the CPU reads them
// off gelsd's trailing rows at full rank: the same quantity, other rounding).
template <typename T>
void run_lstsq(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  if (out.size() != 4) {
    throw Error(ErrorCode::Internal,
                "lstsq expects four outputs, got " + std::to_string(out.size()));
  }
  const engine::TensorValue &a = in[0], &bv = in[1], &x = out[0];
  const ir::Shape& os = x.type.shape;
  const ir::Shape batch(os.begin(), os.end() - 2);
  const int64_t count = ir::numel(batch);
  const int64_t m = a.type.shape[a.type.rank() - 2], n = a.type.shape.back();
  const int64_t k = std::min(m, n), nrhs = bv.type.shape.back();
  if (count == 0) return;
  const DType t = a.type.dtype;
  Scratch scratch(ctx);
  T* y = out_data<T>(x);
  // B broadcast to the batch, contiguous: the right-hand sides and the residuals' targets.
  const T* bc =
      nrhs == 0
          ? nullptr
          : contiguous_copy<T>(
                ctx, scratch,
                batch_view(data_of(bv), t, bv.type.shape, strides_of(bv), batch, 2, false), t);
  if (k == 0) {  // no equations or no unknowns: a zero solution of rank 0
    if (x.nbytes() > 0) {
      check(cudaMemsetAsync(y, 0, x.nbytes(), ctx.stream), "cudaMemsetAsync (lstsq)");
    }
    check(cudaMemsetAsync(out_ptr(out[2]), 0, out[2].nbytes(), ctx.stream),
          "cudaMemsetAsync (lstsq's rank)");
  } else {
    const double rcond = node.attrs.get_float(
        Attr::rtol, std::numeric_limits<T>::epsilon() * static_cast<double>(std::max(m, n)));
    const SvdLayout l = svd_layout(m, n, nrhs > 0, false);
    T* s = out_data<T>(out[3]);  // (..., k): gesvd's descending values, as gelsd's
    const SvdResult<T> r = gesvd_batch<T>(ctx, scratch, node.op, a, batch, l, s);
    rank_kernel<T>(ctx, t, s, k, count, k, 0.0, rcond, out_ptr(out[2]));
    if (nrhs == 0) return;
    T* p = scratch.alloc<T>(count * n * m);
    pinv_from_svd<T>(ctx, t, l, r, s, count, m, n, 0.0, rcond, p);
    int64_t cnt = count, nn = n, mm = m, rr = nrhs;
    void* args[] = {&p, &bc, &cnt, &nn, &mm, &rr, &y};
    launch_solver_kernel(ctx, "bmm", t, count * n * nrhs, args);
  }
  if (m <= n || nrhs == 0) return;  // residuals are (0,) unless m > n
  const DeviceView aview = batch_view(data_of(a), t, a.type.shape, strides_of(a), batch, 2, false);
  const T* ac = contiguous_copy<T>(ctx, scratch, aview, t);
  residuals_kernel<T>(ctx, t, ac, y, bc, count, m, n, nrhs, out_data<T>(out[1]));
}

}  // namespace

template <typename T>
void run_svd(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  switch (node.op) {
    case Op::svdvals:
    case Op::svd:
      return run_svdvals_svd<T>(ctx, node, in, out);
    case Op::pinv:
    case Op::matrix_rank:
      return run_pinv_rank<T>(ctx, node, in, out);
    case Op::lstsq:
      return run_lstsq<T>(ctx, node, in, out);
    default:
      break;
  }
  throw Error(ErrorCode::Internal,
              "no CUDA linear algebra kernel for " + std::string(ir::name(node.op)));
}

template void run_svd<float>(CudaContext&, const ir::Node&, Values, Values);
template void run_svd<double>(CudaContext&, const ir::Node&, Values, Values);

}  // namespace tensord::cuda::solver
