// Our own matmul for the dtypes oneDNN lacks (float64, integers) and the layouts it cannot
// take. Cache-blocked: a panel of B is packed contiguous, then each row of a block of A
// streams over it with the output row segment held in an accumulator the compiler vectorizes.
// Integers accumulate in unsigned arithmetic, which wraps exactly like the output type.
#include <algorithm>
#include <vector>

#include "engine/backends/cpu/dispatch.h"
#include "engine/backends/cpu/matmul.h"
#include "engine/backends/cpu/parallel.h"

namespace tensord::cpu {
namespace {

constexpr int64_t kRowBlock = 32;
constexpr int64_t kColBlock = 256;
constexpr int64_t kDepthBlock = 128;

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

template <typename T>
const T& element(const MatrixOperand& x, int64_t base, int64_t r, int64_t c) {
  return reinterpret_cast<const T*>(x.data)[base + r * x.row_stride + c * x.col_stride];
}

template <typename T>
void matmul_blocks(const MatmulProblem& p, int64_t begin, int64_t end) {
  using Acc = AccT<T>;
  std::vector<Acc> acc(kRowBlock * kColBlock), packed(kDepthBlock * kColBlock);
  int64_t row_blocks = (p.m + kRowBlock - 1) / kRowBlock;
  for (int64_t unit = begin; unit < end; ++unit) {
    int64_t batch = unit / row_blocks, i0 = unit % row_blocks * kRowBlock;
    int64_t rows = std::min(kRowBlock, p.m - i0);
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
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int64_t k0 = 0; k0 < p.k; k0 += kDepthBlock) {
        int64_t depth = std::min(kDepthBlock, p.k - k0);
        for (int64_t kk = 0; kk < depth; ++kk) {
          for (int64_t j = 0; j < cols; ++j) {
            packed[kk * kColBlock + j] = static_cast<Acc>(element<T>(p.b, ob, k0 + kk, j0 + j));
          }
        }
        for (int64_t i = 0; i < rows; ++i) {
          Acc* __restrict out = acc.data() + i * kColBlock;
          for (int64_t kk = 0; kk < depth; ++kk) {
            Acc a = static_cast<Acc>(element<T>(p.a, oa, i0 + i, k0 + kk));
            const Acc* __restrict b = packed.data() + kk * kColBlock;
            for (int64_t j = 0; j < cols; ++j) out[j] += a * b[j];
          }
        }
      }
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
          c[(i0 + i) * p.c.row_stride + j0 + j] = static_cast<T>(acc[i * kColBlock + j]);
        }
      }
    }
  }
}

}  // namespace

void matmul_reference(const KernelContext& ctx, const MatmulProblem& p) {
  if (p.dtype == ir::DType::Bool) throw_unsupported(ir::Op::matmul, p.dtype);
  int64_t units = p.batch_count() * ((p.m + kRowBlock - 1) / kRowBlock);
  // One unit is up to kRowBlock * n * k multiply-adds; go parallel from about 2^20 of them.
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
