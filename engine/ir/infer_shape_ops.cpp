// Inference of reductions, data movement, matmul and the normalizations over axes.
#include <algorithm>

#include "engine/ir/axes.h"
#include "engine/ir/infer_internal.h"

namespace tensord::ir::detail {
namespace {

std::string axis_str(int64_t axis) {
  return std::to_string(axis);
}

std::vector<TensorType> infer_arg_reduction(const TensorType& x, const Attrs& attrs) {
  const bool keepdim = attrs.get_bool(Attr::keepdim, false);
  Shape shape;
  if (!attrs.has(Attr::axis)) {
    if (x.numel() == 0) {
      fail(ErrorCode::Shape,
           "cannot take the extreme of the empty tensor of shape " + to_string(x.shape));
    }
    if (keepdim) shape.assign(x.shape.size(), 1);
    return result(DType::Int64, std::move(shape));
  }
  int64_t axis = normalize_axis(attrs.get_int(Attr::axis), x.rank());
  if (x.shape[axis] == 0) {
    fail(ErrorCode::Shape, "cannot take the extreme over axis " + axis_str(axis) +
                               " of size 0 in shape " + to_string(x.shape));
  }
  shape = x.shape;
  if (keepdim) {
    shape[axis] = 1;
  } else {
    shape.erase(shape.begin() + axis);
  }
  return result(DType::Int64, std::move(shape));
}

}  // namespace

std::vector<TensorType> infer_reduction(Op op, const TensorType& x, const Attrs& attrs) {
  if (op == Op::argmax || op == Op::argmin) return infer_arg_reduction(x, attrs);
  const AxisMask mask = reduction_axes(attrs, x.rank());
  const bool keepdim = attrs.get_bool(Attr::keepdim, false);
  DType t = x.dtype;
  switch (op) {
    case Op::sum:
    case Op::prod:
      if (!is_floating(t)) t = kDefaultInt;
      break;
    case Op::max:
    case Op::min:
      for (int64_t d = 0; d < x.rank(); ++d) {
        if (has_axis(mask, d) && x.shape[d] == 0) {
          fail(ErrorCode::Shape, std::string(name(op)) + " over axis " + axis_str(d) +
                                     " of size 0 in shape " + to_string(x.shape) +
                                     " has no identity");
        }
      }
      break;
    default:
      require_floating(op, t);
      break;  // mean, var
  }
  Shape shape;
  shape.reserve(x.shape.size());
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (!has_axis(mask, d)) {
      shape.push_back(x.shape[d]);
    } else if (keepdim) {
      shape.push_back(1);
    }
  }
  return result(t, std::move(shape));
}

namespace {

std::vector<TensorType> infer_concat(Inputs in, const Attrs& attrs) {
  const TensorType& first = *in[0];
  if (first.rank() == 0) fail(ErrorCode::Shape, "cannot concatenate 0-d tensors");
  const int64_t axis = normalize_axis(attrs.get_int(Attr::axis), first.rank());
  Shape shape = first.shape;
  DType t = first.dtype;
  for (size_t i = 1; i < in.size(); ++i) {
    const TensorType& x = *in[i];
    bool same = x.rank() == first.rank();
    for (int64_t d = 0; same && d < x.rank(); ++d) same = d == axis || x.shape[d] == shape[d];
    if (!same) {
      fail(ErrorCode::Shape, "cannot concatenate " + to_string(first.shape) + " and " +
                                 to_string(x.shape) + " along axis " + axis_str(axis));
    }
    if (__builtin_add_overflow(shape[axis], x.shape[axis], &shape[axis])) {
      fail(ErrorCode::OutOfMemory, "concatenation along axis " + axis_str(axis) +
                                       " has more elements than int64 can count");
    }
    t = promote(t, x.dtype);
  }
  return result(t, std::move(shape));
}

std::vector<TensorType> infer_stack(Inputs in, const Attrs& attrs) {
  const TensorType& first = *in[0];
  check_attr_rank(first.shape.size() + 1);
  const int64_t axis = normalize_axis(attrs.get_int(Attr::axis), first.rank() + 1);
  DType t = first.dtype;
  for (const TensorType* x : in) {
    if (x->shape != first.shape) {
      fail(ErrorCode::Shape, "cannot stack tensors of shapes " + to_string(first.shape) + " and " +
                                 to_string(x->shape));
    }
    t = promote(t, x->dtype);
  }
  Shape shape = first.shape;
  shape.insert(shape.begin() + axis, static_cast<int64_t>(in.size()));
  return result(t, std::move(shape));
}

std::vector<TensorType> infer_pad(const TensorType& x, const Attrs& attrs) {
  const auto& pads = attrs.get_ints(Attr::pads);
  if (pads.size() != 2 * x.shape.size()) {
    fail(ErrorCode::Shape, "pad needs 2 * rank = " + std::to_string(2 * x.shape.size()) +
                               " pads for shape " + to_string(x.shape) + ", got " +
                               to_string(pads));
  }
  Shape shape = x.shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t out = 0;
    if (__builtin_add_overflow(shape[d], pads[2 * d], &out) ||
        __builtin_add_overflow(out, pads[2 * d + 1], &out) || out < 0) {
      fail(ErrorCode::Shape, "pads " + to_string(pads) + " give axis " + std::to_string(d) +
                                 " of shape " + to_string(x.shape) + " an invalid size");
    }
    shape[d] = out;
  }
  return result(x.dtype, std::move(shape));
}

