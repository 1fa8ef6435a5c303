// Element types of tensors and their promotion rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tensord::ir {

// The order is part of the wire contract (protocol/tensord.capnp sends dtypes by name, but
// canonical hashes and promotion tables index by this value).
enum class DType : uint8_t {
  Bool,
  Int8,
  UInt8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  // Complex (issue 4), appended so that the values above keep their numbers: pairs (real,
  // imaginary) of float32 / float64, stored interleaved like std::complex.
  Complex64,
  Complex128,
};
inline constexpr int kNumDTypes = 12;

size_t itemsize(DType t);
std::string_view name(DType t);
std::optional<DType> dtype_from_name(std::string_view name);

bool is_floating(DType t);
bool is_integral(DType t);  // signed or unsigned integer, not bool
bool is_signed(DType t);
// complex64 and complex128. is_floating() is false for them: real-only ops keep rejecting them.
bool is_complex(DType t);
// The complex dtype of a real dtype's precision (float64 -> complex128, any other ->
// complex64: float16/bfloat16/integers/bool compute in complex64, as PyTorch's CPU does).
DType complex_of(DType t);
// The real dtype of a complex dtype's components (complex64 -> float32); t itself otherwise.
DType real_of(DType t);

// The dtype results take when an integer or boolean input meets a float-only operation
// (exp, sqrt, true division, mean): float32, as in PyTorch.
inline constexpr DType kDefaultFloat = DType::Float32;
inline constexpr DType kDefaultInt = DType::Int64;

// Binary promotion. Within a kind this is the Python Array API table (uint8 + int8 -> int16,
// float16 + bfloat16 -> float32). Across kinds it follows PyTorch: bool < integers < floats,
// and the float operand's dtype wins (int64 + float16 -> float16). Complex beats every real
// kind; complex with float takes the wider precision (Array API: complex64 + float64 ->
// complex128), complex with integers or bool keeps the complex dtype.
DType promote(DType a, DType b);

// The dtype a Python or C++ scalar takes next to a tensor of dtype `tensor` ("weak" scalars of
// the Array API): same kind keeps the tensor's dtype; a float scalar with an integer or bool
// tensor gives the default float; an int scalar with a bool tensor gives the default int.
enum class ScalarKind : uint8_t { Bool, Int, Float };
DType promote_with_scalar(DType tensor, ScalarKind scalar);

}  // namespace tensord::ir
