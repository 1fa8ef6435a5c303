// The complex rows of NumPy's other elementwise functions (sin ... isfinite), of pow and of the
// reductions that decompose into the complex ops (var, std, norm) and the scans, against
// a reference computed in std::complex<long double> straight from each definition
// (docs/ops.md "Complex numbers"): <complex>'s long double functions, e^z - 1, log(1 + z),
// z / |z|, and NumPy's power with its integer exponents multiplied out.
#include <algorithm>
#include <cmath>
#include <complex>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

#include "tests/conformance/complex_runner.h"

// Rows are aggregates whose trailing members (expected error, tolerances) are mostly defaulted.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace tensord::conformance::complex_table {
namespace {

using ir::Op;
using CL = std::complex<long double>;

const double kNaN = std::nan("");

CL widen(C v) {
  return {v.real(), v.imag()};
}
C narrow(CL v) {
  return {static_cast<double>(v.real()), static_cast<double>(v.imag())};
}

CL pow_ref(CL z, CL w) {
  if (w == CL(0)) return 1;
  if (z == CL(0)) {
    if (w.real() > 0 && w.imag() == 0) return 0;
    return {kNaN, kNaN};
  }
  if (w.imag() == 0 && w.real() == std::nearbyint(w.real()) && std::fabs(w.real()) < 100) {
    CL r = 1;
    for (int k = 0; k < std::fabs(w.real()); ++k) r *= z;
    return w.real() < 0 ? CL(1) / r : r;
  }
  return std::exp(w * std::log(z));
}

struct Function {
  Op op;
  std::function<CL(CL)> f;
  bool boolean = false;
};

std::vector<Function> functions() {
  const long double ln2 = std::numbers::ln2_v<long double>;
  const long double ln10 = std::numbers::ln10_v<long double>;
  auto is_nan = [](CL z) { return std::isnan(z.real()) || std::isnan(z.imag()); };
  auto is_inf = [](CL z) { return std::isinf(z.real()) || std::isinf(z.imag()); };
  return {
      {Op::sin, [](CL z) { return std::sin(z); }},
      {Op::cos, [](CL z) { return std::cos(z); }},
      {Op::tan, [](CL z) { return std::tan(z); }},
      {Op::sinh, [](CL z) { return std::sinh(z); }},
      {Op::cosh, [](CL z) { return std::cosh(z); }},
      {Op::tanh, [](CL z) { return std::tanh(z); }},
      {Op::asin, [](CL z) { return std::asin(z); }},
      {Op::acos, [](CL z) { return std::acos(z); }},
      {Op::atan, [](CL z) { return std::atan(z); }},
      {Op::asinh, [](CL z) { return std::asinh(z); }},
      {Op::acosh, [](CL z) { return std::acosh(z); }},
      {Op::atanh, [](CL z) { return std::atanh(z); }},
      {Op::exp2, [ln2](CL z) { return std::exp(z * ln2); }},
      {Op::expm1, [](CL z) { return std::exp(z) - CL(1); }},
      {Op::log2, [ln2](CL z) { return std::log(z) / ln2; }},
      {Op::log10, [ln10](CL z) { return std::log(z) / ln10; }},
      // 1 + z keeps the sign of a zero imaginary part (CL(1) + z would make it +0).
      {Op::log1p, [](CL z) { return std::log(CL(1 + z.real(), z.imag())); }},
      {Op::square, [](CL z) { return z * z; }},
      {Op::reciprocal, [](CL z) { return CL(1) / z; }},
      {Op::rsqrt, [](CL z) { return CL(1) / std::sqrt(z); }},
      {Op::sigmoid, [](CL z) { return CL(1) / (CL(1) + std::exp(-z)); }},
      {Op::sign, [](CL z) { return z == CL(0) ? z : z / std::abs(z); }},
      {Op::isnan, [is_nan](CL z) { return CL(is_nan(z) ? 1 : 0); }, true},
      {Op::isinf, [is_inf](CL z) { return CL(is_inf(z) ? 1 : 0); }, true},
      {Op::isfinite, [is_nan, is_inf](CL z) { return CL(!is_nan(z) && !is_inf(z) ? 1 : 0); }, true},
  };
}

// Inputs where the formulas are easiest to get wrong: both sides of each branch cut (signed
// zeros), the branch points, tiny values (cancellation in expm1, log1p and the inverses), large
// real or imaginary parts (tanh's and sigmoid's saturation, cosh's growth).
const std::vector<C> kEdges = {C(2, 0),       C(2, -0.0),     C(-2, 0),        C(-2, -0.0),
                               C(0, 2),       C(-0.0, 2),     C(0, -2),        C(-0.0, -2),
                               C(1, 0),       C(-1, 0),       C(0, 1),         C(0, -1),
                               C(1e-5, 2e-5), C(-3e-6, 1e-6), C(0.999, 0.001), C(30, 1),
                               C(-30, -2),    C(0.5, 25),     C(-0.25, -20),   C(0, 0)};

void add_functions(std::vector<CCase>& out, uint64_t& seed) {
  const Shape shapes[] = {{3, 4}, {}, {0}, {2, 3, 5}};
  for (DType t : {DType::Complex64, DType::Complex128}) {
    const std::string n(ir::name(t));
    for (const Function& fn : functions()) {
      const DType o = fn.boolean ? DType::Bool : t;
      auto ref = [o, f = fn.f](const std::vector<CTensor>& in) {
        return elementwise1(in[0], o, [&](C v) { return narrow(f(widen(v))); });
      };
      for (const Shape& s : shapes) {
        for (bool tr : {false, true}) {
          if (tr && s.size() < 2) continue;
          const std::vector<C> specials =
              s.size() >= 2 ? std::vector<C>{C(0, 0), C(-1, 0), C(0, kNaN)} : std::vector<C>{};
          CCase c{std::string(ir::name(fn.op)) + " " + n + ir::to_string(s) +
                      (tr ? "[transposed]" : ""),
                  fn.op,
                  {},
                  {make(t, s, seed++, specials)},
                  {tr},
                  ref};
          out.push_back(c);
        }
      }
      CCase edges{std::string(ir::name(fn.op)) + " " + n + " edges",
                  fn.op,
                  {},
                  {make(t, {static_cast<int64_t>(kEdges.size())}, seed++, kEdges)},
                  {false},
                  ref};
      out.push_back(edges);
      // NaN and infinities in either part: for the predicates only (the other functions' special
      // values are C99 Annex G's, where libm and the CUDA formulas may differ).
      const double inf = INFINITY;
      CCase specials{std::string(ir::name(fn.op)) + " " + n + " non-finite",
                     fn.op,
                     {},
                     {make(t, {4}, seed++, {C(kNaN, 1), C(1, kNaN), C(inf, 0), C(0, -inf)})},
                     {false},
                     ref};
      if (fn.boolean) out.push_back(specials);
    }
  }
}

void add_pow(std::vector<CCase>& out, uint64_t& seed) {
  auto ref = [](DType o) {
    return [o](const std::vector<CTensor>& in) {
      return elementwise2(in[0], in[1], o,
                          [](C z, C w) { return narrow(pow_ref(widen(z), widen(w))); });
    };
  };
  for (DType t : {DType::Complex64, DType::Complex128}) {
    const std::string n(ir::name(t));
    // The exponents NumPy treats apart (0, integers under 100, a zero base), then general ones.
    const std::vector<C> exponents = {C(0, 0), C(2, 0),   C(3, 0), C(-1, 0),   C(-2, 0),
                                      C(7, 0), C(0.5, 0), C(1, 1), C(0.3, -2), C(2.5, 0),
                                      C(2, 0), C(-1, 0),  C(1, 0), C(0, 1)};
    const std::vector<C> bases = {C(1.5, -0.5), C(0.8, 0.6), C(-1, 0),    C(-0.5, 0.25), C(0, 1),
                                  C(1.1, 0),    C(-2, -0.0), C(0.3, 1.2), C(-1.5, 0.5),  C(1, 1),
                                  C(0, 0),      C(0, 0),     C(0, 0),     C(0, 0)};
    const auto k = static_cast<int64_t>(exponents.size());
    CTensor z = make(t, {k}, seed++, bases), w = make(t, {k}, seed++, exponents);
    out.push_back(
        CCase{"pow " + n + " special exponents", Op::pow, {}, {z, w}, {false, false}, ref(t)});
    out.push_back(CCase{"pow " + n + "(3,4) " + n + "(3,4)",
                        Op::pow,
                        {},
                        {make(t, {3, 4}, seed++), make(t, {3, 4}, seed++)},
                        {false, true},
                        ref(t)});
    // Promotion and broadcasting: real exponents and bases of other dtypes, a 0-d exponent.
    for (DType p : {DType::Float32, DType::Float64, DType::Int32, DType::Complex64}) {
      const DType o = ref_promote_c(t, p == DType::Int32 ? t : p);
      const std::string pn(ir::name(p));
      out.push_back(CCase{"pow " + n + "(3,1) " + pn + "(1,4)",
                          Op::pow,
                          {},
                          {make(t, {3, 1}, seed++), make(p, {1, 4}, seed++)},
                          {false, false},
                          ref(o)});
      out.push_back(CCase{"pow " + pn + "(2,3) " + n + "()",
                          Op::pow,
                          {},
                          {make(p, {2, 3}, seed++), make(t, {}, seed++)},
                          {false, false},
                          ref(o)});
    }
    out.push_back(CCase{"pow " + n + "(0,3) " + n + "(3)",
                        Op::pow,
                        {},
                        {make(t, {0, 3}, seed++), make(t, {3}, seed++)},
                        {false, false},
                        ref(t)});
  }
}

// Elements of a (rows, cols) tensor along `axis` (0: down a column, 1: along a row), per line.
std::vector<std::vector<CL>> lines(const CTensor& x, int axis) {
  const int64_t rows = x.shape[0], cols = x.shape[1];
  std::vector<std::vector<CL>> out(static_cast<size_t>(axis == 0 ? cols : rows));
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) out[axis == 0 ? j : i].push_back(widen(x.v[i * cols + j]));
  }
  return out;
}

