// Sorting along an axis (docs/ops.md): sort, argsort, quantile, nanquantile, median, nanmedian.
// The input is made contiguous; every line along the axis is sorted on its own (line_sort.h: a
// stable order of its positions, NaN the largest value), lines split across threads. quantile
// sorts each line in float64; median and nanmedian select with std::nth_element over all
// elements.
#include <algorithm>
#include <cmath>
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
using ir::Node;
using ir::Op;

struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t count() const { return outer * inner; }
  // Element k of line `line`.
  int64_t at(int64_t line, int64_t k) const {
    return (line / inner) * n * inner + k * inner + line % inner;
  }
};

Lines lines_of(const ir::Shape& shape, int64_t axis) {
  Lines l;
  for (int64_t d = 0; d < axis; ++d) l.outer *= shape[d];
  l.n = shape[axis];
  for (int64_t d = axis + 1; d < static_cast<int64_t>(shape.size()); ++d) l.inner *= shape[d];
  return l;
}

int64_t grain_for(int64_t n) {
  return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, n));
}

template <typename T>
void sort_lines(const KernelContext& ctx, const Node& node, const T* x, const TensorValue& out,
                const Lines& l) {
  const bool descending = node.attrs.get_bool(Attr::descending, false);
  const bool want_values = node.op == Op::sort;
  parallel_for(l.count(), grain_for(l.n), ctx.threads, [&](int64_t begin, int64_t end) {
    ScratchVector<SortKey<T>> keys(ctx.scratch, static_cast<size_t>(l.n));
    ScratchVector<int64_t> idx(ctx.scratch, static_cast<size_t>(l.n));
    LineSort<SortKey<T>> sorter(ctx.scratch, l.n);
    for (int64_t line = begin; line < end; ++line) {
      for (int64_t k = 0; k < l.n; ++k) keys[k] = sort_key(x[l.at(line, k)]);
      // Stable in both directions: equal keys keep their order (descending is not a reversed
      // ascending sort).
      sorter.sort(keys.data(), l.n, descending, idx.data());
      if (want_values) {
        T* y = out.data<T>();
        for (int64_t k = 0; k < l.n; ++k) y[l.at(line, k)] = x[l.at(line, idx[k])];
      } else {
        auto* y = out.data<int64_t>();
        for (int64_t k = 0; k < l.n; ++k) y[l.at(line, k)] = idx[k];
      }
    }
  });
}

// Linear interpolation as PyTorch's lerp: exact at both ends.
double lerp(double a, double b, double w) {
  const double d = b - a;
  return std::fabs(w) < 0.5 ? a + w * d : b - d * (1 - w);
}

// The q-quantile of ascending, NaN-free `v` (n >= 1) by interpolation `mode` (docs/ops.md).
double quantile_of(const std::vector<double>& v, size_t n, double q, int64_t mode) {
  const double pos = q * static_cast<double>(n - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const auto hi = static_cast<size_t>(std::ceil(pos));
  switch (mode) {
    case 1:
      return v[lo];
    case 2:
      return v[hi];
    case 3:
      return v[static_cast<size_t>(std::nearbyint(pos))];
    case 4:
      return lo == hi ? v[lo] : lerp(v[lo], v[hi], 0.5);
    default:
      return lo == hi ? v[lo] : lerp(v[lo], v[hi], pos - static_cast<double>(lo));
  }
}

// Puts in place the elements of `v` (NaN-free) that quantile_of(v, n, q, mode) reads, as the
// sorted `v` has them: the one at floor(pos) by selection, the one at ceil(pos) (when another)
// as the smallest of those after it; nearest: the one at round(pos).
void select_for_quantile(std::vector<double>& v, double q, int64_t mode) {
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto at = static_cast<size_t>(mode == 3 ? std::nearbyint(pos) : std::floor(pos));
  std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(at), v.end());
  if (mode != 3 && at + 1 < v.size() && static_cast<double>(at) != pos) {
    std::iter_swap(v.begin() + static_cast<ptrdiff_t>(at + 1),
                   std::min_element(v.begin() + static_cast<ptrdiff_t>(at + 1), v.end()));
  }
}

