// Inference of issue 4's remaining indexing ops (docs/ops.md): searchsorted, bucketize,
// scatter_reduce, scatter_value, index_put, unfold, and the data-dependent ones (nonzero,
// flatnonzero, masked_select, unique, repeat_interleave_tensor), whose unknown dimension is
// kDynamic. Also how any op infers from inputs that carry
// kDynamic dimensions (infer_with_dynamic).
#include <algorithm>

#include "engine/ir/dynamic.h"
#include "engine/ir/infer_internal.h"

namespace tensord::ir::detail {

namespace {

std::string op_name(Op op) {
  return std::string(name(op));
}

void require_integer_index(Op op, DType t, const char* what = "indices") {
  if (is_floating(t) || t == DType::Bool) {
    fail(ErrorCode::DType,
         op_name(op) + " takes integer " + what + ", got " + std::string(name(t)));
  }
}

std::vector<TensorType> dynamic_result(DType t, Shape shape) {
  return {TensorType{t, std::move(shape)}};
}

std::vector<TensorType> infer_searchsorted(Op op, Inputs in, const Attrs& attrs) {
  // searchsorted(sorted_sequence, values[, sorter]); bucketize(values, boundaries).
  const TensorType& seq = op == Op::bucketize ? *in[1] : *in[0];
  const TensorType& values = op == Op::bucketize ? *in[0] : *in[1];
  (void)attrs;
  if (seq.dtype == DType::Bool || values.dtype == DType::Bool) {
    fail(ErrorCode::DType, op_name(op) + " does not search bool tensors");
  }
  if (seq.rank() < 1) fail(ErrorCode::Shape, op_name(op) + " needs a sorted sequence of rank >= 1");
  if (op == Op::bucketize && seq.rank() != 1) {
    fail(ErrorCode::Shape, "bucketize needs 1-D boundaries, got " + to_string(seq.shape));
  }
  if (seq.rank() > 1) {
    const Shape lead(seq.shape.begin(), seq.shape.end() - 1);
    const bool same =
        values.rank() == seq.rank() && std::equal(lead.begin(), lead.end(), values.shape.begin());
    if (!same) {
      fail(ErrorCode::Shape, op_name(op) + " needs values whose leading dims match the sorted " +
                                 "sequence's " + to_string(lead) + ", got " +
                                 to_string(values.shape));
    }
  }
  if (in.size() == 3) {
    const TensorType& sorter = *in[2];
    require_integer_index(op, sorter.dtype, "sorter indices");
    if (sorter.shape != seq.shape) {
      fail(ErrorCode::Shape, "searchsorted needs a sorter of the sequence's shape " +
                                 to_string(seq.shape) + ", got " + to_string(sorter.shape));
    }
  }
  return result(DType::Int64, values.shape);
}

std::vector<TensorType> infer_scatter_reduce(Op op, Inputs in, const Attrs& attrs) {
  const TensorType &x = *in[0], &index = *in[1];
  require_integer_index(op, index.dtype);
  if (x.rank() < 1) fail(ErrorCode::Shape, op_name(op) + " needs a tensor of rank >= 1");
  const int64_t axis = normalize_axis(attrs.get_int(Attr::axis), x.rank());
  if (op == Op::scatter_value) {
    if (index.rank() != x.rank()) {
      fail(ErrorCode::Shape, "scatter_value needs x and index of one rank, got " +
                                 to_string(x.shape) + " and " + to_string(index.shape));
    }
    for (int64_t d = 0; d < x.rank(); ++d) {
      if (d != axis && index.shape[d] > x.shape[d]) {
        fail(ErrorCode::Shape, "scatter_value index " + to_string(index.shape) +
                                   " is larger than x " + to_string(x.shape) + " outside axis " +
                                   std::to_string(axis));
      }
    }
    return result(x.dtype, x.shape);
  }
  const TensorType& src = *in[2];
  const int64_t reduction = attrs.get_int(Attr::reduction);
  if (reduction < 0 || reduction > 4) {
    fail(ErrorCode::InvalidGraph,
         "scatter_reduce's reduction must be 0 (sum), 1 (prod), 2 (mean), "
         "3 (amax) or 4 (amin), got " +
             std::to_string(reduction));
  }
  if (x.dtype == DType::Bool && reduction <= 2) {
    fail(ErrorCode::DType, "scatter_reduce sum, prod and mean do not take bool tensors");
  }
  if (index.rank() != x.rank() || src.rank() != x.rank()) {
    fail(ErrorCode::Shape, op_name(op) + " needs x, index and src of one rank, got " +
                               to_string(x.shape) + ", " + to_string(index.shape) + ", " +
                               to_string(src.shape));
  }
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (index.shape[d] > src.shape[d] || (d != axis && index.shape[d] > x.shape[d])) {
      fail(ErrorCode::Shape, op_name(op) + " index " + to_string(index.shape) +
                                 " is larger than src " + to_string(src.shape) + " or x " +
                                 to_string(x.shape) + " outside axis " + std::to_string(axis));
    }
  }
  return result(x.dtype, x.shape);
}

// Shapes that broadcast to `target`: Array API rules, one way.
bool broadcasts_to(const Shape& from, const Shape& target) {
  if (from.size() > target.size()) return false;
  const size_t off = target.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d) {
    if (from[d] != 1 && from[d] != target[off + d]) return false;
  }
  return true;
}

