// p-norm distances between rows: cdist (every row of x1 against every row of x2, batched with
// broadcasting) and pdist (every pair i < j of rows of one matrix, in row-major order of the
// pairs), docs/ops.md "Linear algebra". Sums run in float64 and round once; p = 0 counts the
// differing coordinates, p = inf takes the largest difference. Output rows split across threads.
#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/parallel.h"

namespace tensord::cpu {
namespace {

using ir::Op;

// sum over k of f(u[k] - v[k]) in float64, in kLanes interleaved partial sums that the compiler
// vectorizes (one running sum is bound by the add's latency: pdist took 4x SciPy's time).
template <typename T, typename F>
double lane_sum(const T* u, const T* v, int64_t m, F f) {
  constexpr int64_t kLanes = 8;
  double lanes[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= m; k += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) {
      lanes[l] += f(static_cast<double>(u[k + l]) - static_cast<double>(v[k + l]));
    }
  }
  double acc = 0;
  for (; k < m; ++k) acc += f(static_cast<double>(u[k]) - static_cast<double>(v[k]));
  for (double l : lanes) acc += l;
  return acc;
}

template <typename T>
T distance(const T* u, const T* v, int64_t m, double p) {
  double acc = 0;
  if (p == 2) {
    return static_cast<T>(std::sqrt(lane_sum(u, v, m, [](double d) { return d * d; })));
  }
  if (p == 1) {
    return static_cast<T>(lane_sum(u, v, m, [](double d) { return std::fabs(d); }));
  }
  if (p == 0) {
    for (int64_t k = 0; k < m; ++k) {
      const double d = static_cast<double>(u[k]) - v[k];
      acc += d != 0 ? 1.0 : (d == d ? 0.0 : d);  // NaN propagates
    }
    return static_cast<T>(acc);
  }
  if (std::isinf(p)) {
    for (int64_t k = 0; k < m; ++k) {
      const double d = std::fabs(static_cast<double>(u[k]) - v[k]);
      acc = d > acc || d != d ? d : acc;
      if (acc != acc) break;
    }
    return static_cast<T>(acc);
  }
  for (int64_t k = 0; k < m; ++k) acc += std::pow(std::fabs(static_cast<double>(u[k]) - v[k]), p);
  return static_cast<T>(std::pow(acc, 1.0 / p));
}

int64_t numel(const ir::Shape& s, size_t drop) {
  int64_t n = 1;
  for (size_t d = 0; d + drop < s.size(); ++d) n *= s[d];
  return n;
}

// Flat batch index of an input whose leading dims broadcast to `out_batch`.
int64_t batch_source(int64_t k, const ir::Shape& out_batch, const ir::Shape& in_shape,
                     size_t in_batch_rank) {
  std::vector<int64_t> index(out_batch.size());
  for (int64_t d = static_cast<int64_t>(out_batch.size()) - 1; d >= 0; --d) {
    index[d] = k % out_batch[d];
    k /= out_batch[d];
  }
  const size_t lead = out_batch.size() - in_batch_rank;
  int64_t flat = 0;
  for (size_t d = 0; d < in_batch_rank; ++d) {
    flat = flat * in_shape[d] + (in_shape[d] == 1 ? 0 : index[lead + d]);
  }
  return flat;
}

template <typename T>
void run_typed(const KernelContext& ctx, const ir::Node& node, std::span<const TensorValue> inputs,
               const TensorValue& out) {
  const double p = node.attrs.get_float(ir::Attr::ord, 2.0);
  const TensorValue x1 = make_contiguous(ctx, inputs[0]);
  const ir::Shape& s1 = x1.type.shape;
  const int64_t m = s1.back();
  T* y = out.data<T>();
  if (node.op == Op::pdist) {
    const int64_t n = s1[0];
    const T* x = x1.data<T>();
    // Row i's pairs start at i * n - i * (i + 1) / 2.
    parallel_for(n, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, n * m)), ctx.threads,
                 [&](int64_t begin, int64_t end) {
                   for (int64_t i = begin; i < end; ++i) {
                     T* row = y + i * n - i * (i + 1) / 2;
                     for (int64_t j = i + 1; j < n; ++j) {
                       row[j - i - 1] = distance(x + i * m, x + j * m, m, p);
                     }
                   }
                 });
    return;
  }
  const TensorValue x2 = make_contiguous(ctx, inputs[1]);
  const ir::Shape& s2 = x2.type.shape;
  const ir::Shape& os = out.type.shape;
  const ir::Shape batch(os.begin(), os.end() - 2);
  const int64_t rows1 = s1[s1.size() - 2], rows2 = s2[s2.size() - 2];
  const int64_t count = numel(batch, 0);
  parallel_for(
      count * rows1, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, rows2 * m)),
      ctx.threads, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int64_t b = r / rows1, i = r % rows1;
          const T* u = x1.data<T>() + (batch_source(b, batch, s1, s1.size() - 2) * rows1 + i) * m;
          const T* v0 = x2.data<T>() + batch_source(b, batch, s2, s2.size() - 2) * rows2 * m;
          T* yr = y + r * rows2;
          for (int64_t j = 0; j < rows2; ++j) yr[j] = distance(u, v0 + j * m, m, p);
        }
      });
}

}  // namespace

bool is_distance(Op op) {
  return op == Op::cdist || op == Op::pdist;
}

void run_distance(const KernelContext& ctx, const ir::Node& node,
                  std::span<const TensorValue> inputs, const TensorValue& out) {
  if (out.type.numel() == 0) return;
  const ir::DType t = inputs[0].type.dtype;
  if (t == ir::DType::Float32) return run_typed<float>(ctx, node, inputs, out);
  if (t == ir::DType::Float64) return run_typed<double>(ctx, node, inputs, out);
  throw Error(ErrorCode::DType, std::string(ir::name(node.op)) + " runs on float32 and float64");
}

}  // namespace tensord::cpu
