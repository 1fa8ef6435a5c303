#include "engine/backends/cpu/matmul.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <string>

#include "engine/backends/cpu/dispatch.h"
#include "engine/backends/cpu/host_buffer.h"
#include "engine/backends/cpu/kernels_complex.h"
#include "engine/backends/cpu/matmul_dnnl.h"
#include "engine/plan/layout.h"

namespace tensord::cpu {
namespace {

// oneDNN takes up to 12 dims; beyond that (only with odd broadcast patterns) our own loops run.
constexpr int kMaxDnnlBatchRank = 8;

// Gives size-1 matrix dims the stride that makes the operand look row- or column-major. A
// 1 x 1 matrix is both, whatever its strides (a value of shape (1,) may carry stride 0, and
// make_contiguous leaves a value that is already contiguous as it is).
void normalize_unit_dims(MatrixOperand& x) {
  if (x.rows == 1 && x.cols == 1) {
    x.row_stride = x.col_stride = 1;
    return;
  }
  if (x.rows == 1) x.row_stride = x.col_stride == 1 ? x.cols : 1;
  if (x.cols == 1) x.col_stride = x.row_stride == 1 ? x.rows : 1;
}

bool plain_for_dnnl(const MatrixOperand& x, int batch_rank) {
  for (int d = 0; d < batch_rank; ++d) {
    if (x.batch_strides[d] < 0) return false;
  }
  return (x.col_stride == 1 && x.row_stride >= x.cols) ||
         (x.row_stride == 1 && x.col_stride >= x.rows);
}

// The epilogue as oneDNN post-ops for product `p` written into a contiguous dst; nullopt when
// an added tensor is not contiguous or of another dtype.
std::optional<DnnlEpilogue> dnnl_epilogue(const MatmulProblem& p, std::span<const TensorValue> in,
                                          const engine::MatmulEpilogue& e) {
  using dnnl::algorithm;
  using dnnl::memory;
  const int rank = p.batch_rank + 2;
  memory::dims dst_dims(rank), dst_strides(rank), row_dims(rank, 1), row_strides(rank);
  dst_dims[rank - 2] = p.m, dst_dims[rank - 1] = p.n;
  for (int d = 0; d < p.batch_rank; ++d) dst_dims[d] = p.batch[d];
  row_dims[rank - 1] = p.n;
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    dst_strides[d] = stride, stride *= dst_dims[d];
    row_strides[d] = d == rank - 1 ? 1 : p.n;
  }
  const memory::desc dst_desc(dst_dims, memory::data_type::f32, dst_strides);
  const memory::desc row_desc(row_dims, memory::data_type::f32, row_strides);
  // oneDNN 2.6's brgemm matmul applies the first eltwise_linear post-op's alpha and beta to
  // every later eltwise_linear (measured: linear(0.125, 0) then linear(1, -1) gave x / 64).
  // Adjacent linear stages are composed into one; a second one left apart is refused.
  std::vector<engine::EpilogueStage> stages;
  for (const engine::EpilogueStage& s : e.stages) {
    if (s.op == engine::EpilogueOp::Linear && !stages.empty() &&
        stages.back().op == engine::EpilogueOp::Linear) {
      engine::EpilogueStage& prev = stages.back();
      prev.beta = s.alpha * prev.beta + s.beta;
      prev.alpha *= s.alpha;
      continue;
    }
    if (s.op == engine::EpilogueOp::Linear &&
        std::any_of(stages.begin(), stages.end(),
                    [](const auto& x) { return x.op == engine::EpilogueOp::Linear; })) {
      return std::nullopt;
    }
    stages.push_back(s);
  }
  DnnlEpilogue out;
  for (size_t i = 0; i < stages.size(); ++i) {
    const engine::EpilogueStage& s = stages[i];
    out.key.push_back(static_cast<int64_t>(s.op));
    if (s.op == engine::EpilogueOp::BiasRow || s.op == engine::EpilogueOp::Residual) {
      if (s.input >= in.size()) return std::nullopt;
      const TensorValue& t = in[s.input];
      if (t.type.dtype != ir::DType::Float32 || !engine::is_contiguous(t.type.shape, t.strides))
        return std::nullopt;
      const bool bias = s.op == engine::EpilogueOp::BiasRow;
      if (bias && t.type.numel() != p.n) return std::nullopt;
      if (bias && i == 0) {  // the primitive's own bias: applied before every post-op
        out.bias = row_desc;
        out.bias_data = t.raw();
        continue;
      }
      out.post_ops.append_binary(algorithm::binary_add, bias ? row_desc : dst_desc);
      out.binary.resize(static_cast<size_t>(out.post_ops.len()));
      out.binary_data.resize(out.binary.size());
      out.binary.back() = bias ? row_desc : dst_desc;
      out.binary_data.back() = t.raw();
      continue;
    }
    algorithm alg = algorithm::eltwise_relu;
    float alpha = 0, beta = 0;
    switch (s.op) {
      case engine::EpilogueOp::Relu:
        alg = algorithm::eltwise_relu;
        break;
      case engine::EpilogueOp::GeluErf:
        alg = algorithm::eltwise_gelu_erf;
        break;
      case engine::EpilogueOp::GeluTanh:
        alg = algorithm::eltwise_gelu_tanh;
        break;
      case engine::EpilogueOp::Silu:
        alg = algorithm::eltwise_swish, alpha = 1;
        break;
      case engine::EpilogueOp::Sigmoid:
        alg = algorithm::eltwise_logistic;
        break;
      case engine::EpilogueOp::Tanh:
        alg = algorithm::eltwise_tanh;
        break;
      case engine::EpilogueOp::Linear:
        // As the chain's kernel computes it: constants rounded to float32 first.
        alg = algorithm::eltwise_linear;
        alpha = static_cast<float>(s.alpha), beta = static_cast<float>(s.beta);
        out.key.push_back(std::bit_cast<int32_t>(alpha));
        out.key.push_back(std::bit_cast<int32_t>(beta));
        break;
      default:
        return std::nullopt;
    }
    out.post_ops.append_eltwise(1.0f, alg, alpha, beta);
    out.binary.resize(static_cast<size_t>(out.post_ops.len()));
    out.binary_data.resize(out.binary.size());
  }
  return out;
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
        c = allocate_value(ctx.scratch, v.type);
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
    const MatmulProblem p = describe_matmul(x, y, out);
    if (p.k > 0 && matmul_blas(ctx, p, ca, cb)) return;
    return matmul_complex(ctx, p, ca, cb);
  }
  TensorValue x = cast_to(ctx, a, dtype), y = cast_to(ctx, b, dtype);
  bool dnnl_dtype =
      dtype == ir::DType::Float32 || dtype == ir::DType::BFloat16 || dtype == ir::DType::Float16;
  if (dnnl_dtype) return run_dnnl_or_float32(ctx, x, y, out);
  const MatmulProblem p = describe_matmul(x, y, out);
  if (p.k > 0 && matmul_blas(ctx, p)) return;
  matmul_reference(ctx, p);
}

