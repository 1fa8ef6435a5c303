// Issue 4's remaining indexing ops (docs/ops.md), straight from their definitions with
// float64/int64 elements: searchsorted counts (it assumes sorted rows, as the op does),
// scatter_reduce and index_put visit index positions in row-major order, unique sorts with
// NaN last and every NaN distinct.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace {

void need_index(const RefTensor& t) {
  if (t.floating() || t.dtype == DType::Bool) reject(ErrorCode::DType, "indices must be integers");
}

int64_t wrapped(int64_t i, int64_t n) {
  const int64_t j = i < 0 ? i + n : i;
  if (j < 0 || j >= n) reject(ErrorCode::Shape, "index out of range", true);
  return j;
}

bool ref_less(const Num& a, const Num& b, bool floats) {
  if (!floats) return a.i < b.i;
  return a.f < b.f || (!std::isnan(a.f) && std::isnan(b.f));
}

// The element as a float or, when neither operand is floating, as an exact integer.
Num as_cmp(const RefTensor& t, int64_t k, bool floats) {
  return floats ? Num::of_float(t.as_double(k)) : Num::of_int(t.i[k]);
}

RefTensor searchsorted(const RefTensor& seq, const RefTensor& values, const RefTensor* sorter,
                       bool right, bool bucketize) {
  if (seq.dtype == DType::Bool || values.dtype == DType::Bool) reject(ErrorCode::DType, "bool");
  if (seq.shape.empty()) reject(ErrorCode::Shape, "0-d sequence");
  if (bucketize && seq.shape.size() != 1) reject(ErrorCode::Shape, "1-D boundaries");
  if (seq.shape.size() > 1) {
    if (values.shape.size() != seq.shape.size() ||
        !std::equal(seq.shape.begin(), seq.shape.end() - 1, values.shape.begin())) {
      reject(ErrorCode::Shape, "leading dims");
    }
  }
  if (sorter) {
    need_index(*sorter);
    if (sorter->shape != seq.shape) reject(ErrorCode::Shape, "sorter shape");
  }
  const bool floats = seq.floating() || values.floating();
  const int64_t len = seq.shape.back();
  RefTensor out(DType::Int64, values.shape);
  const int64_t per_row = seq.shape.size() == 1 ? values.numel() : values.shape.back();
  for (int64_t k = 0; k < values.numel(); ++k) {
    const int64_t row = seq.shape.size() == 1 ? 0 : k / std::max<int64_t>(per_row, 1);
    const Num v = as_cmp(values, k, floats);
    int64_t count = 0;
    for (int64_t j = 0; j < len; ++j) {
      int64_t at = row * len + j;
      if (sorter) at = row * len + wrapped(sorter->i[row * len + j], len);
      const Num e = as_cmp(seq, at, floats);
      count += right ? !ref_less(v, e, floats) : ref_less(e, v, floats);
    }
    out.i[k] = count;
  }
  return out;
}

// scatter_reduce (reduction 0..4) and scatter_value (op scatter_value, value given).
RefTensor scatter_reduce(const RefTensor& x, const RefTensor& index, const RefTensor* src,
                         const ir::Attrs& attrs, const Num* value) {
  need_index(index);
  if (x.shape.empty()) reject(ErrorCode::Shape, "rank >= 1");
  const auto rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = ref_axis(attrs.get_int(Attr::axis), rank);
  const int64_t reduction = value ? -1 : attrs.get_int(Attr::reduction);
  if (!value && (reduction < 0 || reduction > 4)) reject(ErrorCode::InvalidGraph, "reduction");
  if (!value && x.dtype == DType::Bool && reduction <= 2) reject(ErrorCode::DType, "bool");
  if (index.shape.size() != x.shape.size() || (src && src->shape.size() != x.shape.size())) {
    reject(ErrorCode::Shape, "ranks differ");
  }
  for (int64_t d = 0; d < rank; ++d) {
    if ((src && index.shape[d] > src->shape[d]) || (d != axis && index.shape[d] > x.shape[d])) {
      reject(ErrorCode::Shape, "index too large");
    }
  }
  const bool include_self = attrs.get_bool(Attr::include_self, true);
  const bool floats = x.floating();
  std::vector<Num> acc(static_cast<size_t>(x.numel()));
  for (int64_t o = 0; o < x.numel(); ++o) acc[o] = x.at(o);
  std::vector<int64_t> count(acc.size(), include_self ? 1 : 0);
  for (int64_t k = 0; k < index.numel(); ++k) {
    std::vector<int64_t> pos = unravel(k, index.shape);
    const Num v = cast_to(x.dtype, value ? *value : src->at(ravel(pos, src->shape)));
    pos[axis] = wrapped(index.i[k], x.shape[axis]);
    const int64_t o = ravel(pos, x.shape);
    Num& a = acc[o];
    if (value || count[o] == 0) {
      a = v;
    } else if (floats) {
      const double p = a.f, q = v.f;
      double r = 0;
      switch (reduction) {
        case 0:
        case 2:
          r = p + q;
          break;
        case 1:
          r = p * q;
          break;
        case 3:
          r = std::isnan(p) || std::isnan(q) ? NAN : std::max(p, q);
          break;
        default:
          r = std::isnan(p) || std::isnan(q) ? NAN : std::min(p, q);
      }
      a = Num::of_float(r);
    } else {
      const auto p = static_cast<uint64_t>(a.i), q = static_cast<uint64_t>(v.i);
      int64_t r = 0;
      switch (reduction) {
        case 0:
        case 2:
          r = static_cast<int64_t>(p + q);
          break;
        case 1:
          r = static_cast<int64_t>(p * q);
          break;
        case 3:
          r = std::max(a.i, v.i);
          break;
        default:
          r = std::min(a.i, v.i);
      }
      a = Num::of_int(r);
    }
    ++count[o];
  }
  RefTensor out(x.dtype, x.shape);
  for (int64_t o = 0; o < x.numel(); ++o) {
    Num a = acc[o];
    if (reduction == 2 && count[o] > 1) {
      if (floats) {
        a = Num::of_float(a.f / static_cast<double>(count[o]));
      } else {
        int64_t q = a.i / count[o];
        if (a.i % count[o] != 0 && a.i < 0) --q;  // floor division
        a = Num::of_int(q);
      }
    }
    out.put(o, a);
  }
  return out;
}

