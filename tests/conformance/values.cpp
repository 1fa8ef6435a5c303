#include "tests/conformance/values.h"

#include <cmath>
#include <limits>

namespace tensord::conformance {

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double Rng::uniform() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

int64_t Rng::range(int64_t lo, int64_t hi) {
  uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
  uint64_t r = span == 0 ? next() : next() % span;
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + r);
}

uint64_t hash_string(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h;
}

std::string_view name(Values v) {
  switch (v) {
    case Values::Mixed:
      return "mixed";
    case Values::Small:
      return "small";
    case Values::Positive:
      return "positive";
    case Values::NearOne:
      return "near-one";
    case Values::Halves:
      return "halves";
    case Values::Special:
      return "special";
    case Values::Edge:
      return "edge";
    case Values::Index:
      return "index";
    case Values::Explicit:
      return "explicit";
  }
  return "?";
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double float_value(DType t, Values v, Rng& rng) {
  switch (v) {
    case Values::Small:
      return rng.uniform() * 6 - 3;
    case Values::Positive:
      return 0.05 + rng.uniform() * 9.95;
    case Values::NearOne:
      return (0.5 + rng.uniform()) * (rng.next() & 1 ? 1 : -1);
    case Values::Halves:
      return static_cast<double>(rng.range(-8, 8)) / 2;
    case Values::Special:
      if (rng.uniform() < 0.5) {
        double big = t == DType::Float16 ? 60000.0 : t == DType::Float64 ? 1e300 : 1e30;
        double tiny = t == DType::Float16   ? 0x1p-20  // subnormal in float16
                      : t == DType::Float64 ? 1e-310
                                            : 1e-40;  // subnormal in float32 and bfloat16
        const double kSpecial[] = {
            kNaN, kInf, -kInf, 0.0,  -0.0, big,           -big,           tiny, -tiny, 0.5,
            -0.5, 1.5,  2.5,   -2.5, 1e-3, max_finite(t), -max_finite(t), 1.0,  -1.0,  100.0};
        return kSpecial[rng.next() % std::size(kSpecial)];
      }
      [[fallthrough]];
    case Values::Edge:
      if (v == Values::Edge && rng.uniform() < 0.3) {
        const double kEdge[] = {kNaN, kInf, -kInf, 0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1e-3, 100.0};
        return kEdge[rng.next() % std::size(kEdge)];
      }
      [[fallthrough]];
    case Values::Mixed:
    default:
      if (rng.uniform() < 0.15) return static_cast<double>(rng.range(-8, 8)) / 2;  // halves
      return rng.uniform() * 8 - 4;
  }
}

int64_t int_value(DType t, Values v, Rng& rng, int64_t bound) {
  if (t == DType::Bool) return static_cast<int64_t>(rng.next() & 1);
  bool u = t == DType::UInt8;
  switch (v) {
    case Values::Small:
      return u ? rng.range(0, 8) : rng.range(-4, 4);
    case Values::Positive:
      return rng.range(1, 20);
    case Values::NearOne:
      return u ? rng.range(1, 3) : rng.range(1, 3) * (rng.next() & 1 ? 1 : -1);
    case Values::Halves:
      return u ? rng.range(0, 4) : rng.range(-4, 4);
    case Values::Index:
      return u ? rng.range(0, bound - 1) : rng.range(-bound, bound - 1);
    case Values::Special:
    case Values::Edge:
      if (rng.uniform() < 0.5) {
        const int64_t kSpecial[] = {
            type_min(t), type_max(t), type_min(t) + 1, type_max(t) - 1, 0, 1, -1, 2};
        return wrap_to(t, kSpecial[rng.next() % std::size(kSpecial)]);
      }
      [[fallthrough]];
    case Values::Mixed:
    default: {
      if (rng.uniform() < 0.1) return wrap_to(t, rng.range(-3, 3));
      int64_t lo = type_min(t), hi = type_max(t);
      if (t == DType::Int16) lo = -3000, hi = 3000;
      if (t == DType::Int32) lo = -100000, hi = 100000;
      if (t == DType::Int64) lo = -1000000000000, hi = 1000000000000;
      return rng.range(lo, hi);
    }
  }
}

}  // namespace

RefTensor generate(DType dtype, const Shape& shape, Values values, Rng& rng, int64_t bound,
                   const std::vector<double>& explicit_values) {
  RefTensor t(dtype, shape);
  for (int64_t k = 0; k < t.numel(); ++k) {
    if (values == Values::Explicit) {
      double v = explicit_values[static_cast<size_t>(k) % explicit_values.size()];
      t.put(k, t.floating() ? Num::of_float(v) : Num::of_int(static_cast<int64_t>(v)));
    } else if (t.floating()) {
      t.f[k] = round_to(dtype, float_value(dtype, values, rng));
    } else {
      t.i[k] = int_value(dtype, values, rng, bound);
    }
  }
  return t;
}

}  // namespace tensord::conformance
