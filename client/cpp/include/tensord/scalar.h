// A C++ number next to tensors: an attribute value, or a "weak" operand of an elementwise op.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <variant>

#include "engine/ir/dtype.h"
#include "engine/ir/half.h"

namespace tensord {

template <typename T>
concept ScalarValue =
    std::is_arithmetic_v<T> || std::is_same_v<T, ir::Float16> || std::is_same_v<T, ir::BFloat16>;

// A value type. It remembers the dtype of the C++ value it was made from (so that
// `s.full({2}, 0.5f)` is float32 and `s.full({2}, 0.5)` float64), while as an operand of an
// elementwise op only its kind matters: `x + 1.0f` keeps x's dtype if x is a float tensor
// (ir::promote_with_scalar, the Array API's weak scalars).
class Scalar {
 public:
  template <ScalarValue T>
  Scalar(T v) {  // NOLINT(google-explicit-constructor): numbers convert implicitly
    if constexpr (std::is_same_v<T, bool>) {
      value_ = v;
      dtype_ = ir::DType::Bool;
    } else if constexpr (std::is_integral_v<T>) {
      value_ = static_cast<int64_t>(v);
      dtype_ = integer_dtype<T>();
    } else {
      value_ = static_cast<double>(v);
      dtype_ = float_dtype<T>();
    }
  }

  ir::ScalarKind kind() const { return static_cast<ir::ScalarKind>(value_.index()); }
  // The dtype of the C++ value: int is int32, unsigned int is int64, float is float32.
  ir::DType dtype() const { return dtype_; }
  const std::variant<bool, int64_t, double>& value() const { return value_; }

 private:
  // The narrowest dtype holding every value of T; unsigned types need the next signed size.
  template <typename T>
  static constexpr ir::DType integer_dtype() {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) == 1) return ir::DType::UInt8;
    constexpr size_t bytes = std::is_signed_v<T> ? sizeof(T) : 2 * sizeof(T);
    if constexpr (bytes == 1) return ir::DType::Int8;
    if constexpr (bytes == 2) return ir::DType::Int16;
    if constexpr (bytes == 4) return ir::DType::Int32;
    return ir::DType::Int64;
  }
  template <typename T>
  static constexpr ir::DType float_dtype() {
    if constexpr (std::is_same_v<T, ir::Float16>) return ir::DType::Float16;
    if constexpr (std::is_same_v<T, ir::BFloat16>) return ir::DType::BFloat16;
    if constexpr (std::is_same_v<T, float>) return ir::DType::Float32;
    return ir::DType::Float64;
  }

  // The order matches ir::ScalarKind (Bool, Int, Float).
  std::variant<bool, int64_t, double> value_;
  ir::DType dtype_;
};

}  // namespace tensord
