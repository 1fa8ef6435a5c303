// The reductions of issue 4 (all ... norm) and the scans (cumsum, cumprod, logcumsumexp), in
// float64 from their definitions in docs/ops.md; integers exactly, wrapping like int64.
#include <cmath>
#include <limits>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void require_float(Op op, const RefTensor& x) {
  if (!x.floating()) reject(ErrorCode::DType, std::string(ir::name(op)) + " of integers");
}

Expected counts(Op op, const RefTensor& x, const RefReduction& r) {
  std::vector<int64_t> nonzero(r.count.size(), 0);
  for (int64_t k = 0; k < x.numel(); ++k) nonzero[r.bucket[k]] += x.at(k).nonzero() ? 1 : 0;
  const DType t = op == Op::count_nonzero ? DType::Int64 : DType::Bool;
  Expected e{RefTensor(t, r.out_shape)};
  for (size_t o = 0; o < nonzero.size(); ++o) {
    const int64_t v = op == Op::count_nonzero ? nonzero[o]
                      : op == Op::all         ? nonzero[o] == r.count[o]
                                              : nonzero[o] > 0;
    e.value.put(static_cast<int64_t>(o), Num::of_int(v));
  }
  return e;
}

Expected nan_moments(Op op, const RefTensor& x, const RefReduction& r) {
  std::vector<double> sum(r.count.size(), 0.0), scale(r.count.size(), 0.0);
  std::vector<int64_t> n(r.count.size(), 0);
  for (int64_t k = 0; k < x.numel(); ++k) {
    if (std::isnan(x.f[k])) continue;
    sum[r.bucket[k]] += x.f[k];
    scale[r.bucket[k]] = std::max(scale[r.bucket[k]], std::fabs(x.f[k]));
    ++n[r.bucket[k]];
  }
  Expected e{RefTensor(x.dtype, r.out_shape)};
  e.scale.resize(sum.size());
  e.terms = ref_max_count(r);
  for (size_t o = 0; o < sum.size(); ++o) {
    const double v = op == Op::nansum ? sum[o] : sum[o] / static_cast<double>(n[o]);
    e.value.put(static_cast<int64_t>(o), Num::of_float(v));
    e.scale[o] = std::isfinite(scale[o]) ? scale[o] : 0.0;
  }
  return e;
}

Expected logsumexp(const RefTensor& x, const RefReduction& r) {
  const size_t outs = r.count.size();
  std::vector<double> m(outs, -kInf), total(outs, 0.0);
  std::vector<bool> nan(outs, false);
  for (int64_t k = 0; k < x.numel(); ++k) {
    const double v = x.as_double(k);
    if (std::isnan(v)) nan[r.bucket[k]] = true;
    m[r.bucket[k]] = std::max(m[r.bucket[k]], v);
  }
  for (int64_t k = 0; k < x.numel(); ++k) {
    const double shift = std::isinf(m[r.bucket[k]]) ? 0.0 : m[r.bucket[k]];
    total[r.bucket[k]] += std::exp(x.as_double(k) - shift);
  }
  const DType t = x.floating() ? x.dtype : DType::Float32;
  Expected e{RefTensor(t, r.out_shape)};
  e.scale.resize(outs);
  e.terms = ref_max_count(r);
  for (size_t o = 0; o < outs; ++o) {
    const double shift = std::isinf(m[o]) ? 0.0 : m[o];
    const double v = nan[o] ? NAN : std::log(total[o]) + shift;
    e.value.put(static_cast<int64_t>(o), Num::of_float(v));
    e.scale[o] = 1 + std::fabs(shift);  // log of a sum >= 1 errs absolutely, the shift relatively
  }
  return e;
}

Expected norm(const RefTensor& x, const RefReduction& r, double p) {
  const size_t outs = r.count.size();
  std::vector<double> acc(outs, p == -kInf ? kInf : 0.0), big(outs, 0.0);
  for (int64_t k = 0; k < x.numel(); ++k) {
    const double a = std::fabs(x.f[k]);
    double& s = acc[r.bucket[k]];
    if (p == 0) {
      s += a != 0 ? 1 : 0;  // NaN != 0: counted, as PyTorch counts it
    } else if (std::isnan(a)) {
      s = NAN;
    } else if (p == kInf) {
      s = std::isnan(s) ? s : std::max(s, a);
    } else if (p == -kInf) {
      s = std::isnan(s) ? s : std::min(s, a);
    } else {
      s += std::pow(a, p);
    }
    big[r.bucket[k]] = std::max(big[r.bucket[k]], a);
  }
  Expected e{RefTensor(x.dtype, r.out_shape)};
  e.scale.resize(outs);
  e.terms = ref_max_count(r);
  for (size_t o = 0; o < outs; ++o) {
    double v = acc[o];
    if (std::isfinite(p) && p != 0 && p != 1) v = std::pow(v, 1 / p);
    e.value.put(static_cast<int64_t>(o), Num::of_float(v));
    const double scale = p == 1 ? big[o] : std::fabs(v) * (1 + (p != 0 ? 1 / std::fabs(p) : 0));
    e.scale[o] = std::isfinite(scale) ? scale : 0.0;
  }
  return e;
}

