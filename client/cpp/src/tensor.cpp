// Tensor: accessors, the fetch behind to_vector and item, and the methods (which forward to
// the free functions of ops.h).
#include "tensord/tensor.h"

#include <string>

#include "client/cpp/src/recorder.h"
#include "client/cpp/src/sync.h"
#include "engine/ir/dynamic.h"
#include "tensord/ops.h"

namespace tensord {

using detail::TensorAccess;

const ir::TensorType& Tensor::type(Loc loc) const {
  return TensorAccess::node(*this, loc)->type;
}
bool Tensor::materialized(Loc loc) const {
  return TensorAccess::node(*this, loc)->state == detail::TensorNode::State::Materialized;
}

detail::FetchedBytes Tensor::fetch_bytes(ir::DType expected, Loc loc) const {
  const auto& n = TensorAccess::node(*this, loc);
  if (n->type.dtype != expected) {
    throw Error(ErrorCode::DType,
                "cannot read a " + std::string(ir::name(n->type.dtype)) + " tensor as " +
                    std::string(ir::name(expected)) + "; convert it with astype first",
                std::nullopt, {}, detail::where(loc));
  }
  return std::move(detail::sync_point(*n->session, {{n, true}}, loc)[0]);
}

void Tensor::require_one_element(Loc loc) const {
  const auto& n = TensorAccess::node(*this, loc);
  // A data-dependent size is learned by syncing (item() syncs anyway).
  if (ir::has_dynamic(n->type.shape)) detail::sync_point(*n->session, {{n, false}}, loc);
  if (n->type.numel() != 1) {
    throw Error(ErrorCode::Shape,
                "item() needs exactly one element, the tensor is " + ir::to_string(n->type),
                std::nullopt, {}, detail::where(loc));
  }
}

Tensor Tensor::cast(ir::DType dtype, Loc loc) const {
  return tensord::cast(*this, dtype, loc);
}
Tensor Tensor::astype(ir::DType dtype, Loc loc) const {
  return tensord::cast(*this, dtype, loc);
}
Tensor Tensor::neg(Loc loc) const {
  return tensord::neg(*this, loc);
}
Tensor Tensor::abs(Loc loc) const {
  return tensord::abs(*this, loc);
}
Tensor Tensor::exp(Loc loc) const {
  return tensord::exp(*this, loc);
}
Tensor Tensor::log(Loc loc) const {
  return tensord::log(*this, loc);
}
Tensor Tensor::sqrt(Loc loc) const {
  return tensord::sqrt(*this, loc);
}
Tensor Tensor::rsqrt(Loc loc) const {
  return tensord::rsqrt(*this, loc);
}
Tensor Tensor::sin(Loc loc) const {
  return tensord::sin(*this, loc);
}
Tensor Tensor::cos(Loc loc) const {
  return tensord::cos(*this, loc);
}
Tensor Tensor::tanh(Loc loc) const {
  return tensord::tanh(*this, loc);
}
Tensor Tensor::sigmoid(Loc loc) const {
  return tensord::sigmoid(*this, loc);
}
Tensor Tensor::relu(Loc loc) const {
  return tensord::relu(*this, loc);
}
Tensor Tensor::erf(Loc loc) const {
  return tensord::erf(*this, loc);
}
Tensor Tensor::floor(Loc loc) const {
  return tensord::floor(*this, loc);
}
Tensor Tensor::ceil(Loc loc) const {
  return tensord::ceil(*this, loc);
}
Tensor Tensor::round(Loc loc) const {
  return tensord::round(*this, loc);
}
Tensor Tensor::sign(Loc loc) const {
  return tensord::sign(*this, loc);
}
Tensor Tensor::logical_not(Loc loc) const {
  return tensord::logical_not(*this, loc);
}
Tensor Tensor::gelu(bool tanh_approximation, Loc loc) const {
  return tensord::gelu(*this, tanh_approximation, loc);
}
Tensor Tensor::silu(Loc loc) const {
  return tensord::silu(*this, loc);
}
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max, Loc loc) const {
  return tensord::clamp(*this, min, max, loc);
}

Tensor Tensor::add(const Operand& other, Loc loc) const {
  return tensord::add(*this, other, loc);
}
Tensor Tensor::sub(const Operand& other, Loc loc) const {
  return tensord::sub(*this, other, loc);
}
Tensor Tensor::mul(const Operand& other, Loc loc) const {
  return tensord::mul(*this, other, loc);
}
Tensor Tensor::div(const Operand& other, Loc loc) const {
  return tensord::div(*this, other, loc);
}
Tensor Tensor::pow(const Operand& exponent, Loc loc) const {
  return tensord::pow(*this, exponent, loc);
}
Tensor Tensor::maximum(const Operand& other, Loc loc) const {
  return tensord::maximum(*this, other, loc);
}
Tensor Tensor::minimum(const Operand& other, Loc loc) const {
  return tensord::minimum(*this, other, loc);
}
Tensor Tensor::eq(const Operand& other, Loc loc) const {
  return tensord::eq(*this, other, loc);
}
Tensor Tensor::ne(const Operand& other, Loc loc) const {
  return tensord::ne(*this, other, loc);
}
Tensor Tensor::lt(const Operand& other, Loc loc) const {
  return tensord::lt(*this, other, loc);
}
Tensor Tensor::le(const Operand& other, Loc loc) const {
  return tensord::le(*this, other, loc);
}
Tensor Tensor::gt(const Operand& other, Loc loc) const {
  return tensord::gt(*this, other, loc);
}
Tensor Tensor::ge(const Operand& other, Loc loc) const {
  return tensord::ge(*this, other, loc);
}
Tensor Tensor::logical_and(const Operand& other, Loc loc) const {
  return tensord::logical_and(*this, other, loc);
}
Tensor Tensor::logical_or(const Operand& other, Loc loc) const {
  return tensord::logical_or(*this, other, loc);
}
Tensor Tensor::where(const Tensor& cond, const Operand& other, Loc loc) const {
  return tensord::where(cond, *this, other, loc);
}