bool broadcasts_to(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  const size_t off = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d) {
    if (from[d] != 1 && from[d] != to[off + d]) return false;
  }
  return true;
}

// The value for slot position `pos` of values broadcast to `slot`.
Num value_at(const RefTensor& values, const std::vector<int64_t>& pos, DType t) {
  std::vector<int64_t> src;
  const size_t off = pos.size() - values.shape.size();
  for (size_t d = 0; d < values.shape.size(); ++d) {
    src.push_back(values.shape[d] == 1 ? 0 : pos[off + d]);
  }
  return cast_to(t, values.at(ravel(src, values.shape)));
}

RefTensor index_put(std::span<const RefTensor> in, const ir::Attrs& attrs) {
  const RefTensor &x = in[0], &values = in[1];
  const bool accumulate = attrs.get_bool(Attr::accumulate, false);
  if (accumulate && x.dtype == DType::Bool) reject(ErrorCode::DType, "bool accumulate");
  std::vector<Num> acc(static_cast<size_t>(x.numel()));
  for (int64_t o = 0; o < x.numel(); ++o) acc[o] = x.at(o);
  auto write = [&](int64_t o, Num v) {
    if (!accumulate) {
      acc[o] = v;
    } else if (x.floating()) {
      acc[o] = Num::of_float(acc[o].f + v.f);
    } else {
      acc[o] = Num::of_int(
          static_cast<int64_t>(static_cast<uint64_t>(acc[o].i) + static_cast<uint64_t>(v.i)));
    }
  };
  const size_t k = in.size() - 2;
  bool any_bool = false;
  for (size_t i = 2; i < in.size(); ++i) any_bool |= in[i].dtype == DType::Bool;
  if (any_bool) {
    const RefTensor& mask = in[2];
    if (k != 1) reject(ErrorCode::Unsupported, "mixed bool");
    if (mask.shape.size() > x.shape.size() ||
        !std::equal(mask.shape.begin(), mask.shape.end(), x.shape.begin())) {
      reject(ErrorCode::Shape, "mask shape");
    }
    const Shape rest(x.shape.begin() + static_cast<int64_t>(mask.shape.size()), x.shape.end());
    if (values.shape.size() > rest.size() + 1 ||
        !broadcasts_to(Shape(values.shape.end() - std::min(values.shape.size(), rest.size()),
                             values.shape.end()),
                       rest)) {
      reject(ErrorCode::Shape, "values shape");
    }
    int64_t n = 0;
    for (int64_t m = 0; m < mask.numel(); ++m) n += mask.i[m] != 0;
    Shape slot = rest;
    slot.insert(slot.begin(), n);
    if (values.shape.size() == slot.size() && values.shape[0] != 1 && values.shape[0] != n) {
      reject(ErrorCode::Shape, "values count", true);
    }
    const int64_t tail = std::accumulate(rest.begin(), rest.end(), int64_t{1}, std::multiplies<>());
    int64_t row = 0;
    for (int64_t m = 0; m < mask.numel(); ++m) {
      if (mask.i[m] == 0) continue;
      for (int64_t t = 0; t < tail; ++t) {
        std::vector<int64_t> pos = unravel(t, rest);
        pos.insert(pos.begin(), row);
        write(m * tail + t, value_at(values, pos, x.dtype));
      }
      ++row;
    }
  } else {
    if (k > x.shape.size()) reject(ErrorCode::Shape, "too many indices");
    Shape b;
    for (size_t i = 0; i < k; ++i) {
      need_index(in[2 + i]);
      b = ref_broadcast(b, in[2 + i].shape);
    }
    const Shape rest(x.shape.begin() + static_cast<int64_t>(k), x.shape.end());
    Shape slot = b;
    slot.insert(slot.end(), rest.begin(), rest.end());
    if (!broadcasts_to(values.shape, slot)) reject(ErrorCode::Shape, "values shape");
    const int64_t rows = std::accumulate(b.begin(), b.end(), int64_t{1}, std::multiplies<>());
    const int64_t tail = std::accumulate(rest.begin(), rest.end(), int64_t{1}, std::multiplies<>());
    // Every index is checked before anything is written.
    std::vector<std::vector<int64_t>> lead(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      const std::vector<int64_t> bpos = unravel(r, b);
      for (size_t d = 0; d < k; ++d) {
        lead[r].push_back(
            wrapped(in[2 + d].i[broadcast_source(bpos, in[2 + d].shape)], x.shape[d]));
      }
    }
    for (int64_t r = 0; r < rows; ++r) {
      const std::vector<int64_t> bpos = unravel(r, b);
      for (int64_t t = 0; t < tail; ++t) {
        const std::vector<int64_t> tpos = unravel(t, rest);
        std::vector<int64_t> xpos = lead[r], spos = bpos;
        xpos.insert(xpos.end(), tpos.begin(), tpos.end());
        spos.insert(spos.end(), tpos.begin(), tpos.end());
        write(ravel(xpos, x.shape), value_at(values, spos, x.dtype));
      }
    }
  }
  RefTensor out(x.dtype, x.shape);
  for (int64_t o = 0; o < x.numel(); ++o) out.put(o, acc[o]);
  return out;
}

