// Composite ops rewritten into primitives (docs/ops.md gives each definition). Every node a
// composite expands into keeps the composite's source location and origin, so errors and
// profiles point at the line the user wrote.
#include <cmath>
#include <limits>
#include <numbers>

#include "engine/ir/axes.h"
#include "engine/ir/expansion.h"
#include "engine/ir/passes.h"

namespace tensord::ir {
namespace {

ValueRef gelu(Expansion& e, ValueRef in, const Attrs& attrs, DType out) {
  const DType c = compute_dtype(out);
  ValueRef x = e.cast(in, c);
  ValueRef t;
  if (attrs.get_bool(Attr::tanh, false)) {
    // tanh(sqrt(2/pi) * (x + 0.044715 x^3))
    ValueRef cube = e.binary(Op::mul, x, e.binary(Op::mul, x, x));
    ValueRef inner = e.binary(Op::add, x, e.binary(Op::mul, e.scalar(0.044715, c), cube));
    const double k = std::sqrt(2.0 / std::numbers::pi);
    t = e.unary(Op::tanh, e.binary(Op::mul, e.scalar(k, c), inner));
  } else {
    t = e.unary(Op::erf, e.binary(Op::mul, x, e.scalar(1.0 / std::numbers::sqrt2, c)));
  }
  ValueRef half_x = e.binary(Op::mul, e.scalar(0.5, c), x);
  return e.cast(e.binary(Op::mul, half_x, e.binary(Op::add, e.scalar(1.0, c), t)), out);
}

ValueRef silu(Expansion& e, ValueRef in, DType out) {
  ValueRef x = e.cast(in, compute_dtype(out));
  return e.cast(e.binary(Op::mul, x, e.unary(Op::sigmoid, x)), out);
}

ValueRef clamp(Expansion& e, ValueRef x, const Attrs& attrs) {
  const DType t = e.type(x).dtype;
  if (const AttrValue* lo = attrs.find(Attr::min)) x = e.binary(Op::maximum, x, e.full({}, *lo, t));
  if (const AttrValue* hi = attrs.find(Attr::max)) x = e.binary(Op::minimum, x, e.full({}, *hi, t));
  return x;
}

// nan_to_num: three selections, the replacements cast to x's dtype (a too large one becomes
// inf, as in PyTorch). Integers and bool are never NaN or infinite.
ValueRef nan_to_num(Expansion& e, ValueRef x, const Attrs& attrs) {
  const DType t = e.type(x).dtype;
  if (!is_floating(t)) return x;
  const double largest = t == DType::Float16    ? 65504.0
                         : t == DType::BFloat16 ? 0x1.fep127
                         : t == DType::Float32  ? 0x1.fffffep127
                                                : std::numeric_limits<double>::max();
  const AttrValue* nan = attrs.find(Attr::value);
  const AttrValue* pos = attrs.find(Attr::max);
  const AttrValue* neg = attrs.find(Attr::min);
  ValueRef y =
      e.add(Op::where, {e.unary(Op::isnan, x), e.full({}, nan ? *nan : AttrValue{0.0}, t), x});
  const double inf = std::numeric_limits<double>::infinity();
  y = e.add(Op::where, {e.binary(Op::eq, x, e.scalar(inf, t)),
                        e.full({}, pos ? *pos : AttrValue{largest}, t), y});
  return e.add(Op::where, {e.binary(Op::eq, x, e.scalar(-inf, t)),
                           e.full({}, neg ? *neg : AttrValue{-largest}, t), y});
}

// mean and var: sums in the compute dtype divided by counts.
ValueRef moments(Expansion& e, Op op, ValueRef in, const Attrs& attrs, DType out) {
  if (op == Op::var && is_complex(e.type(in).dtype)) {  // E|z - E z|^2: the parts' variances
    return e.binary(Op::add, moments(e, op, e.unary(Op::real, in), attrs, out),
                    moments(e, op, e.unary(Op::imag, in), attrs, out));
  }
  const DType c = compute_dtype(out);
  const Shape shape = e.type(in).shape;  // a copy: adding nodes moves the graph's nodes
  const AxisMask mask = reduction_axes(attrs, static_cast<int64_t>(shape.size()));
  const Ints axes = axes_of(mask, static_cast<int64_t>(shape.size()));
  const bool keepdim = attrs.get_bool(Attr::keepdim, false);
  const auto n = static_cast<double>(count_of(mask, shape));
  ValueRef x = e.cast(in, c);
  if (op == Op::mean) {
    return e.cast(e.binary(Op::div, e.sum(x, axes, keepdim), e.scalar(n, c)), out);
  }
  ValueRef mean = e.binary(Op::div, e.sum(x, axes, true), e.scalar(n, c));
  ValueRef d = e.binary(Op::sub, x, mean);
  ValueRef ss = e.sum(e.binary(Op::mul, d, d), axes, keepdim);
  const double divisor = n - attrs.get_float(Attr::correction, 0.0);
  return e.cast(e.binary(Op::div, ss, e.scalar(divisor, c)), out);
}

ValueRef flip(Expansion& e, ValueRef x, const Attrs& attrs) {
  const int64_t rank = e.type(x).rank();
  for (int64_t axis : axes_of(reduction_axes(attrs, rank), rank)) {
    x = e.add(Op::slice, {x}, {{Attr::axis, axis}, {Attr::step, int64_t{-1}}});
  }
  return x;  // no axes: the input itself
}

ValueRef stack(Expansion& e, std::span<const ValueRef> in, const Attrs& attrs) {
  const Shape shape = e.type(in[0]).shape;  // a copy: adding nodes moves the graph's nodes
  const int64_t axis =
      normalize_axis(attrs.get_int(Attr::axis), static_cast<int64_t>(shape.size()) + 1);
  Shape unsqueezed = shape;
  unsqueezed.insert(unsqueezed.begin() + axis, 1);
  std::vector<ValueRef> parts;
  parts.reserve(in.size());
  for (ValueRef v : in) parts.push_back(e.reshape(v, unsqueezed));
  return e.add(Op::concat, std::move(parts), {{Attr::axis, axis}});
}

ValueRef softmax(Expansion& e, Op op, ValueRef in, const Attrs& attrs, const TensorType& out) {
  const int64_t axis = normalize_axis(attrs.get_int(Attr::axis), e.type(in).rank());
  if (e.type(in).shape[axis] == 0) return e.full(out.shape, int64_t{0}, out.dtype);
  const DType c = compute_dtype(out.dtype);
  ValueRef x = e.cast(in, c);
  const Attrs over_axis{{Attr::axes, Ints{axis}}, {Attr::keepdim, true}};
  ValueRef shifted = e.binary(Op::sub, x, e.add(Op::max, {x}, over_axis));
  ValueRef ex = e.unary(Op::exp, shifted);
  ValueRef total = e.add(Op::sum, {ex}, over_axis);
  ValueRef y = op == Op::softmax ? e.binary(Op::div, ex, total)
                                 : e.binary(Op::sub, shifted, e.unary(Op::log, total));
  return e.cast(y, out.dtype);
}

ValueRef layer_norm(Expansion& e, std::span<const ValueRef> in, const Attrs& attrs, DType out) {
  const DType c = compute_dtype(out);
  const Shape shape = e.type(in[0]).shape;  // a copy: adding nodes moves the graph's nodes
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t nd = attrs.get_int(Attr::normalized_ndim);
  Ints axes;
  double n = 1;
  for (int64_t d = rank - nd; d < rank; ++d) {
    axes.push_back(d);
    n *= static_cast<double>(shape[d]);
  }
  ValueRef x = e.cast(in[0], c);
  ValueRef mean = e.binary(Op::div, e.sum(x, axes, true), e.scalar(n, c));
  ValueRef d = e.binary(Op::sub, x, mean);
  ValueRef var = e.binary(Op::div, e.sum(e.binary(Op::mul, d, d), axes, true), e.scalar(n, c));
  ValueRef inv_std =
      e.unary(Op::rsqrt, e.binary(Op::add, var, e.scalar(attrs.get_float(Attr::eps, 1e-5), c)));
  ValueRef y = e.binary(Op::mul, d, inv_std);
  if (in.size() > 1) y = e.binary(Op::mul, y, e.cast(in[1], c));
  if (in.size() > 2) y = e.binary(Op::add, y, e.cast(in[2], c));
  return e.cast(y, out);
}

ValueRef expand_composite(Expansion& e, const Node& node, std::span<const ValueRef> in) {
  const TensorType& out = node.outputs[0];
  const Attrs& attrs = node.attrs;
  switch (node.op) {
    case Op::zeros:
      return e.full(out.shape, int64_t{0}, out.dtype);
    case Op::ones:
      return e.full(out.shape, int64_t{1}, out.dtype);
    case Op::gelu:
      return gelu(e, in[0], attrs, out.dtype);
    case Op::silu:
      return silu(e, in[0], out.dtype);
    case Op::clamp:
      return clamp(e, in[0], attrs);
    case Op::nan_to_num:
      return nan_to_num(e, in[0], attrs);
    case Op::mean:
    case Op::var:
      return moments(e, node.op, in[0], attrs, out.dtype);
    case Op::transpose: {
      const int64_t rank = e.type(in[0]).rank();
      const Ints& dims = attrs.get_ints(Attr::dims);
      Ints perm(static_cast<size_t>(rank));
      for (int64_t d = 0; d < rank; ++d) perm[d] = d;
      std::swap(perm[normalize_axis(dims[0], rank)], perm[normalize_axis(dims[1], rank)]);
      return e.add(Op::permute, {in[0]}, {{Attr::dims, std::move(perm)}});
    }
    case Op::squeeze:
    case Op::unsqueeze:
      return e.reshape(in[0], out.shape);
    case Op::flip:
      return flip(e, in[0], attrs);
    case Op::stack:
      return stack(e, in, attrs);
    case Op::softmax:
    case Op::log_softmax:
      return softmax(e, node.op, in[0], attrs, out);
    case Op::layer_norm:
      return layer_norm(e, in, attrs, out.dtype);
    default:
      break;
  }
  return expand_issue4(e, node, in);
}

// A user's sum taken in two steps, as composites take theirs (Expansion::sum): float32 and
// float64 only (float16 partial sums would round), and only a sum that says nothing but its
// axes and keepdim.
bool sum_splits(const Graph& g, const Node& node, std::span<const ValueRef> in) {
  const TensorType& x = g.type(in[0]);
  if (x.dtype != DType::Float32 && x.dtype != DType::Float64) return false;
  if (!node.attrs.has(Attr::axes)) return false;
  for (const auto& [attr, value] : node.attrs.items()) {
    if (attr != Attr::axes && attr != Attr::keepdim) return false;
  }
  return trailing_first(x.shape, reduction_axes(node.attrs, x.rank())).has_value();
}

// Scatters into a complex x write each part on its own: the index ops move or add values
// without mixing the parts (inference admits only the reductions for which that holds).
bool scatters_complex(const Graph& g, const Node& node, std::span<const ValueRef> in) {
  switch (node.op) {
    case Op::scatter:
    case Op::scatter_add:
    case Op::scatter_reduce:
    case Op::index_put:
      return is_complex(g.type(in[0]).dtype);
    default:
      return false;
  }
}

ValueRef scatter_by_parts(Expansion& e, const Node& node, std::span<const ValueRef> in) {
  const DType t = e.type(in[0]).dtype;
  const size_t written = node.op == Op::index_put ? 1 : 2;  // values, or src
  ValueRef parts[2];
  for (int p = 0; p < 2; ++p) {
    const Op part = p == 0 ? Op::real : Op::imag;
    std::vector<ValueRef> args(in.begin(), in.end());
    args[0] = e.unary(part, in[0]);
    args[written] = e.unary(part, e.cast(in[written], t));
    parts[p] = e.add(node.op, args, node.attrs);
  }
  return e.add(Op::complex, {parts[0], parts[1]});
}

}  // namespace

ValueRef expand_any(Expansion& e, const Node& node, std::span<const ValueRef> in) {
  return expand_composite(e, node, in);
}

Rewritten decompose(const Graph& g, std::span<const ValueRef> outputs) {
  Rewritten out;
  out.graph.files = g.files;
  out.graph.nodes.reserve(g.nodes.size());
  out.origin.reserve(g.nodes.size());
  // Where each original node's first output now lives. Composites have one output; a
  // primitive's later outputs follow its first.
  std::vector<ValueRef> moved(g.nodes.size());
  auto remap = [&moved](ValueRef v) {
    return ValueRef{moved[v.node].node, moved[v.node].output + v.output};
  };
  std::vector<ValueRef> inputs;
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    const Node& node = g.nodes[i];
    inputs.clear();
    for (ValueRef v : node.inputs) inputs.push_back(remap(v));
    if (node.op == Op::pow) {
      Expansion e(out, i, node.loc);
      if (std::optional<ValueRef> products = power_by_products(e, node, inputs)) {
        moved[i] = *products;
        continue;
      }
    }
    if (scatters_complex(out.graph, node, inputs)) {
      Expansion e(out, i, node.loc);
      moved[i] = scatter_by_parts(e, node, inputs);
      continue;
    }
    if (node.op == Op::sum && sum_splits(out.graph, node, inputs)) {
      Expansion e(out, i, node.loc);
      moved[i] = e.sum(inputs[0], node.attrs.get_ints(Attr::axes),
                       node.attrs.get_bool(Attr::keepdim, false));
      continue;
    }
    if (op_info(node.op).kind != OpKind::Composite) {
      // Already inferred: copied as is, without running inference again.
      moved[i] = ValueRef{static_cast<uint32_t>(out.graph.nodes.size()), 0};
      out.graph.nodes.push_back(Node{node.op, inputs, node.attrs, node.outputs, node.loc});
      out.origin.push_back(i);
      continue;
    }
    try {
      Expansion e(out, i, node.loc);
      moved[i] = expand_composite(e, node, inputs);
    } catch (const Error& err) {
      g.fail_at(i, Error(err.code(), "while decomposing: " + err.message()));
    }
  }
  out.outputs.reserve(outputs.size());
  for (ValueRef v : outputs) out.outputs.push_back(remap(v));
  return out;
}

}  // namespace tensord::ir
