// A study, not a product benchmark: which kernel structure takes a float32 softmax over rows
// to the device's copy bandwidth (issue 6's goal: >= 0.85 of a D2D copy at 4096, 32768 and
// 262144 columns; the generated kernel measured 0.26-0.30 on the H200, 2026-11-28). Hand-written
// variants, timed the way bench/gpu times (16 back-to-back launches a sample, CUDA events, the
// median of the samples) against cudaMemcpy D2D of the same bytes in the same process, each
// output poisoned first and checked against a float64 reference on sampled rows. Built by
// scripts/gpu-pack when nvcc is there (sm_90), run by scripts/gpu-session's studies step.
//   gen       the generated kernel (engine/codegen, emitted for this program by gpu-pack:
//             -DROW_STUDY_GENERATED=FILE) with 256, 512 (the daemon's launch at 4096 columns)
//             and 128 threads a row, on the daemon's grid (at most 32 blocks a multiprocessor,
//             each looping over rows) and on one block a row: loops of 4-element steps through
//             a shared-memory row cache, 0.31-0.35 (2026-11-30; a version keeping rows of up to
//             16 elements a thread in registers, at 64 registers a thread, reached 0.45 and was
//             reverted: bench/results/2026-11-30-h200-second); and the generator's row-register
//             entry point (emit_cuda_row_registers.cpp) on the daemon's launch, where it takes
//             the row
//   reg       one block per row, the row in registers: every thread issues all its 16-byte
//             loads before the first use, two block reductions, one 16-byte store each
//   cluster   a thread-block cluster per row (Hopper), the row in the cluster's registers, the
//             partial max and sum exchanged through distributed shared memory: for rows longer
//             than one block can hold
// Output: one JSON line per (columns, variant), ratio = value / peer_value.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bench/gpu/study_timing.cuh"

#ifdef ROW_STUDY_GENERATED
#include ROW_STUDY_GENERATED  // td_generated_softmax{,_registers}(const td_params<9>) and
                             // td_generated_register_block(cols)
#endif

namespace cg = cooperative_groups;

namespace {

// Sum or max over a block: warp shuffles, one slot per warp, every thread folds the slots in
// the same order. `slots` is not reused before the next barrier (each reduction has its own).
template <bool kMax, int kBlock>
__device__ __forceinline__ float block_reduce(float x, float* slots) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const float y = __shfl_xor_sync(0xffffffffu, x, o);
    x = kMax ? fmaxf(x, y) : x + y;
  }
  if ((threadIdx.x & 31) == 0) slots[threadIdx.x >> 5] = x;
  __syncthreads();
  x = slots[0];
#pragma unroll
  for (int w = 1; w < kBlock / 32; ++w) x = kMax ? fmaxf(x, slots[w]) : x + slots[w];
  return x;
}

// The row's slice of this thread: kVec float4 at a stride of the block (coalesced).
template <int kBlock, int kVec>
__device__ __forceinline__ void load_slice(const float4* row, float4 (&v)[kVec]) {
#pragma unroll
  for (int i = 0; i < kVec; ++i) v[i] = __ldcs(row + i * kBlock + threadIdx.x);
}

template <int kVec>
__device__ __forceinline__ float slice_max(const float4 (&v)[kVec]) {
  float m = -INFINITY;
#pragma unroll
  for (int i = 0; i < kVec; ++i) m = fmaxf(m, fmaxf(fmaxf(v[i].x, v[i].y), fmaxf(v[i].z, v[i].w)));
  return m;
}

template <int kVec>
__device__ __forceinline__ float exp_slice(float4 (&v)[kVec], float m) {
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < kVec; ++i) {
    v[i].x = expf(v[i].x - m);
    v[i].y = expf(v[i].y - m);
    v[i].z = expf(v[i].z - m);
    v[i].w = expf(v[i].w - m);
    s += (v[i].x + v[i].y) + (v[i].z + v[i].w);
  }
  return s;
}

