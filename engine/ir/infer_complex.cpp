// Issue 4: complex dtypes and FFT. The gate that keeps complex inputs out of every op that is not
// defined on them, and inference of the ops that are (docs/ops.md "Complex numbers").
#include <algorithm>
#include <optional>

#include "engine/ir/infer_internal.h"

namespace tensord::ir {
namespace detail {
namespace {

bool any_complex(Inputs in) {
  return std::any_of(in.begin(), in.end(),
                     [](const TensorType* t) { return is_complex(t->dtype); });
}

DType promote_all(Inputs in) {
  DType t = in[0]->dtype;
  for (size_t i = 1; i < in.size(); ++i) t = promote(t, in[i]->dtype);
  return t;
}

Shape broadcast_all(Inputs in) {
  Shape s = in[0]->shape;
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i]->shape != s) s = broadcast_shapes(s, in[i]->shape);
  }
  return s;
}

// Inference of an op defined on real inputs, run on real stand-ins of the complex inputs (same
// shape, the component dtype) to check shapes and attributes; the caller sets the dtype.
Shape standin_shape(Op op, Inputs in, const Attrs& attrs) {
  std::vector<TensorType> standins;
  standins.reserve(in.size());
  for (const TensorType* t : in) standins.push_back(TensorType{real_of(t->dtype), t->shape});
  std::vector<const TensorType*> ptrs;
  for (const TensorType& t : standins) ptrs.push_back(&t);
  return infer(op, ptrs, attrs)[0].shape;
}

std::string_view norm_name(int64_t norm) {
  return norm == 0 ? "backward" : norm == 1 ? "ortho" : "forward";
}

// fft_c2c / fft_r2c / fft_c2r: axes distinct and in range, lengths >= 1 per axis.
struct FftAxes {
  std::vector<int64_t> axes;
  std::vector<int64_t> lengths;
};

FftAxes fft_axes(Op op, const TensorType& x, const Attrs& attrs) {
  const auto rank = static_cast<int64_t>(x.rank());
  FftAxes r;
  const auto& axes = attrs.get_ints(Attr::axes);
  check_attr_rank(axes.size());
  if (axes.empty()) fail(ErrorCode::Shape, std::string(name(op)) + " needs at least one axis");
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      fail(ErrorCode::Shape, std::string(name(op)) + " axis " + std::to_string(a) +
                                 " is out of range for rank " + std::to_string(rank));
    }
    const int64_t n = a < 0 ? a + rank : a;
    if (std::find(r.axes.begin(), r.axes.end(), n) != r.axes.end()) {
      fail(ErrorCode::Shape, std::string(name(op)) + " axis " + std::to_string(a) + " repeats");
    }
    r.axes.push_back(n);
  }
  if (attrs.has(Attr::shape)) {
    const auto& s = attrs.get_ints(Attr::shape);
    if (s.size() != axes.size()) {
      fail(ErrorCode::Shape, std::string(name(op)) + " has " + std::to_string(s.size()) +
                                 " lengths for " + std::to_string(axes.size()) + " axes");
    }
    for (int64_t n : s) {
      if (n < 1) {
        fail(ErrorCode::Shape,
             std::string(name(op)) + " length " + std::to_string(n) + " must be at least 1");
      }
    }
    r.lengths = s;
  } else {
    for (size_t i = 0; i < r.axes.size(); ++i) {
      int64_t n = x.shape[r.axes[i]];
      if (op == Op::fft_c2r && i + 1 == r.axes.size()) n = 2 * (n - 1);
      if (n < 1) {
        fail(ErrorCode::Shape, std::string(name(op)) + " of an axis of length " +
                                   std::to_string(x.shape[r.axes[i]]) +
                                   " needs an explicit length (an FFT of no points is undefined)");
      }
      r.lengths.push_back(n);
    }
  }
  const int64_t norm = attrs.get_int(Attr::fft_norm, 0);
  if (norm < 0 || norm > 2) {
    fail(ErrorCode::InvalidGraph, std::string(name(op)) +
                                      " norm must be 0 (backward), 1 (ortho) "
                                      "or 2 (forward), got " +
                                      std::to_string(norm));
  }
  (void)norm_name;
  return r;
}

