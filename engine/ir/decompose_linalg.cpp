// Decompositions of the linear algebra composites (docs/ops.md "Linear algebra"): trace, outer,
// kron, cross, matrix_norm, matrix_power.
#include <cmath>
#include <optional>

#include "engine/ir/expansion.h"

namespace tensord::ir {

namespace {

ValueRef trace(Expansion& e, ValueRef x, int64_t k, DType out) {
  ValueRef d = e.call(Op::diagonal, {x}, {{Attr::k, k}, {Attr::dims, Ints{-2, -1}}});
  return e.cast(e.sum(d, {-1}, false), out);
}

// Products of bools are their logical and (mul rejects two bool tensors).
Op product_op(Expansion& e, ValueRef a) {
  return e.type(a).dtype == DType::Bool ? Op::logical_and : Op::mul;
}

ValueRef outer(Expansion& e, ValueRef a, ValueRef b) {
  const int64_t n = e.type(a).shape[0], m = e.type(b).shape[0];
  return e.binary(product_op(e, a), e.reshape(a, {n, 1}), e.reshape(b, {1, m}));
}

// a's dims at even positions, b's at odd ones: their product reshaped merges each pair.
ValueRef kron(Expansion& e, ValueRef a, ValueRef b, const Shape& out) {
  const Shape sa = e.type(a).shape, sb = e.type(b).shape;  // copies: e.add grows the graph
  const int64_t rank = static_cast<int64_t>(out.size());
  Shape ia, ib;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t da = d < rank - static_cast<int64_t>(sa.size())
                           ? 1
                           : sa[d - (rank - static_cast<int64_t>(sa.size()))];
    const int64_t db = d < rank - static_cast<int64_t>(sb.size())
                           ? 1
                           : sb[d - (rank - static_cast<int64_t>(sb.size()))];
    ia.insert(ia.end(), {da, 1});
    ib.insert(ib.end(), {1, db});
  }
  return e.reshape(e.binary(product_op(e, a), e.reshape(a, ia), e.reshape(b, ib)), out);
}

ValueRef component(Expansion& e, ValueRef x, int64_t axis, int64_t i) {
  return e.add(
      Op::slice, {x},
      {{Attr::axis, axis}, {Attr::start, i}, {Attr::stop, i + 1}, {Attr::step, int64_t{1}}});
}

ValueRef cross(Expansion& e, ValueRef a, ValueRef b, int64_t axis_attr, const TensorType& out) {
  const int64_t axis = normalize_axis(axis_attr, out.rank());
  a = e.cast(a, out.dtype);
  b = e.cast(b, out.dtype);
  if (e.type(a).shape != out.shape) a = e.add(Op::expand, {a}, {{Attr::shape, out.shape}});
  if (e.type(b).shape != out.shape) b = e.add(Op::expand, {b}, {{Attr::shape, out.shape}});
  ValueRef ac[3], bc[3];
  for (int64_t i = 0; i < 3; ++i)
    ac[i] = component(e, a, axis, i), bc[i] = component(e, b, axis, i);
  auto term = [&](int i, int j) {
    return e.binary(Op::sub, e.binary(Op::mul, ac[i], bc[j]), e.binary(Op::mul, ac[j], bc[i]));
  };
  return e.add(Op::concat, {term(1, 2), term(2, 0), term(0, 1)}, {{Attr::axis, axis}});
}

ValueRef matrix_norm(Expansion& e, ValueRef x, const Attrs& attrs, const TensorType& out) {
  const TensorType t = e.type(x);  // a copy: e.add grows the graph
  const Ints dims = attrs.has(Attr::dims) ? attrs.get_ints(Attr::dims) : Ints{-2, -1};
  const int64_t a = normalize_axis(dims[0], t.rank()), b = normalize_axis(dims[1], t.rank());
  const DType ct = compute_dtype(t.dtype);
  x = e.cast(x, ct);
  ValueRef r;
  if (attrs.has(Attr::ord) && std::fabs(attrs.get_float(Attr::ord)) != 2) {
    // 1: the largest column sum of |x| (sum over the row dim a, max over b); inf: rows.
    const double ord = attrs.get_float(Attr::ord);
    const bool cols = std::fabs(ord) == 1;
    ValueRef s = e.sum(e.unary(Op::abs, x), {cols ? a : b}, true);
    r = e.reduce(ord > 0 ? Op::max : Op::min, s, {cols ? b : a}, true);
  } else if (!attrs.has(Attr::ord) && attrs.get_int(Attr::mode, 0) == 0) {
    r = e.unary(Op::sqrt, e.sum(e.binary(Op::mul, x, x), {a, b}, true));
  } else {
    // Singular values: the two dims moved last, svdvals, then max (2), min (-2) or sum (nuc).
    Ints perm;
    for (int64_t d = 0; d < t.rank(); ++d) {
      if (d != a && d != b) perm.push_back(d);
    }
    perm.push_back(a);
    perm.push_back(b);
    ValueRef s = e.add(Op::svdvals, {e.add(Op::permute, {x}, {{Attr::dims, perm}})});
    if (attrs.has(Attr::ord)) {
      r = e.reduce(attrs.get_float(Attr::ord) > 0 ? Op::max : Op::min, s, {-1}, false);
    } else {
      r = e.sum(s, {-1}, false);
    }
  }
  return e.cast(e.reshape(r, out.shape), out.dtype);
}

ValueRef matrix_power(Expansion& e, ValueRef x, int64_t n) {
  const TensorType t = e.type(x);
  if (n == 0) {
    const int64_t size = t.shape.back();
    ValueRef eye = e.add(Op::eye, {}, {{Attr::n, size}, {Attr::dtype, t.dtype}});
    return e.add(Op::expand, {eye}, {{Attr::shape, t.shape}});
  }
  if (n < 0) {
    x = e.add(Op::inv, {x});
    n = -n;
  }
  // Binary powering: x^n with about 2 log2(n) matmuls.
  std::optional<ValueRef> result;
  ValueRef base = x;
  for (;;) {
    if (n & 1) result = result ? e.add(Op::matmul, {*result, base}) : base;
    n >>= 1;
    if (n == 0) break;
    base = e.add(Op::matmul, {base, base});
  }
  return *result;
}

}  // namespace

ValueRef expand_linalg(Expansion& e, const Node& node, std::span<const ValueRef> in) {
  switch (node.op) {
    case Op::trace:
      return trace(e, in[0], node.attrs.get_int(Attr::k, 0), node.outputs[0].dtype);
    case Op::outer:
      return outer(e, e.cast(in[0], node.outputs[0].dtype), e.cast(in[1], node.outputs[0].dtype));
    case Op::kron:
      return kron(e, e.cast(in[0], node.outputs[0].dtype), e.cast(in[1], node.outputs[0].dtype),
                  node.outputs[0].shape);
    case Op::cross:
      return cross(e, in[0], in[1], node.attrs.get_int(Attr::axis, -1), node.outputs[0]);
    case Op::matrix_norm:
      return matrix_norm(e, in[0], node.attrs, node.outputs[0]);
    case Op::matrix_power:
      return matrix_power(e, in[0], node.attrs.get_int(Attr::n));
    default:
      break;
  }
  throw Error(ErrorCode::Internal,
              "no linear algebra decomposition for " + std::string(name(node.op)));
}

}  // namespace tensord::ir