long double variance(const std::vector<CL>& v, double correction) {
  CL mean = 0;
  for (CL z : v) mean += z;
  mean /= static_cast<long double>(v.size());
  long double ss = 0;
  for (CL z : v) ss += std::norm(z - mean);
  return ss / (static_cast<long double>(v.size()) - correction);
}

long double vector_norm(const std::vector<CL>& v, double p) {
  long double acc = p == -INFINITY ? INFINITY : 0;
  for (CL z : v) {
    const long double a = std::abs(z);
    if (p == INFINITY)
      acc = std::max(acc, a);
    else if (p == -INFINITY)
      acc = std::min(acc, a);
    else if (p == 0)
      acc += a != 0;
    else
      acc += std::pow(a, static_cast<long double>(p));
  }
  return std::isinf(p) || p == 0 ? acc : std::pow(acc, 1 / static_cast<long double>(p));
}

// var, std and norm of complex values (real results), cumsum and cumprod, along each axis of a
// (3, 4) tensor, plain and transposed, and scans of long lines.
void add_reductions(std::vector<CCase>& out, uint64_t& seed) {
  for (DType t : {DType::Complex64, DType::Complex128}) {
    const std::string n(ir::name(t));
    const DType r = component(t);
    for (int axis : {0, 1}) {
      for (bool tr : {false, true}) {
        const std::string tag =
            n + "(3,4) axis " + std::to_string(axis) + (tr ? " [transposed]" : "");
        auto reduce_row = [&](Op op, ir::Attrs attrs,
                              std::function<long double(const std::vector<CL>&)> f) {
          attrs.set(ir::Attr::axes, std::vector<int64_t>{axis});
          CCase c{std::string(ir::name(op)) + " " + tag,
                  op,
                  attrs,
                  {make(t, {3, 4}, seed++)},
                  {tr},
                  [r, axis, f](const std::vector<CTensor>& in) {
                    CTensor y{r, {in[0].shape[axis == 0 ? 1 : 0]}, {}};
                    for (const auto& line : lines(in[0], axis)) {
                      y.v.push_back(round_to_dtype(r, C(static_cast<double>(f(line)), 0)));
                    }
                    return y;
                  }};
          c.l2_scale = true;
          out.push_back(c);
        };
        for (double corr : {0.0, 1.0}) {
          reduce_row(Op::var, {{ir::Attr::correction, corr}},
                     [corr](const std::vector<CL>& v) { return variance(v, corr); });
        }
        reduce_row(Op::std, {{ir::Attr::correction, 1.0}},
                   [](const std::vector<CL>& v) { return std::sqrt(variance(v, 1.0)); });
        for (double p : {2.0, 1.0, 3.0, 0.5, 0.0, static_cast<double>(INFINITY),
                         -static_cast<double>(INFINITY)}) {
          reduce_row(Op::norm, {{ir::Attr::ord, p}},
                     [p](const std::vector<CL>& v) { return vector_norm(v, p); });
        }
        for (Op op : {Op::cumsum, Op::cumprod}) {
          CCase c{std::string(ir::name(op)) + " " + tag,
                  op,
                  {{ir::Attr::axis, int64_t{axis}}},
                  {make(t, {3, 4}, seed++)},
                  {tr},
                  [t, axis, op](const std::vector<CTensor>& in) {
                    CTensor y = in[0];
                    const int64_t cols = 4;
                    for (int64_t k = 0; k < 12; ++k) {
                      const int64_t i = k / cols, j = k % cols;
                      if (axis == 0 ? i > 0 : j > 0) {
                        const C& prev = y.v[axis == 0 ? k - cols : k - 1];
                        y.v[k] = op == Op::cumsum ? prev + in[0].v[k] : prev * in[0].v[k];
                      }
                    }
                    for (C& v : y.v) v = round_to_dtype(t, v);
                    return y;
                  }};
          c.l2_scale = op == Op::cumsum;
          out.push_back(c);
        }
      }
    }
    // Long lines (the CUDA block kernel's chunks), values near the unit circle so that the
    // products stay finite.
    for (Op op : {Op::cumsum, Op::cumprod}) {
      CTensor x = make(t, {2, 1500}, seed++);
      for (C& v : x.v) v = round_to_dtype(t, C(1 + v.real() / 400, v.imag() / 400));
      CCase c{std::string(ir::name(op)) + " " + n + "(2,1500) axis 1",
              op,
              {{ir::Attr::axis, int64_t{1}}},
              {x},
              {false},
              [t, op](const std::vector<CTensor>& in) {
                CTensor y = in[0];
                for (int64_t k = 0; k < 3000; ++k) {
                  if (k % 1500 == 0) continue;
                  y.v[k] = op == Op::cumsum ? y.v[k - 1] + in[0].v[k] : y.v[k - 1] * in[0].v[k];
                }
                for (C& v : y.v) v = round_to_dtype(t, v);
                return y;
              }};
      c.l2_scale = op == Op::cumsum;
      out.push_back(c);
    }
  }
}

}  // namespace

std::vector<CCase> complex_math_cases() {
  std::vector<CCase> out;
  uint64_t seed = 7001;
  add_functions(out, seed);
  add_pow(out, seed);
  add_reductions(out, seed);
  return out;
}

}  // namespace tensord::conformance::complex_table
