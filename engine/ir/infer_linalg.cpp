// Inference of the linear algebra ops (docs/ops.md "Linear algebra").
#include <cmath>

#include "engine/ir/infer_internal.h"

namespace tensord::ir::detail {

namespace {

std::string op_name(Op op) {
  return std::string(name(op));
}

// The LAPACK-backed ops take float32 and float64 (as torch.linalg on the CPU).
void require_lapack_dtype(Op op, DType t) {
  if (t != DType::Float32 && t != DType::Float64) {
    fail(ErrorCode::DType,
         op_name(op) + " takes float32 or float64 matrices, got " + std::string(name(t)));
  }
}

void require_matrix(Op op, const TensorType& x, const char* what = "input") {
  if (x.rank() < 2) {
    fail(ErrorCode::Shape, op_name(op) + " needs " + what +
                               " of at least 2 dimensions (..., m, n), got " + to_string(x.shape));
  }
}

void require_square(Op op, const TensorType& x, const char* what = "input") {
  require_matrix(op, x, what);
  if (x.shape[x.rank() - 1] != x.shape[x.rank() - 2]) {
    fail(ErrorCode::Shape, op_name(op) + " needs square matrices (..., n, n), got " +
                               std::string(what) + " " + to_string(x.shape));
  }
}

Shape batch_of(const TensorType& x, int64_t core) {
  return Shape(x.shape.begin(), x.shape.end() - core);
}

Shape concat(Shape a, std::initializer_list<int64_t> tail) {
  a.insert(a.end(), tail.begin(), tail.end());
  return a;
}

Shape broadcast_batch(Op op, const Shape& a, const Shape& b) {
  try {
    return broadcast_shapes(a, b);
  } catch (const Error&) {
    fail(ErrorCode::Shape, op_name(op) + ": batch dimensions " + to_string(a) + " and " +
                               to_string(b) + " do not broadcast");
  }
}

// The rank tolerances (pinv, matrix_rank): finite and >= 0.
void check_tolerances(Op op, const Attrs& attrs) {
  for (Attr a : {Attr::rtol, Attr::atol}) {
    if (attrs.has(a)) {
      const double v = attrs.get_float(a);
      if (!(v >= 0) || std::isinf(v)) {
        fail(ErrorCode::Shape, op_name(op) + ": " + std::string(name(a)) +
                                   " must be finite and >= 0, got " + std::to_string(v));
      }
    }
  }
}

// The dtype an elementwise op gives two inputs (its DType errors included). outer and kron of
// two bool tensors are their logical and (as torch.outer/torch.kron).
DType elementwise_dtype(Op op, const TensorType& a, const TensorType& b) {
  if (op == Op::outer && a.dtype == DType::Bool && b.dtype == DType::Bool) return DType::Bool;
  if (op == Op::outer) op = Op::mul;
  const TensorType sa{a.dtype, {}}, sb{b.dtype, {}};
  const TensorType* ins[] = {&sa, &sb};
  return infer(op, ins, {})[0].dtype;
}

}  // namespace

std::vector<TensorType> infer_linalg(Op op, Inputs in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  switch (op) {
    case Op::det:
      require_lapack_dtype(op, x.dtype);
      require_square(op, x);
      return result(x.dtype, batch_of(x, 2));
    case Op::inv:
    case Op::cholesky:
      require_lapack_dtype(op, x.dtype);
      require_square(op, x);
      return result(x.dtype, x.shape);
    case Op::eigvalsh:
      require_lapack_dtype(op, x.dtype);
      require_square(op, x);
      return result(x.dtype, batch_of(x, 1));
    case Op::slogdet: {
      require_lapack_dtype(op, x.dtype);
      require_square(op, x);
      std::vector<TensorType> out = result(x.dtype, batch_of(x, 2));
      out.push_back(out[0]);
      return out;
    }
    case Op::eigh: {
      require_lapack_dtype(op, x.dtype);
      require_square(op, x);
      std::vector<TensorType> out = result(x.dtype, batch_of(x, 1));
      out.push_back(TensorType{x.dtype, x.shape});
      return out;
    }
    case Op::qr: {
      require_lapack_dtype(op, x.dtype);
      require_matrix(op, x);
      const int64_t mode = attrs.get_int(Attr::mode, 0);
      if (mode != 0 && mode != 1) {
        fail(ErrorCode::Shape,
             "qr mode must be 0 (reduced) or 1 (complete), got " + std::to_string(mode));
      }
      const int64_t m = x.shape[x.rank() - 2], n = x.shape[x.rank() - 1];
      const int64_t k = mode == 1 ? m : std::min(m, n);
      std::vector<TensorType> out = result(x.dtype, concat(batch_of(x, 2), {m, k}));
      out.push_back(TensorType{x.dtype, concat(batch_of(x, 2), {k, n})});
      return out;
    }
    case Op::svd: {
      require_lapack_dtype(op, x.dtype);
      require_matrix(op, x);
      const bool full = attrs.get_bool(Attr::full_matrices, true);
      const int64_t m = x.shape[x.rank() - 2], n = x.shape[x.rank() - 1], k = std::min(m, n);
      std::vector<TensorType> out = result(x.dtype, concat(batch_of(x, 2), {m, full ? m : k}));
      out.push_back(TensorType{x.dtype, concat(batch_of(x, 2), {k})});
      out.push_back(TensorType{x.dtype, concat(batch_of(x, 2), {full ? n : k, n})});
      return out;
    }
    case Op::svdvals: {
      require_lapack_dtype(op, x.dtype);
      require_matrix(op, x);
      const int64_t m = x.shape[x.rank() - 2], n = x.shape[x.rank() - 1];
      return result(x.dtype, concat(batch_of(x, 2), {std::min(m, n)}));
    }
    case Op::pinv: {
      require_lapack_dtype(op, x.dtype);
      check_tolerances(op, attrs);
      if (attrs.get_bool(Attr::hermitian, false)) require_square(op, x);
      require_matrix(op, x);
      const int64_t m = x.shape[x.rank() - 2], n = x.shape[x.rank() - 1];
      return result(x.dtype, concat(batch_of(x, 2), {n, m}));
    }
    case Op::matrix_rank:
      require_lapack_dtype(op, x.dtype);
      check_tolerances(op, attrs);
      if (attrs.get_bool(Attr::hermitian, false)) require_square(op, x);
      require_matrix(op, x);
      return result(DType::Int64, batch_of(x, 2));
    case Op::solve:
    case Op::lstsq: {
      const TensorType& b = *in[1];
      require_lapack_dtype(op, x.dtype);
      require_lapack_dtype(op, b.dtype);
      if (x.dtype != b.dtype) {
        fail(ErrorCode::DType, op_name(op) + " needs A and B of one dtype, got " +
                                   std::string(name(x.dtype)) + " and " +
                                   std::string(name(b.dtype)));
      }
      if (op == Op::solve) {
        require_square(op, x, "A");
      } else {
        require_matrix(op, x, "A");
      }
      const int64_t m = x.shape[x.rank() - 2], n = x.shape[x.rank() - 1];
      // solve: B is a batch of vectors when it is 1-D or has A's shape without its last dim.
      const bool vector =
          op == Op::solve &&
          (b.rank() == 1 || (b.rank() == x.rank() - 1 && Shape(b.shape) == batch_of(x, 1)));
      if (!vector) require_matrix(op, b, "B");
      const int64_t rows = b.shape[b.rank() - (vector ? 1 : 2)];
      if (rows != m) {
        fail(ErrorCode::Shape, op_name(op) + ": A " + to_string(x.shape) + " and B " +
                                   to_string(b.shape) + " have different numbers of rows");
      }
      const Shape batch = broadcast_batch(op, batch_of(x, 2), batch_of(b, vector ? 1 : 2));
      if (vector) return result(x.dtype, concat(batch, {n}));
      const int64_t k = b.shape[b.rank() - 1];
      std::vector<TensorType> out = result(x.dtype, concat(batch, {n, k}));
      if (op == Op::lstsq) {
        // (solution, residuals, rank, singular_values), as torch.linalg.lstsq with gelsd.
        // Residuals are the squared residual norms per column when m > n, else empty; the
        // clients apply torch's further rule (empty unless every matrix has rank n).
        out.push_back(TensorType{x.dtype, m > n ? concat(batch, {k}) : Shape{0}});
        out.push_back(TensorType{DType::Int64, batch});
        out.push_back(TensorType{x.dtype, concat(batch, {std::min(m, n)})});
      }
      return out;
    }
    case Op::cdist: {
      const TensorType& b = *in[1];
      require_lapack_dtype(op, x.dtype);
      require_lapack_dtype(op, b.dtype);
      if (x.dtype != b.dtype) {
        fail(ErrorCode::DType, "cdist needs x1 and x2 of one dtype, got " +
                                   std::string(name(x.dtype)) + " and " +
                                   std::string(name(b.dtype)));
      }
      require_matrix(op, x, "x1");
      require_matrix(op, b, "x2");
      if (x.shape[x.rank() - 1] != b.shape[b.rank() - 1]) {
        fail(ErrorCode::Shape, "cdist: x1 " + to_string(x.shape) + " and x2 " + to_string(b.shape) +
                                   " have different row sizes");
      }
      const double p = attrs.get_float(Attr::ord, 2.0);
      if (!(p >= 0)) fail(ErrorCode::Shape, "cdist needs p >= 0, got " + std::to_string(p));
      const Shape batch = broadcast_batch(op, batch_of(x, 2), batch_of(b, 2));
      return result(x.dtype, concat(batch, {x.shape[x.rank() - 2], b.shape[b.rank() - 2]}));
    }
    case Op::pdist: {
      require_lapack_dtype(op, x.dtype);
      if (x.rank() != 2) {
        fail(ErrorCode::Shape, "pdist needs a 2-D input (N, M), got " + to_string(x.shape));
      }
      const double p = attrs.get_float(Attr::ord, 2.0);
      if (!(p >= 0)) fail(ErrorCode::Shape, "pdist needs p >= 0, got " + std::to_string(p));
      const int64_t n = x.shape[0];
      return result(x.dtype, {n * (n - 1) / 2});
    }
    case Op::trace: {
      require_matrix(op, x);
      const TensorType diag{x.dtype, batch_of(x, 1)};
      const TensorType* ins[] = {&diag};
      const Attrs sum_attrs{{Attr::axes, std::vector<int64_t>{-1}}};
      return result(infer(Op::sum, ins, sum_attrs)[0].dtype, batch_of(x, 2));
    }
    case Op::outer: {
      const TensorType& b = *in[1];
      if (x.rank() != 1 || b.rank() != 1) {
        fail(ErrorCode::Shape, "outer needs two 1-D inputs, got " + to_string(x.shape) + " and " +
                                   to_string(b.shape));
      }
      return result(elementwise_dtype(Op::outer, x, b), {x.shape[0], b.shape[0]});
    }
    case Op::kron: {
      const TensorType& b = *in[1];
      const int64_t rank = std::max(x.rank(), b.rank());
      Shape shape(rank);
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t da = d < rank - x.rank() ? 1 : x.shape[d - (rank - x.rank())];
        const int64_t db = d < rank - b.rank() ? 1 : b.shape[d - (rank - b.rank())];
        if (__builtin_mul_overflow(da, db, &shape[d])) {
          fail(ErrorCode::OutOfMemory, "kron: the result has more elements than int64 can count");
        }
      }
      return result(elementwise_dtype(Op::outer, x, b), shape);
    }
    case Op::cross: {
      const TensorType& b = *in[1];
      const Shape shape = broadcast_batch(op, x.shape, b.shape);
      if (shape.empty()) fail(ErrorCode::Shape, "cross needs inputs of at least 1 dimension");
      const int64_t axis =
          normalize_axis(attrs.get_int(Attr::axis, -1), static_cast<int64_t>(shape.size()));
      const int64_t ra = static_cast<int64_t>(shape.size());
      auto size_at = [&](const TensorType& t) {
        const int64_t d = axis - (ra - t.rank());
        return d < 0 ? int64_t{1} : t.shape[d];
      };
      if (size_at(x) != 3 || size_at(b) != 3) {
        fail(ErrorCode::Shape, "cross needs size 3 along axis " + std::to_string(axis) +
                                   " in both inputs, got " + to_string(x.shape) + " and " +
                                   to_string(b.shape));
      }
      // a1 * b2 - a2 * b1: mul's and sub's dtype rules (bool -> DType error).
      const DType t = elementwise_dtype(Op::mul, x, b);
      const TensorType prod{t, {}};
      return result(elementwise_dtype(Op::sub, prod, prod), shape);
    }
    case Op::matrix_norm: {
      require_floating(op, x.dtype);
      require_matrix(op, x);
      const std::vector<int64_t> dims =
          attrs.has(Attr::dims) ? attrs.get_ints(Attr::dims) : std::vector<int64_t>{-2, -1};
      if (dims.size() != 2) fail(ErrorCode::Shape, "matrix_norm needs two dims");
      const int64_t a = normalize_axis(dims[0], x.rank()), b = normalize_axis(dims[1], x.rank());
      if (a == b) fail(ErrorCode::Shape, "matrix_norm needs two different dims");
      const int64_t mode = attrs.get_int(Attr::mode, 0);
      if (mode != 0 && mode != 1) {
        fail(ErrorCode::Shape,
             "matrix_norm mode must be 0 (fro) or 1 (nuc), got " + std::to_string(mode));
      }
      if (attrs.has(Attr::ord)) {
        const double ord = attrs.get_float(Attr::ord);
        if (attrs.has(Attr::mode)) {
          fail(ErrorCode::InvalidGraph, "matrix_norm takes ord or mode, not both");
        }
        if (!(std::fabs(ord) == 1 || std::fabs(ord) == 2 || std::isinf(ord))) {
          fail(ErrorCode::Shape,
               "matrix_norm ord must be 1, -1, 2, -2, inf or -inf, got " + std::to_string(ord));
        }
        if (std::fabs(ord) == 2) require_lapack_dtype(op, x.dtype);
        // The max or min is taken over an empty dim: no value.
        const int64_t over = std::fabs(ord) == 1 ? x.shape[b]
                             : std::isinf(ord)   ? x.shape[a]
                                                 : std::min(x.shape[a], x.shape[b]);
        if (over == 0) {
          fail(ErrorCode::Shape, "matrix_norm with ord " + std::to_string(ord) +
                                     " of an empty matrix " + to_string(x.shape));
        }
      } else if (mode == 1) {
        require_lapack_dtype(op, x.dtype);
      }
      Shape shape;
      const bool keepdim = attrs.get_bool(Attr::keepdim, false);
      for (int64_t d = 0; d < x.rank(); ++d) {
        if (d != a && d != b) {
          shape.push_back(x.shape[d]);
        } else if (keepdim) {
          shape.push_back(1);
        }
      }
      return result(x.dtype, shape);
    }
    case Op::matrix_power: {
      require_square(op, x);
      if (x.dtype == DType::Bool) fail(ErrorCode::DType, "matrix_power does not take bool");
      if (attrs.get_int(Attr::n) < 0) require_lapack_dtype(op, x.dtype);
      return result(x.dtype, x.shape);
    }
    default:
      break;
  }
  fail(ErrorCode::Internal, "no linear algebra inference for " + op_name(op));
}

}  // namespace tensord::ir::detail
