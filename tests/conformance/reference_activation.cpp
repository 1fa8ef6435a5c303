// The activations (docs/ops.md), each written from its formula in float64. Integer and bool
// inputs are converted to float32 first, as the engine does.
#include <algorithm>
#include <cmath>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace {

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

double hardsigmoid(double x) {
  if (std::isnan(x)) return x;
  return x <= -3 ? 0.0 : x >= 3 ? 1.0 : x / 6 + 0.5;
}

double activation(Op op, double x, const ir::Attrs& attrs) {
  const double alpha = attrs.get_float(Attr::alpha, 1.0);
  switch (op) {
    case Op::elu:
      return x > 0 ? x : alpha * std::expm1(x);
    case Op::celu:
      return x > 0 ? x : alpha * std::expm1(x / alpha);
    case Op::selu:
      return kSeluScale * (x > 0 ? x : kSeluAlpha * std::expm1(x));
    case Op::leaky_relu:
      return x > 0 ? x : x * attrs.get_float(Attr::negative_slope, 0.01);
    case Op::hardtanh: {
      if (std::isnan(x)) return x;
      const double lo = attrs.get_float(Attr::min, -1.0), hi = attrs.get_float(Attr::max, 1.0);
      return std::min(std::max(x, lo), hi);
    }
    case Op::hardsigmoid:
      return hardsigmoid(x);
    case Op::hardswish:
      return x * hardsigmoid(x);
    case Op::softplus: {
      const double beta = attrs.get_float(Attr::beta, 1.0);
      return beta * x > attrs.get_float(Attr::threshold, 20.0)
                 ? x
                 : std::log1p(std::exp(beta * x)) / beta;
    }
    case Op::softsign:
      return x / (1 + std::fabs(x));
    case Op::mish:
      return x * std::tanh(std::log1p(std::exp(x)));
    default:
      return NAN;
  }
}

DType float_out(DType t) {
  return ir::is_floating(t) ? t : DType::Float32;
}

}  // namespace

Expected ref_activation(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  const RefTensor& x = in[0];
  if (op == Op::glu) {
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    if (rank == 0) reject(ErrorCode::Shape, "glu of a 0-d tensor");
    const int64_t axis = ref_axis(attrs.get_int(Attr::axis, -1), rank);
    if (x.shape[axis] % 2) reject(ErrorCode::Shape, "odd axis");
    Shape shape = x.shape;
    const int64_t half = shape[axis] / 2;
    shape[axis] = half;
    const DType t = float_out(x.dtype);
    Expected e{RefTensor(t, shape)};
    for (int64_t k = 0; k < e.value.numel(); ++k) {
      std::vector<int64_t> idx = unravel(k, shape);
      const double a = cast_to(t, x.at(ravel(idx, x.shape))).f;
      idx[axis] += half;
      const double b = cast_to(t, x.at(ravel(idx, x.shape))).f;
      e.value.put(k, Num::of_float(a / (1 + std::exp(-b))));
    }
    return e;
  }
  DType t = x.dtype;
  if (op == Op::prelu) {
    const RefTensor& w = in[1];
    const bool single = w.shape.size() <= 1 && (w.shape.empty() || w.shape[0] == 1);
    const bool channels = w.shape.size() == 1 && x.shape.size() >= 2 && w.shape[0] == x.shape[1];
    if (!single && !channels) reject(ErrorCode::Shape, "prelu weight shape");
    t = ref_promote(t, w.dtype);
  }
  t = float_out(t);
  Expected e{RefTensor(t, x.shape)};
  e.scale.assign(static_cast<size_t>(x.numel()), 0.0);
  for (int64_t k = 0; k < x.numel(); ++k) {
    const double v = cast_to(t, x.at(k)).f;
    double y;
    if (op == Op::prelu) {
      const RefTensor& w = in[1];
      int64_t wi = 0;
      if (w.numel() > 1) wi = unravel(k, x.shape)[1];
      y = v > 0 ? v : cast_to(t, w.at(wi)).f * v;
    } else {
      y = activation(op, v, attrs);
    }
    e.value.put(k, Num::of_float(y));
    // Cancellation near a formula's zero (x + 3 in hardswish, ...) errs relative to |x|.
    e.scale[k] = std::isfinite(v) ? std::fabs(v) : 0.0;
  }
  return e;
}

}  // namespace tensord::conformance