std::vector<TensorType> infer_index_put(Inputs in, const Attrs& attrs) {
  // index_put(x, values, index...): integer indices broadcast together and index x's leading
  // axes; or one bool mask over x's leading axes.
  const TensorType &x = *in[0], &values = *in[1];
  const size_t k = in.size() - 2;
  if (attrs.get_bool(Attr::accumulate, false) && x.dtype == DType::Bool) {
    fail(ErrorCode::DType, "index_put does not accumulate into bool tensors");
  }
  bool any_bool = false;
  for (size_t i = 0; i < k; ++i) any_bool |= in[2 + i]->dtype == DType::Bool;
  if (any_bool) {
    const TensorType& mask = *in[2];
    if (k != 1) {
      fail(ErrorCode::Unsupported,
           "index_put takes one bool mask alone, not mixed with other "
           "indices");
    }
    if (mask.rank() > x.rank() ||
        !std::equal(mask.shape.begin(), mask.shape.end(), x.shape.begin())) {
      fail(ErrorCode::Shape, "index_put's mask " + to_string(mask.shape) +
                                 " must match the leading dims of x " + to_string(x.shape));
    }
    // The slot shape is (count, x.shape[mask.rank():]); the count is known when it runs.
    const Shape rest(x.shape.begin() + mask.rank(), x.shape.end());
    Shape target = rest;
    target.insert(target.begin(), values.rank() > static_cast<int64_t>(rest.size())
                                      ? values.shape[values.rank() - rest.size() - 1]
                                      : 1);
    if (!broadcasts_to(values.shape, target)) {
      fail(ErrorCode::Shape, "index_put's values " + to_string(values.shape) +
                                 " do not broadcast to (count,) + " + to_string(rest));
    }
    return result(x.dtype, x.shape);
  }
  if (k > static_cast<size_t>(x.rank())) {
    fail(ErrorCode::Shape, "index_put got " + std::to_string(k) + " indices for x of rank " +
                               std::to_string(x.rank()));
  }
  Shape b;
  for (size_t i = 0; i < k; ++i) {
    require_integer_index(Op::index_put, in[2 + i]->dtype);
    b = broadcast_shapes(b, in[2 + i]->shape);
  }
  Shape slot = b;
  slot.insert(slot.end(), x.shape.begin() + static_cast<int64_t>(k), x.shape.end());
  if (!broadcasts_to(values.shape, slot)) {
    fail(ErrorCode::Shape, "index_put's values " + to_string(values.shape) +
                               " do not broadcast to the indexed shape " + to_string(slot));
  }
  return result(x.dtype, x.shape);
}