void quantile(const KernelContext& ctx, const Node& node, const TensorValue& in,
              const TensorValue& qv, const TensorValue& out) {
  const TensorValue src = make_contiguous(ctx, cast_to(ctx, in, ir::DType::Float64));
  const TensorValue qs = make_contiguous(ctx, cast_to(ctx, qv, ir::DType::Float64));
  const auto nq = qs.type.numel();
  std::vector<double> q(qs.data<double>(), qs.data<double>() + nq);
  for (double v : q) {
    if (!(v >= 0 && v <= 1)) {
      throw Error(ErrorCode::Shape, std::string(ir::name(node.op)) +
                                        "'s q values must be in [0, 1], got " + std::to_string(v));
    }
  }
  const ir::Shape& shape = in.type.shape;
  Lines l;
  if (node.attrs.has(Attr::axis)) {
    l = lines_of(shape, ir::normalize_axis(node.attrs.get_int(Attr::axis),
                                           static_cast<int64_t>(shape.size())));
  } else {
    l.n = in.type.numel();
  }
  const int64_t count = l.count();
  if (count == 0 || nq == 0) return;
  const bool skip_nan = node.op == Op::nanquantile;
  const int64_t mode = node.attrs.get_int(Attr::interpolation, 0);
  const double* x = src.data<double>();
  ScratchVector<double> results(ctx.scratch, static_cast<size_t>(count * nq));
  parallel_for(count, grain_for(l.n), ctx.threads, [&](int64_t begin, int64_t end) {
    std::vector<double> v;
    for (int64_t line = begin; line < end; ++line) {
      v.clear();
      bool nan = false;
      for (int64_t k = 0; k < l.n; ++k) {
        const double e = x[l.at(line, k)];
        if (e != e) {
          nan = true;
        } else {
          v.push_back(e);
        }
      }
      const bool undefined = v.empty() || (nan && !skip_nan);
      if (!undefined && nq == 1) {
        // One q needs two order statistics, not the sorted line (NumPy's partition too).
        select_for_quantile(v, q[0], mode);
      } else if (!undefined) {
        std::sort(v.begin(), v.end());
      }
      for (int64_t j = 0; j < nq; ++j) {
        results[static_cast<size_t>(j * count + line)] =
            undefined ? NAN : quantile_of(v, v.size(), q[static_cast<size_t>(j)], mode);
      }
    }
  });
  visit_dtype(out.type.dtype, [&]<typename T>(TypeTag<T>) {
    if constexpr (kIsFloat<T>) {
      T* y = out.data<T>();
      for (size_t i = 0; i < results.size(); ++i) {
        if constexpr (kIsHalf<T>)
          y[i] = T(static_cast<float>(results[i]));
        else
          y[i] = static_cast<T>(results[i]);
      }
    } else {
      throw_unsupported(node.op, out.type.dtype);
    }
  });
}

template <typename T>
void median(const KernelContext& ctx, const Node& node, const T* x, int64_t n, T* y) {
  std::vector<SortKey<T>> v(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) v[k] = sort_key(x[k]);
  auto nan_end = std::partition(v.begin(), v.end(), [](SortKey<T> e) { return !is_nan_key(e); });
  const auto finite = nan_end - v.begin();
  if (finite == 0 || (finite < n && node.op == Op::median)) {
    *y = x[0];  // every element is NaN, or median of a tensor with a NaN: a NaN of x
    for (int64_t k = 0; k < n; ++k) {
      if (is_nan_key(sort_key(x[k]))) *y = x[k];
    }
    return;
  }
  const auto mid = v.begin() + (finite - 1) / 2;  // the lower median
  std::nth_element(v.begin(), mid, nan_end);
  // Write back an element of x equal to the median (no conversion from the key).
  for (int64_t k = 0; k < n; ++k) {
    if (sort_key(x[k]) == *mid) {
      *y = x[k];
      return;
    }
  }
}

}  // namespace

bool is_sort(Op op) {  // sort has two outputs: kernels_sort_multi.cpp
  switch (op) {
    case Op::argsort:
    case Op::quantile:
    case Op::nanquantile:
    case Op::median:
    case Op::nanmedian:
      return true;
    default:
      return false;
  }
}

void run_sort(const KernelContext& ctx, const ir::Node& node, std::span<const TensorValue> inputs,
              const TensorValue& out) {
  if (node.op == Op::quantile || node.op == Op::nanquantile) {
    if (inputs.size() != 2) throw Error(ErrorCode::Internal, "quantile takes two inputs");
    return quantile(ctx, node, inputs[0], inputs[1], out);
  }
  if (inputs.size() != 1) throw Error(ErrorCode::Internal, "sort takes one input");
  const TensorValue src = make_contiguous(ctx, inputs[0]);
  const ir::Shape& shape = src.type.shape;
  visit_dtype(src.type.dtype, [&]<typename T>(TypeTag<T>) {
    const T* x = src.data<T>();
    if (node.op == Op::median || node.op == Op::nanmedian) {
      return median<T>(ctx, node, x, src.type.numel(), out.data<T>());
    }
    const auto rank = static_cast<int64_t>(shape.size());
    const Lines l = lines_of(shape, ir::normalize_axis(node.attrs.get_int(Attr::axis, -1), rank));
    if (l.count() * l.n == 0) return;
    sort_lines<T>(ctx, node, x, out, l);
  });
}

}  // namespace tensord::cpu
