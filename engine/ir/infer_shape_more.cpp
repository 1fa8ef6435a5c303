// Inference of issue 4's shape and indexing composites (docs/ops.md): tril ... diag.
#include <algorithm>

#include "engine/ir/axes.h"
#include "engine/ir/infer_internal.h"

namespace tensord::ir::detail {

namespace {

void require_rank(Op op, const TensorType& x, int64_t at_least) {
  if (x.rank() < at_least) {
    fail(ErrorCode::Shape, std::string(name(op)) + " needs a tensor of rank >= " +
                               std::to_string(at_least) + ", got " + to_string(x.shape));
  }
}

void require_index(Op op, DType t) {
  if (is_floating(t) || t == DType::Bool) {
    fail(ErrorCode::DType,
         std::string(name(op)) + " takes integer indices, got " + std::string(name(t)));
  }
}

int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    fail(ErrorCode::OutOfMemory, "the result has more elements than int64 can count");
  }
  return r;
}

// Two distinct axes from `dims` (default (0, 1)).
std::pair<int64_t, int64_t> two_axes(Op op, const TensorType& x, const Attrs& attrs) {
  const std::vector<int64_t> dims =
      attrs.has(Attr::dims) ? attrs.get_ints(Attr::dims) : std::vector<int64_t>{0, 1};
  if (dims.size() != 2) fail(ErrorCode::Shape, std::string(name(op)) + " needs two dims");
  const int64_t a = normalize_axis(dims[0], x.rank()), b = normalize_axis(dims[1], x.rank());
  if (a == b) fail(ErrorCode::Shape, std::string(name(op)) + " needs two different dims");
  return {a, b};
}

Shape diagonal_shape(Op op, const TensorType& x, const Attrs& attrs) {
  const auto [a, b] = two_axes(op, x, attrs);
  const int64_t k = attrs.get_int(Attr::k, 0), n = x.shape[a], m = x.shape[b];
  Shape shape;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (d != a && d != b) shape.push_back(x.shape[d]);
  }
  int64_t len = 0;
  if (k >= 0) {
    len = k >= m ? 0 : std::min(n, m - k);
  } else {
    len = -k >= n ? 0 : std::min(n + k, m);
  }
  shape.push_back(len);
  return shape;
}

Shape diag_embed_shape(const TensorType& x, int64_t k) {
  if (k == INT64_MIN) fail(ErrorCode::Shape, "diagonal offset out of range");
  int64_t n = 0;
  if (__builtin_add_overflow(x.shape.back(), k < 0 ? -k : k, &n)) {
    fail(ErrorCode::OutOfMemory, "diagonal offset too large");
  }
  Shape shape(x.shape.begin(), x.shape.end() - 1);
  shape.push_back(n), shape.push_back(n);
  return shape;
}

}  // namespace