std::vector<TensorType> infer_unfold(const TensorType& x, const Attrs& attrs) {
  const int64_t rank = std::max<int64_t>(x.rank(), 1);
  const int64_t axis = normalize_axis(attrs.get_int(Attr::axis), rank);
  const int64_t size = attrs.get_int(Attr::length), step = attrs.get_int(Attr::step);
  const int64_t len = x.rank() == 0 ? 1 : x.shape[axis];
  if (step <= 0) fail(ErrorCode::Shape, "unfold needs a step > 0, got " + std::to_string(step));
  if (size < 0 || size > len) {
    fail(ErrorCode::Shape, "unfold's size " + std::to_string(size) + " must be in [0, " +
                               std::to_string(len) + "] (the length of axis " +
                               std::to_string(axis) + ")");
  }
  Shape shape = x.shape;
  if (x.rank() > 0) shape[axis] = (len - size) / step + 1;
  shape.push_back(size);
  return result(x.dtype, std::move(shape));
}

std::vector<TensorType> infer_data_dependent(Op op, Inputs in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  switch (op) {
    case Op::nonzero:
      return dynamic_result(DType::Int64, {kDynamic, x.rank()});
    case Op::flatnonzero:
      return dynamic_result(DType::Int64, {kDynamic});
    case Op::masked_select: {
      if (in[1]->dtype != DType::Bool) {
        fail(ErrorCode::DType,
             "masked_select needs a bool mask, got " + std::string(name(in[1]->dtype)));
      }
      broadcast_shapes(x.shape, in[1]->shape);
      return dynamic_result(x.dtype, {kDynamic});
    }
    case Op::unique: {
      // (values, indices, inverse_indices, counts) as the Array API's unique_all.
      std::vector<TensorType> out = dynamic_result(x.dtype, {kDynamic});
      out.push_back(TensorType{DType::Int64, {kDynamic}});
      out.push_back(TensorType{DType::Int64, x.shape});
      out.push_back(TensorType{DType::Int64, {kDynamic}});
      return out;
    }
    case Op::repeat_interleave_tensor: {
      const TensorType& repeats = *in[1];
      require_integer_index(op, repeats.dtype, "repeats");
      if (repeats.rank() > 1) {
        fail(ErrorCode::Shape,
             "repeat_interleave needs 0-d or 1-D repeats, got " + to_string(repeats.shape));
      }
      if (!attrs.has(Attr::axis)) {
        if (repeats.rank() == 1 && repeats.shape[0] != 1 && repeats.shape[0] != x.numel()) {
          fail(ErrorCode::Shape, "repeat_interleave needs " + std::to_string(x.numel()) +
                                     " repeats (one per element), got " + to_string(repeats.shape));
        }
        return dynamic_result(x.dtype, {kDynamic});
      }
      if (x.rank() < 1) fail(ErrorCode::Shape, "repeat_interleave along an axis needs rank >= 1");
      const int64_t axis = normalize_axis(attrs.get_int(Attr::axis), x.rank());
      if (repeats.rank() == 1 && repeats.shape[0] != 1 && repeats.shape[0] != x.shape[axis]) {
        fail(ErrorCode::Shape, "repeat_interleave needs " + std::to_string(x.shape[axis]) +
                                   " repeats along axis " + std::to_string(axis) + ", got " +
                                   to_string(repeats.shape));
      }
      Shape shape = x.shape;
      shape[axis] = kDynamic;
      return dynamic_result(x.dtype, std::move(shape));
    }
    default:
      break;
  }
  fail(ErrorCode::Internal, "no inference for " + op_name(op));
}

}  // namespace

