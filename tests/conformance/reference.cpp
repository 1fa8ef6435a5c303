// Dispatch to the reference families, the op-schema checks every op shares, and the
// broadcasting helpers.
#include "tests/conformance/reference.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <variant>

namespace tensord::conformance {

using ir::Op;

namespace {

bool kind_matches(ir::AttrKind kind, const ir::AttrValue& v) {
  switch (kind) {
    case ir::AttrKind::Int:
      return std::holds_alternative<int64_t>(v);
    case ir::AttrKind::Float:
      return std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v);
    case ir::AttrKind::Bool:
      return std::holds_alternative<bool>(v);
    case ir::AttrKind::Ints:
      return std::holds_alternative<std::vector<int64_t>>(v);
    case ir::AttrKind::DType:
      return std::holds_alternative<DType>(v);
    case ir::AttrKind::Scalar:
      return std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v) ||
             std::holds_alternative<bool>(v);
    case ir::AttrKind::Floats:
      return std::holds_alternative<std::vector<double>>(v);
  }
  return false;
}

// Arity and attribute names/kinds against the op's schema (engine/ir/op_table.cpp).
void check_op_schema(Op op, size_t num_inputs, const ir::Attrs& attrs) {
  const ir::OpInfo& info = ir::op_info(op);
  if (static_cast<int>(num_inputs) < info.min_inputs ||
      (info.max_inputs >= 0 && static_cast<int>(num_inputs) > info.max_inputs)) {
    reject(ErrorCode::InvalidGraph, "wrong number of inputs");
  }
  for (const auto& [attr, value] : attrs.items()) {
    auto spec = std::find_if(info.attrs.begin(), info.attrs.end(),
                             [&](const ir::AttrSpec& s) { return s.attr == attr; });
    if (spec == info.attrs.end()) reject(ErrorCode::InvalidGraph, "unknown attribute");
    if (!kind_matches(spec->kind, value)) reject(ErrorCode::InvalidGraph, "attribute kind");
  }
  for (const ir::AttrSpec& s : info.attrs) {
    if (s.required && !attrs.has(s.attr)) reject(ErrorCode::InvalidGraph, "missing attribute");
  }
}

Expected dispatch(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs);

}  // namespace

void check_value_type(DType t, const Shape& shape) {
  for (int64_t d : shape) {
    if (d < 0) reject(ErrorCode::Shape, "negative dimension");
  }
  if (shape.size() > 16) reject(ErrorCode::InvalidGraph, "rank above 16");
  int64_t bytes = static_cast<int64_t>(ir::itemsize(t));
  for (int64_t d : shape) {
    if (d == 0) continue;
    if (bytes > INT64_MAX / d) reject(ErrorCode::OutOfMemory, "byte size overflows int64");
    bytes *= d;
  }
}

namespace {

bool is_pool(Op op) {
  switch (op) {
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
      return true;
    default:
      return false;
  }
}

}  // namespace

Expected reference(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs, uint32_t output) {
  check_op_schema(op, in.size(), attrs);
  if (is_pool(op)) {  // one output, or two for a max pool with return_indices
    Expected e = ref_pool(op, in, attrs, output);
    check_value_type(e.value.dtype, e.value.shape);
    return e;
  }
  if (!is_multi_output(op) && output != 0) {
    throw std::logic_error("table bug: " + std::string(ir::name(op)) + " has one output");
  }
  Expected e =
      is_multi_output(op) ? ref_multi_output(op, in, attrs, output) : dispatch(op, in, attrs);
  check_value_type(e.value.dtype, e.value.shape);
  return e;
}

