// The elementwise math ops of issue 4 (exp2 ... signbit). As in reference_elementwise.cpp:
// operands are converted to the dtype the op computes in (float32 for float functions of
// integers and bool), the function is evaluated in double (integers exactly, in int64) and the
// result is rounded to the output dtype.
#include <cmath>
#include <numeric>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Op;

namespace {

bool is_predicate(Op op) {
  return op == Op::isnan || op == Op::isinf || op == Op::isfinite || op == Op::signbit;
}

bool predicate(Op op, Num x) {
  if (!x.is_float) return op == Op::isfinite || (op == Op::signbit && x.i < 0);
  switch (op) {
    case Op::isnan:
      return std::isnan(x.f);
    case Op::isinf:
      return std::isinf(x.f);
    case Op::isfinite:
      return std::isfinite(x.f);
    default:
      return std::signbit(x.f);
  }
}

double float_math(Op op, double x) {
  switch (op) {
    case Op::exp2:
      return std::exp2(x);
    case Op::expm1:
      return std::expm1(x);
    case Op::log2:
      return std::log2(x);
    case Op::log10:
      return std::log10(x);
    case Op::log1p:
      return std::log1p(x);
    case Op::tan:
      return std::tan(x);
    case Op::asin:
      return std::asin(x);
    case Op::acos:
      return std::acos(x);
    case Op::atan:
      return std::atan(x);
    case Op::sinh:
      return std::sinh(x);
    case Op::cosh:
      return std::cosh(x);
    case Op::asinh:
      return std::asinh(x);
    case Op::acosh:
      return std::acosh(x);
    case Op::atanh:
      return std::atanh(x);
    case Op::erfc:
      return std::erfc(x);
    case Op::reciprocal:
      return 1 / x;
    case Op::square:
      return x * x;
    case Op::trunc:
      return std::trunc(x);
    case Op::frac:
      return x - std::trunc(x);
    default:
      return NAN;
  }
}

}  // namespace

Expected ref_unary_math(Op op, const RefTensor& x) {
  DType out_t;
  if (is_predicate(op)) {
    out_t = DType::Bool;
  } else if (op == Op::bitwise_not) {
    if (ir::is_floating(x.dtype)) reject(ErrorCode::DType, "float input");
    out_t = x.dtype;
  } else if (op == Op::frac) {
    if (!ir::is_floating(x.dtype)) reject(ErrorCode::DType, "not a float");
    out_t = x.dtype;
  } else if (op == Op::square || op == Op::trunc) {
    if (x.dtype == DType::Bool) reject(ErrorCode::DType, "bool input");
    out_t = x.dtype;
  } else {
    out_t = ir::is_floating(x.dtype) ? x.dtype : DType::Float32;
  }
  Expected e{RefTensor(out_t, x.shape)};
  for (int64_t k = 0; k < x.numel(); ++k) {
    Num v = x.at(k);
    if (is_predicate(op)) {
      e.value.put(k, Num::of_int(predicate(op, v)));
    } else if (ir::is_floating(out_t)) {
      e.value.put(k, Num::of_float(float_math(op, cast_to(out_t, v).f)));
    } else if (op == Op::bitwise_not) {
      e.value.put(k, Num::of_int(out_t == DType::Bool ? !v.i : ~v.i));  // put wraps
    } else if (op == Op::square) {
      auto u = static_cast<uint64_t>(v.i);
      e.value.put(k, Num::of_int(static_cast<int64_t>(u * u)));  // put wraps to the dtype
    } else {
      e.value.put(k, v);  // trunc of an integer
    }
  }
  return e;
}

