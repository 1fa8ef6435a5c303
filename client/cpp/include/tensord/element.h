// The C++ types a tensor's elements can have on the host, and how they map to dtypes.
#pragma once

#include <bit>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "engine/ir/dtype.h"
#include "engine/ir/half.h"

namespace tensord {

// bool, the fixed-width integers the IR has, ir::Float16, ir::BFloat16, float, double and
// std::complex<float> / std::complex<double> (complex64 / complex128).
template <typename T>
concept Element = std::is_same_v<T, bool> || std::is_same_v<T, int8_t> ||
    std::is_same_v<T, uint8_t> || std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, int64_t> || std::is_same_v<T, ir::Float16> ||
    std::is_same_v<T, ir::BFloat16> || std::is_same_v<T, float> || std::is_same_v<T, double> ||
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

template <Element T>
constexpr ir::DType dtype_of() {
  using ir::DType;
  if constexpr (std::is_same_v<T, bool>) return DType::Bool;
  if constexpr (std::is_same_v<T, int8_t>) return DType::Int8;
  if constexpr (std::is_same_v<T, uint8_t>) return DType::UInt8;
  if constexpr (std::is_same_v<T, int16_t>) return DType::Int16;
  if constexpr (std::is_same_v<T, int32_t>) return DType::Int32;
  if constexpr (std::is_same_v<T, int64_t>) return DType::Int64;
  if constexpr (std::is_same_v<T, ir::Float16>) return DType::Float16;
  if constexpr (std::is_same_v<T, ir::BFloat16>) return DType::BFloat16;
  if constexpr (std::is_same_v<T, float>) return DType::Float32;
  if constexpr (std::is_same_v<T, double>) return DType::Float64;
  if constexpr (std::is_same_v<T, std::complex<float>>) return DType::Complex64;  // issue 4
  if constexpr (std::is_same_v<T, std::complex<double>>) return DType::Complex128;
}

namespace detail {

// Tensors travel as row-major little-endian bytes, which is the host layout of every element
// type above on the machines we build for; a big-endian port would byte-swap here.
static_assert(std::endian::native == std::endian::little);

// std::vector<bool> packs bits, so bool goes element by element; the rest is one memcpy.
template <Element T>
std::vector<std::byte> to_bytes(const std::vector<T>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(T));
  if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < values.size(); ++i)
      bytes[i] = std::byte{values[i] ? uint8_t{1} : uint8_t{0}};
  } else if (!values.empty()) {
    std::memcpy(bytes.data(), values.data(), bytes.size());
  }
  return bytes;
}

template <Element T>
std::vector<T> from_bytes(std::span<const std::byte> bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < values.size(); ++i) values[i] = bytes[i] != std::byte{0};
  } else if (!values.empty()) {
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  }
  return values;
}

}  // namespace detail
}  // namespace tensord
