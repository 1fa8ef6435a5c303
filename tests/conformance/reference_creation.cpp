// Creation ops: full, zeros, ones, arange, eye, rand, randn (with the Philox mapping of
// docs/ops.md re-implemented here in float64).
#include <cmath>
#include <numbers>

#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Attr;
using ir::Op;

Philox philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1) {
  constexpr uint64_t kM0 = 0xD2511F53, kM1 = 0xCD9E8D57;
  constexpr uint32_t kW0 = 0x9E3779B9, kW1 = 0xBB67AE85;
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = kM0 * c0, p1 = kM1 * c2;
    uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0, c1 = lo1, c2 = n2, c3 = lo0;
    k0 += kW0, k1 += kW1;
  }
  return {{c0, c1, c2, c3}};
}

namespace {

Philox philox_at(int64_t seed, int64_t i) {
  uint64_t s = static_cast<uint64_t>(seed), n = static_cast<uint64_t>(i);
  return philox4x32_10(static_cast<uint32_t>(n), static_cast<uint32_t>(n >> 32), 0, 0,
                       static_cast<uint32_t>(s), static_cast<uint32_t>(s >> 32));
}

uint64_t join(uint32_t hi, uint32_t lo) {
  return static_cast<uint64_t>(hi) << 32 | lo;
}

// The largest value of a float dtype below 1.
double below_one(DType t) {
  switch (t) {
    case DType::Float16:
      return 1 - std::ldexp(1.0, -11);
    case DType::BFloat16:
      return 1 - std::ldexp(1.0, -8);
    case DType::Float32:
      return 1 - std::ldexp(1.0, -24);
    default:
      return 1 - std::ldexp(1.0, -53);
  }
}

void require_float(DType t) {
  if (!ir::is_floating(t)) reject(ErrorCode::DType, "rand/randn need a float dtype");
}

const Shape& checked_shape(const ir::Attrs& attrs) {
  const Shape& shape = attrs.get_ints(Attr::shape);
  check_value_type(attrs.get_dtype(Attr::dtype), shape);
  return shape;
}

}  // namespace

double rand_value(DType t, int64_t seed, int64_t i) {
  Philox p = philox_at(seed, i);
  if (t == DType::Float64) return static_cast<double>(join(p.r[0], p.r[1]) >> 11) * 0x1.0p-53;
  double u = round_to(t, static_cast<double>(p.r[0] >> 8) * 0x1.0p-24);
  return u == 1.0 ? below_one(t) : u;
}

double randn_value(DType t, int64_t seed, int64_t i) {
  Philox p = philox_at(seed, i);
  double u1 = static_cast<double>((join(p.r[0], p.r[1]) >> 11) + 1) * 0x1.0p-53;
  double u2 = static_cast<double>(join(p.r[2], p.r[3]) >> 11) * 0x1.0p-53;
  double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
  return round_to(t, z);
}

Expected ref_creation(Op op, const ir::Attrs& attrs) {
  DType t = attrs.get_dtype(Attr::dtype);
  switch (op) {
    case Op::full:
    case Op::zeros:
    case Op::ones: {
      Num value = op == Op::full ? scalar_attr(*attrs.find(Attr::value))
                                 : Num::of_int(op == Op::ones ? 1 : 0);
      RefTensor out(t, checked_shape(attrs));
      for (int64_t k = 0; k < out.numel(); ++k) out.put(k, value);
      return {std::move(out)};
    }
    case Op::arange: {
      double start = scalar_attr(*attrs.find(Attr::start)).f;
      double stop = scalar_attr(*attrs.find(Attr::stop)).f;
      double step = scalar_attr(*attrs.find(Attr::step)).f;
      if (step == 0) reject(ErrorCode::Shape, "arange step 0");
      if (!std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step)) {
        reject(ErrorCode::Shape, "arange bounds must be finite");
      }
      int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((stop - start) / step)));
      check_value_type(t, {n});
      RefTensor out(t, {n});
      for (int64_t k = 0; k < n; ++k) out.put(k, Num::of_float(start + k * step));
      return {std::move(out)};
    }
    case Op::eye: {
      int64_t n = attrs.get_int(Attr::n), m = attrs.get_int(Attr::m, n);
      int64_t diag = attrs.get_int(Attr::k, 0);
      check_value_type(t, {n, m});
      RefTensor out(t, {n, m});
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t c = 0; c < m; ++c) out.put(r * m + c, Num::of_int(c - r == diag));
      }
      return {std::move(out)};
    }
    case Op::rand:
    case Op::randn: {
      require_float(t);
      RefTensor out(t, checked_shape(attrs));
      int64_t seed = attrs.get_int(Attr::seed);
      for (int64_t k = 0; k < out.numel(); ++k) {
        out.f[k] = op == Op::rand ? rand_value(t, seed, k) : randn_value(t, seed, k);
      }
      return {std::move(out)};
    }
    default:
      break;
  }
  reject(ErrorCode::Internal, "not a creation op");
}

}  // namespace tensord::conformance
