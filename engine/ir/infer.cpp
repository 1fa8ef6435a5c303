// Schema checks, dispatch, and inference of the creation and elementwise ops. Inference runs on
// every recorded op in the client and on every node in the daemon, so the common paths copy a
// shape and allocate nothing else.
#include <cmath>

#include "engine/ir/dynamic.h"
#include "engine/ir/infer_internal.h"

namespace tensord::ir {
namespace detail {

void fail(ErrorCode code, std::string message) {
  throw Error(code, std::move(message));
}

std::vector<TensorType> result(DType dtype, Shape shape) {
  if (shape.size() > static_cast<size_t>(kMaxRank)) {
    fail(ErrorCode::InvalidGraph, "rank " + std::to_string(shape.size()) +
                                      " exceeds the maximum rank " + std::to_string(kMaxRank));
  }
  // Counting the non-zero dims keeps every stride computation of the backends in range too.
  int64_t count = 1;
  bool overflow = false;
  for (int64_t d : shape) {
    if (d < 0) fail(ErrorCode::Shape, "negative dimension in shape " + to_string(shape));
    if (d > 0) overflow |= __builtin_mul_overflow(count, d, &count);
  }
  int64_t bytes = 0;
  overflow |= __builtin_mul_overflow(count, static_cast<int64_t>(itemsize(dtype)), &bytes);
  if (overflow) {
    fail(ErrorCode::OutOfMemory, "tensor " + std::string(name(dtype)) + to_string(shape) +
                                     " has more bytes than int64 can count");
  }
  std::vector<TensorType> out;
  out.push_back(TensorType{dtype, std::move(shape)});
  return out;
}

void check_shape_attr(std::span<const int64_t> shape) {
  if (shape.size() > static_cast<size_t>(kMaxRank)) {
    fail(ErrorCode::InvalidGraph, "shape has rank " + std::to_string(shape.size()) +
                                      ", above the maximum rank " + std::to_string(kMaxRank));
  }
  for (int64_t d : shape) {
    if (d < 0) fail(ErrorCode::Shape, "negative dimension in shape " + to_string(shape));
  }
}

void check_attr_rank(size_t rank) {
  if (rank > static_cast<size_t>(kMaxRank)) {
    fail(ErrorCode::InvalidGraph,
         "rank " + std::to_string(rank) + " exceeds the maximum rank " + std::to_string(kMaxRank));
  }
}

void require_floating(Op op, DType t) {
  if (!is_floating(t)) {
    fail(ErrorCode::DType,
         std::string(name(op)) + " needs a floating-point input, got " + std::string(name(t)));
  }
}

}  // namespace detail

namespace {

using namespace detail;

std::string_view kind_name(AttrKind k) {
  switch (k) {
    case AttrKind::Int:
      return "an int";
    case AttrKind::Float:
      return "a float";
    case AttrKind::Bool:
      return "a bool";
    case AttrKind::Ints:
      return "a list of ints";
    case AttrKind::DType:
      return "a dtype";
    case AttrKind::Scalar:
      return "an int, float or bool";
    case AttrKind::Floats:
      return "a list of floats";
  }
  return "?";
}

std::string_view value_kind_name(const AttrValue& v) {
  constexpr std::string_view kNames[] = {"an int",         "a float", "a bool",
                                         "a list of ints", "a dtype", "a list of floats"};
  return kNames[v.index()];
}

// Float attributes (eps, correction) also take ints: clients write `correction = 1`.
bool kind_matches(AttrKind kind, const AttrValue& v) {
  switch (kind) {
    case AttrKind::Int:
      return std::holds_alternative<int64_t>(v);
    case AttrKind::Float:
      return std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v);
    case AttrKind::Bool:
      return std::holds_alternative<bool>(v);
    case AttrKind::Ints:
      return std::holds_alternative<std::vector<int64_t>>(v);
    case AttrKind::DType:
      return std::holds_alternative<DType>(v);
    case AttrKind::Scalar:
      return std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v) ||
             std::holds_alternative<bool>(v);
    case AttrKind::Floats:
      return std::holds_alternative<std::vector<double>>(v);
  }
  return false;
}

std::string arity_text(const OpInfo& info) {
  if (info.max_inputs < 0) return "at least " + std::to_string(info.min_inputs);
  if (info.min_inputs == info.max_inputs) return std::to_string(info.min_inputs);
  return std::to_string(info.min_inputs) + " to " + std::to_string(info.max_inputs);
}