template <int kBlock, int kVec>
__device__ __forceinline__ void store_slice(float4* row, float4 (&v)[kVec], float inv) {
#pragma unroll
  for (int i = 0; i < kVec; ++i) {
    v[i].x *= inv;
    v[i].y *= inv;
    v[i].z *= inv;
    v[i].w *= inv;
    __stcs(row + i * kBlock + threadIdx.x, v[i]);
  }
}

// One block per row of kBlock * kVec * 4 floats.
template <int kBlock, int kVec>
__global__ void __launch_bounds__(kBlock) softmax_reg(const float* x, float* y) {
  __shared__ float max_slots[kBlock / 32], sum_slots[kBlock / 32];
  constexpr int64_t kCols = int64_t{kBlock} * kVec * 4;
  const auto* in = reinterpret_cast<const float4*>(x + blockIdx.x * kCols);
  auto* out = reinterpret_cast<float4*>(y + blockIdx.x * kCols);
  float4 v[kVec];
  load_slice<kBlock>(in, v);
  const float m = block_reduce<true, kBlock>(slice_max(v), max_slots);
  const float s = block_reduce<false, kBlock>(exp_slice(v, m), sum_slots);
  store_slice<kBlock>(out, v, 1.0f / s);
}

// A cluster of kCluster blocks per row: each block reduces its part, writes it to its shared
// memory, and after a cluster barrier every block folds all parts in rank order (so every block
// gets the same result). The second barrier keeps a block's shared memory alive until the
// others have read it.
template <bool kMax, int kCluster>
__device__ __forceinline__ float cluster_fold(float part, float* slot, cg::cluster_group& c) {
  if (threadIdx.x == 0) *slot = part;
  c.sync();
  float x = *c.map_shared_rank(slot, 0);
#pragma unroll
  for (int r = 1; r < kCluster; ++r) {
    const float y = *c.map_shared_rank(slot, r);
    x = kMax ? fmaxf(x, y) : x + y;
  }
  return x;
}

template <int kBlock, int kVec, int kCluster>
__global__ void __cluster_dims__(kCluster, 1, 1) __launch_bounds__(kBlock)
    softmax_cluster(const float* x, float* y) {
  __shared__ float max_slots[kBlock / 32], sum_slots[kBlock / 32];
  __shared__ float cluster_max, cluster_sum;
  cg::cluster_group c = cg::this_cluster();
  constexpr int64_t kPart = int64_t{kBlock} * kVec * 4;
  const int64_t row = blockIdx.x / kCluster;
  const int64_t part = c.block_rank();
  const auto* in = reinterpret_cast<const float4*>(x + (row * kCluster + part) * kPart);
  auto* out = reinterpret_cast<float4*>(y + (row * kCluster + part) * kPart);
  float4 v[kVec];
  load_slice<kBlock>(in, v);
  const float m = cluster_fold<true, kCluster>(block_reduce<true, kBlock>(slice_max(v), max_slots),
                                               &cluster_max, c);
  const float s = cluster_fold<false, kCluster>(
      block_reduce<false, kBlock>(exp_slice(v, m), sum_slots), &cluster_sum, c);
  c.sync();  // no block leaves while another still reads its cluster_sum
  store_slice<kBlock>(out, v, 1.0f / s);
}

struct Buffers {
  float* x = nullptr;
  float* y = nullptr;
  float* copy = nullptr;
  int64_t elems = 0;
};

