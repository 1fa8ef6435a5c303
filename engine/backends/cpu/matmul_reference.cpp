// Our own matmul for the dtypes oneDNN lacks (float64, integers) and the layouts or ranks it
// cannot take. The classic blocking: per block of rows and columns, panels of A and B are
// packed (converted to the accumulator type, zero-padded to whole tiles), then a micro-kernel
// keeps a kMR x NR tile of C in registers across the depth of the panel. Integers accumulate
// in unsigned arithmetic, which wraps exactly like the output type.
#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/backends/cpu/dispatch.h"
#include "engine/backends/cpu/matmul.h"
#include "engine/backends/cpu/parallel.h"

namespace tensord::cpu {
namespace {

constexpr int64_t kMR = 6;            // rows of a register tile
constexpr int64_t kRowBlock = 48;     // rows per work unit (a multiple of kMR)
constexpr int64_t kColBlock = 256;    // columns per packed B panel
constexpr int64_t kDepthBlock = 128;  // depth per packed panel

template <typename T, bool = kIsInt<T>>
struct Accumulator {
  using type = ComputeT<T>;
};
template <typename T>
struct Accumulator<T, true> {
  using type = WrapT<T>;
};
template <typename T>
using AccT = typename Accumulator<T>::type;

// Two 64-byte vectors of accumulators per register-tile row.
template <typename Acc>
constexpr int64_t kNR = 128 / sizeof(Acc);

template <typename T>
const T& element(const MatrixOperand& x, int64_t base, int64_t r, int64_t c) {
  return reinterpret_cast<const T*>(x.data)[base + r * x.row_stride + c * x.col_stride];
}

// c[kMR][ldc] += a (depth x kMR, interleaved) * b (depth rows of ldb, NR used). Written with
// GCC vector types so the kMR x NR tile provably lives in registers.
template <typename Acc>
inline void micro_kernel(const Acc* __restrict a, const Acc* __restrict b, int64_t ldb,
                         int64_t depth, Acc* __restrict c, int64_t ldc) {
  using Vec [[gnu::vector_size(64)]] = Acc;
  constexpr int64_t kLanes = 64 / sizeof(Acc);
  static_assert(kNR<Acc> == 2 * kLanes);
  Vec acc[kMR][2] = {};
  for (int64_t kk = 0; kk < depth; ++kk) {
    Vec b0, b1;
    std::memcpy(&b0, b + kk * ldb, sizeof(Vec));
    std::memcpy(&b1, b + kk * ldb + kLanes, sizeof(Vec));
    for (int64_t r = 0; r < kMR; ++r) {
      Acc av = a[kk * kMR + r];
      acc[r][0] += av * b0;
      acc[r][1] += av * b1;
    }
  }
  for (int64_t r = 0; r < kMR; ++r) {
    for (int64_t h = 0; h < 2; ++h) {
      Vec cur;
      std::memcpy(&cur, c + r * ldc + h * kLanes, sizeof(Vec));
      cur += acc[r][h];
      std::memcpy(c + r * ldc + h * kLanes, &cur, sizeof(Vec));
    }
  }
}

template <typename T>
void matmul_blocks(const MatmulProblem& p, int64_t begin, int64_t end) {
  using Acc = AccT<T>;
  constexpr int64_t NR = kNR<Acc>;
  std::vector<Acc> acc(kRowBlock * kColBlock), a_pack(kRowBlock * kDepthBlock),
      b_pack(kDepthBlock * kColBlock);
  int64_t row_blocks = (p.m + kRowBlock - 1) / kRowBlock;
  for (int64_t unit = begin; unit < end; ++unit) {
    int64_t batch = unit / row_blocks, i0 = unit % row_blocks * kRowBlock;
    int64_t rows = std::min(kRowBlock, p.m - i0);
    int64_t padded_rows = (rows + kMR - 1) / kMR * kMR;
    int64_t oa = 0, ob = 0, oc = 0;
    for (int64_t d = p.batch_rank - 1, rest = batch; d >= 0; --d) {
      int64_t idx = rest % p.batch[d];
      rest /= p.batch[d];
      oa += idx * p.a.batch_strides[d], ob += idx * p.b.batch_strides[d];
      oc += idx * p.c.batch_strides[d];
    }
    T* c = reinterpret_cast<T*>(p.c.data) + oc;
    for (int64_t j0 = 0; j0 < p.n; j0 += kColBlock) {
      int64_t cols = std::min(kColBlock, p.n - j0);
      int64_t padded_cols = (cols + NR - 1) / NR * NR;
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int64_t k0 = 0; k0 < p.k; k0 += kDepthBlock) {
        int64_t depth = std::min(kDepthBlock, p.k - k0);
        for (int64_t kk = 0; kk < depth; ++kk) {
          Acc* dst = b_pack.data() + kk * kColBlock;
          for (int64_t j = 0; j < cols; ++j) {
            dst[j] = static_cast<Acc>(element<T>(p.b, ob, k0 + kk, j0 + j));
          }
          std::fill(dst + cols, dst + padded_cols, Acc(0));
        }
        for (int64_t g = 0; g < padded_rows; g += kMR) {
          Acc* dst = a_pack.data() + g * depth;
          for (int64_t kk = 0; kk < depth; ++kk) {
            for (int64_t r = 0; r < kMR; ++r) {
              dst[kk * kMR + r] = g + r < rows
                                      ? static_cast<Acc>(element<T>(p.a, oa, i0 + g + r, k0 + kk))
                                      : Acc(0);
            }
          }
        }
        for (int64_t g = 0; g < padded_rows; g += kMR) {
          for (int64_t j = 0; j < padded_cols; j += NR) {
            micro_kernel(a_pack.data() + g * depth, b_pack.data() + j, kColBlock, depth,
                         acc.data() + g * kColBlock + j, kColBlock);
          }
        }
      }
      for (int64_t i = 0; i < rows; ++i) {
        T* crow = c + (i0 + i) * p.c.row_stride + j0;
        const Acc* arow = acc.data() + i * kColBlock;
        for (int64_t j = 0; j < cols; ++j) crow[j] = static_cast<T>(arow[j]);
      }
    }
  }
}

}  // namespace

void matmul_reference(const KernelContext& ctx, const MatmulProblem& p) {
  if (p.dtype == ir::DType::Bool) throw_unsupported(ir::Op::matmul, p.dtype);
  int64_t units = p.batch_count() * ((p.m + kRowBlock - 1) / kRowBlock);
  // A unit is up to kRowBlock * n * k multiply-adds; go parallel from about 2^20 of them.
  int64_t unit_cost =
      std::max<int64_t>(1, std::min(kRowBlock, p.m) * p.n * std::max<int64_t>(p.k, 1));
  int64_t grain = std::max<int64_t>(1, (int64_t{1} << 20) / unit_cost);
  visit_dtype(p.dtype, [&]<typename T>(TypeTag<T>) {
    if constexpr (!std::is_same_v<T, bool>) {
      parallel_for(units, grain, ctx.threads,
                   [&](int64_t begin, int64_t end) { matmul_blocks<T>(p, begin, end); });
    }
  });
}

}  // namespace tensord::cpu
