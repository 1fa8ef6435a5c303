#include "tests/conformance/ref_tensor.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <variant>

namespace tensord::conformance {

RefTensor::RefTensor(DType t, Shape s) : dtype(t), shape(std::move(s)) {
  if (floating()) {
    f.assign(static_cast<size_t>(numel()), 0.0);
  } else {
    i.assign(static_cast<size_t>(numel()), 0);
  }
}

int64_t RefTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

void RefTensor::put(int64_t k, Num v) {
  Num c = cast_to(dtype, v);
  if (floating()) {
    f[k] = c.f;
  } else {
    i[k] = c.i;
  }
}

void reject(ErrorCode code, std::string why, bool at_run) {
  throw RefError{code, at_run, why};
}

namespace {

int rank_of_kind(DType t) {
  return t == DType::Bool ? 0 : ir::is_floating(t) ? 2 : 1;
}

int bits_of(DType t) {
  switch (t) {
    case DType::Int8:
    case DType::UInt8:
      return 8;
    case DType::Int16:
      return 16;
    case DType::Int32:
      return 32;
    default:
      return 64;
  }
}

// Rounds |v| to a binary format with `mant` explicit mantissa bits and minimum normal exponent
// `emin`, ties to even; overflow past `max` gives inf. Exact in double for float16/bfloat16.
double round_format(double v, int mant, int emin, double max) {
  if (!std::isfinite(v) || v == 0) return v;
  double a = std::fabs(v);
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e with m in [0.5, 1)
  int exp = std::max(e - 1, emin);
  double ulp = std::ldexp(1.0, exp - mant);
  double r = std::nearbyint(a / ulp) * ulp;
  if (r > max) r = std::numeric_limits<double>::infinity();
  return std::copysign(r, v);
}

}  // namespace

DType ref_promote(DType a, DType b) {
  if (a == b) return a;
  int ka = rank_of_kind(a), kb = rank_of_kind(b);
  if (ka != kb) return ka > kb ? a : b;  // bool < integers < floats; the higher kind wins
  if (ka == 2) {                         // float16 + bfloat16 -> float32
    if (a == DType::Float64 || b == DType::Float64) return DType::Float64;
    return DType::Float32;
  }
  // Integers (Array API): uint8 with a signed type needs a signed type wider than 8 bits.
  bool ua = a == DType::UInt8, ub = b == DType::UInt8;
  if (ua || ub) {
    DType s = ua ? b : a;
    return s == DType::Int8 ? DType::Int16 : s;
  }
  return bits_of(a) >= bits_of(b) ? a : b;
}

int64_t type_min(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::UInt8:
      return 0;
    case DType::Int8:
      return -128;
    case DType::Int16:
      return -32768;
    case DType::Int32:
      return std::numeric_limits<int32_t>::min();
    default:
      return std::numeric_limits<int64_t>::min();
  }
}

int64_t type_max(DType t) {
  switch (t) {
    case DType::Bool:
      return 1;
    case DType::UInt8:
      return 255;
    case DType::Int8:
      return 127;
    case DType::Int16:
      return 32767;
    case DType::Int32:
      return std::numeric_limits<int32_t>::max();
    default:
      return std::numeric_limits<int64_t>::max();
  }
}

int64_t wrap_to(DType t, int64_t v) {
  uint64_t u = static_cast<uint64_t>(v);
  switch (t) {
    case DType::Bool:
      return v != 0;
    case DType::UInt8:
      return static_cast<int64_t>(u & 0xffu);
    case DType::Int8:
      return static_cast<int8_t>(static_cast<uint8_t>(u));
    case DType::Int16:
      return static_cast<int16_t>(static_cast<uint16_t>(u));
    case DType::Int32:
      return static_cast<int32_t>(static_cast<uint32_t>(u));
    default:
      return v;
  }
}

double max_finite(DType t) {
  switch (t) {
    case DType::Float16:
      return 65504.0;
    case DType::BFloat16:
      return 3.3895313892515355e38;
    case DType::Float32:
      return std::numeric_limits<float>::max();
    default:
      return std::numeric_limits<double>::max();
  }
}

double round_to(DType t, double v) {
  switch (t) {
    case DType::Float16:
      return round_format(v, 10, -14, max_finite(t));
    case DType::BFloat16:
      return round_format(v, 7, -126, max_finite(t));
    case DType::Float32:
      return static_cast<double>(static_cast<float>(v));
    default:
      return v;
  }
}

Num cast_to(DType t, Num v) {
  if (t == DType::Bool) return Num::of_int(v.nonzero() ? 1 : 0);
  if (ir::is_floating(t)) {
    if (v.is_float) return Num::of_float(round_to(t, v.f));
    // int64 -> float32 straight from the integer (one rounding); float16/bfloat16 go through
    // double, which is exact for every integer this table generates below 2^53.
    if (t == DType::Float32) return Num::of_float(static_cast<float>(v.i));
    return Num::of_float(round_to(t, static_cast<double>(v.i)));
  }
  if (!v.is_float) return Num::of_int(wrap_to(t, v.i));
  // float -> integer: truncate toward zero, saturate, NaN -> 0.
  if (std::isnan(v.f)) return Num::of_int(0);
  double x = std::trunc(v.f);
  if (x <= static_cast<double>(type_min(t))) return Num::of_int(type_min(t));
  if (x >= std::ldexp(1.0, 63)) return Num::of_int(type_max(t));
  if (x >= static_cast<double>(type_max(t))) return Num::of_int(type_max(t));
  return Num::of_int(static_cast<int64_t>(x));
}