Expected stddev(const RefTensor& x, const ir::Attrs& attrs) {
  Expected e = ref_reduce(Op::var, x, attrs);
  for (int64_t o = 0; o < e.value.numel(); ++o) {
    const double var = e.value.f[o];
    const double sd = std::sqrt(var);
    e.value.put(o, Num::of_float(sd));
    // sqrt halves a relative error: d sqrt(v) = dv / (2 sqrt(v)).
    e.scale[o] = sd > 0 && std::isfinite(sd) ? e.scale[o] / (2 * sd) : 0.0;
  }
  return e;
}

}  // namespace

Expected ref_reduce_more(Op op, const RefTensor& x, const ir::Attrs& attrs) {
  switch (op) {
    case Op::amax:
      return ref_reduce(Op::max, x, attrs);
    case Op::amin:
      return ref_reduce(Op::min, x, attrs);
    case Op::std:
      require_float(op, x);
      return stddev(x, attrs);
    case Op::nanmean:
    case Op::norm:
      require_float(op, x);
      break;
    default:
      break;
  }
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const std::vector<bool> reduced = ref_reduced_axes(attrs, rank);
  const double p = attrs.get_float(Attr::ord, 2.0);
  if (op == Op::norm && std::isinf(p)) ref_reject_empty_axes(x.shape, reduced);
  const RefReduction r = ref_plan(x.shape, reduced, attrs.get_bool(Attr::keepdim, false));
  switch (op) {
    case Op::all:
    case Op::any:
    case Op::count_nonzero:
      return counts(op, x, r);
    case Op::nansum:
      if (!x.floating()) return ref_reduce(Op::sum, x, attrs);
      return nan_moments(op, x, r);
    case Op::nanmean:
      return nan_moments(op, x, r);
    case Op::logsumexp:
      return logsumexp(x, r);
    default:
      return norm(x, r, p);
  }
}

Expected ref_scan(Op op, const RefTensor& x, const ir::Attrs& attrs) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) reject(ErrorCode::Shape, "scan of a 0-d tensor");
  const int64_t axis = ref_axis(attrs.get_int(Attr::axis), rank);
  const bool log = op == Op::logcumsumexp;
  const DType t = x.floating() ? x.dtype : log ? DType::Float32 : DType::Int64;
  Expected e{RefTensor(t, x.shape)};
  e.scale.assign(static_cast<size_t>(x.numel()), 0.0);
  e.terms = x.shape[axis];
  int64_t stride = 1;
  for (int64_t d = axis + 1; d < rank; ++d) stride *= x.shape[d];
  const int64_t n = x.shape[axis];
  for (int64_t k = 0; k < x.numel(); ++k) {
    if ((k / stride) % n != 0) continue;  // start each line at its first element
    double acc = op == Op::cumprod ? 1.0 : log ? -kInf : 0.0, big = log ? -kInf : 0.0;
    uint64_t iacc = op == Op::cumprod ? 1 : 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t at = k + i * stride;
      if (!ir::is_floating(t)) {
        const auto v = static_cast<uint64_t>(x.i[at]);
        iacc = op == Op::cumprod ? iacc * v : iacc + v;
        e.value.put(at, Num::of_int(static_cast<int64_t>(iacc)));
        continue;
      }
      const double v = cast_to(t, x.at(at)).f;
      if (op == Op::cumsum) {
        acc += v;
        big = std::max(big, std::fabs(v));
      } else if (op == Op::cumprod) {
        acc *= v;
        big = std::fabs(acc);
      } else {
        // log(exp(acc) + exp(v)); equal infinities stay, NaN propagates.
        if (std::isnan(v) || std::isnan(acc)) {
          acc = NAN;
        } else if (!(std::isinf(acc) && acc == v)) {
          const double m = std::max(acc, v);
          acc = m + std::log1p(std::exp(-std::fabs(acc - v)));
        }
        big = std::max(big, v);
      }
      e.value.put(at, Num::of_float(acc));
      const double scale = log ? 1 + std::fabs(big) : big;
      e.scale[at] = std::isfinite(scale) ? scale : 0.0;
    }
  }
  return e;
}

}  // namespace tensord::conformance
