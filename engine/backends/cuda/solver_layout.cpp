#include "engine/backends/cuda/solver_layout.h"

#include <algorithm>

namespace tensord::cuda {

DeviceView batch_view(const void* data, ir::DType dtype, const ir::Shape& shape,
                      const std::vector<int64_t>& strides, const ir::Shape& batch, size_t core,
                      bool transpose) {
  DeviceView v;
  v.data = data;
  v.dtype = dtype;
  const size_t rank = shape.size(), own_batch = rank - core;
  const size_t lead = batch.size() - own_batch;
  for (size_t d = 0; d < batch.size(); ++d) {
    v.shape.push_back(batch[d]);
    if (d < lead) {
      v.strides.push_back(0);
    } else {
      const size_t s = d - lead;
      v.strides.push_back(shape[s] == 1 ? 0 : strides[s]);
    }
  }
  for (size_t d = own_batch; d < rank; ++d) {
    v.shape.push_back(shape[d]);
    v.strides.push_back(strides[d]);
  }
  if (transpose && core == 2) {
    std::swap(v.shape[v.shape.size() - 1], v.shape[v.shape.size() - 2]);
    std::swap(v.strides[v.strides.size() - 1], v.strides[v.strides.size() - 2]);
  }
  return v;
}

SvdLayout svd_layout(int64_t m, int64_t n, bool vectors, bool full) {
  SvdLayout s;
  s.transpose_input = m > n;
  s.rows = std::max(m, n);
  s.cols = std::min(m, n);
  s.k = s.cols;
  s.u_cols = full ? m : s.k;
  s.vh_rows = full ? n : s.k;
  // Leading dimensions valid for every job (LAPACK asks ldu >= rows for 'A'/'S', ldvt >= cols
  // for 'A'), as PyTorch passes them.
  s.ldu = s.rows;
  s.ldvt = s.cols;
  if (!vectors) return s;
  // gesvd's U is rows x (jobu 'A': rows, 'S': k); its VT is cols x cols either way (k = cols).
  // jobu = jobvt, as PyTorch calls it.
  s.jobu = full ? 'A' : 'S';
  s.jobvt = s.jobu;
  s.u_elems = s.rows * (full ? s.rows : s.k);
  s.vt_elems = s.cols * s.cols;
  if (s.transpose_input) {
    // gesvd(A): U_A(i, l) = U[l * m + i], Vh_A(l, j) = VT[j * n + l].
    s.ua_in_vt = false;
    s.us0 = 1;
    s.us1 = m;
    s.vs0 = 1;
    s.vs1 = n;
  } else {
    // gesvd(A^T) = U_c S V_c^T, so A = V_c S U_c^T: U_A(i, l) = V_c(i, l) = VT[i * m + l],
    // Vh_A(l, j) = U_c(j, l) = U[l * n + j].
    s.ua_in_vt = true;
    s.us0 = m;
    s.us1 = 1;
    s.vs0 = n;
    s.vs1 = 1;
  }
  return s;
}

}  // namespace tensord::cuda
