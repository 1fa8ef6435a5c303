// Shape and indexing composites of issue 4 (docs/ops.md): each is views (reshape, slice,
// expand, permute), pad, concat, gather/index_select or a where over an index mask. No op here
// needs a data-dependent output shape.
#include <algorithm>
#include <limits>

#include "engine/ir/expansion.h"

namespace tensord::ir {
namespace {

ValueRef slice(Expansion& e, ValueRef x, int64_t axis, int64_t start, int64_t stop,
               int64_t step = 1) {
  return e.add(Op::slice, {x},
               {{Attr::axis, axis}, {Attr::start, start}, {Attr::stop, stop}, {Attr::step, step}});
}

ValueRef flatten(Expansion& e, ValueRef x) {
  int64_t n = 1;
  for (int64_t d : e.type(x).shape) n *= d;
  return e.reshape(x, {n});
}

ValueRef index_range(Expansion& e, int64_t n) {
  return e.add(Op::arange, {},
               {{Attr::start, int64_t{0}},
                {Attr::stop, n},
                {Attr::step, int64_t{1}},
                {Attr::dtype, DType::Int64}});
}

// tril/triu: keep x where col - row <= k (tril) or >= k (triu) over the last two axes.
ValueRef triangle(Expansion& e, Op op, ValueRef x, const Attrs& attrs) {
  const Shape shape = e.type(x).shape;
  const int64_t n = shape[shape.size() - 2], m = shape.back();
  ValueRef rows = e.reshape(index_range(e, n), {n, 1});
  ValueRef cols = e.reshape(index_range(e, m), {1, m});
  ValueRef diff = e.binary(Op::sub, cols, rows);
  ValueRef k = e.scalar(static_cast<double>(attrs.get_int(Attr::k, 0)), DType::Int64);
  ValueRef keep = e.binary(op == Op::tril ? Op::le : Op::ge, diff, k);
  return e.where(keep, x, e.full({}, int64_t{0}, e.type(x).dtype));
}

ValueRef roll_axis(Expansion& e, ValueRef x, int64_t axis, int64_t shift) {
  const int64_t n = e.type(x).shape[axis];
  if (n == 0) return x;
  const int64_t s = ((shift % n) + n) % n;
  if (s == 0) return x;
  return e.add(Op::concat, {slice(e, x, axis, n - s, n), slice(e, x, axis, 0, n - s)},
               {{Attr::axis, axis}});
}

ValueRef roll(Expansion& e, ValueRef x, const Attrs& attrs, const Shape& out) {
  const Ints& shifts = attrs.get_ints(Attr::shifts);
  if (!attrs.has(Attr::dims)) return e.reshape(roll_axis(e, flatten(e, x), 0, shifts[0]), out);
  const Ints& dims = attrs.get_ints(Attr::dims);
  for (size_t i = 0; i < dims.size(); ++i) {
    x = roll_axis(e, x, normalize_axis(dims[i], e.type(x).rank()), shifts[i]);
  }
  return x;
}

// tile: x reshaped to (1, d0, 1, d1, ...), expanded to (r0, d0, r1, d1, ...), merged pairwise.
ValueRef tile(Expansion& e, ValueRef x, const Attrs& attrs, const Shape& out) {
  Ints reps = attrs.get_ints(Attr::reps);
  Shape shape = e.type(x).shape;
  const size_t rank = std::max(reps.size(), shape.size());
  reps.insert(reps.begin(), rank - reps.size(), 1);
  shape.insert(shape.begin(), rank - shape.size(), 1);
  Shape split, expanded;
  for (size_t d = 0; d < rank; ++d) {
    split.push_back(1), split.push_back(shape[d]);
    expanded.push_back(reps[d]), expanded.push_back(shape[d]);
  }
  ValueRef y = e.add(Op::expand, {e.reshape(x, split)}, {{Attr::shape, expanded}});
  return e.reshape(y, out);
}

ValueRef repeat_interleave(Expansion& e, ValueRef x, const Attrs& attrs, const Shape& out) {
  if (!attrs.has(Attr::axis)) x = flatten(e, x);
  const Shape shape = e.type(x).shape;
  const int64_t axis = normalize_axis(attrs.get_int(Attr::axis, 0), e.type(x).rank());
  Shape split = shape, expanded = shape;
  split.insert(split.begin() + axis + 1, 1);
  expanded.insert(expanded.begin() + axis + 1, attrs.get_int(Attr::repeats));
  ValueRef y = e.add(Op::expand, {e.reshape(x, split)}, {{Attr::shape, expanded}});
  return e.reshape(y, out);
}

ValueRef take_along(Expansion& e, ValueRef x, ValueRef index, const Attrs& attrs,
                    const Shape& out) {
  if (!attrs.has(Attr::axis)) {
    return e.add(Op::index_select, {flatten(e, x), flatten(e, index)}, {{Attr::axis, int64_t{0}}});
  }
  const int64_t rank = e.type(x).rank();
  const int64_t axis = normalize_axis(attrs.get_int(Attr::axis), rank);
  Shape xs = out, is = out;  // the broadcast shape, keeping each side's own axis length
  xs[axis] = e.type(x).shape[axis];
  is[axis] = e.type(index).shape[axis];
  x = e.add(Op::expand, {x}, {{Attr::shape, xs}});
  index = e.add(Op::expand, {index}, {{Attr::shape, is}});
  return e.add(Op::gather, {x, index}, {{Attr::axis, axis}});
}

// The (..., n, n) matrices with x's last axis on diagonal k: x padded to rows of n + 1,
// flattened, shifted by the diagonal's start and cut to n * n.
ValueRef diag_embed(Expansion& e, ValueRef x, int64_t k) {
  Shape shape = e.type(x).shape;
  const int64_t len = shape.back();
  const int64_t n = len + (k < 0 ? -k : k);
  const auto rank = static_cast<int64_t>(shape.size());
  Shape column = shape;
  column.push_back(1);
  Ints pads(static_cast<size_t>(2 * (rank + 1)), 0);
  pads.back() = n;
  ValueRef y = e.add(Op::pad, {e.reshape(x, column)}, {{Attr::pads, pads}});
  Shape flat(shape.begin(), shape.end() - 1);
  flat.push_back(len * (n + 1));
  y = e.reshape(y, flat);
  const int64_t start = k >= 0 ? k : -k * n;
  Ints shift(static_cast<size_t>(2 * rank), 0);
  shift[2 * rank - 2] = start;
  shift[2 * rank - 1] = n * n - start - len * (n + 1);  // negative: crops
  y = e.add(Op::pad, {y}, {{Attr::pads, shift}});
  Shape square(shape.begin(), shape.end() - 1);
  square.push_back(n), square.push_back(n);
  return e.reshape(y, square);
}

// Diagonal k of axes (dim1, dim2), as the last axis: those axes moved last, flattened to
// n * m, and sliced with step m + 1.
ValueRef diagonal(Expansion& e, ValueRef x, const Attrs& attrs, const Shape& out) {
  const int64_t rank = e.type(x).rank();
  const Ints dims = attrs.has(Attr::dims) ? attrs.get_ints(Attr::dims) : Ints{0, 1};
  const int64_t d1 = normalize_axis(dims[0], rank), d2 = normalize_axis(dims[1], rank);
  const int64_t k = attrs.get_int(Attr::k, 0);
  Ints perm;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != d1 && d != d2) perm.push_back(d);
  }
  perm.push_back(d1), perm.push_back(d2);
  ValueRef y = e.add(Op::permute, {x}, {{Attr::dims, perm}});
  Shape shape = e.type(y).shape;
  const int64_t n = shape[rank - 2], m = shape[rank - 1];
  Shape flat(shape.begin(), shape.end() - 2);
  flat.push_back(n * m);
  y = e.reshape(y, flat);
  const int64_t len = out.back();
  if (len == 0) return e.full(out, int64_t{0}, e.type(x).dtype);
  const int64_t start = k >= 0 ? k : -k * m;
  y = slice(e, y, rank - 2, start, start + (len - 1) * (m + 1) + 1, m + 1);
  return e.reshape(y, out);
}