std::vector<TensorType> infer_shape_more(Op op, Inputs in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  switch (op) {
    case Op::tril:
    case Op::triu:
      require_rank(op, x, 2);
      return result(x.dtype, x.shape);
    case Op::roll: {
      const std::vector<int64_t>& shifts = attrs.get_ints(Attr::shifts);
      if (!attrs.has(Attr::dims)) {
        if (shifts.size() != 1) fail(ErrorCode::Shape, "roll without dims takes one shift");
      } else {
        const std::vector<int64_t>& dims = attrs.get_ints(Attr::dims);
        if (dims.size() != shifts.size()) {
          fail(ErrorCode::Shape, "roll needs as many shifts as dims");
        }
        for (int64_t d : dims) normalize_axis(d, x.rank());
      }
      return result(x.dtype, x.shape);
    }
    case Op::tile: {
      std::vector<int64_t> reps = attrs.get_ints(Attr::reps);
      check_attr_rank(reps.size());
      for (int64_t r : reps) {
        if (r < 0) fail(ErrorCode::Shape, "tile repetitions must be >= 0");
      }
      Shape shape = x.shape;
      const size_t rank = std::max(reps.size(), shape.size());
      reps.insert(reps.begin(), rank - reps.size(), 1);
      shape.insert(shape.begin(), rank - shape.size(), 1);
      for (size_t d = 0; d < rank; ++d) shape[d] = checked_mul(shape[d], reps[d]);
      return result(x.dtype, std::move(shape));
    }
    case Op::repeat_interleave: {
      const int64_t repeats = attrs.get_int(Attr::repeats);
      if (repeats < 0) fail(ErrorCode::Shape, "repeat_interleave needs repeats >= 0");
      if (!attrs.has(Attr::axis)) {
        int64_t n = 1;
        for (int64_t d : x.shape) n = checked_mul(n, d);
        return result(x.dtype, {checked_mul(n, repeats)});
      }
      require_rank(op, x, 1);
      Shape shape = x.shape;
      const int64_t axis = normalize_axis(attrs.get_int(Attr::axis), x.rank());
      shape[axis] = checked_mul(shape[axis], repeats);
      return result(x.dtype, std::move(shape));
    }
    case Op::narrow: {
      require_rank(op, x, 1);
      const int64_t axis = normalize_axis(attrs.get_int(Attr::axis), x.rank());
      const int64_t n = x.shape[axis], start = attrs.get_int(Attr::start);
      const int64_t length = attrs.get_int(Attr::length);
      const int64_t from = start < 0 ? start + n : start;
      if (from < 0 || from > n || length < 0 || length > n - from) {
        fail(ErrorCode::Shape, "narrow(" + std::to_string(start) + ", " + std::to_string(length) +
                                   ") is out of range for axis " + std::to_string(axis) +
                                   " of size " + std::to_string(n));
      }
      Shape shape = x.shape;
      shape[axis] = length;
      return result(x.dtype, std::move(shape));
    }
    case Op::take:
      require_index(op, in[1]->dtype);
      return result(x.dtype, in[1]->shape);
    case Op::take_along_dim: {
      const TensorType& index = *in[1];
      require_index(op, index.dtype);
      if (!attrs.has(Attr::axis)) {
        int64_t n = 1;
        for (int64_t d : index.shape) n = checked_mul(n, d);
        return result(x.dtype, {n});
      }
      require_rank(op, x, 1);
      if (index.rank() != x.rank()) {
        fail(ErrorCode::Shape, "take_along_dim needs indices of the input's rank, got " +
                                   to_string(index.shape) + " for " + to_string(x.shape));
      }
      const int64_t axis = normalize_axis(attrs.get_int(Attr::axis), x.rank());
      Shape a = x.shape, b = index.shape;
      a[axis] = b[axis] = 1;
      Shape shape = broadcast_shapes(a, b);
      shape[axis] = index.shape[axis];
      return result(x.dtype, std::move(shape));
    }
    case Op::masked_fill: {
      if (in[1]->dtype != DType::Bool) fail(ErrorCode::DType, "masked_fill needs a bool mask");
      if (broadcast_shapes(x.shape, in[1]->shape) != x.shape) {
        fail(ErrorCode::Shape, "masked_fill's mask " + to_string(in[1]->shape) +
                                   " does not broadcast to " + to_string(x.shape));
      }
      return result(x.dtype, x.shape);
    }
    case Op::one_hot: {
      require_index(op, x.dtype);
      const int64_t n = attrs.get_int(Attr::n);
      if (n < 0) fail(ErrorCode::Shape, "one_hot needs num_classes >= 0");
      Shape shape = x.shape;
      shape.push_back(n);
      return result(DType::Int64, std::move(shape));
    }
    case Op::rot90: {
      require_rank(op, x, 2);
      const auto [a, b] = two_axes(op, x, attrs);
      Shape shape = x.shape;
      if (attrs.get_int(Attr::k, 1) % 2 != 0) std::swap(shape[a], shape[b]);
      return result(x.dtype, std::move(shape));
    }
    case Op::diagonal:
      require_rank(op, x, 2);
      return result(x.dtype, diagonal_shape(op, x, attrs));
    case Op::diag_embed:
      require_rank(op, x, 1);
      return result(x.dtype, diag_embed_shape(x, attrs.get_int(Attr::k, 0)));
    case Op::diag:
      if (x.rank() == 1) return result(x.dtype, diag_embed_shape(x, attrs.get_int(Attr::k, 0)));
      if (x.rank() == 2) return result(x.dtype, diagonal_shape(op, x, attrs));
      fail(ErrorCode::Shape, "diag takes a 1-D or 2-D tensor, got " + to_string(x.shape));
    default:
      break;
  }
  fail(ErrorCode::Internal, "no shape inference for " + std::string(name(op)));
}

std::vector<TensorType> infer_scatter(Op op, Inputs in, const Attrs& attrs) {
  const TensorType &x = *in[0], &index = *in[1], &src = *in[2];
  require_index(op, index.dtype);
  require_rank(op, x, 1);
  const int64_t axis = normalize_axis(attrs.get_int(Attr::axis), x.rank());
  if (op != Op::scatter && x.dtype == DType::Bool) {
    fail(ErrorCode::DType, std::string(name(op)) + " does not add bool tensors");
  }
  if (op == Op::index_add) {
    Shape want = x.shape;
    if (index.rank() != 1) fail(ErrorCode::Shape, "index_add needs a 1-D index");
    want[axis] = index.shape[0];
    if (src.shape != want) {
      fail(ErrorCode::Shape, "index_add needs a source of shape " + to_string(want) + ", got " +
                                 to_string(src.shape));
    }
    return result(x.dtype, x.shape);
  }
  if (index.rank() != x.rank() || src.rank() != x.rank()) {
    fail(ErrorCode::Shape, std::string(name(op)) + " needs x, index and src of one rank, got " +
                               to_string(x.shape) + ", " + to_string(index.shape) + ", " +
                               to_string(src.shape));
  }
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (index.shape[d] > src.shape[d] || (d != axis && index.shape[d] > x.shape[d])) {
      fail(ErrorCode::Shape, std::string(name(op)) + " index " + to_string(index.shape) +
                                 " is larger than src " + to_string(src.shape) + " or x " +
                                 to_string(x.shape) + " outside axis " + std::to_string(axis));
    }
  }
  return result(x.dtype, x.shape);
}

}  // namespace tensord::ir::detail