namespace {

Expected dispatch(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  if (op == Op::logit && attrs.has(ir::Attr::eps)) return ref_special_more(op, in, attrs);
  switch (op) {
    case Op::full:
    case Op::arange:
    case Op::eye:
    case Op::rand:
    case Op::randn:
    case Op::zeros:
    case Op::ones:
      return ref_creation(op, attrs);
    case Op::cast:
    case Op::neg:
    case Op::abs:
    case Op::exp:
    case Op::log:
    case Op::sqrt:
    case Op::rsqrt:
    case Op::sin:
    case Op::cos:
    case Op::tanh:
    case Op::sigmoid:
    case Op::relu:
    case Op::erf:
    case Op::floor:
    case Op::ceil:
    case Op::round:
    case Op::sign:
    case Op::logical_not:
    case Op::gelu:
    case Op::silu:
    case Op::clamp:
      return ref_unary(op, in[0], attrs);
    case Op::exp2:
    case Op::expm1:
    case Op::log2:
    case Op::log10:
    case Op::log1p:
    case Op::tan:
    case Op::asin:
    case Op::acos:
    case Op::atan:
    case Op::sinh:
    case Op::cosh:
    case Op::asinh:
    case Op::acosh:
    case Op::atanh:
    case Op::erfc:
    case Op::reciprocal:
    case Op::square:
    case Op::trunc:
    case Op::isnan:
    case Op::isinf:
    case Op::isfinite:
    case Op::signbit:
    case Op::frac:
    case Op::bitwise_not:
      return ref_unary_math(op, in[0]);
    case Op::nan_to_num:
      return ref_nan_to_num(in[0], attrs);
    case Op::atan2:
    case Op::hypot:
    case Op::logaddexp:
    case Op::logaddexp2:
    case Op::copysign:
    case Op::fmod:
    case Op::remainder:
    case Op::floor_divide:
    case Op::bitwise_and:
    case Op::bitwise_or:
    case Op::bitwise_xor:
    case Op::bitwise_left_shift:
    case Op::bitwise_right_shift:
    case Op::gcd:
    case Op::lcm:
      return ref_binary_math(op, in[0], in[1]);
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::div:
    case Op::pow:
    case Op::maximum:
    case Op::minimum:
    case Op::eq:
    case Op::ne:
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge:
    case Op::logical_and:
    case Op::logical_or:
      return ref_binary(op, in[0], in[1]);
    case Op::where:
      return ref_where(in[0], in[1], in[2]);
    case Op::sum:
    case Op::prod:
    case Op::max:
    case Op::min:
    case Op::argmax:
    case Op::argmin:
    case Op::mean:
    case Op::var:
      return ref_reduce(op, in[0], attrs);
    case Op::softmax:
    case Op::log_softmax:
    case Op::layer_norm:
      return ref_normalize(op, in, attrs);
    case Op::reshape:
    case Op::permute:
    case Op::expand:
    case Op::slice:
    case Op::transpose:
    case Op::squeeze:
    case Op::unsqueeze:
    case Op::flip:
    case Op::contiguous:
      return ref_view(op, in[0], attrs);
    case Op::concat:
    case Op::stack:
    case Op::pad:
    case Op::index_select:
    case Op::gather:
      return ref_movement(op, in, attrs);
    case Op::matmul:
      return ref_matmul(in[0], in[1]);
    case Op::nextafter:
      return ref_nextafter(in[0], in[1]);
    case Op::lerp:
    case Op::addcmul:
    case Op::addcdiv:
      return ref_pointwise3(op, in, attrs);
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
      return ref_activation(op, in, attrs);
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
      return ref_reduce_more(op, in[0], attrs);
    case Op::cumsum:
    case Op::cumprod:
    case Op::logcumsumexp:
      return ref_scan(op, in[0], attrs);
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
      return ref_loss(op, in, attrs);
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
    case Op::scatter:
    case Op::scatter_add:
    case Op::index_add:
      return ref_shape_more(op, in, attrs);
    // h/datadep
    case Op::searchsorted:
    case Op::bucketize:
    case Op::scatter_reduce:
    case Op::scatter_value:
    case Op::index_put:
    case Op::unfold:
    case Op::nonzero:
    case Op::flatnonzero:
    case Op::masked_select:
    case Op::repeat_interleave_tensor:
      return ref_index_more(op, in, attrs);
    case Op::lgamma:
    case Op::digamma:
    case Op::erfinv:
    case Op::erfcx:
    case Op::i0:
    case Op::i0e:
    case Op::i1:
    case Op::i1e:
    case Op::ndtr:
    case Op::ndtri:
    case Op::log_ndtr:
    case Op::sinc:
    case Op::entr:
    case Op::logit:
    case Op::expit:
    case Op::xlogy:
    case Op::xlog1py:
      return ref_special(op, in);
    // linear algebra
    case Op::det:
    case Op::inv:
    case Op::solve:
    case Op::cholesky:
    case Op::svdvals:
    case Op::eigvalsh:
    case Op::pinv:
    case Op::matrix_rank:
    case Op::cdist:
    case Op::pdist:
    case Op::trace:
    case Op::outer:
    case Op::kron:
    case Op::cross:
    case Op::matrix_norm:
    case Op::matrix_power:
      return ref_linalg(op, in, attrs);
    // issue 4: neural-network ops
    case Op::conv1d:
    case Op::conv2d:
    case Op::conv3d:
    case Op::conv_transpose1d:
    case Op::conv_transpose2d:
    case Op::conv_transpose3d:
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
      return ref_nn(op, in, attrs);
    // issue 4: more special functions, sorting
    case Op::polygamma:
    case Op::multigammaln:
    case Op::bessel_j0:
    case Op::bessel_j1:
    case Op::gammainc:
    case Op::gammaincc:
    case Op::zeta:
      return ref_special_more(op, in, attrs);
    case Op::sort:
    case Op::argsort:
    case Op::quantile:
    case Op::nanquantile:
    case Op::median:
    case Op::nanmedian:
      return ref_sort(op, in, attrs);
    case Op::input:
    case Op::frexp:  // several outputs: ref_multi_output
    case Op::topk:   // issue 4: sorting's (values, indices) ops, also ref_multi_output
    case Op::kthvalue:
    case Op::median_axis:
    case Op::nanmedian_axis:
    case Op::mode:
    case Op::cummax:
    case Op::cummin:
    case Op::slogdet:
    case Op::qr:
    case Op::svd:
    case Op::eigh:
    case Op::lstsq:
    case Op::unique:
    // issue 4: complex values and FFTs are checked by the complex table (cases_complex.cpp):
    // RefTensor holds real values only.
    case Op::real:
    case Op::imag:
    case Op::angle:
    case Op::conj:
    case Op::complex:
    case Op::fft_c2c:
    case Op::fft_r2c:
    case Op::fft_c2r:
      break;
  }
  reject(ErrorCode::Internal, "the reference has no rule for " + std::string(ir::name(op)));
}

}  // namespace

Shape ref_broadcast(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t da = d < rank - a.size() ? 1 : a[d - (rank - a.size())];
    int64_t db = d < rank - b.size() ? 1 : b[d - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      reject(ErrorCode::Shape, shape_str(a) + " and " + shape_str(b) + " do not broadcast");
    }
    out[d] = da == 1 ? db : da;
  }
  return out;
}

int64_t ref_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) reject(ErrorCode::Shape, "axis out of range");
  return axis < 0 ? axis + rank : axis;
}

int64_t broadcast_source(std::span<const int64_t> out_index, const Shape& in_shape) {
  size_t lead = out_index.size() - in_shape.size();
  int64_t flat = 0;
  for (size_t d = 0; d < in_shape.size(); ++d) {
    int64_t i = in_shape[d] == 1 ? 0 : out_index[lead + d];
    flat = flat * in_shape[d] + i;
  }
  return flat;
}

}  // namespace tensord::conformance
