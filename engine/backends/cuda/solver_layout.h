// Host-side layout decisions of the cuSOLVER family (unit-tested without a GPU). cuSOLVER is
// column-major; tensors are row-major strided views. The family copies A column-major (a
// strided copy of the view with its last two dims swapped) so that cuSOLVER factors what the
// CPU's LAPACK factors; gesvd, which needs rows >= cols, factors a wide A as A^T (a plain
// row-major copy) instead. Batch dims broadcast by zero strides.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/backends/cuda/fft_strided_copy.h"

namespace tensord::cuda {

// The view of a tensor (`data`, `dtype`, `shape`, `strides`) as a batch of matrices (core = 2)
// or vectors (core = 1) broadcast to `batch`: shape batch + core dims, the tensor's leading
// dims aligned to the right of `batch`, size-1 or missing ones with stride 0. transpose swaps
// the two core dims (a contiguous copy of the view is then the column-major matrix).
DeviceView batch_view(const void* data, ir::DType dtype, const ir::Shape& shape,
                      const std::vector<int64_t>& strides, const ir::Shape& batch, size_t core,
                      bool transpose);

// How gesvd (which needs rows >= cols) sees an m x n matrix A, and where A = U_A S Vh_A's factors
// are in its outputs. n >= m: gesvd factors A^T (a plain copy), so U_A comes from its VT and
// Vh_A from its U; m > n: gesvd factors A (a transposed copy), U_A = U, Vh_A = VT.
struct SvdLayout {
  bool transpose_input = false;  // copy A transposed (true) or plainly (false)
  int64_t rows = 0, cols = 0, k = 0;
  signed char jobu = 'N', jobvt = 'N';
  int64_t ldu = 1, ldvt = 1;          // rows, cols
  int64_t u_elems = 0, vt_elems = 0;  // per matrix, 0 when not computed
  // U_A(i, l) = buffer[i * us0 + l * us1] of gesvd's VT (ua_in_vt) or U; Vh_A(l, j) =
  // buffer[l * vs0 + j * vs1] of the other one.
  bool ua_in_vt = false;
  int64_t us0 = 0, us1 = 0, vs0 = 0, vs1 = 0;
  int64_t u_cols = 0, vh_rows = 0;  // U_A is m x u_cols, Vh_A is vh_rows x n
};

// vectors: compute the singular vectors; full: complete bases (U_A m x m, Vh_A n x n), else
// reduced (m x k, k x n).
SvdLayout svd_layout(int64_t m, int64_t n, bool vectors, bool full);

}  // namespace tensord::cuda
