// Sorting along an axis (docs/ops.md), written straightforwardly: each line's positions ordered
// by std::stable_sort with the documented order (NaN the largest value; integers compared as
// int64), quantiles from the sorted line with the interpolation rules spelled out.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace {

// a strictly before b in ascending order (NaN the largest; integers compared exactly).
bool before(const Num& a, const Num& b) {
  if (a.is_float) {
    const bool na = std::isnan(a.f), nb = std::isnan(b.f);
    if (na) return false;
    if (nb) return true;
    return a.f < b.f;
  }
  return a.i < b.i;
}

struct Line {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t index(int64_t line, int64_t k) const {
    return (line / inner) * n * inner + k * inner + line % inner;
  }
};

Line line_of(const Shape& shape, int64_t axis) {
  Line l;
  for (int64_t d = 0; d < axis; ++d) l.outer *= shape[d];
  l.n = shape[axis];
  for (size_t d = axis + 1; d < shape.size(); ++d) l.inner *= shape[d];
  return l;
}

Expected sort_ref(Op op, const RefTensor& x, const ir::Attrs& attrs) {
  if (x.shape.empty()) reject(ErrorCode::Shape, "sort of a 0-d tensor");
  const int64_t axis =
      ref_axis(attrs.get_int(Attr::axis, -1), static_cast<int64_t>(x.shape.size()));
  const bool descending = attrs.get_bool(Attr::descending, false);
  RefTensor out(op == Op::sort ? x.dtype : DType::Int64, x.shape);
  if (x.numel() == 0) return Expected{out};
  const Line l = line_of(x.shape, axis);
  for (int64_t line = 0; line < l.outer * l.inner; ++line) {
    std::vector<int64_t> order(static_cast<size_t>(l.n));
    for (int64_t k = 0; k < l.n; ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      const Num u = x.at(l.index(line, a)), v = x.at(l.index(line, b));
      return descending ? before(v, u) : before(u, v);
    });
    for (int64_t k = 0; k < l.n; ++k) {
      if (op == Op::sort) {
        out.put(l.index(line, k), x.at(l.index(line, order[k])));
      } else {
        out.put(l.index(line, k), Num::of_int(order[k]));
      }
    }
  }
  return Expected{out};
}

double lerp(double a, double b, double w) {
  return std::fabs(w) < 0.5 ? a + w * (b - a) : b - (b - a) * (1 - w);
}

Expected quantile_ref(Op op, const RefTensor& x, const RefTensor& q, const ir::Attrs& attrs) {
  if (!x.floating() || !q.floating()) reject(ErrorCode::DType, "quantile of integers");
  if (q.shape.size() > 1) reject(ErrorCode::Shape, "q of rank > 1");
  const int64_t mode = attrs.get_int(Attr::interpolation, 0);
  if (mode < 0 || mode > 4) reject(ErrorCode::Shape, "interpolation code");
  const bool keepdim = attrs.get_bool(Attr::keepdim, false);
  Shape shape;
  if (q.shape.size() == 1) shape.push_back(q.shape[0]);
  Line l;
  if (attrs.has(Attr::axis)) {
    if (x.shape.empty()) reject(ErrorCode::Shape, "axis of a 0-d tensor");
    const int64_t axis = ref_axis(attrs.get_int(Attr::axis), static_cast<int64_t>(x.shape.size()));
    l = line_of(x.shape, axis);
    for (size_t d = 0; d < x.shape.size(); ++d) {
      if (static_cast<int64_t>(d) != axis)
        shape.push_back(x.shape[d]);
      else if (keepdim)
        shape.push_back(1);
    }
  } else {
    l.n = x.numel();
    if (keepdim) shape.insert(shape.end(), x.shape.size(), 1);
  }
  for (int64_t k = 0; k < q.numel(); ++k) {
    if (!(q.f[k] >= 0 && q.f[k] <= 1)) reject(ErrorCode::Shape, "q outside [0, 1]", true);
  }
  RefTensor out(x.dtype, shape);
  const int64_t lines = l.outer * l.inner;
  for (int64_t line = 0; line < lines; ++line) {
    std::vector<double> v;
    bool nan = false;
    for (int64_t k = 0; k < l.n; ++k) {
      const double e = x.f[l.index(line, k)];
      if (std::isnan(e))
        nan = true;
      else
        v.push_back(e);
    }
    std::sort(v.begin(), v.end());
    const bool undefined = v.empty() || (nan && op == Op::quantile);
    for (int64_t j = 0; j < q.numel(); ++j) {
      double r = NAN;
      if (!undefined) {
        const double pos = q.f[j] * static_cast<double>(v.size() - 1);
        const auto lo = static_cast<size_t>(std::floor(pos));
        const auto hi = static_cast<size_t>(std::ceil(pos));
        switch (mode) {
          case 1:
            r = v[lo];
            break;
          case 2:
            r = v[hi];
            break;
          case 3:
            r = v[static_cast<size_t>(std::nearbyint(pos))];
            break;
          case 4:
            r = lo == hi ? v[lo] : lerp(v[lo], v[hi], 0.5);
            break;
          default:
            r = lo == hi ? v[lo] : lerp(v[lo], v[hi], pos - static_cast<double>(lo));
            break;
        }
      }
      out.put(j * lines + line, Num::of_float(r));
    }
  }
  return Expected{out};
}