RefTensor unfold(const RefTensor& x, const ir::Attrs& attrs) {
  const auto rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = ref_axis(attrs.get_int(Attr::axis), std::max<int64_t>(rank, 1));
  const int64_t size = attrs.get_int(Attr::length), step = attrs.get_int(Attr::step);
  const int64_t len = rank == 0 ? 1 : x.shape[axis];
  if (step <= 0 || size < 0 || size > len) reject(ErrorCode::Shape, "size or step");
  Shape shape = x.shape;
  if (rank > 0) shape[axis] = (len - size) / step + 1;
  shape.push_back(size);
  RefTensor out(x.dtype, shape);
  for (int64_t o = 0; o < out.numel(); ++o) {
    std::vector<int64_t> pos = unravel(o, shape);
    const int64_t j = pos.back();
    pos.pop_back();
    if (rank > 0) pos[axis] = pos[axis] * step + j;
    out.put(o, x.at(rank == 0 ? 0 : ravel(pos, x.shape)));
  }
  return out;
}

// Positions of x sorted (stable, NaN last) and the group each starts or continues.
std::pair<std::vector<int64_t>, std::vector<int64_t>> ref_groups(const RefTensor& x) {
  std::vector<int64_t> order(static_cast<size_t>(x.numel()));
  std::iota(order.begin(), order.end(), 0);
  const bool floats = x.floating();
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return ref_less(x.at(a), x.at(b), floats); });
  std::vector<int64_t> group(order.size());
  int64_t g = -1;
  for (size_t k = 0; k < order.size(); ++k) {
    const bool same =
        k > 0 && (floats ? x.f[order[k]] == x.f[order[k - 1]] : x.i[order[k]] == x.i[order[k - 1]]);
    if (!same) ++g;
    group[k] = g;
  }
  return {order, group};
}

std::vector<int64_t> hits(const RefTensor& x) {
  std::vector<int64_t> h;
  for (int64_t k = 0; k < x.numel(); ++k) {
    if (x.at(k).nonzero()) h.push_back(k);
  }
  return h;
}

}  // namespace

