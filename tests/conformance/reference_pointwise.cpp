// nextafter, lerp, addcmul and addcdiv (docs/ops.md), in float64 (integers exactly, in int64).
// nextafter on float16/bfloat16 steps on that format's grid, computed here from its precision
// and exponent range rather than from bit patterns.
#include <cmath>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Op;

namespace {

// The neighbour of a toward b in a binary format with `digits` significand bits whose
// smallest normal exponent is `emin` (float16: 11, -14; bfloat16: 8, -126).
double next_in_format(DType t, double a, double b, int digits, int emin) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == b) return b;
  const double tiny = std::ldexp(1.0, emin - (digits - 1));
  if (a == 0) return std::copysign(tiny, b);
  if (std::isinf(a)) return std::copysign(max_finite(t), a);
  const int e = std::max(std::ilogb(a), emin);
  double ulp = std::ldexp(1.0, e - (digits - 1));
  const bool away = (b > a) == (a > 0);
  // Toward zero from a power of two the spacing below is half as wide.
  if (!away && std::fabs(a) == std::ldexp(1.0, std::ilogb(a)) && std::ilogb(a) > emin) ulp /= 2;
  return away ? a + std::copysign(ulp, a) : a - std::copysign(ulp, a);  // overflow rounds to inf
}

double nextafter(DType t, double a, double b) {
  switch (t) {
    case DType::Float16:
      return next_in_format(t, a, b, 11, -14);
    case DType::BFloat16:
      return next_in_format(t, a, b, 8, -126);
    case DType::Float32:
      return std::nextafter(static_cast<float>(a), static_cast<float>(b));
    default:
      return std::nextafter(a, b);
  }
}

// PyTorch's lerp formula, which docs/ops.md adopts: from a when |w| < 0.5, else from b.
double lerp(double a, double b, double w) {
  const double d = b - a;
  return std::fabs(w) < 0.5 ? a + w * d : b - d * (1 - w);
}

}  // namespace

Expected ref_nextafter(const RefTensor& a, const RefTensor& b) {
  const DType t = ref_promote(a.dtype, b.dtype);
  if (!ir::is_floating(t)) reject(ErrorCode::DType, "nextafter of integers");
  const Shape shape = ref_broadcast(a.shape, b.shape);
  Expected e{RefTensor(t, shape)};
  for (int64_t k = 0; k < e.value.numel(); ++k) {
    std::vector<int64_t> idx = unravel(k, shape);
    const double x = cast_to(t, a.at(broadcast_source(idx, a.shape))).f;
    const double y = cast_to(t, b.at(broadcast_source(idx, b.shape))).f;
    e.value.put(k, Num::of_float(nextafter(t, x, y)));
  }
  return e;
}

Expected ref_pointwise3(Op op, std::span<const RefTensor> in, const ir::Attrs& attrs) {
  const DType t = ref_promote(ref_promote(in[0].dtype, in[1].dtype), in[2].dtype);
  if (op == Op::addcmul ? t == DType::Bool : !ir::is_floating(t)) {
    reject(ErrorCode::DType, "dtype not allowed");
  }
  const Shape shape = ref_broadcast(ref_broadcast(in[0].shape, in[1].shape), in[2].shape);
  Num value = Num::of_int(1);
  if (const ir::AttrValue* v = attrs.find(ir::Attr::value)) value = scalar_attr(*v);
  value = cast_to(t, value);
  Expected e{RefTensor(t, shape)};
  e.scale.assign(static_cast<size_t>(e.value.numel()), 0.0);
  e.terms = 2;
  for (int64_t k = 0; k < e.value.numel(); ++k) {
    std::vector<int64_t> idx = unravel(k, shape);
    Num x[3];
    for (int i = 0; i < 3; ++i) x[i] = cast_to(t, in[i].at(broadcast_source(idx, in[i].shape)));
    if (!x[0].is_float) {  // addcmul of integers wraps
      auto p = static_cast<uint64_t>(value.i) * static_cast<uint64_t>(x[1].i) *
               static_cast<uint64_t>(x[2].i);
      e.value.put(k, Num::of_int(static_cast<int64_t>(static_cast<uint64_t>(x[0].i) + p)));
      continue;
    }
    double r, scale;
    if (op == Op::lerp) {
      r = lerp(x[0].f, x[1].f, x[2].f);
      scale = std::fmax(std::fabs(x[0].f), std::fabs(x[1].f));
    } else {
      double term = op == Op::addcmul ? x[1].f * x[2].f : x[1].f / x[2].f;
      if (attrs.has(ir::Attr::value)) term *= value.f;
      r = x[0].f + term;
      scale = std::fmax(std::fabs(x[0].f), std::fabs(term));
    }
    e.value.put(k, Num::of_float(r));
    e.scale[k] = std::isfinite(scale) ? scale : 0.0;
  }
  return e;
}

}  // namespace tensord::conformance
