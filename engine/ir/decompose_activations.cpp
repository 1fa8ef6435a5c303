// The activations of issue 4 (docs/ops.md gives each formula, as PyTorch's CPU kernels write
// them). Integer and bool inputs become float32; float16/bfloat16 compute in float32.
#include <cmath>

#include "engine/ir/expansion.h"

namespace tensord::ir {
namespace {

// SELU's constants (Klambauer et al. 2017), as PyTorch spells them.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

class Activation {
 public:
  Activation(Expansion& e, DType out) : e_(e), c_(compute_dtype(out)) {}

  ValueRef k(double v) { return e_.scalar(v, c_); }
  ValueRef mul(ValueRef a, ValueRef b) { return e_.binary(Op::mul, a, b); }
  ValueRef div(ValueRef a, ValueRef b) { return e_.binary(Op::div, a, b); }
  ValueRef add(ValueRef a, ValueRef b) { return e_.binary(Op::add, a, b); }
  ValueRef un(Op op, ValueRef a) { return e_.unary(op, a); }
  ValueRef positive(ValueRef x) { return e_.binary(Op::gt, x, k(0.0)); }
  // x > 0 ? x : negative (a NaN x takes the negative branch, which is NaN too).
  ValueRef split(ValueRef x, ValueRef negative) { return e_.where(positive(x), x, negative); }
  ValueRef clamp(ValueRef x, double lo, double hi) {
    return e_.binary(Op::minimum, e_.binary(Op::maximum, x, k(lo)), k(hi));
  }
  // log(1 + exp(x)), below softplus's threshold.
  ValueRef softplus(ValueRef x) { return un(Op::log1p, un(Op::exp, x)); }
  DType compute() const { return c_; }
  Expansion& expansion() { return e_; }

 private:
  Expansion& e_;
  DType c_;
};

ValueRef prelu(Activation& a, ValueRef x, ValueRef w) {
  Expansion& e = a.expansion();
  const int64_t rank = e.type(x).rank();
  if (e.type(w).rank() == 1 && rank >= 2) {  // one weight per channel: (C, 1, ..., 1)
    Shape shape(static_cast<size_t>(rank - 1), 1);
    shape[0] = e.type(w).shape[0];
    w = e.reshape(w, shape);
  }
  return a.split(x, a.mul(w, x));
}

ValueRef glu(Activation& a, ValueRef x, const Attrs& attrs) {
  Expansion& e = a.expansion();
  const int64_t axis = normalize_axis(attrs.get_int(Attr::axis, -1), e.type(x).rank());
  const int64_t half = e.type(x).shape[axis] / 2;
  ValueRef first = e.add(Op::slice, {x}, {{Attr::axis, axis}, {Attr::stop, half}});
  ValueRef second = e.add(Op::slice, {x}, {{Attr::axis, axis}, {Attr::start, half}});
  return a.mul(first, a.un(Op::sigmoid, second));
}

ValueRef activation(Activation& a, const Node& node, std::span<const ValueRef> in) {
  Expansion& e = a.expansion();
  const Attrs& attrs = node.attrs;
  ValueRef x = e.cast(in[0], a.compute());
  switch (node.op) {
    case Op::elu: {
      const double alpha = attrs.get_float(Attr::alpha, 1.0);
      return a.split(x, a.mul(a.k(alpha), a.un(Op::expm1, x)));
    }
    case Op::celu: {
      const double alpha = attrs.get_float(Attr::alpha, 1.0);
      return a.split(x, a.mul(a.k(alpha), a.un(Op::expm1, a.div(x, a.k(alpha)))));
    }
    case Op::selu:
      return a.mul(a.k(kSeluScale), a.split(x, a.mul(a.k(kSeluAlpha), a.un(Op::expm1, x))));
    case Op::leaky_relu:
      return a.split(x, a.mul(x, a.k(attrs.get_float(Attr::negative_slope, 0.01))));
    case Op::hardtanh:
      return a.clamp(x, attrs.get_float(Attr::min, -1.0), attrs.get_float(Attr::max, 1.0));
    case Op::hardsigmoid:
      return a.div(a.clamp(a.add(x, a.k(3.0)), 0.0, 6.0), a.k(6.0));
    case Op::hardswish:
      // x * (relu6(x + 3) / 6): dividing first keeps x * 6 from overflowing.
      return a.mul(x, a.div(a.clamp(a.add(x, a.k(3.0)), 0.0, 6.0), a.k(6.0)));
    case Op::softplus: {
      const double beta = attrs.get_float(Attr::beta, 1.0);
      ValueRef z = a.mul(x, a.k(beta));
      ValueRef above = e.binary(Op::gt, z, a.k(attrs.get_float(Attr::threshold, 20.0)));
      return e.where(above, x, a.div(a.softplus(z), a.k(beta)));
    }
    case Op::softsign:
      return a.div(x, a.add(a.k(1.0), a.un(Op::abs, x)));
    case Op::mish: {
      // x tanh(log1p(exp(x))) with one exp: tanh(log(1 + e)) = n / (n + 2), n = e (e + 2)
      // (exp, log1p and tanh in a row took 7x NumPy's time). The exponent is capped at 20,
      // where n / (n + 2) = 1 - 8.5e-18 already rounds to 1 in float64, so n never overflows,
      // and no where() is needed. NaN propagates through minimum; -inf gives -inf * 0 = NaN,
      // as the formula does.
      ValueRef ex = a.un(Op::exp, e.binary(Op::minimum, x, a.k(20.0)));
      ValueRef n = a.mul(ex, a.add(ex, a.k(2.0)));
      return a.mul(x, a.div(n, a.add(n, a.k(2.0))));
    }
    case Op::prelu:
      return prelu(a, x, e.cast(in[1], a.compute()));
    case Op::glu:
      return glu(a, x, attrs);
    default:
      break;
  }
  throw Error(ErrorCode::Internal, "no activation decomposition for " + std::string(name(node.op)));
}

}  // namespace

ValueRef expand_activation(Expansion& e, const Node& node, std::span<const ValueRef> in) {
  const DType out = node.outputs[0].dtype;
  Activation a(e, out);
  return e.cast(activation(a, node, in), out);
}

}  // namespace tensord::ir