Num scalar_attr(const ir::AttrValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return Num::of_int(*i);
  if (const auto* b = std::get_if<bool>(&v)) return Num::of_int(*b ? 1 : 0);
  return Num::of_float(std::get<double>(v));
}

namespace {

uint16_t half_bits(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  double a = std::fabs(v);
  if (std::isnan(v)) return 0x7e00;
  if (std::isinf(v)) return sign | 0x7c00;
  if (a < std::ldexp(1.0, -14)) return sign | static_cast<uint16_t>(a * std::ldexp(1.0, 24));
  int e = 0;
  double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  uint16_t exp = static_cast<uint16_t>(e - 1 + 15);
  uint16_t mant = static_cast<uint16_t>((m * 2 - 1) * 1024);
  return sign | static_cast<uint16_t>(exp << 10) | mant;
}

double half_value(uint16_t h) {
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  int exp = (h >> 10) & 0x1f;
  int mant = h & 0x3ff;
  if (exp == 0x1f) return mant ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  if (exp == 0) return sign * std::ldexp(mant, -24);
  return sign * std::ldexp(1024 + mant, exp - 25);
}

template <typename T>
void put_bytes(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof v);
}
template <typename T>
T get_bytes(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// RefTensor holds real values only; complex rows have their own table (cases_complex.cpp).
std::string complex_refused(DType t) {
  return "the main conformance table's RefTensor cannot hold " + std::string(ir::name(t)) +
         " values (complex rows belong in cases_complex.cpp)";
}

}  // namespace

std::vector<std::byte> encode(const RefTensor& t) {
  size_t size = ir::itemsize(t.dtype);
  std::vector<std::byte> out(static_cast<size_t>(t.numel()) * size);
  for (int64_t k = 0; k < t.numel(); ++k) {
    std::byte* p = out.data() + k * size;
    switch (t.dtype) {
      case DType::Bool:
        put_bytes<uint8_t>(p, t.i[k] != 0);
        break;
      case DType::Int8:
        put_bytes<int8_t>(p, static_cast<int8_t>(t.i[k]));
        break;
      case DType::UInt8:
        put_bytes<uint8_t>(p, static_cast<uint8_t>(t.i[k]));
        break;
      case DType::Int16:
        put_bytes<int16_t>(p, static_cast<int16_t>(t.i[k]));
        break;
      case DType::Int32:
        put_bytes<int32_t>(p, static_cast<int32_t>(t.i[k]));
        break;
      case DType::Int64:
        put_bytes<int64_t>(p, t.i[k]);
        break;
      case DType::Float16:
        put_bytes<uint16_t>(p, half_bits(t.f[k]));
        break;
      case DType::BFloat16: {
        uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(t.f[k]));
        put_bytes<uint16_t>(p, static_cast<uint16_t>(bits >> 16));
        break;
      }
      case DType::Float32:
        put_bytes<float>(p, static_cast<float>(t.f[k]));
        break;
      case DType::Float64:
        put_bytes<double>(p, t.f[k]);
        break;
      case DType::Complex64:
      case DType::Complex128:
        throw std::invalid_argument(complex_refused(t.dtype));
    }
  }
  return out;
}

RefTensor decode(DType dt, const Shape& shape, std::span<const std::byte> bytes) {
  RefTensor t(dt, shape);
  size_t size = ir::itemsize(dt);
  for (int64_t k = 0; k < t.numel(); ++k) {
    const std::byte* p = bytes.data() + k * size;
    switch (dt) {
      // Bools keep their raw byte so that a stored 2 or 255 shows up as a mismatch.
      case DType::Bool:
        t.i[k] = get_bytes<uint8_t>(p);
        break;
      case DType::Int8:
        t.i[k] = get_bytes<int8_t>(p);
        break;
      case DType::UInt8:
        t.i[k] = get_bytes<uint8_t>(p);
        break;
      case DType::Int16:
        t.i[k] = get_bytes<int16_t>(p);
        break;
      case DType::Int32:
        t.i[k] = get_bytes<int32_t>(p);
        break;
      case DType::Int64:
        t.i[k] = get_bytes<int64_t>(p);
        break;
      case DType::Float16:
        t.f[k] = half_value(get_bytes<uint16_t>(p));
        break;
      case DType::BFloat16:
        t.f[k] = std::bit_cast<float>(static_cast<uint32_t>(get_bytes<uint16_t>(p)) << 16);
        break;
      case DType::Float32:
        t.f[k] = get_bytes<float>(p);
        break;
      case DType::Float64:
        t.f[k] = get_bytes<double>(p);
        break;
      case DType::Complex64:
      case DType::Complex128:
        throw std::invalid_argument(complex_refused(dt));
    }
  }
  return t;
}

std::vector<int64_t> unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

int64_t ravel(std::span<const int64_t> index, const Shape& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[d];
  return flat;
}

std::string index_str(std::span<const int64_t> index) {
  std::string s = "[";
  for (size_t d = 0; d < index.size(); ++d) {
    if (d) s += ", ";
    s += std::to_string(index[d]);
  }
  return s + "]";
}

std::string shape_str(const Shape& shape) {
  std::string s = "(";
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d) s += ", ";
    s += std::to_string(shape[d]);
  }
  return s + ")";
}

}  // namespace tensord::conformance
