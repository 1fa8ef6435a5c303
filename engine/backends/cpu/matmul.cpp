#include "engine/backends/cpu/matmul.h"

#include <cstring>
#include <string>

#include "engine/backends/cpu/dispatch.h"
#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels_complex.h"
#include "engine/backends/cpu/matmul_dnnl.h"

namespace tensord::cpu {
namespace {

// oneDNN takes up to 12 dims; beyond that (only with odd broadcast patterns) our own loops run.
constexpr int kMaxDnnlBatchRank = 8;

// Gives size-1 matrix dims the stride that makes the operand look row- or column-major.
void normalize_unit_dims(MatrixOperand& x) {
  if (x.rows == 1) x.row_stride = x.col_stride == 1 ? x.cols : 1;
  if (x.cols == 1 && x.rows != 1) x.col_stride = x.row_stride == 1 ? x.rows : 1;
}

bool plain_for_dnnl(const MatrixOperand& x, int batch_rank) {
  for (int d = 0; d < batch_rank; ++d) {
    if (x.batch_strides[d] < 0) return false;
  }
  return (x.col_stride == 1 && x.row_stride >= x.cols) ||
         (x.row_stride == 1 && x.col_stride >= x.rows);
}

}  // namespace

int64_t MatmulProblem::batch_count() const {
  int64_t count = 1;
  for (int d = 0; d < batch_rank; ++d) count *= batch[d];
  return count;
}

MatmulProblem describe_matmul(const TensorValue& a, const TensorValue& b, const TensorValue& out) {
  Operand oa = operand_of(a), ob = operand_of(b);
  MatmulProblem p;
  p.dtype = out.type.dtype;
  MatrixOperand& A = p.a;
  MatrixOperand& B = p.b;
  MatrixOperand& C = p.c;
  A.data = oa.data;
  B.data = ob.data;
  C.data = static_cast<char*>(out.raw());
  int ra = oa.rank, rb = ob.rank;
  if (ra < 1 || rb < 1) throw Error(ErrorCode::Shape, "matmul operands must have rank >= 1");
  if (ra == 1) {
    A.rows = 1, A.cols = oa.shape[0], A.col_stride = oa.strides[0];
  } else {
    A.rows = oa.shape[ra - 2], A.cols = oa.shape[ra - 1];
    A.row_stride = oa.strides[ra - 2], A.col_stride = oa.strides[ra - 1];
  }
  if (rb == 1) {
    B.rows = ob.shape[0], B.cols = 1, B.row_stride = ob.strides[0];
  } else {
    B.rows = ob.shape[rb - 2], B.cols = ob.shape[rb - 1];
    B.row_stride = ob.strides[rb - 2], B.col_stride = ob.strides[rb - 1];
  }
  if (A.cols != B.rows) {
    throw Error(ErrorCode::Shape, "matmul shapes " + ir::to_string(oa.dims()) + " and " +
                                      ir::to_string(ob.dims()) + " do not agree");
  }
  p.m = A.rows, p.k = A.cols, p.n = B.cols;
  C.rows = p.m, C.cols = p.n, C.row_stride = p.n, C.col_stride = 1;
  normalize_unit_dims(A);
  normalize_unit_dims(B);

  // Batch dims of the output, broadcast from both operands, walked innermost first so that
  // dims merge whenever all three operands step across them as one.
  int la = std::max(ra - 2, 0), lb = std::max(rb - 2, 0);
  int rank = std::max(la, lb);
  int64_t sizes[ir::kMaxRank], sa[ir::kMaxRank], sb[ir::kMaxRank], sc[ir::kMaxRank];
  int count = 0;
  int64_t c_stride = p.m * p.n;
  for (int d = rank - 1; d >= 0; --d) {
    int ia = d - (rank - la), ib = d - (rank - lb);
    int64_t da = ia >= 0 ? oa.shape[ia] : 1, db = ib >= 0 ? ob.shape[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      throw Error(ErrorCode::Shape, "matmul batch dims of " + ir::to_string(oa.dims()) + " and " +
                                        ir::to_string(ob.dims()) + " do not broadcast");
    }
    int64_t size = da == 1 ? db : da;
    if (size == 1) continue;
    int64_t stride_a = da == 1 ? 0 : oa.strides[ia], stride_b = db == 1 ? 0 : ob.strides[ib];
    if (count > 0 && stride_a == sa[count - 1] * sizes[count - 1] &&
        stride_b == sb[count - 1] * sizes[count - 1] &&
        c_stride == sc[count - 1] * sizes[count - 1]) {
      sizes[count - 1] *= size;
    } else {
      sizes[count] = size, sa[count] = stride_a, sb[count] = stride_b, sc[count] = c_stride;
      ++count;
    }
    c_stride *= size;
  }
  p.batch_rank = count;
  for (int d = 0; d < count; ++d) {  // outermost first
    p.batch[d] = sizes[count - 1 - d];
    A.batch_strides[d] = sa[count - 1 - d];
    B.batch_strides[d] = sb[count - 1 - d];
    C.batch_strides[d] = sc[count - 1 - d];
  }
  if (c_stride != out.type.numel()) {
    throw Error(ErrorCode::Internal,
                "matmul output " + ir::to_string(out.type) + " does not match its operands");
  }
  return p;
}

Matmul::Matmul() : dnnl_(std::make_unique<DnnlMatmul>()) {}
Matmul::~Matmul() = default;

void Matmul::run(const KernelContext& ctx, const TensorValue& a, const TensorValue& b,
                 const TensorValue& out) {
  ir::DType dtype = out.type.dtype;
  if (dtype == ir::DType::Bool) throw_unsupported(ir::Op::matmul, dtype);
  if (out.type.numel() == 0) return;
  if (ir::is_complex(dtype)) {  // issue 4: conj views fold into the loads
    // A conj view of another precision is cast after conjugating (cast_to ignores the bit).
    auto operand = [&](const TensorValue& v, bool& conj) {
      conj = v.conj;
      if (v.type.dtype == dtype) return v;
      TensorValue c = v;
      if (v.conj) {
        c = allocate_value(v.type);
        static const ir::Node kConj = [] {
          ir::Node n;
          n.op = ir::Op::conj;
          return n;
        }();
        TensorValue src = v;
        run_complex(ctx, kConj, {&src, 1}, c);
        conj = false;
      }
      c.conj = false;
      return cast_to(ctx, c, dtype);
    };
    bool ca = false, cb = false;
    TensorValue x = operand(a, ca), y = operand(b, cb);
    return matmul_complex(ctx, describe_matmul(x, y, out), ca, cb);
  }
  TensorValue x = cast_to(ctx, a, dtype), y = cast_to(ctx, b, dtype);
  bool dnnl_dtype =
      dtype == ir::DType::Float32 || dtype == ir::DType::BFloat16 || dtype == ir::DType::Float16;
  if (dnnl_dtype) return run_dnnl_or_float32(ctx, x, y, out);
  matmul_reference(ctx, describe_matmul(x, y, out));
}

void Matmul::run_dnnl_or_float32(const KernelContext& ctx, const TensorValue& a,
                                 const TensorValue& b, const TensorValue& out) {
  MatmulProblem p = describe_matmul(a, b, out);
  if (p.k == 0) {  // empty sums
    std::memset(out.raw(), 0, out.nbytes());
    return;
  }
  if (p.batch_rank > kMaxDnnlBatchRank) return matmul_reference(ctx, p);
  if (!plain_for_dnnl(p.a, p.batch_rank) || !plain_for_dnnl(p.b, p.batch_rank)) {
    // oneDNN's fast kernels want one unit stride per matrix: copy the others into place.
    TensorValue x = make_contiguous(ctx, a), y = make_contiguous(ctx, b);
    return run_dnnl_or_float32(ctx, x, y, out);
  }
  if (dnnl_->run(ctx, p)) return;
  // No oneDNN kernel for this 16-bit dtype on this CPU: compute in float32 and round once.
  if (p.dtype == ir::DType::Float32) return matmul_reference(ctx, p);
  TensorValue x = cast_to(ctx, a, ir::DType::Float32), y = cast_to(ctx, b, ir::DType::Float32);
  TensorValue wide = allocate_value(ir::TensorType{ir::DType::Float32, out.type.shape});
  run_dnnl_or_float32(ctx, x, y, wide);
  cast_into(ctx, operand_of(wide), operand_of(out));
}

}  // namespace tensord::cpu
