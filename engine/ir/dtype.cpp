#include "engine/ir/dtype.h"

#include <array>

namespace tensord::ir {
namespace {

struct DTypeInfo {
  std::string_view name;
  size_t size;
  bool floating;
  bool integral;
  bool is_signed;
};

constexpr std::array<DTypeInfo, kNumDTypes> kInfo{{
    {"bool", 1, false, false, false},
    {"int8", 1, false, true, true},
    {"uint8", 1, false, true, false},
    {"int16", 2, false, true, true},
    {"int32", 4, false, true, true},
    {"int64", 8, false, true, true},
    {"float16", 2, true, false, true},
    {"bfloat16", 2, true, false, true},
    {"float32", 4, true, false, true},
    {"float64", 8, true, false, true},
    {"complex64", 8, false, false, true},
    {"complex128", 16, false, false, true},
}};

const DTypeInfo& info(DType t) {
  return kInfo[static_cast<size_t>(t)];
}

DType promote_integers(DType a, DType b) {
  if (is_signed(a) == is_signed(b)) return itemsize(a) >= itemsize(b) ? a : b;
  // One signed, one unsigned (only uint8 exists): the signed type must hold all of uint8.
  DType s = is_signed(a) ? a : b;
  return itemsize(s) > 1 ? s : DType::Int16;
}

DType promote_floats(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Float64 || b == DType::Float64) return DType::Float64;
  return DType::Float32;  // f16+bf16, f16+f32, bf16+f32
}

}  // namespace

size_t itemsize(DType t) {
  return info(t).size;
}
std::string_view name(DType t) {
  return info(t).name;
}
bool is_floating(DType t) {
  return info(t).floating;
}
bool is_integral(DType t) {
  return info(t).integral;
}
bool is_signed(DType t) {
  return info(t).is_signed;
}

bool is_complex(DType t) {
  return t == DType::Complex64 || t == DType::Complex128;
}
DType complex_of(DType t) {
  if (is_complex(t)) return t;
  return t == DType::Float64 ? DType::Complex128 : DType::Complex64;
}
DType real_of(DType t) {
  if (t == DType::Complex64) return DType::Float32;
  if (t == DType::Complex128) return DType::Float64;
  return t;
}

std::optional<DType> dtype_from_name(std::string_view n) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (kInfo[i].name == n) return static_cast<DType>(i);
  }
  return std::nullopt;
}

DType promote(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (is_complex(a) || is_complex(b)) {
    // The wider component precision of the two: float64 and complex128 are the 8-byte ones.
    auto wide = [](DType t) { return t == DType::Float64 || t == DType::Complex128; };
    return wide(a) || wide(b) ? DType::Complex128 : DType::Complex64;
  }
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) return promote_floats(a, b);
  if (fa) return a;
  if (fb) return b;
  return promote_integers(a, b);
}

DType promote_with_scalar(DType tensor, ScalarKind scalar) {
  switch (scalar) {
    case ScalarKind::Bool:
      return tensor;
    case ScalarKind::Int:
      return tensor == DType::Bool ? kDefaultInt : tensor;
    case ScalarKind::Float:
      return is_floating(tensor) || is_complex(tensor) ? tensor : kDefaultFloat;
  }
  return tensor;
}

}  // namespace tensord::ir
