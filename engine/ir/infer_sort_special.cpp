// Inference of issue 4's special functions with attributes or two arguments (polygamma,
// multigammaln, bessel_j0/j1, gammainc, gammaincc, zeta, logit's eps) and of sorting along an
// axis (sort, argsort, quantile, nanquantile, median, nanmedian). docs/ops.md has the rules.
#include "engine/ir/infer_internal.h"

namespace tensord::ir::detail {

namespace {

std::vector<TensorType> infer_special_more(Op op, Inputs in, const Attrs& attrs) {
  if (op == Op::gammainc || op == Op::gammaincc || op == Op::zeta) {
    DType t = promote(in[0]->dtype, in[1]->dtype);
    if (!is_floating(t)) t = kDefaultFloat;
    return result(t, broadcast_shapes(in[0]->shape, in[1]->shape));
  }
  if (op == Op::polygamma && attrs.get_int(Attr::n) < 0) {
    fail(ErrorCode::Shape,
         "polygamma's order n must be >= 0, got " + std::to_string(attrs.get_int(Attr::n)));
  }
  if (op == Op::multigammaln && attrs.get_int(Attr::p) < 1) {
    fail(ErrorCode::Shape,
         "multigammaln's p must be >= 1, got " + std::to_string(attrs.get_int(Attr::p)));
  }
  DType t = in[0]->dtype;
  if (!is_floating(t)) t = kDefaultFloat;
  return result(t, in[0]->shape);
}

// (values, indices): values of x's dtype, int64 positions along the axis.
std::vector<TensorType> infer_values_indices(Op op, const TensorType& x, const Attrs& attrs) {
  const std::string op_name(name(op));
  if (x.rank() == 0) fail(ErrorCode::Shape, op_name + " needs rank >= 1");
  const int64_t axis = normalize_axis(attrs.get_int(Attr::axis, -1), x.rank());
  const int64_t n = x.shape[axis];
  Shape shape = x.shape;
  bool reduces = true;
  switch (op) {
    case Op::topk: {
      const int64_t k = attrs.get_int(Attr::k);
      if (k < 0 || k > n) {
        fail(ErrorCode::Shape, "topk's k = " + std::to_string(k) + " is outside [0, " +
                                   std::to_string(n) + "] for axis " + std::to_string(axis) +
                                   " of " + to_string(x.shape));
      }
      shape[axis] = k;
      reduces = false;
      break;
    }
    case Op::kthvalue: {
      const int64_t k = attrs.get_int(Attr::k);
      if (k < 1 || k > n) {
        fail(ErrorCode::Shape, "kthvalue's k = " + std::to_string(k) + " is outside [1, " +
                                   std::to_string(n) + "] for axis " + std::to_string(axis) +
                                   " of " + to_string(x.shape));
      }
      break;
    }
    case Op::cummax:
    case Op::cummin:
      reduces = false;
      break;
    default:  // median_axis, nanmedian_axis, mode
      if (n == 0) {
        fail(ErrorCode::Shape, op_name + " over axis " + std::to_string(axis) + " of size 0 of " +
                                   to_string(x.shape));
      }
      break;
  }
  if (reduces) {
    if (attrs.get_bool(Attr::keepdim, false)) {
      shape[axis] = 1;
    } else {
      shape.erase(shape.begin() + axis);
    }
  }
  std::vector<TensorType> out = result(x.dtype, shape);
  out.push_back(TensorType{DType::Int64, std::move(shape)});
  return out;
}

std::vector<TensorType> infer_sorting(Op op, Inputs in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  switch (op) {
    case Op::sort:
    case Op::argsort: {
      if (x.rank() == 0) fail(ErrorCode::Shape, std::string(name(op)) + " needs rank >= 1");
      normalize_axis(attrs.get_int(Attr::axis, -1), x.rank());
      if (op == Op::argsort) return result(DType::Int64, x.shape);
      std::vector<TensorType> out = result(x.dtype, x.shape);  // (values, indices)
      out.push_back(TensorType{DType::Int64, x.shape});
      return out;
    }
    case Op::topk:
    case Op::kthvalue:
    case Op::median_axis:
    case Op::nanmedian_axis:
    case Op::mode:
    case Op::cummax:
    case Op::cummin:
      return infer_values_indices(op, x, attrs);
    case Op::median:
    case Op::nanmedian:
      if (x.numel() == 0) {
        fail(ErrorCode::Shape, std::string(name(op)) + " of an empty tensor " + to_string(x.shape));
      }
      return result(x.dtype, {});
    default:
      break;
  }
  // quantile, nanquantile
  const TensorType& q = *in[1];
  if (!is_floating(x.dtype)) {
    fail(ErrorCode::DType, std::string(name(op)) + " takes a floating-point input, got " +
                               std::string(name(x.dtype)));
  }
  if (!is_floating(q.dtype)) {
    fail(ErrorCode::DType,
         std::string(name(op)) + "'s q must be floating-point, got " + std::string(name(q.dtype)));
  }
  if (q.rank() > 1) {
    fail(ErrorCode::Shape,
         std::string(name(op)) + "'s q must be a scalar or 1-D, got shape " + to_string(q.shape));
  }
  const int64_t mode = attrs.get_int(Attr::interpolation, 0);
  if (mode < 0 || mode > 4) {
    fail(ErrorCode::Shape, std::string(name(op)) +
                               "'s interpolation must be 0 (linear), 1 (lower), 2 (higher), 3 "
                               "(nearest) or 4 (midpoint), got " +
                               std::to_string(mode));
  }
  const bool keepdim = attrs.get_bool(Attr::keepdim, false);
  Shape shape;
  if (q.rank() == 1) shape.push_back(q.shape[0]);
  if (attrs.has(Attr::axis)) {
    if (x.rank() == 0)
      fail(ErrorCode::Shape, std::string(name(op)) + " along an axis of a 0-d tensor");
    const int64_t axis = normalize_axis(attrs.get_int(Attr::axis), x.rank());
    for (int64_t d = 0; d < x.rank(); ++d) {
      if (d != axis) {
        shape.push_back(x.shape[d]);
      } else if (keepdim) {
        shape.push_back(1);
      }
    }
  } else if (keepdim) {
    for (int64_t d = 0; d < x.rank(); ++d) shape.push_back(1);
  }
  return result(x.dtype, std::move(shape));
}

}  // namespace

std::vector<TensorType> infer_sort_special(Op op, Inputs in, const Attrs& attrs) {
  switch (op) {
    case Op::sort:
    case Op::argsort:
    case Op::quantile:
    case Op::nanquantile:
    case Op::median:
    case Op::nanmedian:
    case Op::topk:
    case Op::kthvalue:
    case Op::median_axis:
    case Op::nanmedian_axis:
    case Op::mode:
    case Op::cummax:
    case Op::cummin:
      return infer_sorting(op, in, attrs);
    default:
      return infer_special_more(op, in, attrs);
  }
}

}  // namespace tensord::ir::detail
