// Reductions: sum, prod, max, min, argmax, argmin and the composites mean and var.
#include <cmath>
#include <limits>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

// Which axes are reduced, and where each input element lands in the output.
std::vector<bool> ref_reduced_axes(const ir::Attrs& attrs, int64_t rank) {
  std::vector<bool> reduced(static_cast<size_t>(rank), !attrs.has(Attr::axes));
  if (!attrs.has(Attr::axes)) return reduced;
  for (int64_t a : attrs.get_ints(Attr::axes)) {
    int64_t n = ref_axis(a, rank);
    if (reduced[n]) reject(ErrorCode::Shape, "duplicate axis");
    reduced[n] = true;
  }
  return reduced;
}

RefReduction ref_plan(const Shape& shape, std::vector<bool> reduced, bool keepdim) {
  RefReduction r{std::move(reduced), {}, {}, {}};
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!r.reduced[d]) {
      r.out_shape.push_back(shape[d]);
    } else if (keepdim) {
      r.out_shape.push_back(1);
    }
  }
  int64_t n = 1, out_n = 1;
  for (int64_t d : shape) n *= d;
  for (int64_t d : r.out_shape) out_n *= d;
  r.bucket.resize(static_cast<size_t>(n));
  r.count.assign(static_cast<size_t>(out_n), 0);
  for (int64_t k = 0; k < n; ++k) {
    std::vector<int64_t> idx = unravel(k, shape), out_idx;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (!r.reduced[d]) {
        out_idx.push_back(idx[d]);
      } else if (keepdim) {
        out_idx.push_back(0);
      }
    }
    r.bucket[k] = ravel(out_idx, r.out_shape);
    ++r.count[r.bucket[k]];
  }
  return r;
}

void ref_reject_empty_axes(const Shape& shape, const std::vector<bool>& reduced) {
  for (size_t d = 0; d < shape.size(); ++d) {
    if (reduced[d] && shape[d] == 0) reject(ErrorCode::Shape, "reducing an axis of size 0");
  }
}

int64_t ref_max_count(const RefReduction& r) {
  int64_t m = 0;
  for (int64_t c : r.count) m = std::max(m, c);
  return m;
}

namespace {

using Reduction = RefReduction;

Expected sum_or_prod(Op op, const RefTensor& x, const Reduction& r) {
  DType out_t = x.floating() ? x.dtype : DType::Int64;
  Expected e{RefTensor(out_t, r.out_shape)};
  const bool sum = op == Op::sum;
  if (!x.floating()) {
    std::vector<uint64_t> acc(r.count.size(), sum ? 0 : 1);
    for (int64_t k = 0; k < x.numel(); ++k) {
      uint64_t v = static_cast<uint64_t>(x.i[k]);
      acc[r.bucket[k]] = sum ? acc[r.bucket[k]] + v : acc[r.bucket[k]] * v;
    }
    for (size_t o = 0; o < acc.size(); ++o) e.value.i[o] = static_cast<int64_t>(acc[o]);
    return e;
  }
  std::vector<double> acc(r.count.size(), sum ? 0.0 : 1.0);
  e.scale.assign(r.count.size(), 0.0);
  for (int64_t k = 0; k < x.numel(); ++k) {
    int64_t o = r.bucket[k];
    acc[o] = sum ? acc[o] + x.f[k] : acc[o] * x.f[k];
    if (sum) e.scale[o] = std::max(e.scale[o], std::fabs(x.f[k]));
  }
  for (size_t o = 0; o < acc.size(); ++o) {
    e.value.put(static_cast<int64_t>(o), Num::of_float(acc[o]));
    if (!sum) e.scale[o] = std::fabs(acc[o]);  // products err relative to themselves
  }
  e.terms = ref_max_count(r);
  return e;
}

Expected max_or_min(Op op, const RefTensor& x, const Reduction& r) {
  Expected e{RefTensor(x.dtype, r.out_shape)};
  std::vector<bool> seen(r.count.size(), false);
  const bool is_max = op == Op::max;
  for (int64_t k = 0; k < x.numel(); ++k) {
    size_t o = static_cast<size_t>(r.bucket[k]);
    if (x.floating()) {
      double v = x.f[k], &best = e.value.f[o];
      if (!seen[o] || std::isnan(v) || (!std::isnan(best) && (is_max ? v > best : v < best))) {
        best = v;
      }
    } else {
      int64_t v = x.i[k], &best = e.value.i[o];
      if (!seen[o] || (is_max ? v > best : v < best)) best = v;
    }
    seen[o] = true;
  }
  return e;
}

Expected arg_reduce(Op op, const RefTensor& x, const ir::Attrs& attrs) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const bool keepdim = attrs.get_bool(Attr::keepdim, false);
  const bool is_max = op == Op::argmax;
  std::optional<int64_t> axis;
  if (attrs.has(Attr::axis)) axis = ref_axis(attrs.get_int(Attr::axis), rank);
  std::vector<bool> reduced(static_cast<size_t>(rank), !axis);
  if (axis) reduced[*axis] = true;
  if (!axis && x.numel() == 0) reject(ErrorCode::Shape, "argmax/argmin of an empty tensor");
  ref_reject_empty_axes(x.shape, reduced);
  Reduction r = ref_plan(x.shape, reduced, keepdim);
  Expected e{RefTensor(DType::Int64, r.out_shape)};
  std::vector<Num> best(r.count.size());
  std::vector<bool> seen(r.count.size(), false);
  for (int64_t k = 0; k < x.numel(); ++k) {
    size_t o = static_cast<size_t>(r.bucket[k]);
    Num v = x.at(k);
    bool take = !seen[o];
    if (!take && v.is_float) {
      take = !std::isnan(best[o].f) &&
             (std::isnan(v.f) || (is_max ? v.f > best[o].f : v.f < best[o].f));
    } else if (!take) {
      take = is_max ? v.i > best[o].i : v.i < best[o].i;
    }
    if (take) {
      best[o] = v;
      e.value.i[o] = axis ? unravel(k, x.shape)[*axis] : k;
    }
    seen[o] = true;
  }
  return e;
}