Expected median_ref(Op op, const RefTensor& x) {
  if (x.numel() == 0) reject(ErrorCode::Shape, "median of an empty tensor");
  std::vector<Num> v;
  bool nan = false;
  for (int64_t k = 0; k < x.numel(); ++k) {
    const Num e = x.at(k);
    if (e.is_float && std::isnan(e.f))
      nan = true;
    else
      v.push_back(e);
  }
  RefTensor out(x.dtype, {});
  if (v.empty() || (nan && op == Op::median)) {
    out.put(0, Num::of_float(NAN));
    return Expected{out};
  }
  std::sort(v.begin(), v.end(), before);
  out.put(0, v[(v.size() - 1) / 2]);
  return Expected{out};
}

}  // namespace

Expected ref_sort(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  switch (op) {
    case Op::sort:
    case Op::argsort:
      return sort_ref(op, in[0], attrs);
    case Op::quantile:
    case Op::nanquantile:
      return quantile_ref(op, in[0], in[1], attrs);
    default:
      return median_ref(op, in[0]);
  }
}

// The (values, indices) ops: output 0 values, output 1 int64 positions along the axis.
Expected ref_sort_multi(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs,
                        uint32_t output) {
  const RefTensor& x = in[0];
  if (x.shape.empty()) reject(ErrorCode::Shape, "0-d input");
  const auto rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = ref_axis(attrs.get_int(Attr::axis, -1), rank);
  const int64_t n = x.shape[axis];
  const bool keepdim = attrs.get_bool(Attr::keepdim, false);
  int64_t m = n;  // output length along the axis
  switch (op) {
    case Op::topk:
      m = attrs.get_int(Attr::k);
      if (m < 0 || m > n) reject(ErrorCode::Shape, "k out of range");
      break;
    case Op::kthvalue: {
      const int64_t k = attrs.get_int(Attr::k);
      if (k < 1 || k > n) reject(ErrorCode::Shape, "k out of range");
      m = 1;
      break;
    }
    case Op::median_axis:
    case Op::nanmedian_axis:
    case Op::mode:
      if (n == 0) reject(ErrorCode::Shape, "reduction of an empty axis");
      m = 1;
      break;
    default:
      break;
  }
  const bool reduces =
      op == Op::kthvalue || op == Op::median_axis || op == Op::nanmedian_axis || op == Op::mode;
  Shape shape = x.shape;
  shape[axis] = m;
  if (reduces && !keepdim) shape.erase(shape.begin() + axis);
  RefTensor values(x.dtype, shape), indices(DType::Int64, shape);
  const Line l = line_of(x.shape, axis);
  const bool descending = (op == Op::sort && attrs.get_bool(Attr::descending, false)) ||
                          (op == Op::topk && attrs.get_bool(Attr::largest, true));
  for (int64_t line = 0; line < l.outer * l.inner && n > 0; ++line) {
    const int64_t o = line / l.inner, i = line % l.inner;
    auto put = [&](int64_t slot, int64_t pos) {
      const int64_t flat = (o * m + slot) * l.inner + i;
      values.put(flat, x.at(l.index(line, pos)));
      indices.put(flat, Num::of_int(pos));
    };
    auto is_nan = [&](int64_t pos) {
      const Num v = x.at(l.index(line, pos));
      return v.is_float && std::isnan(v.f);
    };
    if (op == Op::cummax || op == Op::cummin) {
      int64_t best = 0;
      for (int64_t k = 0; k < n; ++k) {
        const Num v = x.at(l.index(line, k)), b = x.at(l.index(line, best));
        bool take = k == 0 || is_nan(k);
        if (!take && !is_nan(best)) {
          take = op == Op::cummax ? !before(v, b) : !before(b, v);  // v >= b / v <= b
        }
        if (take) best = k;
        put(k, best);
      }
      continue;
    }
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      const Num u = x.at(l.index(line, a)), v = x.at(l.index(line, b));
      return descending ? before(v, u) : before(u, v);
    });
    if (op == Op::sort || op == Op::topk) {
      for (int64_t k = 0; k < m; ++k) put(k, order[k]);
    } else if (op == Op::kthvalue) {
      put(0, order[attrs.get_int(Attr::k) - 1]);
    } else if (op == Op::mode) {
      // count each distinct value (NaN one value); the largest count, then the smallest value;
      // its last position
      int64_t best = -1, best_count = 0;
      for (int64_t a = 0; a < n; ++a) {
        int64_t count = 0, last = a;
        for (int64_t b = 0; b < n; ++b) {
          const Num u = x.at(l.index(line, a)), v = x.at(l.index(line, b));
          const bool same = (is_nan(a) && is_nan(b)) ||
                            (!before(u, v) && !before(v, u) && !is_nan(a) && !is_nan(b));
          if (same) ++count, last = std::max(last, b);
        }
        const bool better =
            best < 0 || count > best_count ||
            (count == best_count && before(x.at(l.index(line, a)), x.at(l.index(line, best))));
        if (better) best = last, best_count = count;
      }
      put(0, best);
    } else {  // median_axis, nanmedian_axis: the lower median; NaN: the first NaN
      std::vector<int64_t> finite, nans;
      for (int64_t k : order) (is_nan(k) ? nans : finite).push_back(k);
      if (finite.empty() || (!nans.empty() && op == Op::median_axis)) {
        put(0, *std::min_element(nans.begin(), nans.end()));
      } else {
        put(0, finite[(finite.size() - 1) / 2]);
      }
    }
  }
  return Expected{output == 0 ? values : indices};
}

}  // namespace tensord::conformance
