// matmul with the Array API rules: 1-D operands promoted to matrices and squeezed after,
// batch dims broadcast; integers wrap exactly, floats accumulate in double.
#include <cmath>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

Expected ref_matmul(const RefTensor& a, const RefTensor& b) {
  if (a.shape.empty() || b.shape.empty()) reject(ErrorCode::Shape, "matmul of a 0-d tensor");
  // docs/ops.md: the DType error is for a bool result; bool with a number promotes.
  if (a.dtype == DType::Bool && b.dtype == DType::Bool) reject(ErrorCode::DType, "bool matmul");
  const DType out_t = ref_promote(a.dtype, b.dtype);
  Shape as = a.shape, bs = b.shape;
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  if (bs[bs.size() - 2] != k) {
    reject(ErrorCode::Shape, shape_str(a.shape) + " and " + shape_str(b.shape) + " inner dims");
  }
  Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
  Shape batch = ref_broadcast(a_batch, b_batch);
  Shape full = batch;
  full.push_back(m);
  full.push_back(n);
  int64_t batches = 1;
  for (int64_t d : batch) batches *= d;

  Expected e{RefTensor(out_t, full)};
  e.scale.assign(static_cast<size_t>(e.value.numel()), 0.0);
  e.terms = k;
  const bool floating = ir::is_floating(out_t);
  for (int64_t bi = 0; bi < batches; ++bi) {
    std::vector<int64_t> bidx = unravel(bi, batch);
    const int64_t a0 = broadcast_source(bidx, a_batch) * m * k;
    const int64_t b0 = broadcast_source(bidx, b_batch) * k * n;
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t c = 0; c < n; ++c) {
        const int64_t o = (bi * m + r) * n + c;
        double acc = 0, scale = 0;
        uint64_t iacc = 0;
        for (int64_t j = 0; j < k; ++j) {
          Num x = cast_to(out_t, a.at(a0 + r * k + j)), y = cast_to(out_t, b.at(b0 + j * n + c));
          if (floating) {
            acc += x.f * y.f;
            scale = std::max(scale, std::fabs(x.f * y.f));
          } else {
            iacc += static_cast<uint64_t>(x.i) * static_cast<uint64_t>(y.i);
          }
        }
        e.value.put(o, floating ? Num::of_float(acc) : Num::of_int(static_cast<int64_t>(iacc)));
        e.scale[o] = scale;
      }
    }
  }
  // Remove the dims that 1-D operands added.
  Shape out = batch;
  if (a.shape.size() > 1) out.push_back(m);
  if (b.shape.size() > 1) out.push_back(n);
  e.value.shape = out;
  return e;
}

}  // namespace tensord::conformance
