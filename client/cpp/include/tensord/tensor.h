// Tensor: a cheap handle to a value of a tensord program, recorded lazily.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <source_location>
#include <vector>

#include "engine/ir/dtype.h"
#include "engine/ir/error.h"
#include "engine/ir/shape.h"
#include "tensord/axes.h"
#include "tensord/element.h"
#include "tensord/host_buffer.h"
#include "tensord/scalar.h"

namespace tensord {

namespace detail {
struct TensorNode;
struct TensorAccess;
}  // namespace detail

class Operand;

// A Tensor is one of three things, and changes between them only at sync points:
//  - pending: an op recorded on the client (inputs, attributes, the caller's source line) whose
//    dtype and shape were inferred when it was recorded; nothing has been sent;
//  - host data from Session::from_vector, not sent yet;
//  - materialized: a tensor the daemon holds, referred to by a capability.
// Copies share the same value, like shared_ptr. Recording is cheap and local; the daemon sees
// the program at a sync point (to_vector, item, Session::sync), which sends every pending op
// the requested tensors depend on in one `run` call. The last handle to a materialized tensor
// frees it on the daemon.
//
// A Tensor belongs to the Session it was recorded on and, like it, to the thread that opened
// that Session: record, sync and drop it there.
//
// Every function records the caller's source line (the trailing `loc` argument, left to its
// default), so errors point at the line that recorded the failing op.
class Tensor {
 public:
  using Loc = std::source_location;

  Tensor() = default;  // undefined: any use but defined() throws

  bool defined() const { return node_ != nullptr; }
  ir::DType dtype(Loc loc = Loc::current()) const { return type(loc).dtype; }
  const ir::Shape& shape(Loc loc = Loc::current()) const { return type(loc).shape; }
  const ir::TensorType& type(Loc loc = Loc::current()) const;
  int64_t rank(Loc loc = Loc::current()) const { return type(loc).rank(); }
  int64_t numel(Loc loc = Loc::current()) const { return type(loc).numel(); }
  // Whether the daemon holds this tensor (it was synced), as opposed to pending or host data.
  bool materialized(Loc loc = Loc::current()) const;

  // Sync points. The dtype must be T's (use astype to convert); item needs exactly one element.
  template <Element T>
  std::vector<T> to_vector(Loc loc = Loc::current()) const {
    return detail::from_bytes<T>(fetch_bytes(dtype_of<T>(), loc).view());
  }
  template <Element T>
  T item(Loc loc = Loc::current()) const {
    require_one_element(loc);
    return to_vector<T>(loc)[0];
  }

  // Methods mirror the free functions of ops.h; see there for what they do.
  Tensor cast(ir::DType dtype, Loc loc = Loc::current()) const;
  Tensor astype(ir::DType dtype, Loc loc = Loc::current()) const;
  Tensor neg(Loc loc = Loc::current()) const;
  Tensor abs(Loc loc = Loc::current()) const;
  Tensor exp(Loc loc = Loc::current()) const;
  Tensor log(Loc loc = Loc::current()) const;
  Tensor sqrt(Loc loc = Loc::current()) const;
  Tensor rsqrt(Loc loc = Loc::current()) const;
  Tensor sin(Loc loc = Loc::current()) const;
  Tensor cos(Loc loc = Loc::current()) const;
  Tensor tanh(Loc loc = Loc::current()) const;
  Tensor sigmoid(Loc loc = Loc::current()) const;
  Tensor relu(Loc loc = Loc::current()) const;
  Tensor erf(Loc loc = Loc::current()) const;
  Tensor floor(Loc loc = Loc::current()) const;
  Tensor ceil(Loc loc = Loc::current()) const;
  Tensor round(Loc loc = Loc::current()) const;
  Tensor sign(Loc loc = Loc::current()) const;
  Tensor logical_not(Loc loc = Loc::current()) const;
  Tensor gelu(bool tanh_approximation = false, Loc loc = Loc::current()) const;
  Tensor silu(Loc loc = Loc::current()) const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max,
               Loc loc = Loc::current()) const;

  Tensor add(const Operand& other, Loc loc = Loc::current()) const;
  Tensor sub(const Operand& other, Loc loc = Loc::current()) const;
  Tensor mul(const Operand& other, Loc loc = Loc::current()) const;
  Tensor div(const Operand& other, Loc loc = Loc::current()) const;
  Tensor pow(const Operand& exponent, Loc loc = Loc::current()) const;
  Tensor maximum(const Operand& other, Loc loc = Loc::current()) const;
  Tensor minimum(const Operand& other, Loc loc = Loc::current()) const;
  Tensor eq(const Operand& other, Loc loc = Loc::current()) const;
  Tensor ne(const Operand& other, Loc loc = Loc::current()) const;
  Tensor lt(const Operand& other, Loc loc = Loc::current()) const;
  Tensor le(const Operand& other, Loc loc = Loc::current()) const;
  Tensor gt(const Operand& other, Loc loc = Loc::current()) const;
  Tensor ge(const Operand& other, Loc loc = Loc::current()) const;
  Tensor logical_and(const Operand& other, Loc loc = Loc::current()) const;
  Tensor logical_or(const Operand& other, Loc loc = Loc::current()) const;
  // where(cond, *this, other)
  Tensor where(const Tensor& cond, const Operand& other, Loc loc = Loc::current()) const;

