// A study, not a product benchmark: where issue 5's matmul_bf16_8192 lost to torch.matmul
// (0.859 on the H200, 2026-11-28). The daemon queued cuBLASLt's first heuristic answer
// (engine/backends/cuda/cublaslt_matmul.cpp: 32 MiB workspace, float32 compute; since
// 2026-11-30 it times the first eight); PyTorch's matmul calls cublasGemmEx for these dtypes.
// This times, in one process on the same operands, cublasGemmEx and each of cuBLASLt's first
// heuristic answers for the row-major products the daemon runs (C = A B as cuBLAS's
// column-major C^T = B^T A^T), bf16 at 8192 and float32 with TF32 at 4096, 16 back-to-back
// calls a sample, CUDA events, the median of the samples. Each result is checked against the
// gemmEx one (relative Frobenius difference). Built by scripts/gpu-pack with nvcc, run by
// scripts/gpu-session's studies step.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "bench/gpu/study_timing.cuh"

#define CHECK_BLAS(x)                                                                    \
  do {                                                                                   \
    const int s_ = static_cast<int>(x);                                                  \
    if (s_ != 0) {                                                                       \
      std::fprintf(stderr, "matmul_study: %s: status %d (line %d)\n", #x, s_, __LINE__); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

namespace {

constexpr size_t kWorkspace = size_t{32} << 20;  // the daemon's matmul_workspace_bytes

// Uniform in [-1, 1) from an LCG, as float, converted by `put`.
template <class T, class Put>
void fill(T* device, size_t n, uint64_t seed, Put put) {
  std::vector<T> host(n);
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  for (T& v : host) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v = put(static_cast<float>(static_cast<double>(s >> 11) / 4503599627370496.0 - 1.0));
  }
  CHECK_CUDA(cudaMemcpy(device, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
}

// ||x - ref|| / ||ref|| over n values read back as float by `get`.
template <class T, class Get>
double rel_diff(const T* x, const T* ref, size_t n, Get get) {
  std::vector<T> hx(n), hr(n);
  CHECK_CUDA(cudaMemcpy(hx.data(), x, n * sizeof(T), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(hr.data(), ref, n * sizeof(T), cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = get(hx[i]) - get(hr[i]);
    num += d * d;
    den += static_cast<double>(get(hr[i])) * get(hr[i]);
  }
  return std::sqrt(num / den);
}

struct Problem {
  const char* name;
  int n;                // m = n = k
  cudaDataType_t data;  // A, B, C
  cublasComputeType_t compute;
  size_t itemsize;
};

void print(const Problem& p, const char* variant, double ms, double rel, const char* extra) {
  const double tflops = 2.0 * p.n * double(p.n) * p.n / (ms * 1e-3) / 1e12;
  std::printf(
      "{\"bench\":\"matmul_study_%s\",\"variant\":\"%s\",\"value\":%.1f,\"unit\":\"TFLOP/s\","
      "\"ms\":%.4f,\"rel_diff_vs_gemmex\":%.3g%s}\n",
      p.name, variant, tflops, ms, rel, extra);
  std::fflush(stdout);
}

void run_problem(const Problem& p, cublasHandle_t blas, cublasLtHandle_t lt, void* workspace,
                 int samples) {
  const size_t elems = size_t(p.n) * p.n;
  void *a, *b, *c, *ref;
  CHECK_CUDA(cudaMalloc(&a, elems * p.itemsize));
  CHECK_CUDA(cudaMalloc(&b, elems * p.itemsize));
  CHECK_CUDA(cudaMalloc(&c, elems * p.itemsize));
  CHECK_CUDA(cudaMalloc(&ref, elems * p.itemsize));
  const bool bf16 = p.data == CUDA_R_16BF;
  if (bf16) {
    const auto put = [](float v) { return __float2bfloat16(v); };
    fill(static_cast<__nv_bfloat16*>(a), elems, 1, put);
    fill(static_cast<__nv_bfloat16*>(b), elems, 2, put);
  } else {
    const auto put = [](float v) { return v; };
    fill(static_cast<float*>(a), elems, 1, put);
    fill(static_cast<float*>(b), elems, 2, put);
  }
  const auto diff = [&](const void* x) {
    return bf16 ? rel_diff(static_cast<const __nv_bfloat16*>(x),
                           static_cast<const __nv_bfloat16*>(ref), elems,
                           [](__nv_bfloat16 v) { return __bfloat162float(v); })
                : rel_diff(static_cast<const float*>(x), static_cast<const float*>(ref), elems,
                           [](float v) { return v; });
  };
  const float one = 1, zero = 0;
  const int n = p.n;
  // Row-major C = A B is column-major C^T = B^T A^T: B first.
  const auto gemm_ex = [&](void* out) {
    CHECK_BLAS(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, p.data, n, a, p.data,
                            n, &zero, out, p.data, n, p.compute, CUBLAS_GEMM_DEFAULT));
  };
  gemm_ex(ref);
  CHECK_CUDA(cudaDeviceSynchronize());
  print(p, "cublasGemmEx", study::ms_per_call([&] { gemm_ex(c); }, samples, 16), 0.0, "");

  cublasLtMatmulDesc_t desc;
  CHECK_BLAS(cublasLtMatmulDescCreate(&desc, p.compute, CUDA_R_32F));
  cublasLtMatrixLayout_t layout;
  CHECK_BLAS(cublasLtMatrixLayoutCreate(&layout, p.data, n, n, n));
  cublasLtMatmulPreference_t pref;
  CHECK_BLAS(cublasLtMatmulPreferenceCreate(&pref));
  const uint64_t ws = kWorkspace;
  CHECK_BLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                  &ws, sizeof ws));
  cublasLtMatmulHeuristicResult_t results[16] = {};
  int found = 0;
  CHECK_BLAS(cublasLtMatmulAlgoGetHeuristic(lt, desc, layout, layout, layout, layout, pref, 16,
                                            results, &found));
  for (int i = 0; i < found; ++i) {
    const auto run = [&] {
      CHECK_BLAS(cublasLtMatmul(lt, desc, &one, b, layout, a, layout, &zero, c, layout, c, layout,
                                &results[i].algo, workspace, kWorkspace, nullptr));
    };
    CHECK_CUDA(cudaMemset(c, 0xff, elems * p.itemsize));
    run();
    CHECK_CUDA(cudaDeviceSynchronize());
    const double rel = diff(c);
    const double ms = study::ms_per_call(run, samples, 16);
    int tile = -1, stages = -1, splitk = -1, cluster = -1;
    size_t got = 0;
    cublasLtMatmulAlgoConfigGetAttribute(&results[i].algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile,
                                         sizeof tile, &got);
    cublasLtMatmulAlgoConfigGetAttribute(&results[i].algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages,
                                         sizeof stages, &got);
    cublasLtMatmulAlgoConfigGetAttribute(&results[i].algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk,
                                         sizeof splitk, &got);
    cublasLtMatmulAlgoConfigGetAttribute(&results[i].algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID,
                                         &cluster, sizeof cluster, &got);
    char extra[200];
    std::snprintf(extra, sizeof extra,
                  ",\"workspace\":%zu,\"tile\":%d,\"stages\":%d,\"splitk\":%d,\"cluster\":%d",
                  results[i].workspaceSize, tile, stages, splitk, cluster);
    char variant[32];
    std::snprintf(variant, sizeof variant, "lt_heuristic_%d", i);
    print(p, variant, ms, rel, extra);
  }
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(layout);
  cublasLtMatmulDescDestroy(desc);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(ref);
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 10;
  cublasHandle_t blas;
  cublasLtHandle_t lt;
  CHECK_BLAS(cublasCreate(&blas));
  CHECK_BLAS(cublasLtCreate(&lt));
  void* workspace;
  CHECK_CUDA(cudaMalloc(&workspace, kWorkspace));
  // cublasGemmEx gets the same 32 MiB workspace as the daemon gives cuBLASLt.
  CHECK_BLAS(cublasSetWorkspace(blas, workspace, kWorkspace));
  run_problem({"bf16_8192", 8192, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2}, blas, lt, workspace,
              samples);
  run_problem({"f32_high_4096", 4096, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4}, blas, lt,
              workspace, samples);
  cudaFree(workspace);
  cublasLtDestroy(lt);
  cublasDestroy(blas);
  return 0;
}