std::vector<TensorType> infer_creation(Op op, const Attrs& attrs) {
  switch (op) {
    case Op::input:
      if (attrs.get_int(Attr::index) < 0) {
        fail(ErrorCode::InvalidGraph,
             "input index " + std::to_string(attrs.get_int(Attr::index)) + " is negative");
      }
      [[fallthrough]];
    case Op::full:
    case Op::zeros:
    case Op::ones: {
      const auto& shape = attrs.get_ints(Attr::shape);
      check_shape_attr(shape);
      return result(attrs.get_dtype(Attr::dtype), shape);
    }
    case Op::rand:
    case Op::randn: {
      DType t = attrs.get_dtype(Attr::dtype);
      if (!is_floating(t)) {
        fail(ErrorCode::DType, std::string(name(op)) + " makes floating-point tensors only, not " +
                                   std::string(name(t)));
      }
      const auto& shape = attrs.get_ints(Attr::shape);
      check_shape_attr(shape);
      return result(t, shape);
    }
    case Op::arange: {
      double start = attrs.get_float(Attr::start), stop = attrs.get_float(Attr::stop),
             step = attrs.get_float(Attr::step);
      if (step == 0) fail(ErrorCode::Shape, "arange step cannot be zero");
      if (!std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step)) {
        fail(ErrorCode::Shape, "arange needs finite start, stop and step");
      }
      double n = std::ceil((stop - start) / step);
      if (!(n < 0x1p62)) {  // also catches an overflow of stop - start to inf
        fail(ErrorCode::OutOfMemory, "arange(" + std::to_string(start) + ", " +
                                         std::to_string(stop) + ", " + std::to_string(step) +
                                         ") has too many elements");
      }
      return result(attrs.get_dtype(Attr::dtype), {n > 0 ? static_cast<int64_t>(n) : 0});
    }
    case Op::eye: {
      int64_t n = attrs.get_int(Attr::n), m = attrs.get_int(Attr::m, n);
      if (n < 0 || m < 0) {
        fail(ErrorCode::Shape,
             "eye needs n, m >= 0, got n = " + std::to_string(n) + ", m = " + std::to_string(m));
      }
      return result(attrs.get_dtype(Attr::dtype), {n, m});
    }
    default:
      break;
  }
  fail(ErrorCode::Internal, "not a creation op: " + std::string(name(op)));
}

void reject_bool(Op op, DType t) {
  if (t == DType::Bool) fail(ErrorCode::DType, std::string(name(op)) + " does not take bool");
}

std::vector<TensorType> infer_unary(Op op, const TensorType& x, const Attrs& attrs) {
  DType t = x.dtype;
  switch (op) {
    case Op::cast:
      t = attrs.get_dtype(Attr::dtype);
      break;
    case Op::neg:
    case Op::abs:
    case Op::relu:
    case Op::floor:
    case Op::ceil:
    case Op::round:
    case Op::sign:
    case Op::square:
    case Op::trunc:
      reject_bool(op, t);
      break;
    case Op::clamp:
      reject_bool(op, t);
      if (!attrs.has(Attr::min) && !attrs.has(Attr::max)) {
        fail(ErrorCode::InvalidGraph, "clamp needs at least one of 'min' and 'max'");
      }
      break;
    case Op::frac:
      if (!is_floating(t)) fail(ErrorCode::DType, "frac takes floating-point input");
      break;
    case Op::nan_to_num:  // any dtype; the identity on integers and bool
      break;
    case Op::bitwise_not:
      if (is_floating(t)) fail(ErrorCode::DType, "bitwise_not takes integers or bool");
      break;
    case Op::logical_not:
    case Op::isnan:
    case Op::isinf:
    case Op::isfinite:
    case Op::signbit:
      t = DType::Bool;
      break;
    default:  // exp, log, ..., gelu, silu: float results
      if (!is_floating(t)) t = kDefaultFloat;
      break;
  }
  return result(t, x.shape);
}

Shape broadcast(const Shape& a, const Shape& b) {
  return a == b ? a : broadcast_shapes(a, b);
}

std::vector<TensorType> infer_binary(Op op, const TensorType& a, const TensorType& b) {
  DType t = promote(a.dtype, b.dtype);
  switch (op) {
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::pow:
    case Op::fmod:
    case Op::remainder:
    case Op::floor_divide:
      if (t == DType::Bool) {
        fail(ErrorCode::DType, std::string(name(op)) + " of two bool tensors is not defined");
      }
      break;
    case Op::div:
    case Op::atan2:
    case Op::hypot:
    case Op::logaddexp:
    case Op::logaddexp2:
    case Op::copysign:
    case Op::xlogy:
    case Op::xlog1py:
      if (!is_floating(t)) t = kDefaultFloat;
      break;
    case Op::nextafter:
      if (!is_floating(t)) {
        fail(ErrorCode::DType,
             "nextafter takes floating-point inputs, got " + std::string(name(t)));
      }
      break;
    case Op::bitwise_and:
    case Op::bitwise_or:
    case Op::bitwise_xor:
      if (is_floating(t)) {
        fail(ErrorCode::DType, std::string(name(op)) + " takes integers or bool");
      }
      break;
    case Op::bitwise_left_shift:
    case Op::bitwise_right_shift:
    case Op::gcd:
    case Op::lcm:
      if (is_floating(t) || t == DType::Bool) {
        fail(ErrorCode::DType, std::string(name(op)) + " takes integers");
      }
      break;
    case Op::maximum:
    case Op::minimum:
      break;
    default:
      t = DType::Bool;
      break;  // comparisons and logical_and/or
  }
  return result(t, broadcast(a.shape, b.shape));
}