  Tensor sum(const Axes& axes = {}, bool keepdim = false, Loc loc = Loc::current()) const;
  Tensor prod(const Axes& axes = {}, bool keepdim = false, Loc loc = Loc::current()) const;
  Tensor max(const Axes& axes = {}, bool keepdim = false, Loc loc = Loc::current()) const;
  Tensor min(const Axes& axes = {}, bool keepdim = false, Loc loc = Loc::current()) const;
  Tensor mean(const Axes& axes = {}, bool keepdim = false, Loc loc = Loc::current()) const;
  Tensor var(const Axes& axes = {}, double correction = 0, bool keepdim = false,
             Loc loc = Loc::current()) const;
  Tensor argmax(std::optional<int64_t> axis = std::nullopt, bool keepdim = false,
                Loc loc = Loc::current()) const;
  Tensor argmin(std::optional<int64_t> axis = std::nullopt, bool keepdim = false,
                Loc loc = Loc::current()) const;

  Tensor reshape(const ir::Shape& shape, Loc loc = Loc::current()) const;
  Tensor permute(const std::vector<int64_t>& dims, Loc loc = Loc::current()) const;
  Tensor transpose(int64_t dim0, int64_t dim1, Loc loc = Loc::current()) const;
  Tensor expand(const ir::Shape& shape, Loc loc = Loc::current()) const;
  Tensor squeeze(const Axes& axes = {}, Loc loc = Loc::current()) const;
  Tensor unsqueeze(const Axes& axes, Loc loc = Loc::current()) const;
  Tensor slice(int64_t axis, std::optional<int64_t> start, std::optional<int64_t> stop,
               int64_t step = 1, Loc loc = Loc::current()) const;
  Tensor flip(const Axes& axes = {}, Loc loc = Loc::current()) const;
  Tensor contiguous(Loc loc = Loc::current()) const;
  Tensor pad(const std::vector<int64_t>& pads, Scalar value = 0, Loc loc = Loc::current()) const;
  Tensor index_select(int64_t axis, const Tensor& index, Loc loc = Loc::current()) const;
  Tensor gather(int64_t axis, const Tensor& index, Loc loc = Loc::current()) const;

  Tensor matmul(const Tensor& other, Loc loc = Loc::current()) const;
  Tensor softmax(int64_t axis, Loc loc = Loc::current()) const;
  Tensor log_softmax(int64_t axis, Loc loc = Loc::current()) const;
  Tensor layer_norm(int64_t normalized_ndim, const Tensor& weight = {}, const Tensor& bias = {},
                    double eps = 1e-5, Loc loc = Loc::current()) const;

  // Rebind this handle to the result (the old value lives on in other handles).
  Tensor& operator+=(const Operand& other);
  Tensor& operator-=(const Operand& other);
  Tensor& operator*=(const Operand& other);
  Tensor& operator/=(const Operand& other);

 private:
  friend struct detail::TensorAccess;
  explicit Tensor(std::shared_ptr<detail::TensorNode> node) : node_(std::move(node)) {}

  detail::FetchedBytes fetch_bytes(ir::DType expected, Loc loc) const;
  void require_one_element(Loc loc) const;

  std::shared_ptr<detail::TensorNode> node_;
};

// An operand of an elementwise op: a tensor or a C++ number (a weak scalar, see Scalar). It
// is made implicitly where an operator or op is called, so its `loc` is the caller's line:
// that is how `a + b` records the line it is written on. It refers to its tensor, so it lives
// only as a function parameter.
class Operand {
 public:
  Operand(const Tensor& t, std::source_location loc = std::source_location::current())  // NOLINT
      : tensor_(&t), scalar_(false), loc_(loc) {}
  template <ScalarValue T>
  Operand(T v, std::source_location loc = std::source_location::current())  // NOLINT
      : scalar_(v), loc_(loc) {}
  Operand(Scalar s, std::source_location loc = std::source_location::current())  // NOLINT
      : scalar_(s), loc_(loc) {}

  const Tensor* tensor() const { return tensor_; }  // null for a scalar
  const Scalar& scalar() const { return scalar_; }
  const std::source_location& loc() const { return loc_; }

 private:
  const Tensor* tensor_ = nullptr;
  Scalar scalar_;
  std::source_location loc_;
};

// A number on the left of an operator (`2.0f * x`), capturing the call site like Operand. It
// cannot be made from a Tensor, so `a * b` on two tensors has exactly one best overload.
class ScalarOperand {
 public:
  template <ScalarValue T>
  ScalarOperand(T v, std::source_location loc = std::source_location::current())  // NOLINT
      : scalar_(v), loc_(loc) {}

  const Scalar& scalar() const { return scalar_; }
  const std::source_location& loc() const { return loc_; }

 private:
  Scalar scalar_;
  std::source_location loc_;
};

}  // namespace tensord
