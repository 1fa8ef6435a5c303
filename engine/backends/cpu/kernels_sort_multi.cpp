// The (values, indices) ops of sorting (docs/ops.md): sort, topk, kthvalue, median_axis,
// nanmedian_axis, mode, cummax, cummin. The input is made contiguous; each line along the axis
// is handled on its own (a stable sort of its positions, line_sort.h, NaN the largest value),
// lines split across threads; output 0 holds values of x's dtype, output 1 int64 positions
// along the axis.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "engine/backends/cpu/dispatch.h"
#include "engine/backends/cpu/kernels.h"
#include "engine/backends/cpu/line_sort.h"
#include "engine/backends/cpu/parallel.h"
#include "engine/ir/error.h"

namespace tensord::cpu {
namespace {

using ir::Attr;
using ir::Op;

template <typename K>
bool key_equal(K a, K b) {  // NaN equals NaN (mode counts them as one value)
  if (is_nan_key(a) || is_nan_key(b)) return is_nan_key(a) && is_nan_key(b);
  return a == b;
}

// Input lines: `outer` blocks of `n` steps of `inner` adjacent lines; output lines have `m`
// steps (m = n for sort and the scans, k for topk, 1 for the reductions).
struct Geometry {
  int64_t outer = 1, n = 1, inner = 1, m = 1;
  int64_t count() const { return outer * inner; }
  int64_t in_at(int64_t line, int64_t k) const {
    return (line / inner) * n * inner + k * inner + line % inner;
  }
  int64_t out_at(int64_t line, int64_t k) const {
    return (line / inner) * m * inner + k * inner + line % inner;
  }
};

// The ops that need a few positions of the sorted line, not all of it: topk (k well below n),
// kthvalue, median_axis and nanmedian_axis, by selection (nth_element / partial_sort, O(n) and
// O(n log k) instead of a stable sort's O(n log n): 4x NumPy's time before). Ties are broken
// by position, which makes the order total and equal to the stable sort's, so the selected
// element is the one the stable sort puts there. Returns false for the other ops.
template <typename K, typename Put>
bool select(Op op, const Geometry& g, const ScratchVector<K>& keys, ScratchVector<int64_t>& idx,
            int64_t kth, bool descending, Put put) {
  auto before = [&](int64_t a, int64_t b) {
    const K ka = keys[a], kb = keys[b];
    if (descending) return nan_last_less(kb, ka) || (!nan_last_less(ka, kb) && a < b);
    return nan_last_less(ka, kb) || (!nan_last_less(kb, ka) && a < b);
  };
  switch (op) {
    case Op::topk:
      if (g.m * 4 > g.n) return false;
      std::partial_sort(idx.begin(), idx.begin() + g.m, idx.end(), before);
      for (int64_t k = 0; k < g.m; ++k) put(k, idx[k]);
      return true;
    case Op::kthvalue:
      std::nth_element(idx.begin(), idx.begin() + (kth - 1), idx.end(), before);
      put(0, idx[kth - 1]);
      return true;
    case Op::median_axis:
    case Op::nanmedian_axis: {
      int64_t finite = 0, first_nan = -1;
      for (int64_t k = 0; k < g.n; ++k) {
        if (!is_nan_key(keys[k]))
          ++finite;
        else if (first_nan < 0)
          first_nan = k;
      }
      if (finite == 0 || (finite < g.n && op == Op::median_axis)) {
        put(0, first_nan);  // the stable sort's first NaN: the first in input order
      } else {
        const int64_t mid = (finite - 1) / 2;  // NaNs sort last: positions below finite
        std::nth_element(idx.begin(), idx.begin() + mid, idx.end(), before);
        put(0, idx[mid]);
      }
      return true;
    }
    default:
      return false;
  }
}

template <typename T>
void run_lines(const KernelContext& ctx, const ir::Node& node, const T* x, T* values,
               int64_t* indices, const Geometry& g) {
  const Op op = node.op;
  const bool descending = (op == Op::sort && node.attrs.get_bool(Attr::descending, false)) ||
                          (op == Op::topk && node.attrs.get_bool(Attr::largest, true));
  const int64_t kth = op == Op::kthvalue ? node.attrs.get_int(Attr::k) : 0;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, g.n));
  parallel_for(g.count(), grain, ctx.threads, [&](int64_t begin, int64_t end) {
    ScratchVector<SortKey<T>> keys(ctx.scratch, static_cast<size_t>(g.n));
    ScratchVector<int64_t> idx(ctx.scratch, static_cast<size_t>(g.n));
    LineSort<SortKey<T>> sorter(ctx.scratch, g.n);
    for (int64_t line = begin; line < end; ++line) {
      for (int64_t k = 0; k < g.n; ++k) keys[k] = sort_key(x[g.in_at(line, k)]);
      auto put = [&](int64_t slot, int64_t pos) {
        values[g.out_at(line, slot)] = x[g.in_at(line, pos)];
        indices[g.out_at(line, slot)] = pos;
      };
      if (op == Op::cummax || op == Op::cummin) {
        // PyTorch's rule: a NaN takes over (and every later NaN moves the index); otherwise a
        // value >= (cummax) or <= (cummin) the running one does, so ties take the latest index.
        int64_t best = 0;
        for (int64_t k = 0; k < g.n; ++k) {
          const auto v = keys[k], b = keys[best];
          const bool take =
              k == 0 || is_nan_key(v) || (!is_nan_key(b) && (op == Op::cummax ? v >= b : v <= b));
          if (take) best = k;
          values[g.out_at(line, k)] = x[g.in_at(line, best)];
          indices[g.out_at(line, k)] = best;
        }
        continue;
      }
      std::iota(idx.begin(), idx.end(), int64_t{0});
      if (select(op, g, keys, idx, kth, descending, put)) continue;
      sorter.sort(keys.data(), g.n, descending, idx.data());
      switch (op) {
        case Op::sort:
        case Op::topk:
          for (int64_t k = 0; k < g.m; ++k) put(k, idx[k]);
          break;
        case Op::kthvalue:
          put(0, idx[kth - 1]);
          break;
        case Op::median_axis:
        case Op::nanmedian_axis: {
          int64_t finite = g.n;
          while (finite > 0 && is_nan_key(keys[idx[finite - 1]])) --finite;
          if (finite == 0 || (finite < g.n && op == Op::median_axis)) {
            put(0, idx[finite]);  // the first NaN (stable: in input order)
          } else {
            put(0, idx[(finite - 1) / 2]);
          }
          break;
        }
        case Op::mode: {
          // The most frequent value (ties: the smallest), at its last position.
          int64_t best = 0, best_count = 0;
          for (int64_t s = 0; s < g.n;) {
            int64_t e = s + 1;
            while (e < g.n && key_equal(keys[idx[e]], keys[idx[s]])) ++e;
            if (e - s > best_count) best = e - 1, best_count = e - s;
            s = e;
          }
          put(0, idx[best]);  // stable: the last of the equal run is the last position
          break;
        }
        default:
          break;
      }
    }
  });
}

}  // namespace

