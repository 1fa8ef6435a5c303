// Composites over an axis or trailing axes: softmax, log_softmax, layer_norm.
#include <cmath>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace {

void require_float(const RefTensor& t) {
  if (!t.floating()) reject(ErrorCode::DType, "float input required");
}

Expected softmax(Op op, const RefTensor& x, const ir::Attrs& attrs) {
  require_float(x);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = ref_axis(attrs.get_int(Attr::axis), rank);
  int64_t outer = 1, n = x.shape[axis], inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[d];
  Expected e{RefTensor(x.dtype, x.shape)};
  e.scale.assign(static_cast<size_t>(x.numel()), 0.0);
  e.terms = 1;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      auto at = [&](int64_t j) { return (o * n + j) * inner + in; };
      double m = -INFINITY;
      bool nan = false;
      for (int64_t j = 0; j < n; ++j) {
        nan |= std::isnan(x.f[at(j)]);
        m = std::max(m, x.f[at(j)]);
      }
      if (nan) m = NAN;
      double s = 0, spread = 0;
      for (int64_t j = 0; j < n; ++j) {
        double d = x.f[at(j)] - m;
        s += std::exp(d);
        if (std::isfinite(d)) spread = std::max(spread, std::fabs(d));
      }
      for (int64_t j = 0; j < n; ++j) {
        double d = x.f[at(j)] - m;
        // exp(d) errs by eps * |d| relative (the rounding of d is amplified); the sum by the
        // largest such term; log_softmax additionally cancels d against log(s).
        double y = op == Op::softmax ? std::exp(d) / s : d - std::log(s);
        e.value.put(at(j), Num::of_float(y));
        // A non-finite d gives an exact 0 or inf, and a non-finite s NaNs: no allowance.
        double scale = op == Op::softmax ? std::fabs(y) * (std::fabs(d) + spread)
                                         : 1 + std::fabs(d) + std::fabs(std::log(s)) + spread;
        e.scale[at(j)] = std::isfinite(scale) ? scale : 0.0;
      }
    }
  }
  return e;
}

Expected layer_norm(std::span<const RefTensor> in, const ir::Attrs& attrs) {
  const RefTensor& x = in[0];
  DType out_t = x.dtype;
  for (const RefTensor& t : in) {
    require_float(t);
    out_t = ref_promote(out_t, t.dtype);
  }
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t nd = attrs.get_int(Attr::normalized_ndim);
  if (nd < 1 || nd > rank) reject(ErrorCode::Shape, "normalized_ndim out of range");
  Shape tail(x.shape.end() - nd, x.shape.end());
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i].shape != tail) reject(ErrorCode::Shape, "weight/bias shape");
  }
  const double eps = attrs.get_float(Attr::eps, 1e-5);
  int64_t n = 1;
  for (int64_t d : tail) n *= d;
  const int64_t groups = n == 0 ? 0 : x.numel() / n;
  Expected e{RefTensor(out_t, x.shape)};
  e.scale.assign(static_cast<size_t>(x.numel()), 0.0);
  e.terms = 1;
  for (int64_t g = 0; g < groups; ++g) {
    const double* row = x.f.data() + g * n;
    double mean = 0, var = 0;
    for (int64_t j = 0; j < n; ++j) mean += row[j];
    mean /= static_cast<double>(n);
    for (int64_t j = 0; j < n; ++j) var += (row[j] - mean) * (row[j] - mean);
    var /= static_cast<double>(n);
    const double inv = 1 / std::sqrt(var + eps);
    for (int64_t j = 0; j < n; ++j) {
      double w = in.size() > 1 ? in[1].f[j] : 1.0, b = in.size() > 2 ? in[2].f[j] : 0.0;
      double y = (row[j] - mean) * inv * w + b;
      e.value.put(g * n + j, Num::of_float(y));
      // (x - mean) in float32 errs by eps * (|x| + |mean|); rsqrt and the product add |y|.
      e.scale[g * n + j] =
          std::fabs(w) * (std::fabs(row[j]) + std::fabs(mean) + std::fabs(row[j] - mean)) * inv +
          std::fabs(b);
    }
  }
  return e;
}

}  // namespace

Expected ref_normalize(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  if (op == Op::layer_norm) return layer_norm(in, attrs);
  return softmax(op, in[0], attrs);
}

}  // namespace tensord::conformance