std::vector<TensorType> infer_index_more(Op op, Inputs in, const Attrs& attrs) {
  switch (op) {
    case Op::searchsorted:
    case Op::bucketize:
      return infer_searchsorted(op, in, attrs);
    case Op::scatter_reduce:
    case Op::scatter_value:
      return infer_scatter_reduce(op, in, attrs);
    case Op::index_put:
      return infer_index_put(in, attrs);
    case Op::unfold:
      return infer_unfold(*in[0], attrs);
    default:
      return infer_data_dependent(op, in, attrs);
  }
}

// Inputs with kDynamic dimensions: each becomes a placeholder size no real tensor has (or, in
// elementwise ops, the static size it broadcasts against), the op
// infers as usual, and a placeholder in the result turns back into kDynamic. So a dynamic
// dimension passes through elementwise ops (broadcasting against 1 or another dynamic
// dimension), reductions, matmul, slices that keep it whole and the data-dependent ops, and
// the checks that need its value (an index within it, a narrow's end) are made again when the
// engine knows it. A result dimension computed from a placeholder (a reshape that merges it,
// a tile) cannot be expressed and is refused: sync first, then the size is known.
std::vector<TensorType> infer_with_dynamic(Op op, Inputs in, const Attrs& attrs,
                                           std::vector<TensorType> (*infer_fn)(Op, Inputs,
                                                                               const Attrs&)) {
  constexpr int64_t kPlaceholder = (int64_t{1} << 33) + 1;
  std::vector<TensorType> concrete;
  concrete.reserve(in.size());
  for (const TensorType* t : in) concrete.push_back(*t);
  // Elementwise ops: a dynamic dimension broadcast against a static size k != 1 is taken to be
  // k (the engine checks it when the size is known, and fails the node if it is not), so a
  // synced result combines with one still pending from the same data.
  const OpKind kind = op_info(op).kind;
  if (kind == OpKind::Binary || kind == OpKind::Ternary || op == Op::lerp || op == Op::addcmul ||
      op == Op::addcdiv || op == Op::masked_fill) {
    size_t rank = 0;
    for (const TensorType& t : concrete) rank = std::max(rank, t.shape.size());
    for (size_t back = 1; back <= rank; ++back) {
      int64_t known = kDynamic;
      for (const TensorType& t : concrete) {
        if (t.shape.size() >= back && t.shape[t.shape.size() - back] > 1) {
          known = t.shape[t.shape.size() - back];
        }
      }
      if (known == kDynamic) continue;
      for (TensorType& t : concrete) {
        if (t.shape.size() >= back && t.shape[t.shape.size() - back] == kDynamic) {
          t.shape[t.shape.size() - back] = known;
        }
      }
    }
  }
  for (TensorType& t : concrete) {
    for (int64_t& d : t.shape) {
      if (d == kDynamic) d = kPlaceholder;
    }
  }
  std::vector<const TensorType*> ptrs;
  for (const TensorType& t : concrete) ptrs.push_back(&t);
  std::vector<TensorType> out;
  try {
    out = infer_fn(op, ptrs, attrs);
  } catch (const Error& e) {
    // Messages name the unknown size "?", not the placeholder.
    std::string message = e.message();
    const std::string placeholder = std::to_string(kPlaceholder);
    for (size_t at = message.find(placeholder); at != std::string::npos;
         at = message.find(placeholder, at + 1)) {
      message.replace(at, placeholder.size(), "?");
    }
    throw Error(e.code(), message);
  }
  for (TensorType& t : out) {
    for (int64_t& d : t.shape) {
      if (d == kPlaceholder) {
        d = kDynamic;
      } else if (d > kPlaceholder / 2) {
        fail(ErrorCode::Unsupported,
             op_name(op) +
                 " would make a dimension from a data-dependent size (an input's "
                 "shape is only known when the graph runs); sync that input first");
      }
    }
  }
  return out;
}

}  // namespace tensord::ir::detail