// The largest relative error of `rows` sampled rows against a float64 softmax; NaN (the
// poison) where an element was not written.
double check_rows(const std::vector<float>& x, const Buffers& b, int64_t rows, int64_t cols) {
  double worst = 0;
  std::vector<float> got(static_cast<size_t>(cols));
  for (int64_t r : {int64_t{0}, rows / 2, rows - 1}) {
    CHECK_CUDA(
        cudaMemcpy(got.data(), b.y + r * cols, cols * sizeof(float), cudaMemcpyDeviceToHost));
    const float* row = x.data() + r * cols;
    double m = -INFINITY, s = 0;
    for (int64_t j = 0; j < cols; ++j) m = std::max(m, static_cast<double>(row[j]));
    for (int64_t j = 0; j < cols; ++j) s += std::exp(row[j] - m);
    for (int64_t j = 0; j < cols; ++j) {
      const double want = std::exp(row[j] - m) / s;
      const double err = std::fabs(got[j] - want) / want;
      if (!(err <= worst)) worst = std::isnan(err) ? NAN : err;
      if (std::isnan(worst)) return worst;
    }
  }
  return worst;
}

struct Variant {
  std::string name;
  std::function<void()> launch;
};

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 10;
  const int calls = 16;
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::fprintf(stderr, "row_study: %s, %d SMs, %zu KiB shared memory per block (opt-in)\n",
               prop.name, prop.multiProcessorCount, prop.sharedMemPerBlockOptin >> 10);
  Buffers b;
  b.elems = int64_t{64} << 20;  // 256 MiB of float32, as bench/fusion's gpu_softmax_<cols>
  const size_t bytes = static_cast<size_t>(b.elems) * sizeof(float);
  CHECK_CUDA(cudaMalloc(&b.x, bytes));
  CHECK_CUDA(cudaMalloc(&b.y, bytes));
  CHECK_CUDA(cudaMalloc(&b.copy, bytes));
  std::vector<float> x(static_cast<size_t>(b.elems));
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (float& v : x) {  // uniform in [-4, 4): exp spans e^8 within a row
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<float>(static_cast<double>(state >> 11) / 9007199254740992.0 * 8.0 - 4.0);
  }
  CHECK_CUDA(cudaMemcpy(b.x, x.data(), bytes, cudaMemcpyHostToDevice));
  const double copy_ms = study::ms_per_call(
      [&] { CHECK_CUDA(cudaMemcpyAsync(b.copy, b.x, bytes, cudaMemcpyDeviceToDevice)); }, samples,
      calls);
  const double copy_gbps = 2.0 * bytes / (copy_ms * 1e-3) / 1e9;
  for (const int64_t cols : {int64_t{4096}, int64_t{32768}, int64_t{262144}}) {
    const int64_t rows = b.elems / cols;
    const auto grid = [&](int64_t per_row) { return static_cast<unsigned>(rows * per_row); };
    std::vector<Variant> variants;
#ifdef ROW_STUDY_GENERATED
    // Thread counts around the daemon's (cuda_launch_config: 512 at 4096 columns), with the
    // row cache wherever the daemon would give one (rows of up to 40 KiB).
    for (const unsigned block : {256u, 512u, 128u}) {
      if (cols > 8192) break;  // the longer rows are bench/fusion's figures
      // The daemon's grid (at most 32 blocks a multiprocessor, each looping over rows) and one
      // block a row.
      for (const bool capped : {true, false}) {
        variants.push_back(
            {"gen_b" + std::to_string(block) + (capped ? "" : "_grid_rows"),
             [&, rows, cols, block, capped] {
               td_params<9> p{};
               const int64_t w[9] = {rows, cols, cols, 1, cols, 1, (int64_t)b.x, (int64_t)b.y, 0};
               std::copy(w, w + 9, p.w);
               const int64_t cap = capped ? prop.multiProcessorCount * 32 : rows;
               const unsigned g = static_cast<unsigned>(std::min<int64_t>(rows, cap));
               const size_t smem = cols * 4 <= (40 << 10) ? cols * 4 : 0;
               td_generated_softmax<<<g, block, smem>>>(p);
             }});
      }
    }
    // The generated row-register entry point on the daemon's launch (cuda_launch_config: one
    // row a block, at most 32 blocks a multiprocessor looping over rows).
    if (const unsigned block = td_generated_register_block(cols); block > 0) {
      variants.push_back({"gen_registers_b" + std::to_string(block), [&, rows, cols, block] {
                            td_params<9> p{};
                            const int64_t w[9] = {rows, cols, cols, 1, cols, 1,
                                                  (int64_t)b.x, (int64_t)b.y, 0};
                            std::copy(w, w + 9, p.w);
                            const unsigned g = static_cast<unsigned>(
                                std::min<int64_t>(rows, prop.multiProcessorCount * 32));
                            td_generated_softmax_registers<<<g, block>>>(p);
                          }});
    }
#endif
    if (cols == 4096) {
      variants.push_back({"reg_b256_v4", [&] { softmax_reg<256, 4><<<grid(1), 256>>>(b.x, b.y); }});
      variants.push_back({"reg_b512_v2", [&] { softmax_reg<512, 2><<<grid(1), 512>>>(b.x, b.y); }});
      variants.push_back(
          {"reg_b1024_v1", [&] { softmax_reg<1024, 1><<<grid(1), 1024>>>(b.x, b.y); }});
      variants.push_back({"reg_b128_v8", [&] { softmax_reg<128, 8><<<grid(1), 128>>>(b.x, b.y); }});
    } else if (cols == 32768) {
      variants.push_back(
          {"reg_b1024_v8", [&] { softmax_reg<1024, 8><<<grid(1), 1024>>>(b.x, b.y); }});
      variants.push_back(
          {"reg_b512_v16", [&] { softmax_reg<512, 16><<<grid(1), 512>>>(b.x, b.y); }});
      variants.push_back(
          {"cluster2_b512_v8", [&] { softmax_cluster<512, 8, 2><<<grid(2), 512>>>(b.x, b.y); }});
      variants.push_back(
          {"cluster4_b256_v8", [&] { softmax_cluster<256, 8, 4><<<grid(4), 256>>>(b.x, b.y); }});
      variants.push_back(
          {"cluster8_b256_v4", [&] { softmax_cluster<256, 4, 8><<<grid(8), 256>>>(b.x, b.y); }});
    } else {
      variants.push_back(
          {"cluster8_b1024_v8", [&] { softmax_cluster<1024, 8, 8><<<grid(8), 1024>>>(b.x, b.y); }});
      variants.push_back(
          {"cluster8_b512_v16", [&] { softmax_cluster<512, 16, 8><<<grid(8), 512>>>(b.x, b.y); }});
    }
    for (const Variant& v : variants) {
      CHECK_CUDA(
          cudaMemset(b.y, 0xff, bytes));  // NaN wherever a variant leaves an element unwritten
      v.launch();
      // A launch the device cannot take (a cluster that does not fit) is reported, not fatal.
      if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
        std::printf("{\"bench\":\"row_study_softmax_%lld\",\"variant\":\"%s\",\"error\":\"%s\"}\n",
                    static_cast<long long>(cols), v.name.c_str(), cudaGetErrorString(e));
        continue;
      }
      CHECK_CUDA(cudaDeviceSynchronize());
      const double err = check_rows(x, b, rows, cols);
      const double ms = study::ms_per_call(v.launch, samples, calls);
      const double gbps = 2.0 * bytes / (ms * 1e-3) / 1e9;
      std::printf(
          "{\"bench\":\"row_study_softmax_%lld\",\"variant\":\"%s\",\"value\":%.1f,\"unit\":"
          "\"GB/s\",\"peer\":\"cudaMemcpy_d2d\",\"peer_value\":%.1f,\"ratio\":%.4f,"
          "\"max_rel_err\":%.3g}\n",
          static_cast<long long>(cols), v.name.c_str(), gbps, copy_gbps, gbps / copy_gbps, err);
      std::fflush(stdout);
    }
  }
  cudaFree(b.x);
  cudaFree(b.y);
  cudaFree(b.copy);
  return 0;
}