Expected ref_unique(std::span<const RefTensor> inputs, uint32_t output) {
  const RefTensor& x = inputs[0];
  auto [order, group] = ref_groups(x);
  const int64_t n = group.empty() ? 0 : group.back() + 1;
  if (output == 2) {  // inverse_indices: x's shape
    RefTensor out(DType::Int64, x.shape);
    for (size_t k = 0; k < order.size(); ++k) out.i[order[k]] = group[k];
    return out;
  }
  RefTensor out(output == 0 ? x.dtype : DType::Int64, {n});
  if (output == 1) {  // indices: the smallest flat index in each group
    for (int64_t g = 0; g < n; ++g) out.i[g] = x.numel();
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const int64_t g = group[k];
    if (output == 0 && (k == 0 || g != group[k - 1])) out.put(g, x.at(order[k]));
    if (output == 1) out.i[g] = std::min(out.i[g], order[k]);
    if (output == 3) out.i[g] += 1;
  }
  return out;
}

Expected ref_index_more(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  const RefTensor& x = in[0];
  for (const RefTensor& t : in) check_value_type(t.dtype, t.shape);
  switch (op) {
    case Op::searchsorted:
      return searchsorted(in[0], in[1], in.size() == 3 ? &in[2] : nullptr,
                          attrs.get_bool(Attr::right, false), false);
    case Op::bucketize:
      return searchsorted(in[1], in[0], nullptr, attrs.get_bool(Attr::right, false), true);
    case Op::scatter_reduce:
      return scatter_reduce(x, in[1], &in[2], attrs, nullptr);
    case Op::scatter_value: {
      const Num v = scalar_attr(*attrs.find(Attr::value));
      return scatter_reduce(x, in[1], nullptr, attrs, &v);
    }
    case Op::index_put:
      return index_put(in, attrs);
    case Op::unfold:
      return unfold(x, attrs);
    case Op::nonzero: {
      const std::vector<int64_t> h = hits(x);
      const auto rank = static_cast<int64_t>(x.shape.size());
      RefTensor out(DType::Int64, {static_cast<int64_t>(h.size()), rank});
      for (size_t r = 0; r < h.size(); ++r) {
        const std::vector<int64_t> pos = unravel(h[r], x.shape);
        for (int64_t d = 0; d < rank; ++d) out.i[r * rank + d] = pos[d];
      }
      return out;
    }
    case Op::flatnonzero: {
      const std::vector<int64_t> h = hits(x);
      RefTensor out(DType::Int64, {static_cast<int64_t>(h.size())});
      for (size_t r = 0; r < h.size(); ++r) out.i[r] = h[r];
      return out;
    }
    case Op::masked_select: {
      if (in[1].dtype != DType::Bool) reject(ErrorCode::DType, "bool mask");
      const Shape shape = ref_broadcast(x.shape, in[1].shape);
      std::vector<Num> picked;
      const int64_t n =
          std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
      for (int64_t k = 0; k < n; ++k) {
        const std::vector<int64_t> pos = unravel(k, shape);
        if (in[1].i[broadcast_source(pos, in[1].shape)] != 0) {
          picked.push_back(x.at(broadcast_source(pos, x.shape)));
        }
      }
      RefTensor out(x.dtype, {static_cast<int64_t>(picked.size())});
      for (size_t k = 0; k < picked.size(); ++k) out.put(static_cast<int64_t>(k), picked[k]);
      return out;
    }
    case Op::repeat_interleave_tensor: {
      const RefTensor& r = in[1];
      need_index(r);
      if (r.shape.size() > 1) reject(ErrorCode::Shape, "repeats rank");
      Shape shape = x.shape;
      int64_t axis = 0;
      if (!attrs.has(Attr::axis)) {
        shape = {x.numel()};
      } else {
        if (shape.empty()) reject(ErrorCode::Shape, "rank 0 with axis");
        axis = ref_axis(attrs.get_int(Attr::axis), static_cast<int64_t>(shape.size()));
      }
      const int64_t len = shape[axis];
      if (r.numel() != 1 && r.numel() != len) reject(ErrorCode::Shape, "repeats count");
      std::vector<int64_t> source;  // output position along the axis -> input position
      for (int64_t i = 0; i < len; ++i) {
        const int64_t c = r.i[r.numel() == 1 ? 0 : i];
        if (c < 0) reject(ErrorCode::Shape, "negative repeats", true);
        source.insert(source.end(), static_cast<size_t>(c), i);
      }
      Shape out_shape = shape;
      out_shape[axis] = static_cast<int64_t>(source.size());
      RefTensor out(x.dtype, out_shape);
      for (int64_t o = 0; o < out.numel(); ++o) {
        std::vector<int64_t> pos = unravel(o, out_shape);
        pos[axis] = source[pos[axis]];
        out.put(o, x.at(ravel(pos, shape)));
      }
      return out;
    }
    default:
      break;
  }
  reject(ErrorCode::Internal, "no index reference");
}

}  // namespace tensord::conformance
