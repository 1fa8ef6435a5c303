// Elementwise ops: cast, unary, binary and where. Operands are first converted to the dtype
// the op computes in (docs/ops.md: the promoted dtype, or float32 for float-only functions of
// integers), then the function is evaluated in double (or exactly in int64 for integers) and
// the result rounded to the output dtype.
#include <cmath>
#include <numbers>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Op;

namespace {

bool is_float_function(Op op) {
  switch (op) {
    case Op::exp:
    case Op::log:
    case Op::sqrt:
    case Op::rsqrt:
    case Op::sin:
    case Op::cos:
    case Op::tanh:
    case Op::sigmoid:
    case Op::erf:
    case Op::gelu:
    case Op::silu:
      return true;
    default:
      return false;
  }
}

DType unary_out(Op op, DType t) {
  if (op == Op::logical_not) return DType::Bool;
  if (is_float_function(op)) return ir::is_floating(t) ? t : DType::Float32;
  if (t == DType::Bool) reject(ErrorCode::DType, "bool input");
  return t;  // neg abs relu floor ceil round sign clamp
}

double sigmoid(double x) {
  return 1 / (1 + std::exp(-x));
}

double gelu(double x, bool tanh_form) {
  if (tanh_form) {
    double inner = std::sqrt(2 / std::numbers::pi) * (x + 0.044715 * x * x * x);
    return 0.5 * x * (1 + std::tanh(inner));
  }
  return 0.5 * x * (1 + std::erf(x / std::numbers::sqrt2));
}

double nan_max(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
}
double nan_min(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
}

double float_unary(Op op, double x, const ir::Attrs& attrs) {
  switch (op) {
    case Op::neg:
      return -x;
    case Op::abs:
      return std::fabs(x);
    case Op::exp:
      return std::exp(x);
    case Op::log:
      return std::log(x);
    case Op::sqrt:
      return std::sqrt(x);
    case Op::rsqrt:
      return 1 / std::sqrt(x);
    case Op::sin:
      return std::sin(x);
    case Op::cos:
      return std::cos(x);
    case Op::tanh:
      return std::tanh(x);
    case Op::sigmoid:
      return sigmoid(x);
    case Op::relu:
      return std::isnan(x) ? x : x > 0 ? x : 0.0;
    case Op::erf:
      return std::erf(x);
    case Op::floor:
      return std::floor(x);
    case Op::ceil:
      return std::ceil(x);
    case Op::round:
      return std::nearbyint(x);
    case Op::sign:
      return std::isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
    case Op::gelu:
      return gelu(x, attrs.get_bool(ir::Attr::tanh, false));
    case Op::silu:
      return x * sigmoid(x);
    default:
      return NAN;
  }
}

int64_t int_unary(Op op, int64_t x) {
  switch (op) {
    case Op::neg:
      return static_cast<int64_t>(0 - static_cast<uint64_t>(x));
    case Op::abs:
      return x < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(x)) : x;
    case Op::relu:
      return x > 0 ? x : 0;
    case Op::sign:
      return x > 0 ? 1 : x < 0 ? -1 : 0;
    default:
      return x;  // floor ceil round: the identity on integers
  }
}

// clamp's bounds, cast to x's dtype; absent bounds are nullopt.
struct Bounds {
  std::optional<Num> lo, hi;
};
Bounds clamp_bounds(DType t, const ir::Attrs& attrs) {
  Bounds b;
  if (const auto* v = attrs.find(ir::Attr::min)) b.lo = cast_to(t, scalar_attr(*v));
  if (const auto* v = attrs.find(ir::Attr::max)) b.hi = cast_to(t, scalar_attr(*v));
  if (!b.lo && !b.hi) reject(ErrorCode::InvalidGraph, "clamp needs min or max");
  return b;
}

Num clamp(Num x, const Bounds& b) {
  if (x.is_float) {
    double v = x.f;
    if (b.lo) v = nan_max(v, b.lo->f);
    if (b.hi) v = nan_min(v, b.hi->f);
    return Num::of_float(v);
  }
  int64_t v = x.i;
  if (b.lo) v = std::max(v, b.lo->i);
  if (b.hi) v = std::min(v, b.hi->i);
  return Num::of_int(v);
}

}  // namespace

Expected ref_unary(Op op, const RefTensor& x, const ir::Attrs& attrs) {
  if (op == Op::cast) {
    RefTensor out(attrs.get_dtype(ir::Attr::dtype), x.shape);
    for (int64_t k = 0; k < x.numel(); ++k) out.put(k, x.at(k));
    return {std::move(out)};
  }
  DType out_t = unary_out(op, x.dtype);
  Bounds bounds;
  if (op == Op::clamp) bounds = clamp_bounds(x.dtype, attrs);
  Expected e{RefTensor(out_t, x.shape)};
  if (op == Op::gelu) e.scale.resize(static_cast<size_t>(x.numel()));
  for (int64_t k = 0; k < x.numel(); ++k) {
    Num v = x.at(k);
    if (op == Op::logical_not) {
      e.value.put(k, Num::of_int(v.nonzero() ? 0 : 1));
    } else if (op == Op::clamp) {
      e.value.put(k, clamp(v, bounds));
    } else if (ir::is_floating(out_t)) {
      double in = cast_to(out_t, v).f;  // integers compute in float32
      e.value.put(k, Num::of_float(float_unary(op, in, attrs)));
      // gelu = 0.5x(1 + erf(.)) cancels for negative x: the error scales with |x|.
      if (op == Op::gelu) e.scale[k] = std::fabs(in);
    } else {
      e.value.put(k, Num::of_int(int_unary(op, v.i)));
    }
  }
  return e;
}

