#include "engine/backends/cuda/cublaslt_matmul.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>

#include <cuComplex.h>

#include "engine/backends/cuda/cuda_check.h"
#include "engine/backends/cuda/matmul_layout.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

struct LtTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
  cudaDataType_t scale;
};

LtTypes lt_types(ir::DType dtype, engine::Float32MatmulPrecision precision) {
  using P = engine::Float32MatmulPrecision;
  switch (dtype) {
    case ir::DType::Float32:
      return {CUDA_R_32F,
              precision == P::Highest ? CUBLAS_COMPUTE_32F
              : precision == P::High  ? CUBLAS_COMPUTE_32F_FAST_TF32
                                      : CUBLAS_COMPUTE_32F_FAST_16BF,
              CUDA_R_32F};
    case ir::DType::Float16:
      return {CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case ir::DType::BFloat16:
      return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case ir::DType::Float64:
      return {CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F};
    case ir::DType::Complex64:  // as torch: complex64 at full float32 precision
      return {CUDA_C_32F, CUBLAS_COMPUTE_32F, CUDA_C_32F};
    case ir::DType::Complex128:
      return {CUDA_C_64F, CUBLAS_COMPUTE_64F, CUDA_C_64F};
    default:
      break;
  }
  throw Error(ErrorCode::Unsupported,
              "matmul of " + std::string(ir::name(dtype)) +
                  " on CUDA: cuBLASLt serves float32, float16, bfloat16, float64, complex64 "
                  "and complex128 (integer matmul is int_matmul.h's kernel)");
}

// RAII for the cuBLASLt descriptors of one call.
struct LayoutDeleter {
  void operator()(cublasLtMatrixLayoutOpaque_t* p) const { cublasLtMatrixLayoutDestroy(p); }
};
using Layout = std::unique_ptr<cublasLtMatrixLayoutOpaque_t, LayoutDeleter>;
struct DescDeleter {
  void operator()(cublasLtMatmulDescOpaque_t* p) const { cublasLtMatmulDescDestroy(p); }
};
struct PreferenceDeleter {
  void operator()(cublasLtMatmulPreferenceOpaque_t* p) const { cublasLtMatmulPreferenceDestroy(p); }
};

Layout make_layout(cudaDataType_t type, const LtOperand& o, int64_t batch) {
  cublasLtMatrixLayout_t raw = nullptr;
  check(cublasLtMatrixLayoutCreate(&raw, type, static_cast<uint64_t>(o.rows),
                                   static_cast<uint64_t>(o.cols), o.ld),
        "cublasLtMatrixLayoutCreate");
  Layout layout(raw);
  if (batch > 1) {
    int32_t count = static_cast<int32_t>(batch);
    check(cublasLtMatrixLayoutSetAttribute(raw, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                           sizeof count),
          "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)");
    int64_t stride = o.batch_stride;
    check(cublasLtMatrixLayoutSetAttribute(raw, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                           &stride, sizeof stride),
          "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
  }
  return layout;
}

cublasLtEpilogue_t lt_kind(LtEpilogueKind k) {
  switch (k) {
    case LtEpilogueKind::Bias:
      return CUBLASLT_EPILOGUE_BIAS;
    case LtEpilogueKind::Relu:
      return CUBLASLT_EPILOGUE_RELU;
    case LtEpilogueKind::ReluBias:
      return CUBLASLT_EPILOGUE_RELU_BIAS;
    case LtEpilogueKind::Gelu:
      return CUBLASLT_EPILOGUE_GELU;
    case LtEpilogueKind::GeluBias:
      return CUBLASLT_EPILOGUE_GELU_BIAS;
  }
  return CUBLASLT_EPILOGUE_DEFAULT;
}

// Calls f(one, zero) with pointers to 1 and 0 in the scale type of `dtype`'s matmul.
template <class F>
void with_one_and_zero(ir::DType dtype, F&& f) {
  switch (dtype) {
    case ir::DType::Complex128: {
      const cuDoubleComplex one{1, 0}, zero{0, 0};
      return f(&one, &zero);
    }
    case ir::DType::Complex64: {
      const cuComplex one{1, 0}, zero{0, 0};
      return f(&one, &zero);
    }
    case ir::DType::Float64: {
      const double one = 1, zero = 0;
      return f(&one, &zero);
    }
    default: {
      const float one = 1, zero = 0;
      return f(&one, &zero);
    }
  }
}

// What decides the algorithm: everything cuBLASLt's heuristic is asked about. Appended, as
// GCC 12 warns (-Wrestrict, a false positive) on chains of std::string + std::to_string.
std::string problem_key(ir::DType dtype, const LtTypes& t, const LtProblem& p,
                        const LtEpilogue* epilogue, size_t workspace_bytes) {
  std::string k;
  const auto add = [&k](int64_t v) {
    k += std::to_string(v);
    k += ' ';
  };
  for (int64_t v : {static_cast<int64_t>(dtype), static_cast<int64_t>(t.compute), p.m, p.n, p.k,
                    p.batch, static_cast<int64_t>(workspace_bytes)}) {
    add(v);
  }
  for (const LtOperand* o : {&p.a, &p.b, &p.c}) {
    add(o->ld);
    add(o->transpose ? 1 : 0);
    add(o->batch_stride);
  }
  add(epilogue ? static_cast<int64_t>(epilogue->kind) : -1);
  return k;
}

// Milliseconds a launch of `run` takes on `stream`: one to warm up, then the mean of three.
// Infinity when the launch fails (the candidate is passed over).
float time_launches(cudaStream_t stream, const std::function<cublasStatus_t()>& run) {
  cudaEvent_t start = nullptr, stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  float ms = std::numeric_limits<float>::infinity();
  if (run() == CUBLAS_STATUS_SUCCESS) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    bool ok = true;
    for (int i = 0; i < 3 && ok; ++i) ok = run() == CUBLAS_STATUS_SUCCESS;
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize (matmul algorithm timing)");
    if (ok) {
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      ms /= 3;
    }
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms;
}

}  // namespace

LtMatmul::LtMatmul() {
  check(cublasLtCreate(&handle_), "cublasLtCreate");
}

LtMatmul::~LtMatmul() {
  cublasLtDestroy(handle_);
}

void LtMatmul::run(const engine::TensorValue& a, const engine::TensorValue& b,
                   const engine::TensorValue& out, engine::Float32MatmulPrecision precision,
                   cudaStream_t stream, void* workspace, size_t workspace_bytes) {
  queue(a, b, out, precision, stream, workspace, workspace_bytes, nullptr, nullptr);
}

bool LtMatmul::run_epilogue(const engine::TensorValue& a, const engine::TensorValue& b,
                            const engine::TensorValue& out,
                            engine::Float32MatmulPrecision precision, cudaStream_t stream,
                            void* workspace, size_t workspace_bytes, const LtEpilogue& epilogue,
                            const void* bias) {
  return queue(a, b, out, precision, stream, workspace, workspace_bytes, &epilogue, bias);
}

bool LtMatmul::queue(const engine::TensorValue& a, const engine::TensorValue& b,
                     const engine::TensorValue& out, engine::Float32MatmulPrecision precision,
                     cudaStream_t stream, void* workspace, size_t workspace_bytes,
                     const LtEpilogue* epilogue, const void* bias) {
  const ir::DType dtype = out.type.dtype;
  if (a.type.dtype != dtype || b.type.dtype != dtype || a.conj || b.conj) {
    throw Error(ErrorCode::Internal,
                "LtMatmul::run: operands must be of the output's dtype and not conj views "
                "(CudaBackend::run materialises them)");
  }
  const LtTypes types = lt_types(dtype, precision);
  if (out.type.numel() == 0) return true;
  std::string why_not;
  auto p =
      describe_lt_matmul(a.type.shape, a.strides, b.type.shape, b.strides, out.type.shape, why_not);
  if (!p) {
    if (epilogue) return false;
    throw Error(ErrorCode::Unsupported, why_not);
  }
  if (p->k == 0) {
    if (epilogue) return false;  // the bias and activation still apply: the generated kernel
    // Sum over nothing: zeros. Bytes of zero are 0.0 in every float format.
    check(cudaMemsetAsync(out.raw(), 0, out.nbytes(), stream), "cudaMemsetAsync");
    return true;
  }

  cublasLtMatmulDesc_t raw_desc = nullptr;
  check(cublasLtMatmulDescCreate(&raw_desc, types.compute, types.scale),
        "cublasLtMatmulDescCreate");
  std::unique_ptr<cublasLtMatmulDescOpaque_t, DescDeleter> desc(raw_desc);
  cublasOperation_t op_a = p->a.transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t op_b = p->b.transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  check(cublasLtMatmulDescSetAttribute(raw_desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a),
        "cublasLtMatmulDescSetAttribute(TRANSA)");
  check(cublasLtMatmulDescSetAttribute(raw_desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b),
        "cublasLtMatmulDescSetAttribute(TRANSB)");
  if (epilogue) {
    // cuBLASLt's bias has one element per row of its column-major D, which are our columns:
    // a bias row broadcast over our rows (and the batch: its batch stride stays 0).
    const cublasLtEpilogue_t kind = lt_kind(epilogue->kind);
    check(
        cublasLtMatmulDescSetAttribute(raw_desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &kind, sizeof kind),
        "cublasLtMatmulDescSetAttribute(EPILOGUE)");
    if (epilogue->bias) {
      check(cublasLtMatmulDescSetAttribute(raw_desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                           sizeof bias),
            "cublasLtMatmulDescSetAttribute(BIAS_POINTER)");
    }
  }

  Layout la = make_layout(types.data, p->a, p->batch);
  Layout lb = make_layout(types.data, p->b, p->batch);
  Layout lc = make_layout(types.data, p->c, p->batch);

  // Our a is cuBLASLt's B and our b its A (see matmul_layout.h).
  const void* lt_a = b.raw();
  const void* lt_b = a.raw();
  const auto launch = [&](const cublasLtMatmulAlgo_t& algo) {
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    with_one_and_zero(dtype, [&](const void* one, const void* zero) {
      status =
          cublasLtMatmul(handle_, raw_desc, one, lt_a, la.get(), lt_b, lb.get(), zero, out.raw(),
                         lc.get(), out.raw(), lc.get(), &algo, workspace, workspace_bytes, stream);
    });
    return status;
  };
  const std::string key = problem_key(dtype, types, *p, epilogue, workspace_bytes);
  if (const auto chosen = chosen_.find(key); chosen != chosen_.end()) {
    check(launch(chosen->second), "cublasLtMatmul");
    return true;
  }
  // The heuristic's preferences: asked only for a problem not yet decided.
  cublasLtMatmulPreference_t raw_pref = nullptr;
  check(cublasLtMatmulPreferenceCreate(&raw_pref), "cublasLtMatmulPreferenceCreate");
  std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, PreferenceDeleter> pref(raw_pref);
  uint64_t ws = workspace_bytes;
  check(cublasLtMatmulPreferenceSetAttribute(raw_pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &ws, sizeof ws),
        "cublasLtMatmulPreferenceSetAttribute");
  cublasLtMatmulHeuristicResult_t heuristics[kCandidates] = {};
  int found = 0;
  check(cublasLtMatmulAlgoGetHeuristic(handle_, raw_desc, la.get(), lb.get(), lc.get(), lc.get(),
                                       raw_pref, kCandidates, heuristics, &found),
        "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) {
    if (epilogue) return false;
    throw Error(ErrorCode::Unsupported,
                "cuBLASLt has no algorithm for this " + std::string(ir::name(dtype)) + " matmul");
  }
  // The first run of a problem outside a CUDA graph capture times the candidates; a capture
  // takes the first answer and leaves the problem to the next uncaptured run.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(stream, &capture), "cudaStreamIsCapturing");
  int best = 0;
  if (found > 1 && capture == cudaStreamCaptureStatusNone) {
    float best_ms = std::numeric_limits<float>::infinity();
    for (int i = 0; i < found; ++i) {
      const float ms = time_launches(stream, [&] { return launch(heuristics[i].algo); });
      if (ms < best_ms) {
        best_ms = ms;
        best = i;
      }
    }
  }
  if (capture == cudaStreamCaptureStatusNone) chosen_.emplace(key, heuristics[best].algo);
  check(launch(heuristics[best].algo), "cublasLtMatmul");  // the output is the kept one's
  return true;
}

}  // namespace tensord::cuda