void require_float(const RefTensor& x) {
  if (!x.floating()) reject(ErrorCode::DType, "mean/var need a float input");
}

Expected mean_or_var(Op op, const RefTensor& x, const Reduction& r, const ir::Attrs& attrs) {
  require_float(x);
  size_t outs = r.count.size();
  std::vector<double> sum(outs, 0.0), max_abs(outs, 0.0);
  for (int64_t k = 0; k < x.numel(); ++k) {
    sum[r.bucket[k]] += x.f[k];
    max_abs[r.bucket[k]] = std::max(max_abs[r.bucket[k]], std::fabs(x.f[k]));
  }
  Expected e{RefTensor(x.dtype, r.out_shape)};
  e.scale.assign(outs, 0.0);
  e.terms = ref_max_count(r);
  std::vector<double> mean(outs);
  for (size_t o = 0; o < outs; ++o) mean[o] = sum[o] / static_cast<double>(r.count[o]);
  if (op == Op::mean) {
    for (size_t o = 0; o < outs; ++o) {
      e.value.put(static_cast<int64_t>(o), Num::of_float(mean[o]));
      e.scale[o] = max_abs[o] / static_cast<double>(r.count[o]);
    }
    return e;
  }
  double correction = attrs.get_float(Attr::correction, 0.0);
  std::vector<double> squares(outs, 0.0);
  for (int64_t k = 0; k < x.numel(); ++k) {
    size_t o = static_cast<size_t>(r.bucket[k]);
    double d = x.f[k] - mean[o];
    squares[o] += d * d;
    // A float32 (x - mean) errs by eps * (|x| + |mean|); squaring doubles it relative to |d|.
    e.scale[o] = std::max(e.scale[o], 2 * std::fabs(d) * (std::fabs(x.f[k]) + std::fabs(mean[o])));
  }
  for (size_t o = 0; o < outs; ++o) {
    double denom = static_cast<double>(r.count[o]) - correction;
    e.value.put(static_cast<int64_t>(o), Num::of_float(squares[o] / denom));
    e.scale[o] /= std::fabs(denom);
  }
  return e;
}

}  // namespace

Expected ref_reduce(Op op, const RefTensor& x, const ir::Attrs& attrs) {
  if (op == Op::argmax || op == Op::argmin) return arg_reduce(op, x, attrs);
  if (op == Op::mean || op == Op::var) require_float(x);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<bool> reduced = ref_reduced_axes(attrs, rank);
  if (op == Op::max || op == Op::min) ref_reject_empty_axes(x.shape, reduced);
  Reduction r = ref_plan(x.shape, reduced, attrs.get_bool(Attr::keepdim, false));
  switch (op) {
    case Op::sum:
    case Op::prod:
      return sum_or_prod(op, x, r);
    case Op::max:
    case Op::min:
      return max_or_min(op, x, r);
    default:
      return mean_or_var(op, x, r, attrs);
  }
}

}  // namespace tensord::conformance
