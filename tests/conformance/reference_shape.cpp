// Views (reshape, permute, expand, slice, transpose, squeeze, unsqueeze, flip, contiguous):
// every view is "out[index] = in[some index]", so each computes its output shape and a map
// from output indices to input indices.
#include <algorithm>
#include <functional>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

namespace {

using Index = std::vector<int64_t>;
using IndexMap = std::function<Index(const Index&)>;

Expected gather_view(const RefTensor& x, const Shape& out_shape, const IndexMap& source) {
  Expected e{RefTensor(x.dtype, out_shape)};
  for (int64_t k = 0; k < e.value.numel(); ++k) {
    e.value.put(k, x.at(ravel(source(unravel(k, out_shape)), x.shape)));
  }
  return e;
}

std::vector<int64_t> normalized_unique(const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    int64_t n = ref_axis(a, rank);
    if (std::find(out.begin(), out.end(), n) != out.end())
      reject(ErrorCode::Shape, "duplicate axis");
    out.push_back(n);
  }
  return out;
}

Expected reshape(const RefTensor& x, const Shape& target) {
  Shape shape = target;
  int64_t known = 1, infer_at = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1 && infer_at < 0) {
      infer_at = static_cast<int64_t>(d);
    } else if (shape[d] < 0) {
      reject(ErrorCode::Shape, "bad reshape dimension");
    } else {
      known *= shape[d];
    }
  }
  if (infer_at >= 0) {
    if (known == 0 || x.numel() % known != 0) reject(ErrorCode::Shape, "cannot infer -1");
    shape[infer_at] = x.numel() / known;
  } else if (known != x.numel()) {
    reject(ErrorCode::Shape, "element counts differ");
  }
  return gather_view(x, shape, [&](const Index& i) { return unravel(ravel(i, shape), x.shape); });
}

Expected permute(const RefTensor& x, const std::vector<int64_t>& dims_attr) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (static_cast<int64_t>(dims_attr.size()) != rank) reject(ErrorCode::Shape, "not a permutation");
  std::vector<int64_t> dims = normalized_unique(dims_attr, rank);
  Shape shape(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) shape[d] = x.shape[dims[d]];
  return gather_view(x, shape, [&](const Index& i) {
    Index src(i.size());
    for (size_t d = 0; d < dims.size(); ++d) src[dims[d]] = i[d];
    return src;
  });
}

Expected expand(const RefTensor& x, const Shape& target) {
  if (target.size() < x.shape.size()) reject(ErrorCode::Shape, "expand to a lower rank");
  const size_t lead = target.size() - x.shape.size();
  Shape shape = target;
  for (size_t d = 0; d < target.size(); ++d) {
    if (d < lead) {
      if (target[d] < 0) reject(ErrorCode::Shape, "negative new dimension");
      continue;
    }
    int64_t in = x.shape[d - lead];
    if (target[d] == -1) {
      shape[d] = in;
    } else if (target[d] != in && (in != 1 || target[d] < 0)) {
      reject(ErrorCode::Shape, "cannot expand");
    }
  }
  return gather_view(x, shape, [&](const Index& i) {
    Index src(x.shape.size());
    for (size_t d = 0; d < src.size(); ++d) src[d] = x.shape[d] == 1 ? 0 : i[d + lead];
    return src;
  });
}

// Python's slice(start, stop, step).indices(n): first index and count.
std::pair<int64_t, int64_t> slice_indices(const ir::Attrs& attrs, int64_t n) {
  const int64_t step = attrs.get_int(Attr::step, 1);
  if (step == 0) reject(ErrorCode::Shape, "slice step 0");
  const int64_t lower = step < 0 ? -1 : 0, upper = step < 0 ? n - 1 : n;
  auto clamp = [&](Attr a, int64_t fallback) {
    if (!attrs.has(a)) return fallback;
    int64_t v = attrs.get_int(a);
    if (v < 0) return std::max(v + n, lower);
    return std::min(v, upper);
  };
  int64_t start = clamp(Attr::start, step < 0 ? upper : lower);
  int64_t stop = clamp(Attr::stop, step < 0 ? lower : upper);
  int64_t count = step > 0 ? (stop > start ? (stop - start - 1) / step + 1 : 0)
                           : (start > stop ? (start - stop - 1) / -step + 1 : 0);
  return {start, count};
}

