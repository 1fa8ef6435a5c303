// From a runtime dtype to the C++ element type that stores it.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "engine/ir/dtype.h"
#include "engine/ir/error.h"
#include "engine/ir/half.h"
#include "engine/ir/op.h"

namespace tensord::cpu {

using ir::BFloat16;
using ir::DType;
using ir::Float16;

template <typename T>
struct TypeTag {
  using type = T;
};

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;
template <typename T>
inline constexpr bool kIsFloat = kIsHalf<T> || std::is_floating_point_v<T>;
template <typename T>
inline constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The type arithmetic happens in: float for the 16-bit floats, the type itself otherwise.
template <typename T>
using ComputeT = std::conditional_t<kIsHalf<T>, float, T>;

// Unsigned arithmetic of at least int width: wraps without C++ undefined behaviour (uint16 *
// uint16 would promote to int and overflow).
template <typename T>
using WrapT = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

// The dtype stored as T.
template <typename T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, bool>)
    return DType::Bool;
  else if constexpr (std::is_same_v<T, int8_t>)
    return DType::Int8;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return DType::UInt8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return DType::Int16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DType::Int32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return DType::Int64;
  else if constexpr (std::is_same_v<T, Float16>)
    return DType::Float16;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return DType::BFloat16;
  else if constexpr (std::is_same_v<T, float>)
    return DType::Float32;
  else {
    static_assert(std::is_same_v<T, double>, "not a storage type");
    return DType::Float64;
  }
}

// Calls f(TypeTag<T>{}) with the storage type of `dtype`.
template <typename F>
decltype(auto) visit_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::Bool:
      return f(TypeTag<bool>{});
    case DType::Int8:
      return f(TypeTag<int8_t>{});
    case DType::UInt8:
      return f(TypeTag<uint8_t>{});
    case DType::Int16:
      return f(TypeTag<int16_t>{});
    case DType::Int32:
      return f(TypeTag<int32_t>{});
    case DType::Int64:
      return f(TypeTag<int64_t>{});
    case DType::Float16:
      return f(TypeTag<Float16>{});
    case DType::BFloat16:
      return f(TypeTag<BFloat16>{});
    case DType::Float32:
      return f(TypeTag<float>{});
    case DType::Float64:
      return f(TypeTag<double>{});
    case DType::Complex64:  // issue 4: complex kernels dispatch on their own (kernels_complex.cpp)
    case DType::Complex128:
      throw Error(ErrorCode::Unsupported,
                  "no real-typed CPU kernel for " + std::string(ir::name(dtype)));
  }
  throw Error(ErrorCode::Internal, "invalid dtype " + std::to_string(static_cast<int>(dtype)));
}

// The 16-byte element (complex128) for kernels that only move bytes.
struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

// Calls f(TypeTag<T>{}) with an unsigned integer type of the dtype's size: for kernels that
// only move bytes.
template <typename F>
decltype(auto) visit_itemsize(size_t itemsize, F&& f) {
  switch (itemsize) {
    case 1:
      return f(TypeTag<uint8_t>{});
    case 2:
      return f(TypeTag<uint16_t>{});
    case 4:
      return f(TypeTag<uint32_t>{});
    case 8:
      return f(TypeTag<uint64_t>{});
    case 16:  // complex128 (issue 4)
      return f(TypeTag<Bytes16>{});
  }
  throw Error(ErrorCode::Internal, "invalid item size " + std::to_string(itemsize));
}

[[noreturn]] inline void throw_unsupported(ir::Op op, DType dtype) {
  throw Error(ErrorCode::Unsupported, "the CPU backend has no " + std::string(ir::name(op)) +
                                          " kernel for " + std::string(ir::name(dtype)));
}

}  // namespace tensord::cpu