namespace {

bool is_comparison(Op op) {
  return op == Op::eq || op == Op::ne || op == Op::lt || op == Op::le || op == Op::gt ||
         op == Op::ge;
}

DType binary_out(Op op, DType a, DType b) {
  DType p = ref_promote(a, b);
  switch (op) {
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::pow:
      if (a == DType::Bool && b == DType::Bool) reject(ErrorCode::DType, "two bool inputs");
      return p;
    case Op::div:
      return ir::is_floating(p) ? p : DType::Float32;
    case Op::maximum:
    case Op::minimum:
      return p;
    default:
      return DType::Bool;  // comparisons and logical ops
  }
}

bool compare(Op op, double a, double b) {
  switch (op) {
    case Op::eq:
      return a == b;
    case Op::ne:
      return a != b;
    case Op::lt:
      return a < b;
    case Op::le:
      return a <= b;
    case Op::gt:
      return a > b;
    default:
      return a >= b;
  }
}

bool compare(Op op, int64_t a, int64_t b) {
  switch (op) {
    case Op::eq:
      return a == b;
    case Op::ne:
      return a != b;
    case Op::lt:
      return a < b;
    case Op::le:
      return a <= b;
    case Op::gt:
      return a > b;
    default:
      return a >= b;
  }
}

int64_t int_pow(int64_t base, int64_t exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return exponent % 2 == 0 ? 1 : -1;
    return 0;
  }
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exponent); e; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return static_cast<int64_t>(result);
}

int64_t int_binary(Op op, int64_t a, int64_t b) {
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case Op::add:
      return static_cast<int64_t>(ua + ub);
    case Op::sub:
      return static_cast<int64_t>(ua - ub);
    case Op::mul:
      return static_cast<int64_t>(ua * ub);
    case Op::pow:
      return int_pow(a, b);
    case Op::maximum:
      return std::max(a, b);
    default:
      return std::min(a, b);  // minimum
  }
}

double float_binary(Op op, double a, double b) {
  switch (op) {
    case Op::add:
      return a + b;
    case Op::sub:
      return a - b;
    case Op::mul:
      return a * b;
    case Op::div:
      return a / b;
    case Op::pow:
      return std::pow(a, b);
    case Op::maximum:
      return nan_max(a, b);
    default:
      return nan_min(a, b);  // minimum
  }
}

}  // namespace

Expected ref_binary(Op op, const RefTensor& a, const RefTensor& b) {
  DType out_t = binary_out(op, a.dtype, b.dtype);
  Shape shape = ref_broadcast(a.shape, b.shape);
  // The dtype the operands are converted to before the operation.
  DType compute = is_comparison(op) ? ref_promote(a.dtype, b.dtype) : out_t;
  Expected e{RefTensor(out_t, shape)};
  for (int64_t k = 0; k < e.value.numel(); ++k) {
    std::vector<int64_t> idx = unravel(k, shape);
    Num x = a.at(broadcast_source(idx, a.shape)), y = b.at(broadcast_source(idx, b.shape));
    if (op == Op::logical_and || op == Op::logical_or) {
      bool r = op == Op::logical_and ? x.nonzero() && y.nonzero() : x.nonzero() || y.nonzero();
      e.value.put(k, Num::of_int(r));
      continue;
    }
    Num cx = cast_to(compute, x), cy = cast_to(compute, y);
    if (is_comparison(op)) {
      bool r = cx.is_float ? compare(op, cx.f, cy.f) : compare(op, cx.i, cy.i);
      e.value.put(k, Num::of_int(r));
    } else if (cx.is_float) {
      e.value.put(k, Num::of_float(float_binary(op, cx.f, cy.f)));
    } else {
      e.value.put(k, Num::of_int(int_binary(op, cx.i, cy.i)));
    }
  }
  return e;
}

Expected ref_where(const RefTensor& cond, const RefTensor& a, const RefTensor& b) {
  DType out_t = ref_promote(a.dtype, b.dtype);
  Shape shape = ref_broadcast(ref_broadcast(cond.shape, a.shape), b.shape);
  Expected e{RefTensor(out_t, shape)};
  for (int64_t k = 0; k < e.value.numel(); ++k) {
    std::vector<int64_t> idx = unravel(k, shape);
    bool c = cond.at(broadcast_source(idx, cond.shape)).nonzero();
    const RefTensor& src = c ? a : b;
    e.value.put(k, src.at(broadcast_source(idx, src.shape)));
  }
  return e;
}

}  // namespace tensord::conformance