bool Matmul::run_epilogue(const KernelContext& ctx, std::span<const TensorValue> in,
                          const TensorValue& out, const engine::MatmulEpilogue& epilogue) {
  if (in.size() < 2 || out.type.dtype != ir::DType::Float32 || out.type.numel() == 0) return false;
  for (size_t i = 0; i < 2; ++i) {
    if (in[i].type.dtype != ir::DType::Float32 || in[i].conj) return false;
  }
  TensorValue a = in[0], b = in[1];
  MatmulProblem p = describe_matmul(a, b, out);
  if (p.k == 0 || p.batch_rank > kMaxDnnlBatchRank) return false;
  if (!plain_for_dnnl(p.a, p.batch_rank) || !plain_for_dnnl(p.b, p.batch_rank)) {
    // As run() does: oneDNN's fast kernels want one unit stride per matrix.
    a = make_contiguous(ctx, a), b = make_contiguous(ctx, b);
    p = describe_matmul(a, b, out);
  }
  const std::optional<DnnlEpilogue> e = dnnl_epilogue(p, in, epilogue);
  return e && dnnl_->run(ctx, p, &*e);
}

std::string Matmul::epilogue_problem(const KernelContext& ctx, std::span<const TensorValue> in,
                                     const TensorValue& out,
                                     const engine::MatmulEpilogue& epilogue) {
  const MatmulProblem p = describe_matmul(in[0], in[1], out);
  // Appends only: GCC 12 warns (-Wrestrict, falsely) on chains of string operator+.
  std::string s(ir::name(p.dtype));
  const auto word = [&s](const char* name, int64_t v) {
    s += name;
    s += std::to_string(v);
  };
  s += " b";
  for (int d = 0; d < p.batch_rank; ++d) word(d == 0 ? "" : ",", p.batch[d]);
  word(" m", p.m);
  word(" k", p.k);
  word(" n", p.n);
  s += p.a.col_stride == 1 ? " a:rows" : " a:cols";
  s += p.b.col_stride == 1 ? " b:rows" : " b:cols";
  s += ' ';
  s += epilogue.text();
  word(" t", ctx.threads);
  return s;
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
    // oneDNN's fast kernels want one unit stride per matrix: copy the others into place. Once
    // only: operands still not plain after the copy take our own loops.
    if (operand_of(a).is_contiguous() && operand_of(b).is_contiguous())
      return matmul_reference(ctx, p);
    TensorValue x = make_contiguous(ctx, a), y = make_contiguous(ctx, b);
    return run_dnnl_or_float32(ctx, x, y, out);
  }
  if (dnnl_->run(ctx, p)) return;
  // No oneDNN kernel for this 16-bit dtype on this CPU: compute in float32 and round once.
  if (p.dtype == ir::DType::Float32) return matmul_reference(ctx, p);
  TensorValue x = cast_to(ctx, a, ir::DType::Float32), y = cast_to(ctx, b, ir::DType::Float32);
  TensorValue wide =
      allocate_value(ctx.scratch, ir::TensorType{ir::DType::Float32, out.type.shape});
  run_dnnl_or_float32(ctx, x, y, wide);
  cast_into(ctx, operand_of(wide), operand_of(out));
}

}  // namespace tensord::cpu
