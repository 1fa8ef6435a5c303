// The CUDA C of integer matmul (int_matmul.h), one text per dtype.
//
// A block of 16 x 16 threads computes 64 x 64 tiles of the output, each thread a 4 x 4 patch
// (rows ty + 16 i, columns tx + 16 j, so that a half-warp's stores of one row are consecutive).
// The depth is walked in slices of 16: each thread loads 4 elements of A's 64 x 16 slice and 4
// of B's 16 x 64 slice into shared memory (already widened to the accumulator), then every
// thread reads 16 x (4 + 4) of them for its 16 x 16 multiply-adds. Operands are read through
// their row and column strides, so transposed, strided and reversed views need no copy; batch
// dims come from the td_batch argument (stride 0 where an operand broadcasts). Blocks walk the
// tiles of every batch with a grid stride. Speed has not been measured on a GPU.
#include <map>

#include "engine/backends/cuda/int_matmul.h"
#include "engine/ir/error.h"

namespace tensord::cuda {
namespace {

constexpr const char* kBody = R"(
typedef long long td_i64;
typedef unsigned int td_u32;
typedef unsigned long long td_u64;
#define TD_MAX_BATCH 16
struct td_batch {
  td_i64 rank;
  td_i64 size[TD_MAX_BATCH], a[TD_MAX_BATCH], b[TD_MAX_BATCH];
};
#define TD_TILE 64
#define TD_DEPTH 16
#define TD_SIDE 16

extern "C" __global__ void __launch_bounds__(256)
td_int_matmul(const td_t* a, const td_t* b, td_t* c, td_i64 m, td_i64 n, td_i64 k, td_i64 a_rs,
              td_i64 a_cs, td_i64 b_rs, td_i64 b_cs, td_i64 batches, td_batch bd) {
  __shared__ td_acc as[TD_DEPTH][TD_TILE];
  __shared__ td_acc bs[TD_DEPTH][TD_TILE];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TD_SIDE + tx;
  const td_i64 tiles_m = (m + TD_TILE - 1) / TD_TILE, tiles_n = (n + TD_TILE - 1) / TD_TILE;
  const td_i64 per_batch = tiles_m * tiles_n, tiles = per_batch * batches;
  for (td_i64 t = blockIdx.x; t < tiles; t += gridDim.x) {
    const td_i64 batch = t / per_batch, in_batch = t - batch * per_batch;
    const td_i64 r0 = in_batch / tiles_n * TD_TILE, c0 = in_batch % tiles_n * TD_TILE;
    td_i64 oa = 0, ob = 0;
    for (td_i64 d = bd.rank - 1, rest = batch; d >= 0; --d) {
      const td_i64 i = rest % bd.size[d];
      rest /= bd.size[d];
      oa += i * bd.a[d];
      ob += i * bd.b[d];
    }
    td_acc acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[i][j] = 0;
    }
    for (td_i64 k0 = 0; k0 < k; k0 += TD_DEPTH) {
      // A's slice: element e is row e / 16, depth e % 16 (consecutive threads read along k).
#pragma unroll
      for (int e = tid; e < TD_TILE * TD_DEPTH; e += TD_SIDE * TD_SIDE) {
        const td_i64 r = r0 + e / TD_DEPTH, kk = k0 + e % TD_DEPTH;
        as[e % TD_DEPTH][e / TD_DEPTH] =
            r < m && kk < k ? (td_acc)a[oa + r * a_rs + kk * a_cs] : (td_acc)0;
      }
      // B's slice: element e is depth e / 64, column e % 64 (consecutive threads along n).
#pragma unroll
      for (int e = tid; e < TD_TILE * TD_DEPTH; e += TD_SIDE * TD_SIDE) {
        const td_i64 kk = k0 + e / TD_TILE, col = c0 + e % TD_TILE;
        bs[e / TD_TILE][e % TD_TILE] =
            kk < k && col < n ? (td_acc)b[ob + kk * b_rs + col * b_cs] : (td_acc)0;
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < TD_DEPTH; ++kk) {
        td_acc x[4], y[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) x[i] = as[kk][ty + TD_SIDE * i];
#pragma unroll
        for (int j = 0; j < 4; ++j) y[j] = bs[kk][tx + TD_SIDE * j];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
#pragma unroll
          for (int j = 0; j < 4; ++j) acc[i][j] += x[i] * y[j];
        }
      }
      __syncthreads();
    }
    td_t* out = c + batch * m * n;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const td_i64 r = r0 + ty + TD_SIDE * i;
      if (r >= m) continue;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const td_i64 col = c0 + tx + TD_SIDE * j;
        if (col < n) out[r * n + col] = (td_t)acc[i][j];  // truncation: wraps as the type
      }
    }
  }
}
)";

// The element type and its accumulator: unsigned (wrapping is defined), at least 32 bits so that
// small types do not promote to int and overflow (the CPU's WrapT).
const char* element_type(ir::DType t) {
  switch (t) {
    case ir::DType::Int8:
      return "signed char";
    case ir::DType::UInt8:
      return "unsigned char";
    case ir::DType::Int16:
      return "short";
    case ir::DType::Int32:
      return "int";
    case ir::DType::Int64:
      return "long long";
    default:
      return nullptr;
  }
}

}  // namespace

std::vector<ir::DType> int_matmul_dtypes() {
  return {ir::DType::Int8, ir::DType::UInt8, ir::DType::Int16, ir::DType::Int32, ir::DType::Int64};
}

const std::string& int_matmul_source(ir::DType dtype) {
  static const std::map<ir::DType, std::string> texts = [] {
    std::map<ir::DType, std::string> m;
    for (ir::DType t : int_matmul_dtypes()) {
      const char* acc = t == ir::DType::Int64 ? "unsigned long long" : "unsigned int";
      m[t] = std::string("// tensord: integer matmul, ") + std::string(ir::name(t)) + "\ntypedef " +
             element_type(t) + " td_t;\ntypedef " + acc + " td_acc;\n" + kBody;
    }
    return m;
  }();
  const auto it = texts.find(dtype);
  if (it == texts.end()) {
    throw Error(ErrorCode::Internal,
                "int_matmul_source: no integer matmul kernel for " + std::string(ir::name(dtype)));
  }
  return it->second;
}

std::vector<KernelSource> int_matmul_kernel_sources() {
  std::vector<KernelSource> out;
  for (ir::DType t : int_matmul_dtypes()) {
    out.push_back({"td_int_matmul_" + std::string(ir::name(t)) + ".cu",
                   &int_matmul_source(t),
                   {kIntMatmulKernel}});
  }
  return out;
}

}  // namespace tensord::cuda
