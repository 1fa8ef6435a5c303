// Table rows for the creation ops: full, zeros, ones, arange, eye, rand, randn.
#include <cmath>
#include <limits>

#include "tests/conformance/case.h"
#include "tests/conformance/reference.h"

namespace tensord::conformance {

using ir::Attr;
using ir::AttrValue;
using ir::Op;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Case creation(Op op, ir::Attrs attrs, Accuracy acc = Accuracy::Exact) {
  Case c;
  c.op = op;
  c.attrs = std::move(attrs);
  c.accuracy = acc;
  return c;
}

void add_full(std::vector<Case>& out) {
  // Value kinds: ints (wrapping into narrow types), floats (truncation, saturation, NaN,
  // overflow to inf in float16), bools.
  const AttrValue kValues[] = {int64_t{3}, int64_t{-1}, 2.5,   -2.7,         1e10,    -1e10, kNaN,
                               kInf,       true,        false, int64_t{300}, 70000.0, -0.0};
  const Shape kShapes[] = {{}, {0}, {2, 0, 3}, {70001}};
  for (DType t : kAllDTypes) {
    for (const AttrValue& v : kValues) {
      out.push_back(
          creation(Op::full, {{Attr::shape, Shape{3, 4}}, {Attr::value, v}, {Attr::dtype, t}}));
    }
    for (const Shape& s : kShapes) {
      out.push_back(creation(Op::full, {{Attr::shape, s}, {Attr::value, 1.5}, {Attr::dtype, t}}));
    }
    for (Op op : {Op::zeros, Op::ones}) {
      for (const Shape& s : {Shape{}, Shape{0}, Shape{5, 3}, Shape{70001}}) {
        out.push_back(creation(op, {{Attr::shape, s}, {Attr::dtype, t}}));
      }
    }
  }
  Case bad = creation(
      Op::full, {{Attr::shape, Shape{2, -1}}, {Attr::value, 1.0}, {Attr::dtype, DType::Float32}});
  bad.error = ErrorCode::Shape;
  out.push_back(bad);
  bad = creation(Op::zeros, {{Attr::shape, Shape{-3}}, {Attr::dtype, DType::Int32}});
  bad.error = ErrorCode::Shape;
  out.push_back(bad);
  bad = creation(Op::zeros,
                 {{Attr::shape, Shape{int64_t{1} << 62, 4}}, {Attr::dtype, DType::Float32}});
  bad.error = ErrorCode::OutOfMemory;  // 2^66 bytes: the size itself overflows int64
  out.push_back(bad);
  bad = creation(Op::zeros,
                 {{Attr::shape, Shape{0, int64_t{1} << 62, 1 << 20}}, {Attr::dtype, DType::Int8}});
  bad.error = ErrorCode::OutOfMemory;  // empty, but strides over the non-zero dims overflow
  out.push_back(bad);
  bad = creation(Op::ones, {{Attr::shape, Shape(17, 1)}, {Attr::dtype, DType::Float32}});
  bad.error = ErrorCode::InvalidGraph;  // rank 17
  out.push_back(bad);
  bad = creation(Op::full, {{Attr::shape, Shape{2}}, {Attr::dtype, DType::Float32}});
  bad.error = ErrorCode::InvalidGraph;
  bad.note = "value missing";
  out.push_back(bad);
}

void add_arange(std::vector<Case>& out) {
  struct Range {
    AttrValue start, stop, step;
  };
  const Range kRanges[] = {
      {int64_t{0}, int64_t{10}, int64_t{1}},
      {int64_t{0}, int64_t{10}, int64_t{3}},
      {int64_t{10}, int64_t{0}, -2.5},
      {0.5, 3.2, 0.3},  // n = ceil(9.000000000000002)
      {int64_t{5}, int64_t{5}, int64_t{1}},
      {int64_t{5}, int64_t{0}, int64_t{1}},
      {-3.0, 3.0, 0.5},
      {int64_t{0}, int64_t{70000}, int64_t{1}},
      {false, true, int64_t{1}},
  };
  for (DType t : kAllDTypes) {
    for (const Range& r : kRanges) {
      out.push_back(creation(
          Op::arange,
          {{Attr::start, r.start}, {Attr::stop, r.stop}, {Attr::step, r.step}, {Attr::dtype, t}}));
    }
  }
  Case bad = creation(Op::arange, {{Attr::start, int64_t{0}},
                                   {Attr::stop, int64_t{4}},
                                   {Attr::step, int64_t{0}},
                                   {Attr::dtype, DType::Int64}});
  bad.error = ErrorCode::Shape;
  out.push_back(bad);
  bad.attrs.set(Attr::step, 0.0);
  bad.attrs.set(Attr::dtype, DType::Float32);
  out.push_back(bad);
  bad.attrs.set(Attr::step, 1.0);
  bad.attrs.set(Attr::stop, kInf);
  out.push_back(bad);
  bad.attrs.set(Attr::stop, 4.0);
  bad.attrs.set(Attr::start, kNaN);
  out.push_back(bad);
}

void add_eye(std::vector<Case>& out) {
  const ir::Attrs kVariants[] = {
      {{Attr::n, int64_t{3}}},
      {{Attr::n, int64_t{3}}, {Attr::m, int64_t{5}}},
      {{Attr::n, int64_t{4}}, {Attr::m, int64_t{4}}, {Attr::k, int64_t{1}}},
      {{Attr::n, int64_t{4}}, {Attr::m, int64_t{5}}, {Attr::k, int64_t{-2}}},
      {{Attr::n, int64_t{0}}},
      {{Attr::n, int64_t{3}}, {Attr::m, int64_t{0}}},
      {{Attr::n, int64_t{4}}, {Attr::k, int64_t{10}}},
      {{Attr::n, int64_t{300}}, {Attr::m, int64_t{250}}, {Attr::k, int64_t{-7}}},
  };
  for (DType t : kAllDTypes) {
    for (ir::Attrs a : kVariants) {
      a.set(Attr::dtype, t);
      out.push_back(creation(Op::eye, a));
    }
  }
  for (auto [n, m] : {std::pair<int64_t, int64_t>{-1, 3}, {3, -2}}) {
    Case bad = creation(Op::eye, {{Attr::n, n}, {Attr::m, m}, {Attr::dtype, DType::Float32}});
    bad.error = ErrorCode::Shape;
    out.push_back(bad);
  }
}

// Moments of a large sample, each within 6 standard errors.
Property moments(Op op, DType t, int64_t seed) {
  return [op, t, seed](const RefTensor& got) -> std::string {
    const double n = static_cast<double>(got.numel());
    double sum = 0, sq = 0, lo = INFINITY, hi = -INFINITY;
    int64_t same_as_next_seed = 0;
    for (int64_t k = 0; k < got.numel(); ++k) {
      double v = got.f[k];
      sum += v, sq += v * v, lo = std::min(lo, v), hi = std::max(hi, v);
      double other = op == Op::rand ? rand_value(t, seed + 1, k) : randn_value(t, seed + 1, k);
      same_as_next_seed += v == other;
    }
    double mean = sum / n, var = sq / n - mean * mean;
    const bool uniform = op == Op::rand;
    const double want_mean = uniform ? 0.5 : 0.0, want_var = uniform ? 1.0 / 12 : 1.0;
    const double se_mean = std::sqrt(want_var / n);
    const double se_var = uniform ? std::sqrt((1.0 / 80 - 1.0 / 144) / n) : std::sqrt(2 / n);
    char buf[256];
    if (uniform && (lo < 0 || hi >= 1)) {
      std::snprintf(buf, sizeof buf, "rand values outside [0, 1): min %g max %g", lo, hi);
      return buf;
    }
    if (!uniform && (lo < -8.6 || hi > 8.6)) {
      std::snprintf(buf, sizeof buf, "randn values beyond the Box-Muller range: %g %g", lo, hi);
      return buf;
    }
    if (std::fabs(mean - want_mean) > 6 * se_mean || std::fabs(var - want_var) > 6 * se_var) {
      std::snprintf(buf, sizeof buf,
                    "moments off: mean %.6f (want %.6f), variance %.6f (want %.6f)", mean,
                    want_mean, var, want_var);
      return buf;
    }
    if (static_cast<double>(same_as_next_seed) > n / 100) {
      return std::to_string(same_as_next_seed) + " values equal those of seed + 1";
    }
    return {};
  };
}

void add_random(std::vector<Case>& out) {
  const int64_t kSeeds[] = {0, 1, 12345678901, -1};
  const Shape kShapes[] = {{}, {0}, {5, 7}, {1001}};
  for (Op op : {Op::rand, Op::randn}) {
    // rand is exact arithmetic on the Philox bits; randn goes through log, sqrt and cos.
    const Accuracy acc = op == Op::rand ? Accuracy::Exact : Accuracy::Transcendental;
    for (DType t : kAllDTypes) {
      if (!ir::is_floating(t)) {
        Case bad =
            creation(op, {{Attr::shape, Shape{4}}, {Attr::seed, int64_t{1}}, {Attr::dtype, t}});
        bad.error = ErrorCode::DType;
        out.push_back(bad);
        continue;
      }
      for (const Shape& s : kShapes) {
        for (int64_t seed : kSeeds) {
          out.push_back(
              creation(op, {{Attr::shape, s}, {Attr::seed, seed}, {Attr::dtype, t}}, acc));
        }
      }
      Case big = creation(
          op, {{Attr::shape, Shape{512, 1024}}, {Attr::seed, int64_t{42}}, {Attr::dtype, t}}, acc);
      big.repeat = 2;  // the second run hits the plan cache: same seed, same values
      big.property = moments(op, t, 42);
      out.push_back(big);
    }
    Case bad = creation(
        op, {{Attr::shape, Shape{3, -1}}, {Attr::seed, int64_t{1}}, {Attr::dtype, DType::Float32}});
    bad.error = ErrorCode::Shape;
    out.push_back(bad);
  }
}

}  // namespace

void add_creation_cases(std::vector<Case>& out) {
  add_full(out);
  add_arange(out);
  add_eye(out);
  add_random(out);
}

}  // namespace tensord::conformance