std::vector<TensorType> infer_fft(Op op, const TensorType& x, const Attrs& attrs) {
  if (x.dtype == DType::Bool || is_integral(x.dtype)) {
    fail(ErrorCode::DType, std::string(name(op)) +
                               " needs a floating-point or complex input, got " +
                               std::string(name(x.dtype)));
  }
  if ((op == Op::fft_r2c) && is_complex(x.dtype)) {
    fail(ErrorCode::DType, "fft_r2c (rfft) needs a real input, got " + std::string(name(x.dtype)));
  }
  const FftAxes f = fft_axes(op, x, attrs);
  Shape out = x.shape;
  for (size_t i = 0; i < f.axes.size(); ++i) out[f.axes[i]] = f.lengths[i];
  if (op == Op::fft_r2c) out[f.axes.back()] = f.lengths.back() / 2 + 1;
  const DType c = complex_of(x.dtype);
  return result(op == Op::fft_c2r ? real_of(c) : c, std::move(out));
}

}  // namespace

bool accepts_complex(Op op) {
  switch (op) {
    case Op::input:
    case Op::full:
    case Op::zeros:
    case Op::ones:
    case Op::cast:
    case Op::neg:
    case Op::abs:
    case Op::exp:
    case Op::log:
    case Op::sqrt:
    case Op::add:
    case Op::pow:
    case Op::sub:
    case Op::mul:
    case Op::div:
    case Op::eq:
    case Op::ne:
    case Op::where:
    case Op::sum:
    case Op::prod:
    case Op::mean:
    case Op::var:
    case Op::std:
    case Op::norm:
    case Op::cumsum:
    case Op::cumprod:
    case Op::nansum:
    case Op::nanmean:
    case Op::cross:
    case Op::scatter:
    case Op::scatter_add:
    case Op::scatter_reduce:
    case Op::index_put:
    case Op::reshape:
    case Op::permute:
    case Op::expand:
    case Op::slice:
    case Op::transpose:
    case Op::squeeze:
    case Op::unsqueeze:
    case Op::flip:
    case Op::contiguous:
    case Op::concat:
    case Op::stack:
    case Op::roll:
    case Op::narrow:
    case Op::matmul:
    // Movement and indexing, and composites built from them and the ops above (trace sums a
    // diagonal; outer and kron multiply).
    case Op::pad:
    case Op::index_select:
    case Op::gather:
    case Op::tril:
    case Op::triu:
    case Op::tile:
    case Op::repeat_interleave:
    case Op::take:
    case Op::take_along_dim:
    case Op::masked_fill:
    case Op::rot90:
    case Op::diagonal:
    case Op::diag_embed:
    case Op::diag:
    case Op::trace:
    case Op::outer:
    case Op::kron:
    case Op::real:
    case Op::imag:
    case Op::angle:
    case Op::conj:
    case Op::fft_c2c:
    case Op::fft_c2r:
      return true;
    default:
      return is_complex_math(op);
  }
}

bool is_complex_math(Op op) {
  switch (op) {
    case Op::sin:
    case Op::cos:
    case Op::tan:
    case Op::sinh:
    case Op::cosh:
    case Op::tanh:
    case Op::asin:
    case Op::acos:
    case Op::atan:
    case Op::asinh:
    case Op::acosh:
    case Op::atanh:
    case Op::exp2:
    case Op::expm1:
    case Op::log2:
    case Op::log10:
    case Op::log1p:
    case Op::square:
    case Op::reciprocal:
    case Op::rsqrt:
    case Op::sigmoid:
    case Op::sign:
    case Op::isnan:
    case Op::isinf:
    case Op::isfinite:
      return true;
    default:
      return false;
  }
}

