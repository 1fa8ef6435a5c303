// float64 and complex matmul through OpenBLAS's dgemm, cgemm and zgemm (already linked for
// LAPACK, kernels_linalg.cpp): our own blocked loops (matmul_reference.cpp) ran 512 x 1024 x 512
// in 8.2 ms and 1024^3 in 30.4 against NumPy's 5.8 and 22.6 through the same library (now 5.7
// and 21.0, equal bits). One gemm per batch matrix, on the backend's threads; operands must be
// plain (one unit stride), as for oneDNN; other complex layouts take matmul_complex.
#include <cblas.h>  // OpenBLAS's: also declares openblas_set_num_threads

#include <algorithm>
#include <climits>

#include "engine/backends/cpu/matmul.h"

namespace tensord::cpu {
namespace {

// A row-major operand (no transpose) or a column-major one (transposed), with its leading
// dimension; false when neither, or when the leading dimension exceeds BLAS's int.
bool blas_layout(const MatrixOperand& x, CBLAS_TRANSPOSE& trans, int& ld) {
  if (x.col_stride == 1 && x.row_stride >= x.cols && x.row_stride <= INT_MAX) {
    trans = CblasNoTrans;
    ld = static_cast<int>(std::max<int64_t>(x.row_stride, 1));
    return true;
  }
  if (x.row_stride == 1 && x.col_stride >= x.rows && x.col_stride <= INT_MAX) {
    trans = CblasTrans;
    ld = static_cast<int>(std::max<int64_t>(x.col_stride, 1));
    return true;
  }
  return false;
}

}  // namespace

bool matmul_blas(const KernelContext& ctx, const MatmulProblem& p, bool conj_a, bool conj_b) {
  const ir::DType t = p.dtype;
  if ((t != ir::DType::Float64 && !ir::is_complex(t)) || p.m > INT_MAX || p.n > INT_MAX ||
      p.k > INT_MAX) {
    return false;
  }
  CBLAS_TRANSPOSE ta, tb, tc;
  int lda, ldb, ldc;
  if (!blas_layout(p.a, ta, lda) || !blas_layout(p.b, tb, ldb) || !blas_layout(p.c, tc, ldc) ||
      tc != CblasNoTrans) {
    return false;
  }
  // A conjugated operand: OpenBLAS's CblasConjNoTrans extension, or CblasConjTrans.
  auto conjugated = [](CBLAS_TRANSPOSE x) {
    return x == CblasNoTrans ? CblasConjNoTrans : CblasConjTrans;
  };
  if (conj_a) ta = conjugated(ta);
  if (conj_b) tb = conjugated(tb);
  openblas_set_num_threads(ctx.threads);
  const int64_t batches = p.batch_count();
  const int64_t item = static_cast<int64_t>(ir::itemsize(t));
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  for (int64_t batch = 0; batch < batches; ++batch) {
    int64_t oa = 0, ob = 0, oc = 0;
    for (int64_t d = p.batch_rank - 1, rest = batch; d >= 0; --d) {
      const int64_t idx = rest % p.batch[d];
      rest /= p.batch[d];
      oa += idx * p.a.batch_strides[d], ob += idx * p.b.batch_strides[d];
      oc += idx * p.c.batch_strides[d];
    }
    const char* a = p.a.data + oa * item;
    const char* b = p.b.data + ob * item;
    char* c = p.c.data + oc * item;
    if (t == ir::DType::Float64) {
      cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, reinterpret_cast<const double*>(a), lda,
                  reinterpret_cast<const double*>(b), ldb, 0.0, reinterpret_cast<double*>(c), ldc);
    } else if (t == ir::DType::Complex64) {
      const float one[2] = {1, 0}, zero[2] = {0, 0};
      cblas_cgemm(CblasRowMajor, ta, tb, m, n, k, one, a, lda, b, ldb, zero, c, ldc);
    } else {
      const double one[2] = {1, 0}, zero[2] = {0, 0};
      cblas_zgemm(CblasRowMajor, ta, tb, m, n, k, one, a, lda, b, ldb, zero, c, ldc);
    }
  }
  return true;
}

}  // namespace tensord::cpu