Tensor Tensor::sum(const Axes& axes, bool keepdim, Loc loc) const {
  return tensord::sum(*this, axes, keepdim, loc);
}
Tensor Tensor::prod(const Axes& axes, bool keepdim, Loc loc) const {
  return tensord::prod(*this, axes, keepdim, loc);
}
Tensor Tensor::max(const Axes& axes, bool keepdim, Loc loc) const {
  return tensord::max(*this, axes, keepdim, loc);
}
Tensor Tensor::min(const Axes& axes, bool keepdim, Loc loc) const {
  return tensord::min(*this, axes, keepdim, loc);
}
Tensor Tensor::mean(const Axes& axes, bool keepdim, Loc loc) const {
  return tensord::mean(*this, axes, keepdim, loc);
}
Tensor Tensor::var(const Axes& axes, double correction, bool keepdim, Loc loc) const {
  return tensord::var(*this, axes, correction, keepdim, loc);
}
Tensor Tensor::argmax(std::optional<int64_t> axis, bool keepdim, Loc loc) const {
  return tensord::argmax(*this, axis, keepdim, loc);
}
Tensor Tensor::argmin(std::optional<int64_t> axis, bool keepdim, Loc loc) const {
  return tensord::argmin(*this, axis, keepdim, loc);
}

Tensor Tensor::reshape(const ir::Shape& shape, Loc loc) const {
  return tensord::reshape(*this, shape, loc);
}
Tensor Tensor::permute(const std::vector<int64_t>& dims, Loc loc) const {
  return tensord::permute(*this, dims, loc);
}
Tensor Tensor::transpose(int64_t dim0, int64_t dim1, Loc loc) const {
  return tensord::transpose(*this, dim0, dim1, loc);
}
Tensor Tensor::expand(const ir::Shape& shape, Loc loc) const {
  return tensord::expand(*this, shape, loc);
}
Tensor Tensor::squeeze(const Axes& axes, Loc loc) const {
  return tensord::squeeze(*this, axes, loc);
}
Tensor Tensor::unsqueeze(const Axes& axes, Loc loc) const {
  return tensord::unsqueeze(*this, axes, loc);
}
Tensor Tensor::slice(int64_t axis, std::optional<int64_t> start, std::optional<int64_t> stop,
                     int64_t step, Loc loc) const {
  return tensord::slice(*this, axis, start, stop, step, loc);
}
Tensor Tensor::flip(const Axes& axes, Loc loc) const {
  return tensord::flip(*this, axes, loc);
}
Tensor Tensor::contiguous(Loc loc) const {
  return tensord::contiguous(*this, loc);
}
Tensor Tensor::pad(const std::vector<int64_t>& pads, Scalar value, Loc loc) const {
  return tensord::pad(*this, pads, value, loc);
}
Tensor Tensor::index_select(int64_t axis, const Tensor& index, Loc loc) const {
  return tensord::index_select(*this, axis, index, loc);
}
Tensor Tensor::gather(int64_t axis, const Tensor& index, Loc loc) const {
  return tensord::gather(*this, axis, index, loc);
}

Tensor Tensor::matmul(const Tensor& other, Loc loc) const {
  return tensord::matmul(*this, other, loc);
}
Tensor Tensor::softmax(int64_t axis, Loc loc) const {
  return tensord::softmax(*this, axis, loc);
}
Tensor Tensor::log_softmax(int64_t axis, Loc loc) const {
  return tensord::log_softmax(*this, axis, loc);
}
Tensor Tensor::layer_norm(int64_t normalized_ndim, const Tensor& weight, const Tensor& bias,
                          double eps, Loc loc) const {
  return tensord::layer_norm(*this, normalized_ndim, weight, bias, eps, loc);
}

Tensor& Tensor::operator+=(const Operand& other) {
  return *this = *this + other;
}
Tensor& Tensor::operator-=(const Operand& other) {
  return *this = *this - other;
}
Tensor& Tensor::operator*=(const Operand& other) {
  return *this = *this * other;
}
Tensor& Tensor::operator/=(const Operand& other) {
  return *this = *this / other;
}

}  // namespace tensord