void reject_complex(Op op, Inputs in, const Attrs& attrs) {
  if (accepts_complex(op)) return;
  for (const TensorType* t : in) {
    if (is_complex(t->dtype)) {
      fail(ErrorCode::DType, std::string(name(op)) + " is not defined for complex inputs (got " +
                                 std::string(name(t->dtype)) +
                                 "); docs/ops.md lists the ops that take complex64/complex128");
    }
  }
  if (attrs.has(Attr::dtype)) {
    if (const DType* t = std::get_if<DType>(attrs.find(Attr::dtype)); t && is_complex(*t)) {
      fail(ErrorCode::DType,
           std::string(name(op)) + " cannot make " + std::string(name(*t)) + " tensors");
    }
  }
}

std::optional<std::vector<TensorType>> infer_complex(Op op, Inputs in, const Attrs& attrs) {
  switch (op) {
    case Op::real:
    case Op::imag:
      if (!is_complex(in[0]->dtype)) {
        fail(ErrorCode::DType, std::string(name(op)) + " needs a complex input, got " +
                                   std::string(name(in[0]->dtype)));
      }
      return result(real_of(in[0]->dtype), in[0]->shape);
    case Op::conj:  // the identity on real dtypes (Array API)
      return result(in[0]->dtype, in[0]->shape);
    case Op::angle: {
      const DType t = in[0]->dtype;
      if (is_complex(t)) return result(real_of(t), in[0]->shape);
      return result(is_floating(t) ? t : kDefaultFloat, in[0]->shape);
    }
    case Op::complex: {
      for (const TensorType* t : in) {
        if (!is_floating(t->dtype)) {
          fail(ErrorCode::DType, "complex needs floating-point real and imaginary parts, got " +
                                     std::string(name(t->dtype)));
        }
      }
      return result(complex_of(promote(in[0]->dtype, in[1]->dtype)),
                    broadcast_shapes(in[0]->shape, in[1]->shape));
    }
    case Op::fft_c2c:
    case Op::fft_r2c:
    case Op::fft_c2r:
      return infer_fft(op, *in[0], attrs);
    default:
      break;
  }
  if (!any_complex(in)) return std::nullopt;
  const DType t = promote_all(in);
  switch (op) {
    case Op::cast:
      return result(attrs.get_dtype(Attr::dtype), in[0]->shape);
    case Op::abs:
      return result(real_of(t), in[0]->shape);
    case Op::isnan:
    case Op::isinf:
    case Op::isfinite:
      return result(DType::Bool, in[0]->shape);
    case Op::var:  // of the magnitudes' deviations, and norms of the magnitudes: real
    case Op::std:
    case Op::norm:
      return result(real_of(t), standin_shape(op, in, attrs));
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::div:
    case Op::pow:
      return result(t, broadcast_all(in));
    case Op::eq:
    case Op::ne:
      return result(DType::Bool, broadcast_all(in));
    case Op::scatter:  // written one part at a time (decompose.cpp), so x must be complex
    case Op::scatter_add:
    case Op::scatter_reduce:
    case Op::index_put: {
      if (!is_complex(in[0]->dtype)) {
        fail(ErrorCode::DType, std::string(name(op)) + " writes complex values into a complex x " +
                                   "only, got " + std::string(name(in[0]->dtype)));
      }
      const int64_t reduction = attrs.get_int(Attr::reduction, 0);
      if (op == Op::scatter_reduce && reduction != 0 && reduction != 2) {
        fail(ErrorCode::DType,
             "scatter_reduce of complex values takes reduction sum (0) or mean (2), got " +
                 std::to_string(reduction));
      }
      return result(in[0]->dtype, standin_shape(op, in, attrs));
    }
    case Op::where: {
      if (is_complex(in[0]->dtype)) {
        fail(ErrorCode::DType,
             "where needs a real condition, got " + std::string(name(in[0]->dtype)));
      }
      return result(promote(in[1]->dtype, in[2]->dtype), broadcast_all(in));
    }
    default:
      // neg, exp, log, sqrt and the other functions of one complex value keep its dtype.
      if (op == Op::neg || op == Op::exp || op == Op::log || op == Op::sqrt ||
          is_complex_math(op)) {
        return result(t, in[0]->shape);
      }
      // sums, views, movement, matmul: the real op's shape, the inputs' complex dtype
      return result(t, standin_shape(op, in, attrs));
  }
}

}  // namespace detail
}  // namespace tensord::ir
