// Issue 4's shape and indexing ops (docs/ops.md), element by element from their definitions:
// each output index says which input element (or which value) it holds.
#include <algorithm>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace {

void need_rank(const RefTensor& x, size_t rank) {
  if (x.shape.size() < rank) reject(ErrorCode::Shape, "rank too small");
}

void need_index(const RefTensor& t) {
  if (t.floating() || t.dtype == DType::Bool) reject(ErrorCode::DType, "indices must be integers");
}

// The element of x at a flat index that may be negative (wrapping once).
Num at_wrapped(const RefTensor& x, int64_t i, int64_t n) {
  const int64_t j = i < 0 ? i + n : i;
  if (j < 0 || j >= n) reject(ErrorCode::Shape, "index out of range", true);
  return x.at(j);
}

std::pair<int64_t, int64_t> two_axes(const RefTensor& x, const ir::Attrs& attrs) {
  const auto rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> dims =
      attrs.has(Attr::dims) ? attrs.get_ints(Attr::dims) : std::vector<int64_t>{0, 1};
  if (dims.size() != 2) reject(ErrorCode::Shape, "two dims");
  const int64_t a = ref_axis(dims[0], rank), b = ref_axis(dims[1], rank);
  if (a == b) reject(ErrorCode::Shape, "equal dims");
  return {a, b};
}

RefTensor diagonal(const RefTensor& x, int64_t k, int64_t a, int64_t b) {
  Shape shape;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    if (static_cast<int64_t>(d) != a && static_cast<int64_t>(d) != b) shape.push_back(x.shape[d]);
  }
  int64_t len = 0;
  for (int64_t i = 0; i < x.shape[a]; ++i) len += i + k >= 0 && i + k < x.shape[b];
  shape.push_back(len);
  RefTensor out(x.dtype, shape);
  const int64_t first = k >= 0 ? 0 : -k;
  for (int64_t o = 0; o < out.numel(); ++o) {
    std::vector<int64_t> idx = unravel(o, shape), src;
    const int64_t i = first + idx.back();
    size_t next = 0;
    for (size_t d = 0; d < x.shape.size(); ++d) {
      if (static_cast<int64_t>(d) == a) {
        src.push_back(i);
      } else if (static_cast<int64_t>(d) == b) {
        src.push_back(i + k);
      } else {
        src.push_back(idx[next++]);
      }
    }
    out.put(o, x.at(ravel(src, x.shape)));
  }
  return out;
}

RefTensor diag_embed(const RefTensor& x, int64_t k) {
  const int64_t len = x.shape.back(), n = len + std::abs(k);
  Shape shape(x.shape.begin(), x.shape.end() - 1);
  shape.push_back(n), shape.push_back(n);
  RefTensor out(x.dtype, shape);  // zeros
  for (int64_t o = 0; o < out.numel(); ++o) {
    std::vector<int64_t> idx = unravel(o, shape);
    const int64_t c = idx.back(), r = idx[idx.size() - 2];
    if (c - r != k) continue;
    idx.pop_back(), idx.pop_back();
    idx.push_back(k >= 0 ? r : c);
    out.put(o, x.at(ravel(idx, x.shape)));
  }
  return out;
}

RefTensor roll(const RefTensor& x, const ir::Attrs& attrs) {
  const std::vector<int64_t>& shifts = attrs.get_ints(Attr::shifts);
  RefTensor out(x.dtype, x.shape);
  if (!attrs.has(Attr::dims)) {
    if (shifts.size() != 1) reject(ErrorCode::Shape, "one shift");
    const int64_t n = x.numel();
    for (int64_t o = 0; o < n; ++o) out.put(o, x.at(((o - shifts[0]) % n + n) % n));
    return out;
  }
  const std::vector<int64_t>& dims = attrs.get_ints(Attr::dims);
  if (dims.size() != shifts.size()) reject(ErrorCode::Shape, "shifts and dims differ");
  const auto rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> total(static_cast<size_t>(rank), 0);
  for (size_t i = 0; i < dims.size(); ++i) total[ref_axis(dims[i], rank)] += shifts[i];
  for (int64_t o = 0; o < out.numel(); ++o) {
    std::vector<int64_t> idx = unravel(o, x.shape);
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t n = x.shape[d];
      idx[d] = ((idx[d] - total[d]) % n + n) % n;
    }
    out.put(o, x.at(ravel(idx, x.shape)));
  }
  return out;
}