std::vector<TensorType> infer_where(const TensorType& cond, const TensorType& a,
                                    const TensorType& b) {
  Shape shape = broadcast(a.shape, b.shape);
  if (cond.shape != shape) shape = broadcast_shapes(cond.shape, shape);
  return result(promote(a.dtype, b.dtype), std::move(shape));
}

}  // namespace

void check_schema(Op op, size_t num_inputs, const Attrs& attrs) {
  const OpInfo& info = op_info(op);
  const auto n = static_cast<int64_t>(num_inputs);
  if (n < info.min_inputs || (info.max_inputs >= 0 && n > info.max_inputs)) {
    fail(ErrorCode::InvalidGraph, std::string(info.name) + " takes " + arity_text(info) +
                                      " inputs, got " + std::to_string(num_inputs));
  }
  for (const auto& [attr, value] : attrs.items()) {
    const AttrSpec* spec = nullptr;
    for (const AttrSpec& s : info.attrs) {
      if (s.attr == attr) spec = &s;
    }
    if (!spec) {
      fail(ErrorCode::InvalidGraph,
           std::string(info.name) + " has no attribute '" + std::string(name(attr)) + "'");
    }
    if (!kind_matches(spec->kind, value)) {
      fail(ErrorCode::InvalidGraph, "attribute '" + std::string(name(attr)) + "' of " +
                                        std::string(info.name) + " must be " +
                                        std::string(kind_name(spec->kind)) + ", not " +
                                        std::string(value_kind_name(value)));
    }
  }
  for (const AttrSpec& s : info.attrs) {
    if (s.required && !attrs.has(s.attr)) {
      fail(ErrorCode::InvalidGraph,
           std::string(info.name) + " needs the attribute '" + std::string(name(s.attr)) + "'");
    }
  }
}

