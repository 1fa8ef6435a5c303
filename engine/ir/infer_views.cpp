// Inference of the view ops (reshape, permute, expand, slice) and the composites that become
// views (transpose, squeeze, unsqueeze, flip).
#include "engine/ir/axes.h"
#include "engine/ir/infer_internal.h"

namespace tensord::ir::detail {
namespace {

Shape reshaped(const TensorType& x, const std::vector<int64_t>& target) {
  check_attr_rank(target.size());
  int inferred = -1;
  bool has_zero = false, overflow = false;
  int64_t known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t d = target[i];
    if (d == -1 && inferred < 0) {
      inferred = static_cast<int>(i);
    } else if (d < 0) {
      fail(ErrorCode::Shape,
           "invalid reshape target " + to_string(target) +
               (d == -1 ? ": only one dimension can be -1" : ": negative dimension"));
    } else if (d == 0) {
      has_zero = true;
    } else {
      overflow |= __builtin_mul_overflow(known, d, &known);
    }
  }
  const int64_t count = x.numel();
  Shape shape(target.begin(), target.end());
  if (inferred >= 0) {
    if (has_zero) {
      fail(ErrorCode::Shape,
           "cannot infer the -1 of " + to_string(target) + ": the other dimensions multiply to 0");
    }
    if (!overflow && count % known == 0) {
      shape[inferred] = count / known;
      return shape;
    }
  } else if (has_zero ? count == 0 : !overflow && known == count) {
    return shape;
  }
  fail(ErrorCode::Shape, "cannot reshape " + to_string(x.shape) + " (" + std::to_string(count) +
                             " elements) into " + to_string(target));
}

Shape permuted(const TensorType& x, const std::vector<int64_t>& dims) {
  if (static_cast<int64_t>(dims.size()) != x.rank()) {
    fail(ErrorCode::Shape, "permute dims " + to_string(dims) + " do not match rank " +
                               std::to_string(x.rank()) + " of shape " + to_string(x.shape));
  }
  axis_mask(dims, x.rank(), "permute dims");  // a permutation: in range, no repeats
  Shape shape(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    shape[i] = x.shape[dims[i] < 0 ? dims[i] + x.rank() : dims[i]];
  }
  return shape;
}

Shape expanded(const TensorType& x, const std::vector<int64_t>& target) {
  check_attr_rank(target.size());
  if (target.size() < x.shape.size()) {
    fail(ErrorCode::Shape,
         "cannot expand " + to_string(x.shape) + " to the lower rank " + to_string(target));
  }
  const size_t lead = target.size() - x.shape.size();
  Shape shape(target.size());
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t want = target[i];
    if (i < lead) {
      if (want < 0) {
        fail(ErrorCode::Shape, "cannot expand " + to_string(x.shape) + " to " + to_string(target) +
                                   ": new dimensions must be >= 0");
      }
      shape[i] = want;
      continue;
    }
    int64_t have = x.shape[i - lead];
    if (want == -1 || want == have) {
      shape[i] = have;
    } else if (have == 1 && want >= 0) {
      shape[i] = want;
    } else {
      fail(ErrorCode::Shape, "cannot expand " + to_string(x.shape) + " to " + to_string(target));
    }
  }
  return shape;
}

Shape squeezed(const TensorType& x, const Attrs& attrs) {
  Shape shape;
  if (const AttrValue* v = attrs.find(Attr::axes)) {
    const auto& axes = std::get<std::vector<int64_t>>(*v);
    AxisMask mask = axis_mask(axes, x.rank(), "squeeze axes");
    for (int64_t d = 0; d < x.rank(); ++d) {
      if (!has_axis(mask, d)) {
        shape.push_back(x.shape[d]);
      } else if (x.shape[d] != 1) {
        fail(ErrorCode::Shape, "cannot squeeze axis " + std::to_string(d) + " of size " +
                                   std::to_string(x.shape[d]) + " in shape " + to_string(x.shape));
      }
    }
  } else {
    for (int64_t d : x.shape) {
      if (d != 1) shape.push_back(d);
    }
  }
  return shape;
}

Shape unsqueezed(const TensorType& x, const std::vector<int64_t>& axes) {
  const size_t out_rank = x.shape.size() + axes.size();
  check_attr_rank(out_rank);
  AxisMask mask = axis_mask(axes, static_cast<int64_t>(out_rank), "unsqueeze axes");
  Shape shape(out_rank);
  size_t next = 0;
  for (size_t i = 0; i < out_rank; ++i) {
    shape[i] = has_axis(mask, static_cast<int64_t>(i)) ? 1 : x.shape[next++];
  }
  return shape;
}

}  // namespace

std::vector<TensorType> infer_view(Op op, const TensorType& x, const Attrs& attrs) {
  switch (op) {
    case Op::reshape:
      return result(x.dtype, reshaped(x, attrs.get_ints(Attr::shape)));
    case Op::permute:
      return result(x.dtype, permuted(x, attrs.get_ints(Attr::dims)));
    case Op::expand:
      return result(x.dtype, expanded(x, attrs.get_ints(Attr::shape)));
    case Op::slice: {
      int64_t axis = normalize_axis(attrs.get_int(Attr::axis), x.rank());
      Shape shape = x.shape;
      shape[axis] = resolve_slice(attrs, x.shape[axis]).length;
      return result(x.dtype, std::move(shape));
    }
    case Op::transpose: {
      const auto& dims = attrs.get_ints(Attr::dims);
      if (dims.size() != 2) {
        fail(ErrorCode::Shape, "transpose takes two axes, got dims " + to_string(dims));
      }
      int64_t a = normalize_axis(dims[0], x.rank()), b = normalize_axis(dims[1], x.rank());
      Shape shape = x.shape;
      std::swap(shape[a], shape[b]);
      return result(x.dtype, std::move(shape));
    }
    case Op::squeeze:
      return result(x.dtype, squeezed(x, attrs));
    case Op::unsqueeze:
      return result(x.dtype, unsqueezed(x, attrs.get_ints(Attr::axes)));
    case Op::flip:
      if (const AttrValue* v = attrs.find(Attr::axes)) {
        axis_mask(std::get<std::vector<int64_t>>(*v), x.rank(), "flip axes");
      }
      return result(x.dtype, x.shape);
    default:
      break;
  }
  fail(ErrorCode::Internal, "not a view op: " + std::string(name(op)));
}

}  // namespace tensord::ir::detail