namespace {

int64_t bits(DType t) {
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

DType binary_math_out(Op op, DType a, DType b) {
  DType p = ref_promote(a, b);
  switch (op) {
    case Op::atan2:
    case Op::hypot:
    case Op::logaddexp:
    case Op::logaddexp2:
    case Op::copysign:
      return ir::is_floating(p) ? p : DType::Float32;
    case Op::fmod:
    case Op::remainder:
    case Op::floor_divide:
      if (p == DType::Bool) reject(ErrorCode::DType, "two bool inputs");
      return p;
    case Op::bitwise_and:
    case Op::bitwise_or:
    case Op::bitwise_xor:
      if (ir::is_floating(p)) reject(ErrorCode::DType, "float input");
      return p;
    default:  // shifts, gcd, lcm
      if (ir::is_floating(p) || p == DType::Bool) reject(ErrorCode::DType, "not integers");
      return p;
  }
}

double logaddexp(double a, double b, bool base2) {
  if (std::isinf(a) && a == b) return a;
  if (std::isnan(a) || std::isnan(b)) return NAN;
  double m = std::max(a, b), d = std::fabs(a - b);
  return base2 ? m + std::log2(1 + std::exp2(-d)) : m + std::log1p(std::exp(-d));
}

// Python's a // b on doubles, as PyTorch computes it (docs/ops.md).
double floor_divide(double a, double b) {
  if (b == 0) return a / b;
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
  if (div == 0) return std::copysign(0.0, a / b);
  double fl = std::floor(div);
  if (div - fl > 0.5) fl += 1;
  return fl;
}

double float_binary_math(Op op, double a, double b) {
  switch (op) {
    case Op::atan2:
      return std::atan2(a, b);
    case Op::hypot:
      return std::hypot(a, b);
    case Op::logaddexp:
      return logaddexp(a, b, false);
    case Op::logaddexp2:
      return logaddexp(a, b, true);
    case Op::copysign:
      return std::copysign(a, b);
    case Op::fmod:
      return std::fmod(a, b);
    case Op::remainder: {
      double r = std::fmod(a, b);
      return r != 0 && (r < 0) != (b < 0) ? r + b : r;
    }
    default:
      return floor_divide(a, b);
  }
}

// |a| exactly (|INT64_MIN| too).
uint64_t magnitude(int64_t a) {
  return a < 0 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
}

// Integers of dtype t held exactly in int64 (the results wrap when stored).
int64_t int_binary_math(Op op, DType t, int64_t a, int64_t b) {
  auto ua = static_cast<uint64_t>(a);
  switch (op) {
    case Op::gcd:
      return static_cast<int64_t>(std::gcd(magnitude(a), magnitude(b)));
    case Op::lcm: {
      const uint64_t x = magnitude(a), y = magnitude(b), g = std::gcd(x, y);
      return g == 0 ? 0 : static_cast<int64_t>(x / g * y);  // modulo 2^64, as stored: it wraps
    }
    case Op::fmod:
      return b == 0 || b == -1 ? 0 : a % b;
    case Op::remainder: {
      int64_t r = b == 0 || b == -1 ? 0 : a % b;
      return r != 0 && (r < 0) != (b < 0) ? r + b : r;
    }
    case Op::floor_divide: {
      if (b == 0) return 0;
      if (b == -1) return static_cast<int64_t>(0 - ua);
      int64_t q = a / b;
      return a % b != 0 && (a < 0) != (b < 0) ? q - 1 : q;
    }
    case Op::bitwise_and:
      return a & b;
    case Op::bitwise_or:
      return a | b;
    case Op::bitwise_xor:
      return a ^ b;
    case Op::bitwise_left_shift:
      return b < 0 || b >= bits(t) ? 0 : static_cast<int64_t>(ua << b);
    default:  // right shift: arithmetic; values are in t's range, so int64's shift agrees
      return b < 0 || b >= bits(t) ? (a < 0 ? -1 : 0) : a >> b;
  }
}

}  // namespace

Expected ref_nan_to_num(const RefTensor& x, const ir::Attrs& attrs) {
  Expected e{RefTensor(x.dtype, x.shape)};
  double largest = 0;
  switch (x.dtype) {
    case DType::Float16:
      largest = 65504.0;
      break;
    case DType::BFloat16:
      largest = 0x1.fep127;
      break;
    case DType::Float32:
      largest = 0x1.fffffep127;
      break;
    default:
      largest = 0x1.fffffffffffffp1023;
  }
  auto replacement = [&](ir::Attr a, double fallback) {
    const ir::AttrValue* v = attrs.find(a);
    return v ? cast_to(x.dtype, scalar_attr(*v)) : Num::of_float(fallback);
  };
  const Num nan = replacement(ir::Attr::value, 0.0);
  const Num pos = replacement(ir::Attr::max, largest);
  const Num neg = replacement(ir::Attr::min, -largest);
  for (int64_t k = 0; k < x.numel(); ++k) {
    Num v = x.at(k);
    if (v.is_float && std::isnan(v.f))
      v = nan;
    else if (v.is_float && std::isinf(v.f))
      v = v.f > 0 ? pos : neg;
    e.value.put(k, v);
  }
  return e;
}

Expected ref_binary_math(Op op, const RefTensor& a, const RefTensor& b) {
  DType out_t = binary_math_out(op, a.dtype, b.dtype);
  Shape shape = ref_broadcast(a.shape, b.shape);
  Expected e{RefTensor(out_t, shape)};
  for (int64_t k = 0; k < e.value.numel(); ++k) {
    std::vector<int64_t> idx = unravel(k, shape);
    Num x = cast_to(out_t, a.at(broadcast_source(idx, a.shape)));
    Num y = cast_to(out_t, b.at(broadcast_source(idx, b.shape)));
    if (x.is_float) {
      e.value.put(k, Num::of_float(float_binary_math(op, x.f, y.f)));
    } else {
      e.value.put(k, Num::of_int(int_binary_math(op, out_t, x.i, y.i)));
    }
  }
  return e;
}

}  // namespace tensord::conformance