Expected slice(const RefTensor& x, const ir::Attrs& attrs) {
  const int64_t axis = ref_axis(attrs.get_int(Attr::axis), static_cast<int64_t>(x.shape.size()));
  auto [start, count] = slice_indices(attrs, x.shape[axis]);
  const int64_t step = attrs.get_int(Attr::step, 1);
  Shape shape = x.shape;
  shape[axis] = count;
  return gather_view(x, shape, [&](const Index& i) {
    Index src = i;
    src[axis] = start + i[axis] * step;
    return src;
  });
}

Expected squeeze(const RefTensor& x, const ir::Attrs& attrs) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<bool> drop(static_cast<size_t>(rank), false);
  if (!attrs.has(Attr::axes)) {
    for (int64_t d = 0; d < rank; ++d) drop[d] = x.shape[d] == 1;
  } else {
    for (int64_t a : normalized_unique(attrs.get_ints(Attr::axes), rank)) {
      if (x.shape[a] != 1) reject(ErrorCode::Shape, "squeezed axis is not of size 1");
      drop[a] = true;
    }
  }
  Shape shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!drop[d]) shape.push_back(x.shape[d]);
  }
  return reshape(x, shape);
}

Expected unsqueeze(const RefTensor& x, const ir::Attrs& attrs) {
  const std::vector<int64_t>& axes = attrs.get_ints(Attr::axes);
  const int64_t out_rank = static_cast<int64_t>(x.shape.size() + axes.size());
  std::vector<int64_t> at = normalized_unique(axes, out_rank);
  Shape shape;
  size_t next = 0;
  for (int64_t d = 0; d < out_rank; ++d) {
    bool inserted = std::find(at.begin(), at.end(), d) != at.end();
    shape.push_back(inserted ? 1 : x.shape[next++]);
  }
  return reshape(x, shape);
}

Expected flip(const RefTensor& x, const ir::Attrs& attrs) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<bool> flipped(static_cast<size_t>(rank), !attrs.has(Attr::axes));
  if (attrs.has(Attr::axes)) {
    for (int64_t a : normalized_unique(attrs.get_ints(Attr::axes), rank)) flipped[a] = true;
  }
  return gather_view(x, x.shape, [&](const Index& i) {
    Index src = i;
    for (int64_t d = 0; d < rank; ++d) {
      if (flipped[d]) src[d] = x.shape[d] - 1 - i[d];
    }
    return src;
  });
}

}  // namespace

Expected ref_view(Op op, const RefTensor& x, const ir::Attrs& attrs) {
  switch (op) {
    case Op::reshape:
      return reshape(x, attrs.get_ints(Attr::shape));
    case Op::permute:
      return permute(x, attrs.get_ints(Attr::dims));
    case Op::expand:
      return expand(x, attrs.get_ints(Attr::shape));
    case Op::slice:
      return slice(x, attrs);
    case Op::transpose: {
      const std::vector<int64_t>& d = attrs.get_ints(Attr::dims);
      if (d.size() != 2) reject(ErrorCode::Shape, "transpose needs two dims");
      const int64_t rank = static_cast<int64_t>(x.shape.size());
      std::vector<int64_t> dims(static_cast<size_t>(rank));
      for (int64_t i = 0; i < rank; ++i) dims[i] = i;
      std::swap(dims[ref_axis(d[0], rank)], dims[ref_axis(d[1], rank)]);
      return permute(x, dims);
    }
    case Op::squeeze:
      return squeeze(x, attrs);
    case Op::unsqueeze:
      return unsqueeze(x, attrs);
    case Op::flip:
      return flip(x, attrs);
    default:
      return gather_view(x, x.shape, [](const Index& i) { return i; });  // contiguous
  }
}

}  // namespace tensord::conformance