RefTensor tile(const RefTensor& x, std::vector<int64_t> reps) {
  for (int64_t r : reps) {
    if (r < 0) reject(ErrorCode::Shape, "negative reps");
  }
  Shape shape = x.shape;
  const size_t rank = std::max(reps.size(), shape.size());
  reps.insert(reps.begin(), rank - reps.size(), 1);
  shape.insert(shape.begin(), rank - shape.size(), 1);
  Shape out_shape(rank);
  for (size_t d = 0; d < rank; ++d) out_shape[d] = shape[d] * reps[d];
  RefTensor out(x.dtype, out_shape);
  for (int64_t o = 0; o < out.numel(); ++o) {
    std::vector<int64_t> idx = unravel(o, out_shape);
    for (size_t d = 0; d < rank; ++d) idx[d] %= shape[d];
    out.put(o, x.at(ravel(idx, shape)));
  }
  return out;
}

RefTensor one_hot(const RefTensor& x, int64_t n) {
  need_index(x);
  if (n < 0) reject(ErrorCode::Shape, "negative num_classes");
  Shape shape = x.shape;
  shape.push_back(n);
  RefTensor out(DType::Int64, shape);
  for (int64_t o = 0; o < out.numel(); ++o) {
    out.put(o, Num::of_int(x.i[o / std::max<int64_t>(n, 1)] == o % std::max<int64_t>(n, 1)));
  }
  return out;
}

// x with src[p] written (or added) at p with p[axis] = index[p], for p in row-major order.
RefTensor scatter(Op op, const RefTensor& x, const RefTensor& index, const RefTensor& src,
                  const ir::Attrs& attrs) {
  need_index(index);
  need_rank(x, 1);
  const auto rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = ref_axis(attrs.get_int(Attr::axis), rank);
  if (op != Op::scatter && x.dtype == DType::Bool) reject(ErrorCode::DType, "bool sum");
  if (index.shape.size() != x.shape.size() || src.shape.size() != x.shape.size()) {
    reject(ErrorCode::Shape, "ranks differ");
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (index.shape[d] > src.shape[d] || (d != axis && index.shape[d] > x.shape[d])) {
      reject(ErrorCode::Shape, "index too large");
    }
  }
  std::vector<double> f(x.f);
  std::vector<int64_t> i(x.i);
  for (int64_t k = 0; k < index.numel(); ++k) {
    std::vector<int64_t> pos = unravel(k, index.shape);
    const Num v = cast_to(x.dtype, src.at(ravel(pos, src.shape)));
    int64_t j = index.i[k];
    if (j < 0) j += x.shape[axis];
    if (j < 0 || j >= x.shape[axis]) reject(ErrorCode::Shape, "index out of range", true);
    pos[axis] = j;
    const int64_t o = ravel(pos, x.shape);
    const bool add = op == Op::scatter_add;
    if (x.floating()) {
      f[o] = add ? f[o] + v.f : v.f;
    } else {
      i[o] = add ? static_cast<int64_t>(static_cast<uint64_t>(i[o]) + static_cast<uint64_t>(v.i))
                 : v.i;
    }
  }
  RefTensor out(x.dtype, x.shape);
  for (int64_t o = 0; o < out.numel(); ++o) {
    out.put(o, x.floating() ? Num::of_float(f[o]) : Num::of_int(i[o]));
  }
  return out;
}

}  // namespace

