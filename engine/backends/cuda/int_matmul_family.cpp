// Host side of integer matmul (int_matmul.h): the strided problem, operands of another dtype
// cast to the output's first (movement's conversion, the CPU's cast rules: bool -> 0/1, wider
// integers wrap), and the launch.
#include <algorithm>

#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/int_matmul.h"
#include "engine/backends/cuda/movement_launch.h"
#include "engine/ir/error.h"

namespace tensord::cuda {

std::optional<IntMatmulProblem> describe_int_matmul(std::span<const int64_t> a_shape,
                                                    std::span<const int64_t> a_strides,
                                                    std::span<const int64_t> b_shape,
                                                    std::span<const int64_t> b_strides,
                                                    std::span<const int64_t> out_shape,
                                                    std::string& why_not) {
  const auto ra = static_cast<int64_t>(a_shape.size()), rb = static_cast<int64_t>(b_shape.size());
  if (ra < 1 || rb < 1 || a_strides.size() != a_shape.size() ||
      b_strides.size() != b_shape.size()) {
    why_not = "operands need rank >= 1 and one stride per dim";
    return std::nullopt;
  }
  IntMatmulProblem p;
  if (ra == 1) {
    p.m = 1, p.k = a_shape[0], p.a_cs = a_strides[0];
  } else {
    p.m = a_shape[ra - 2], p.k = a_shape[ra - 1];
    p.a_rs = a_strides[ra - 2], p.a_cs = a_strides[ra - 1];
  }
  const int64_t kb = rb == 1 ? b_shape[0] : b_shape[rb - 2];
  if (rb == 1) {
    p.n = 1, p.b_rs = b_strides[0];
  } else {
    p.n = b_shape[rb - 1];
    p.b_rs = b_strides[rb - 2], p.b_cs = b_strides[rb - 1];
  }
  if (kb != p.k) {
    why_not = "inner dims differ (" + std::to_string(p.k) + " and " + std::to_string(kb) + ")";
    return std::nullopt;
  }
  // Batch dims, aligned from the right; size-1 dims are dropped (they index nothing).
  const int64_t la = std::max<int64_t>(ra - 2, 0), lb = std::max<int64_t>(rb - 2, 0);
  const int64_t rank = std::max(la, lb);
  std::vector<int64_t> want;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t ia = d - (rank - la), ib = d - (rank - lb);
    const int64_t da = ia >= 0 ? a_shape[ia] : 1, db = ib >= 0 ? b_shape[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      why_not =
          "batch dims " + std::to_string(da) + " and " + std::to_string(db) + " do not broadcast";
      return std::nullopt;
    }
    const int64_t size = da == 1 ? db : da;
    want.push_back(size);
    p.batches *= size;
    if (size == 1) continue;
    if (p.batch.rank == kIntMatmulMaxBatch) {
      why_not = "more than " + std::to_string(kIntMatmulMaxBatch) + " batch dims";
      return std::nullopt;
    }
    const int64_t r = p.batch.rank++;
    p.batch.size[r] = size;
    p.batch.a[r] = da == 1 ? 0 : a_strides[ia];
    p.batch.b[r] = db == 1 ? 0 : b_strides[ib];
  }
  if (ra >= 2) want.push_back(p.m);
  if (rb >= 2) want.push_back(p.n);
  if (!std::equal(want.begin(), want.end(), out_shape.begin(), out_shape.end())) {
    why_not = "the output's shape does not match its operands";
    return std::nullopt;
  }
  return p;
}

bool run_int_matmul(CudaContext& ctx, const ir::Node& node, Values in, Values out) {
  if (node.op != ir::Op::matmul || out.size() != 1) return false;
  const ir::DType t = out[0].type.dtype;
  const std::vector<ir::DType> dtypes = int_matmul_dtypes();
  if (std::find(dtypes.begin(), dtypes.end(), t) == dtypes.end()) return false;
  if (in.size() != 2) throw Error(ErrorCode::Internal, "matmul expects two inputs");
  if (!out[0].is_contiguous()) {
    throw Error(ErrorCode::Internal, "integer matmul: the output must be contiguous");
  }
  // The CPU casts each operand to the output's dtype before multiplying (bool -> 0/1, the
  // narrower integer sign- or zero-extended): the same conversion, into scratch.
  engine::TensorValue operands[2] = {in[0], in[1]};
  for (engine::TensorValue& v : operands) {
    if (v.type.dtype != t) v = movement::dense(ctx, v, t);
  }
  std::string why_not;
  const std::optional<IntMatmulProblem> p =
      describe_int_matmul(operands[0].type.shape, operands[0].strides, operands[1].type.shape,
                          operands[1].strides, out[0].type.shape, why_not);
  if (!p) throw Error(ErrorCode::Internal, "integer matmul: " + why_not);
  if (p->m == 0 || p->n == 0 || p->batches == 0) return true;  // nothing to write
  const int64_t tiles = p->batches * ((p->m + kIntMatmulTile - 1) / kIntMatmulTile) *
                        ((p->n + kIntMatmulTile - 1) / kIntMatmulTile);
  // Enough blocks to fill the device several times; they walk the rest with a grid stride.
  const int64_t blocks = std::clamp<int64_t>(tiles, 1, int64_t{ctx.sm_count} * 16);
  const void* a = operands[0].raw();
  const void* b = operands[1].raw();
  void* c = out[0].raw();
  IntMatmulProblem q = *p;
  void* args[] = {&a,      &b,      &c,      &q.m,    &q.n,       &q.k,
                  &q.a_rs, &q.a_cs, &q.b_rs, &q.b_cs, &q.batches, &q.batch};
  const dim3 block(kIntMatmulBlock, kIntMatmulBlock);
  launch(ctx.kernels.kernel(int_matmul_source(t), kIntMatmulKernel),
         dim3(static_cast<unsigned>(blocks)), block, args, 0, ctx.stream, "integer matmul");
  return true;
}

}  // namespace tensord::cuda