std::vector<TensorType> infer(Op op, std::span<const TensorType* const> in, const Attrs& attrs) {
  reject_complex(op, in, attrs);  // issue 4: complex inputs reach only the ops defined on them
  check_schema(op, in.size(), attrs);
  // issue 4 (h/datadep): inputs whose shape is only known when the graph runs.
  for (const TensorType* t : in) {
    if (has_dynamic(t->shape)) return infer_with_dynamic(op, in, attrs, &infer);
  }
  if (auto r = infer_complex(op, in, attrs)) return std::move(*r);
  switch (op) {
    case Op::input:
    case Op::full:
    case Op::arange:
    case Op::eye:
    case Op::rand:
    case Op::randn:
    case Op::zeros:
    case Op::ones:
      return infer_creation(op, attrs);
    case Op::where:
      return infer_where(*in[0], *in[1], *in[2]);
    case Op::matmul:
      return infer_matmul(*in[0], *in[1]);
    case Op::gelu:
    case Op::silu:
    case Op::clamp:
    case Op::nan_to_num:
      return infer_unary(op, *in[0], attrs);
    case Op::mean:
    case Op::var:
      return infer_reduction(op, *in[0], attrs);
    case Op::transpose:
    case Op::squeeze:
    case Op::unsqueeze:
    case Op::flip:
      return infer_view(op, *in[0], attrs);
    case Op::stack:
      return infer_movement(op, in, attrs);
    case Op::softmax:
    case Op::log_softmax:
    case Op::layer_norm:
      return infer_normalization(op, in, attrs);
    case Op::lerp:
    case Op::addcmul:
    case Op::addcdiv:
      return infer_pointwise3(op, in, attrs);
    case Op::celu:
    case Op::elu:
    case Op::selu:
    case Op::leaky_relu:
    case Op::hardtanh:
    case Op::hardsigmoid:
    case Op::hardswish:
    case Op::softplus:
    case Op::softsign:
    case Op::mish:
    case Op::prelu:
    case Op::glu:
      return infer_activation(op, in, attrs);
    case Op::all:
    case Op::any:
    case Op::count_nonzero:
    case Op::amax:
    case Op::amin:
    case Op::nansum:
    case Op::nanmean:
    case Op::std:
    case Op::logsumexp:
    case Op::norm:
      return infer_reduction_more(op, *in[0], attrs);
    case Op::cumsum:
    case Op::cumprod:
    case Op::logcumsumexp:
      return infer_scan(op, *in[0], attrs);
    case Op::mse_loss:
    case Op::l1_loss:
    case Op::smooth_l1_loss:
    case Op::huber_loss:
    case Op::binary_cross_entropy:
    case Op::binary_cross_entropy_with_logits:
    case Op::kl_div:
    case Op::cross_entropy:
    case Op::nll_loss:
    case Op::cosine_similarity:
      return infer_loss(op, in, attrs);
    case Op::tril:
    case Op::triu:
    case Op::roll:
    case Op::tile:
    case Op::repeat_interleave:
    case Op::narrow:
    case Op::take:
    case Op::take_along_dim:
    case Op::masked_fill:
    case Op::one_hot:
    case Op::rot90:
    case Op::diagonal:
    case Op::diag_embed:
    case Op::diag:
      return infer_shape_more(op, in, attrs);
    case Op::expit:
      return infer_unary(op, *in[0], attrs);
    case Op::scatter:
    case Op::scatter_add:
    case Op::index_add:
      return infer_scatter(op, in, attrs);
    // issue 4: special functions with attributes or two arguments, sorting
    case Op::polygamma:
    case Op::multigammaln:
    case Op::bessel_j0:
    case Op::bessel_j1:
    case Op::gammainc:
    case Op::gammaincc:
    case Op::zeta:
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
      return infer_sort_special(op, in, attrs);
    // issue 4 (h/datadep)
    case Op::searchsorted:
    case Op::bucketize:
    case Op::scatter_reduce:
    case Op::scatter_value:
    case Op::index_put:
    case Op::unfold:
    case Op::nonzero:
    case Op::flatnonzero:
    case Op::masked_select:
    case Op::unique:
    case Op::repeat_interleave_tensor:
      return infer_index_more(op, in, attrs);
    case Op::frexp:
      return infer_multi_output(op, in, attrs);
    // linear algebra (infer_linalg.cpp)
    case Op::det:
    case Op::inv:
    case Op::solve:
    case Op::cholesky:
    case Op::svdvals:
    case Op::eigvalsh:
    case Op::pinv:
    case Op::matrix_rank:
    case Op::lstsq:
    case Op::cdist:
    case Op::pdist:
    case Op::trace:
    case Op::outer:
    case Op::kron:
    case Op::cross:
    case Op::matrix_norm:
    case Op::matrix_power:
    case Op::slogdet:
    case Op::qr:
    case Op::svd:
    case Op::eigh:
      return infer_linalg(op, in, attrs);
    // issue 4: neural-network ops (infer_nn.cpp)
    case Op::conv1d:
    case Op::conv2d:
    case Op::conv3d:
    case Op::conv_transpose1d:
    case Op::conv_transpose2d:
    case Op::conv_transpose3d:
    case Op::max_pool1d:
    case Op::max_pool2d:
    case Op::max_pool3d:
    case Op::avg_pool1d:
    case Op::avg_pool2d:
    case Op::avg_pool3d:
    case Op::adaptive_avg_pool1d:
    case Op::adaptive_avg_pool2d:
    case Op::adaptive_avg_pool3d:
    case Op::adaptive_max_pool1d:
    case Op::adaptive_max_pool2d:
    case Op::adaptive_max_pool3d:
    case Op::max_unpool:
    case Op::interpolate:
    case Op::linear:
    case Op::embedding:
    case Op::rms_norm:
    case Op::batch_norm:
    case Op::group_norm:
    case Op::instance_norm:
    case Op::scaled_dot_product_attention:
    case Op::dropout:
    case Op::pixel_shuffle:
    case Op::pixel_unshuffle:
    case Op::ctc_loss:
      return infer_nn(op, in, attrs);
    default:
      break;
  }
  switch (op_info(op).kind) {
    case OpKind::Unary:
      return infer_unary(op, *in[0], attrs);
    case OpKind::Binary:
      return infer_binary(op, *in[0], *in[1]);
    case OpKind::Reduction:
      return infer_reduction(op, *in[0], attrs);
    case OpKind::View:
      return infer_view(op, *in[0], attrs);
    case OpKind::Movement:
      return infer_movement(op, in, attrs);
    default:
      break;
  }
  fail(ErrorCode::Internal, "no inference for op " + std::string(name(op)));
}

}  // namespace tensord::ir