Expected ref_shape_more(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  const RefTensor& x = in[0];
  const auto rank = static_cast<int64_t>(x.shape.size());
  switch (op) {
    case Op::tril:
    case Op::triu: {
      need_rank(x, 2);
      const int64_t k = attrs.get_int(Attr::k, 0);
      RefTensor out(x.dtype, x.shape);
      for (int64_t o = 0; o < x.numel(); ++o) {
        std::vector<int64_t> idx = unravel(o, x.shape);
        const int64_t diff = idx[rank - 1] - idx[rank - 2];
        const bool keep = op == Op::tril ? diff <= k : diff >= k;
        out.put(o, keep ? x.at(o) : Num::of_int(0));
      }
      return out;
    }
    case Op::roll:
      return roll(x, attrs);
    case Op::tile:
      return tile(x, attrs.get_ints(Attr::reps));
    case Op::repeat_interleave: {
      const int64_t r = attrs.get_int(Attr::repeats);
      if (r < 0) reject(ErrorCode::Shape, "negative repeats");
      if (!attrs.has(Attr::axis)) {
        RefTensor out(x.dtype, {x.numel() * r});
        for (int64_t o = 0; o < out.numel(); ++o) out.put(o, x.at(o / r));
        return out;
      }
      need_rank(x, 1);
      const int64_t axis = ref_axis(attrs.get_int(Attr::axis), rank);
      Shape shape = x.shape;
      shape[axis] *= r;
      RefTensor out(x.dtype, shape);
      for (int64_t o = 0; o < out.numel(); ++o) {
        std::vector<int64_t> idx = unravel(o, shape);
        idx[axis] /= r;
        out.put(o, x.at(ravel(idx, x.shape)));
      }
      return out;
    }
    case Op::narrow: {
      need_rank(x, 1);
      const int64_t axis = ref_axis(attrs.get_int(Attr::axis), rank);
      const int64_t n = x.shape[axis], start = attrs.get_int(Attr::start);
      const int64_t length = attrs.get_int(Attr::length), from = start < 0 ? start + n : start;
      if (from < 0 || from > n || length < 0 || from + length > n)
        reject(ErrorCode::Shape, "range");
      Shape shape = x.shape;
      shape[axis] = length;
      RefTensor out(x.dtype, shape);
      for (int64_t o = 0; o < out.numel(); ++o) {
        std::vector<int64_t> idx = unravel(o, shape);
        idx[axis] += from;
        out.put(o, x.at(ravel(idx, x.shape)));
      }
      return out;
    }
    case Op::take: {
      need_index(in[1]);
      RefTensor out(x.dtype, in[1].shape);
      for (int64_t o = 0; o < out.numel(); ++o) out.put(o, at_wrapped(x, in[1].i[o], x.numel()));
      return out;
    }
    case Op::take_along_dim: {
      const RefTensor& index = in[1];
      need_index(index);
      if (!attrs.has(Attr::axis)) {
        RefTensor out(x.dtype, {index.numel()});
        for (int64_t o = 0; o < out.numel(); ++o) out.put(o, at_wrapped(x, index.i[o], x.numel()));
        return out;
      }
      need_rank(x, 1);
      if (index.shape.size() != x.shape.size()) reject(ErrorCode::Shape, "ranks differ");
      const int64_t axis = ref_axis(attrs.get_int(Attr::axis), rank);
      Shape a = x.shape, b = index.shape;
      a[axis] = b[axis] = 1;
      Shape shape = ref_broadcast(a, b);
      shape[axis] = index.shape[axis];
      RefTensor out(x.dtype, shape);
      for (int64_t o = 0; o < out.numel(); ++o) {
        std::vector<int64_t> idx = unravel(o, shape), src = idx, isrc = idx;
        for (int64_t d = 0; d < rank; ++d) {
          if (x.shape[d] == 1) src[d] = 0;
          if (index.shape[d] == 1 && d != axis) isrc[d] = 0;
        }
        int64_t i = index.i[ravel(isrc, index.shape)];
        const int64_t n = x.shape[axis];
        if (i < 0) i += n;
        if (i < 0 || i >= n) reject(ErrorCode::Shape, "index out of range", true);
        src[axis] = i;
        out.put(o, x.at(ravel(src, x.shape)));
      }
      return out;
    }
    case Op::masked_fill: {
      const RefTensor& mask = in[1];
      if (mask.dtype != DType::Bool) reject(ErrorCode::DType, "mask must be bool");
      if (ref_broadcast(x.shape, mask.shape) != x.shape) reject(ErrorCode::Shape, "mask shape");
      const Num value = cast_to(x.dtype, scalar_attr(*attrs.find(Attr::value)));
      RefTensor out(x.dtype, x.shape);
      for (int64_t o = 0; o < out.numel(); ++o) {
        const bool m = mask.i[broadcast_source(unravel(o, x.shape), mask.shape)] != 0;
        out.put(o, m ? value : x.at(o));
      }
      return out;
    }
    case Op::one_hot:
      return one_hot(x, attrs.get_int(Attr::n));
    case Op::rot90: {
      need_rank(x, 2);
      const auto [a, b] = two_axes(x, attrs);
      const int64_t k = ((attrs.get_int(Attr::k, 1) % 4) + 4) % 4;
      Shape shape = x.shape;
      if (k % 2) std::swap(shape[a], shape[b]);
      RefTensor out(x.dtype, shape);
      // PyTorch's rot90: k = 1 is flip(b) then swap, k = 2 flips both, k = 3 swap then flip(b).
      const int64_t n = x.shape[a], m = x.shape[b];
      for (int64_t o = 0; o < out.numel(); ++o) {
        std::vector<int64_t> idx = unravel(o, shape);
        const int64_t i = idx[a], j = idx[b];
        if (k == 1) idx[a] = j, idx[b] = m - 1 - i;
        if (k == 2) idx[a] = n - 1 - i, idx[b] = m - 1 - j;
        if (k == 3) idx[a] = n - 1 - j, idx[b] = i;
        out.put(o, x.at(ravel(idx, x.shape)));
      }
      return out;
    }
    case Op::diagonal: {
      need_rank(x, 2);
      const auto [a, b] = two_axes(x, attrs);
      return diagonal(x, attrs.get_int(Attr::k, 0), a, b);
    }
    case Op::scatter:
    case Op::scatter_add:
      return scatter(op, x, in[1], in[2], attrs);
    case Op::index_add: {
      // index_add = scatter_add of alpha * src with the index spread along the axis.
      need_index(in[1]);
      need_rank(x, 1);
      if (x.dtype == DType::Bool) reject(ErrorCode::DType, "bool sum");
      const int64_t axis = ref_axis(attrs.get_int(Attr::axis), rank);
      if (in[1].shape.size() != 1) reject(ErrorCode::Shape, "1-D index");
      Shape want = x.shape;
      want[axis] = in[1].shape[0];
      if (in[2].shape != want) reject(ErrorCode::Shape, "source shape");
      const Num alpha = cast_to(ir::is_floating(x.dtype) ? DType::Float64 : x.dtype,
                                Num::of_float(attrs.get_float(Attr::alpha, 1.0)));
      RefTensor index(DType::Int64, want), src(x.dtype, want);
      for (int64_t k = 0; k < src.numel(); ++k) {
        index.i[k] = in[1].i[unravel(k, want)[axis]];
        const Num v = cast_to(x.dtype, in[2].at(k));
        if (!attrs.has(Attr::alpha)) {
          src.put(k, v);
        } else if (x.floating()) {
          src.put(k, Num::of_float(v.f * alpha.f));
        } else {
          src.put(k, Num::of_int(static_cast<int64_t>(static_cast<uint64_t>(v.i) *
                                                      static_cast<uint64_t>(alpha.i))));
        }
      }
      return scatter(Op::scatter_add, x, index, src, attrs);
    }
    case Op::diag_embed:
      need_rank(x, 1);
      return diag_embed(x, attrs.get_int(Attr::k, 0));
    case Op::diag:
      if (rank == 1) return diag_embed(x, attrs.get_int(Attr::k, 0));
      if (rank == 2) return diagonal(x, attrs.get_int(Attr::k, 0), 0, 1);
      reject(ErrorCode::Shape, "diag of rank other than 1 or 2");
    default:
      break;
  }
  reject(ErrorCode::Internal, "no shape reference");
}

}  // namespace tensord::conformance