void require_index_dtype(Op op, DType t) {
  if (!is_integral(t)) {
    fail(ErrorCode::DType,
         std::string(name(op)) + " needs an integer index, got " + std::string(name(t)));
  }
}

std::vector<TensorType> infer_index_select(const TensorType& x, const TensorType& index,
                                           const Attrs& attrs) {
  if (x.rank() == 0) fail(ErrorCode::Shape, "index_select needs a tensor of rank >= 1");
  const int64_t axis = normalize_axis(attrs.get_int(Attr::axis), x.rank());
  if (index.rank() != 1) {
    fail(ErrorCode::Shape, "index_select needs a 1-d index, got shape " + to_string(index.shape));
  }
  require_index_dtype(Op::index_select, index.dtype);
  Shape shape = x.shape;
  shape[axis] = index.shape[0];
  return result(x.dtype, std::move(shape));
}

std::vector<TensorType> infer_gather(const TensorType& x, const TensorType& index,
                                     const Attrs& attrs) {
  if (x.rank() == 0) fail(ErrorCode::Shape, "gather needs a tensor of rank >= 1");
  const int64_t axis = normalize_axis(attrs.get_int(Attr::axis), x.rank());
  if (index.rank() != x.rank()) {
    fail(ErrorCode::Shape, "gather needs an index of the same rank: " + to_string(x.shape) +
                               " and index " + to_string(index.shape));
  }
  require_index_dtype(Op::gather, index.dtype);
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (d != axis && index.shape[d] > x.shape[d]) {
      fail(ErrorCode::Shape, "gather index shape " + to_string(index.shape) + " is larger than " +
                                 to_string(x.shape) + " at axis " + axis_str(d));
    }
  }
  return result(x.dtype, index.shape);
}

}  // namespace

std::vector<TensorType> infer_movement(Op op, Inputs in, const Attrs& attrs) {
  switch (op) {
    case Op::contiguous:
      return result(in[0]->dtype, in[0]->shape);
    case Op::concat:
      return infer_concat(in, attrs);
    case Op::stack:
      return infer_stack(in, attrs);
    case Op::pad:
      return infer_pad(*in[0], attrs);
    case Op::index_select:
      return infer_index_select(*in[0], *in[1], attrs);
    case Op::gather:
      return infer_gather(*in[0], *in[1], attrs);
    default:
      break;
  }
  fail(ErrorCode::Internal, "not a movement op: " + std::string(name(op)));
}

std::vector<TensorType> infer_matmul(const TensorType& a, const TensorType& b) {
  if (a.rank() == 0 || b.rank() == 0) {
    fail(ErrorCode::Shape,
         "matmul needs tensors of rank >= 1: " + to_string(a.shape) + " @ " + to_string(b.shape));
  }
  const DType t = promote(a.dtype, b.dtype);
  if (t == DType::Bool) fail(ErrorCode::DType, "matmul of bool tensors is not defined");
  const int64_t k_a = a.shape.back();
  const int64_t k_b = b.rank() == 1 ? b.shape[0] : b.shape[b.shape.size() - 2];
  if (k_a != k_b) {
    fail(ErrorCode::Shape,
         "matmul: inner dimensions differ: " + to_string(a.shape) + " @ " + to_string(b.shape));
  }
  // Batch dims broadcast; a 1-d operand contributes no batch dims and no row/column.
  std::span<const int64_t> batch_a(a.shape.data(), a.shape.size() > 2 ? a.shape.size() - 2 : 0);
  std::span<const int64_t> batch_b(b.shape.data(), b.shape.size() > 2 ? b.shape.size() - 2 : 0);
  Shape shape = batch_a.size() == batch_b.size() &&
                        std::equal(batch_a.begin(), batch_a.end(), batch_b.begin())
                    ? Shape(batch_a.begin(), batch_a.end())
                    : broadcast_shapes(batch_a, batch_b);
  if (a.rank() >= 2) shape.push_back(a.shape[a.shape.size() - 2]);
  if (b.rank() >= 2) shape.push_back(b.shape.back());
  return result(t, std::move(shape));
}

std::vector<TensorType> infer_normalization(Op op, Inputs in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  DType t = x.dtype;
  require_floating(op, t);
  if (op != Op::layer_norm) {
    normalize_axis(attrs.get_int(Attr::axis), x.rank());
    return result(t, x.shape);
  }
  const int64_t nd = attrs.get_int(Attr::normalized_ndim);
  if (nd < 1 || nd > x.rank()) {
    fail(ErrorCode::Shape, "layer_norm normalized_ndim " + std::to_string(nd) +
                               " must be in [1, rank] for shape " + to_string(x.shape));
  }
  std::span<const int64_t> normalized(x.shape.data() + (x.rank() - nd), static_cast<size_t>(nd));
  for (size_t i = 1; i < in.size(); ++i) {
    const TensorType& p = *in[i];
    require_floating(op, p.dtype);
    if (!std::equal(p.shape.begin(), p.shape.end(), normalized.begin(), normalized.end())) {
      fail(ErrorCode::Shape, std::string(i == 1 ? "weight" : "bias") + " shape " +
                                 to_string(p.shape) + " does not match the normalized shape " +
                                 to_string(normalized));
    }
    t = promote(t, p.dtype);
  }
  return result(t, x.shape);
}

}  // namespace tensord::ir::detail