bool is_sort_multi(Op op) {
  switch (op) {
    case Op::sort:
    case Op::topk:
    case Op::kthvalue:
    case Op::median_axis:
    case Op::nanmedian_axis:
    case Op::mode:
    case Op::cummax:
    case Op::cummin:
      return true;
    default:
      return false;
  }
}

void run_sort_multi(const KernelContext& ctx, const ir::Node& node,
                    std::span<const TensorValue> inputs, std::span<const TensorValue> outputs) {
  if (inputs.size() != 1 || outputs.size() != 2) {
    throw Error(ErrorCode::Internal,
                std::string(ir::name(node.op)) + " takes one input and two outputs");
  }
  const TensorValue src = make_contiguous(ctx, inputs[0]);
  const ir::Shape& shape = src.type.shape;
  const auto rank = static_cast<int64_t>(shape.size());
  const int64_t axis = ir::normalize_axis(node.attrs.get_int(Attr::axis, -1), rank);
  Geometry g;
  for (int64_t d = 0; d < axis; ++d) g.outer *= shape[d];
  g.n = shape[axis];
  for (int64_t d = axis + 1; d < rank; ++d) g.inner *= shape[d];
  switch (node.op) {
    case Op::sort:
    case Op::cummax:
    case Op::cummin:
      g.m = g.n;
      break;
    case Op::topk:
      g.m = node.attrs.get_int(Attr::k);
      break;
    default:
      g.m = 1;
      break;
  }
  if (g.count() == 0 || g.n == 0 || g.m == 0) return;
  visit_dtype(src.type.dtype, [&]<typename T>(TypeTag<T>) {
    run_lines<T>(ctx, node, src.data<T>(), outputs[0].data<T>(), outputs[1].data<int64_t>(), g);
  });
}

}  // namespace tensord::cpu
