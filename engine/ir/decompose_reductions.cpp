// The reductions of issue 4 (docs/ops.md): all, any, count_nonzero, amax, amin, nansum,
// nanmean, std, logsumexp and the vector norm, each a few primitive reductions. Floats compute
// in the compute dtype (float16/bfloat16 in float32) and round once; std and norm of complex
// values compute in the dtype of their parts.
#include <cmath>
#include <limits>

#include "engine/ir/expansion.h"

namespace tensord::ir {
namespace {

struct Over {
  Ints axes;
  bool keepdim;
  double count;  // elements per output
};

Over over(Expansion& e, ValueRef x, const Attrs& attrs) {
  const Shape shape = e.type(x).shape;  // a copy: adding nodes moves the graph's nodes
  const auto rank = static_cast<int64_t>(shape.size());
  const AxisMask mask = reduction_axes(attrs, rank);
  return {axes_of(mask, rank), attrs.get_bool(Attr::keepdim, false),
          static_cast<double>(count_of(mask, shape))};
}

// The number of elements with x != 0 (NaN counts), as int64.
ValueRef nonzeros(Expansion& e, ValueRef x, const Over& o, bool keepdim) {
  return e.reduce(Op::sum, e.cast(x, DType::Bool), o.axes, keepdim);
}

ValueRef without_nan(Expansion& e, ValueRef x) {
  return e.where(e.unary(Op::isnan, x), e.scalar(0.0, e.type(x).dtype), x);
}

ValueRef variance(Expansion& e, ValueRef x, const Over& o, double correction) {
  const DType c = e.type(x).dtype;
  ValueRef mean = e.binary(Op::div, e.reduce(Op::sum, x, o.axes, true), e.scalar(o.count, c));
  ValueRef d = e.binary(Op::sub, x, mean);
  ValueRef ss = e.reduce(Op::sum, e.binary(Op::mul, d, d), o.axes, o.keepdim);
  return e.binary(Op::div, ss, e.scalar(o.count - correction, c));
}

// log(sum(exp(x))) shifted by the max; an infinite max shifts by 0 instead, so rows of -inf
// give -inf and rows with +inf give +inf (not NaN).
ValueRef logsumexp(Expansion& e, ValueRef x, const Over& o, const TensorType& out) {
  const DType c = e.type(x).dtype;
  if (o.count == 0) return e.full(out.shape, -std::numeric_limits<double>::infinity(), c);
  ValueRef m = e.reduce(Op::max, x, o.axes, true);
  ValueRef shift = e.where(e.unary(Op::isinf, m), e.scalar(0.0, c), m);
  ValueRef total = e.reduce(Op::sum, e.unary(Op::exp, e.binary(Op::sub, x, shift)), o.axes, true);
  ValueRef y = e.binary(Op::add, e.unary(Op::log, total), shift);
  return e.reshape(y, out.shape);
}

ValueRef norm(Expansion& e, ValueRef x, const Over& o, double p) {
  const DType c = e.type(x).dtype;
  const double inf = std::numeric_limits<double>::infinity();
  if (p == inf || p == -inf) {
    return e.reduce(p > 0 ? Op::max : Op::min, e.unary(Op::abs, x), o.axes, o.keepdim);
  }
  if (p == 0) return e.cast(nonzeros(e, x, o, o.keepdim), c);
  if (p == 1) return e.reduce(Op::sum, e.unary(Op::abs, x), o.axes, o.keepdim);
  if (p == 2)
    return e.unary(Op::sqrt, e.reduce(Op::sum, e.binary(Op::mul, x, x), o.axes, o.keepdim));
  ValueRef a = e.unary(Op::abs, x);
  // |x|^p by squaring and multiplying: the fused loop's pow is a scalar libm call per element
  // (norm(ord 3) took 15x NumPy's time); a few roundings stay far within the tolerance.
  const ValueRef powered = p == std::trunc(p) && p >= 3 && p <= 16
                               ? integer_power(e, a, static_cast<int>(p))
                               : e.binary(Op::pow, a, e.scalar(p, c));
  return e.binary(Op::pow, e.reduce(Op::sum, powered, o.axes, o.keepdim), e.scalar(1 / p, c));
}

ValueRef reduction(Expansion& e, const Node& node, ValueRef in) {
  const TensorType& out = node.outputs[0];
  const Attrs& attrs = node.attrs;
  const Over o = over(e, in, attrs);
  switch (node.op) {
    case Op::all:
      return e.binary(Op::eq, e.reduce(Op::sum, e.unary(Op::logical_not, in), o.axes, o.keepdim),
                      e.scalar(0.0, DType::Int64));
    case Op::any:
      return e.binary(Op::gt, nonzeros(e, in, o, o.keepdim), e.scalar(0.0, DType::Int64));
    case Op::count_nonzero:
      return nonzeros(e, in, o, o.keepdim);
    case Op::amax:
      return e.reduce(Op::max, in, o.axes, o.keepdim);
    case Op::amin:
      return e.reduce(Op::min, in, o.axes, o.keepdim);
    default:
      break;
  }
  const DType c = compute_dtype(out.dtype);
  if (is_complex(e.type(in).dtype)) {
    // The norm of complex values is that of their magnitudes; the variance of the real and
    // imaginary parts add up to E|z - E z|^2 (NumPy's var of complex), in the parts' dtype.
    if (node.op == Op::norm) {
      in = e.unary(Op::abs, in);
    } else if (node.op == Op::std) {
      const double correction = attrs.get_float(Attr::correction, 0.0);
      ValueRef re = e.cast(e.unary(Op::real, in), c), im = e.cast(e.unary(Op::imag, in), c);
      return e.cast(e.unary(Op::sqrt, e.binary(Op::add, variance(e, re, o, correction),
                                               variance(e, im, o, correction))),
                    out.dtype);
    }
  }
  ValueRef x = e.cast(in, is_floating(e.type(in).dtype) ? compute_dtype(e.type(in).dtype) : c);
  ValueRef y;
  switch (node.op) {
    case Op::nansum:
      if (!is_floating(e.type(in).dtype) && !is_complex(e.type(in).dtype)) {
        return e.reduce(Op::sum, in, o.axes, o.keepdim);  // no NaN to skip
      }
      y = e.reduce(Op::sum, without_nan(e, x), o.axes, o.keepdim);
      break;
    case Op::nanmean: {
      ValueRef total = e.reduce(Op::sum, without_nan(e, x), o.axes, o.keepdim);
      ValueRef n =
          e.reduce(Op::sum, e.unary(Op::logical_not, e.unary(Op::isnan, x)), o.axes, o.keepdim);
      y = e.binary(Op::div, total, e.cast(n, c));
      break;
    }
    case Op::std:
      y = e.unary(Op::sqrt, variance(e, x, o, attrs.get_float(Attr::correction, 0.0)));
      break;
    case Op::logsumexp:
      y = logsumexp(e, x, o, out);
      break;
    case Op::norm:
      y = norm(e, x, o, attrs.get_float(Attr::ord, 2.0));
      break;
    default:
      throw Error(ErrorCode::Internal,
                  "no reduction decomposition for " + std::string(name(node.op)));
  }
  return e.cast(y, out.dtype);
}

}  // namespace

ValueRef expand_reduction(Expansion& e, const Node& node, std::span<const ValueRef> in) {
  return reduction(e, node, in[0]);
}

}  // namespace tensord::ir