ValueRef rot90(Expansion& e, ValueRef x, const Attrs& attrs) {
  const int64_t rank = e.type(x).rank();
  const Ints dims = attrs.has(Attr::dims) ? attrs.get_ints(Attr::dims) : Ints{0, 1};
  const int64_t d0 = normalize_axis(dims[0], rank), d1 = normalize_axis(dims[1], rank);
  const int64_t k = ((attrs.get_int(Attr::k, 1) % 4) + 4) % 4;
  auto flip = [&](ValueRef v, int64_t axis) {
    return e.add(Op::slice, {v}, {{Attr::axis, axis}, {Attr::step, int64_t{-1}}});
  };
  auto swap = [&](ValueRef v) {
    Ints perm;
    for (int64_t d = 0; d < rank; ++d) perm.push_back(d);
    std::swap(perm[d0], perm[d1]);
    return e.add(Op::permute, {v}, {{Attr::dims, perm}});
  };
  switch (k) {
    case 1:
      return swap(flip(x, d1));
    case 2:
      return flip(flip(x, d0), d1);
    case 3:
      return flip(swap(x), d1);
    default:
      return x;
  }
}

}  // namespace

ValueRef expand_shape_op(Expansion& e, const Node& node, std::span<const ValueRef> in) {
  const Shape out = node.outputs[0].shape;
  const Attrs& attrs = node.attrs;
  switch (node.op) {
    case Op::tril:
    case Op::triu:
      return triangle(e, node.op, in[0], attrs);
    case Op::roll:
      return roll(e, in[0], attrs, out);
    case Op::tile:
      return tile(e, in[0], attrs, out);
    case Op::repeat_interleave:
      return repeat_interleave(e, in[0], attrs, out);
    case Op::narrow: {
      const int64_t axis = normalize_axis(attrs.get_int(Attr::axis), e.type(in[0]).rank());
      const int64_t start = attrs.get_int(Attr::start);
      const int64_t n = e.type(in[0]).shape[axis];
      const int64_t from = start < 0 ? start + n : start;
      return slice(e, in[0], axis, from, from + attrs.get_int(Attr::length));
    }
    case Op::take:
      return e.reshape(e.add(Op::index_select, {flatten(e, in[0]), flatten(e, in[1])},
                             {{Attr::axis, int64_t{0}}}),
                       out);
    case Op::take_along_dim:
      return take_along(e, in[0], in[1], attrs, out);
    case Op::masked_fill: {
      const DType t = node.outputs[0].dtype;
      return e.where(in[1], e.full({}, *attrs.find(Attr::value), t), in[0]);
    }
    case Op::one_hot: {
      const int64_t n = attrs.get_int(Attr::n);
      Shape column = e.type(in[0]).shape;
      column.push_back(1);
      ValueRef idx = e.reshape(e.cast(in[0], DType::Int64), column);
      return e.cast(e.binary(Op::eq, idx, index_range(e, n)), DType::Int64);
    }
    case Op::rot90:
      return rot90(e, in[0], attrs);
    case Op::diagonal:
      return diagonal(e, in[0], attrs, out);
    case Op::diag_embed:
      return diag_embed(e, in[0], attrs.get_int(Attr::k, 0));
    case Op::diag:
      if (e.type(in[0]).rank() == 1) return diag_embed(e, in[0], attrs.get_int(Attr::k, 0));
      return diagonal(e, in[0], attrs, out);
    default:
      break;
  }
  throw Error(ErrorCode::Internal, "no shape decomposition for " + std::string(name(node.op)));
}

}  // namespace tensord::ir
