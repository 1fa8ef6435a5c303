// Issue 4: the conformance rows of complex64/complex128 and the FFTs, run on every backend of
// backends.cpp by the complex runner (complex_runner.h) against the complex reference
// (reference_complex.h); complex_table_ops() tells the main table's coverage checks which ops
// are covered here.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tests/conformance/complex_runner.h"
#include "tests/conformance/complex_table.h"

// Rows are aggregates whose trailing members (expected error, tolerances) are mostly defaulted.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace tensord::conformance::complex_table {
namespace {

using ir::Attr;
using ir::Attrs;
using ir::Op;

const double kNaN = std::nan("");
const double kInf = INFINITY;

const std::vector<C> kSpecials = {C(0, 0),    C(-0.0, 0), C(1, -1),    C(kNaN, 0),
                                  C(0, kNaN), C(kInf, 0), C(-kInf, 1), C(1, kInf)};

void add_elementwise(std::vector<CCase>& out) {
  const DType cdt[] = {DType::Complex64, DType::Complex128};
  const Shape shapes[] = {{3, 4}, {}, {0}, {2, 3, 5}};
  uint64_t seed = 1;
  for (DType t : cdt) {
    const DType r = component(t);
    for (const Shape& s : shapes) {
      for (bool tr : {false, true}) {
        if (tr && s.size() < 2) continue;
        const std::string tag =
            std::string(ir::name(t)) + ir::to_string(s) + (tr ? "[transposed]" : "");
        CTensor x = make(t, s, seed++, s.size() >= 2 ? kSpecials : std::vector<C>{});
        auto un = [&](Op op, DType o, std::function<C(C)> f, double rtol64 = 4e-6) {
          CCase c{std::string(ir::name(op)) + " " + tag, op, {}, {x}, {tr}, nullptr};
          c.ref = [o, f](const std::vector<CTensor>& in) { return elementwise1(in[0], o, f); };
          c.rtol64 = rtol64;
          out.push_back(c);
        };
        un(Op::neg, t, [](C v) { return -v; });
        un(Op::conj, t, [](C v) { return std::conj(v); });
        un(Op::real, r, [](C v) { return C(v.real(), 0); });
        un(Op::imag, r, [](C v) { return C(v.imag(), 0); });
        un(Op::abs, r, [](C v) { return C(std::abs(v), 0); });
        un(Op::angle, r, [](C v) { return C(std::arg(v), 0); });
        // exp/log/sqrt: finite inputs (special-value branches of libm differ by precision).
        CTensor fin =
            make(t, s, seed++,
                 s.size() >= 2 ? std::vector<C>{C(0, 0), C(-1, 0), C(0, kNaN)} : std::vector<C>{});
        for (auto [op, f] : std::initializer_list<std::pair<Op, C (*)(const C&)>>{
                 {Op::exp, [](const C& v) { return std::exp(v); }},
                 {Op::log, [](const C& v) { return std::log(v); }},
                 {Op::sqrt, [](const C& v) { return std::sqrt(v); }}}) {
          CCase c{std::string(ir::name(op)) + " " + tag, op, {}, {fin}, {tr}, nullptr};
          c.ref = [t, f](const std::vector<CTensor>& in) { return elementwise1(in[0], t, f); };
          out.push_back(c);
        }
        // sums over axis 0 / all, keepdim; prod of few elements.
        if (!s.empty()) {
          CTensor fx = make(t, s, seed++);
          for (bool keep : {false, true}) {
            for (Op op : {Op::sum, Op::prod, Op::mean}) {
              Attrs a{{Attr::axes, std::vector<int64_t>{0}}, {Attr::keepdim, keep}};
              CCase c{std::string(ir::name(op)) + " axis0 keep=" + (keep ? "1 " : "0 ") + tag,
                      op,
                      a,
                      {fx},
                      {tr},
                      nullptr};
              c.ref = [op, keep, t](const std::vector<CTensor>& in) {
                const CTensor& v = in[0];
                Shape o = v.shape;
                o[0] = 1;
                CTensor y{t, keep ? o : Shape(v.shape.begin() + 1, v.shape.end()), {}};
                const int64_t inner = numel(o), n0 = v.shape[0];
                for (int64_t k = 0; k < inner; ++k) {
                  C acc = op == Op::prod ? C(1, 0) : C(0, 0);
                  for (int64_t i = 0; i < n0; ++i) {
                    acc = op == Op::prod ? acc * v.v[i * inner + k] : acc + v.v[i * inner + k];
                  }
                  if (op == Op::mean) acc /= static_cast<double>(n0);
                  y.v.push_back(round_to_dtype(t, acc));
                }
                return y;
              };
              c.l2_scale = true;
              out.push_back(c);
            }
          }
          Attrs all{{Attr::keepdim, false}};
          CCase c{"sum all " + tag, Op::sum, all, {fx}, {tr}, nullptr};
          c.ref = [t](const std::vector<CTensor>& in) {
            C acc(0, 0);
            for (const C& v : in[0].v) acc += v;
            return CTensor{t, {}, {round_to_dtype(t, acc)}};
          };
          c.l2_scale = true;
          out.push_back(c);
        }
      }
    }
    // Binary ops, with promotion partners and broadcasting.
    const DType partners[] = {t,
                              DType::Complex64,
                              DType::Complex128,
                              DType::Float32,
                              DType::Float64,
                              DType::Int32,
                              DType::Bool};
    for (DType p : partners) {
      for (auto [sa, sb] : std::initializer_list<std::pair<Shape, Shape>>{
               {{2, 5}, {2, 5}}, {{3, 1}, {1, 4}}, {{0, 3}, {3}}, {{}, {2, 2}}}) {
        CTensor a = make(t, sa, seed++, numel(sa) >= 8 ? kSpecials : std::vector<C>{});
        CTensor b = make(p, sb, seed++);
        const DType o = ref_promote_c(t, p == DType::Int32 || p == DType::Bool ? t : p);
        const std::string tag = std::string(ir::name(t)) + ir::to_string(sa) + " " +
                                std::string(ir::name(p)) + ir::to_string(sb);
        for (Op op : {Op::add, Op::sub, Op::mul, Op::div, Op::eq, Op::ne}) {
          if (p == DType::Bool && op != Op::eq && op != Op::ne && op != Op::add) continue;
          const bool cmp = op == Op::eq || op == Op::ne;
          CCase c{std::string(ir::name(op)) + " " + tag, op, {}, {a, b}, {false, false}, nullptr};
          c.ref = [op, o, cmp](const std::vector<CTensor>& in) {
            return elementwise2(in[0], in[1], cmp ? DType::Bool : o, [&](C x, C y) -> C {
              switch (op) {
                case Op::add:
                  return in_precision(o, x, y, [](auto u, auto v) { return u + v; });
                case Op::sub:
                  return in_precision(o, x, y, [](auto u, auto v) { return u - v; });
                case Op::mul:
                  return in_precision(o, x, y, [](auto u, auto v) { return u * v; });
                case Op::div:
                  return in_precision(o, x, y, [](auto u, auto v) { return u / v; });
                case Op::eq:
                  return C(x == y ? 1 : 0, 0);
                default:
                  return C(x != y ? 1 : 0, 0);
              }
            });
          };
          out.push_back(c);
        }
      }
    }
    // where(cond, complex, other)
    {
      CTensor cond = make(DType::Bool, {3, 4}, seed++);
      CTensor a = make(t, {3, 4}, seed++, kSpecials), b = make(DType::Float64, {4}, seed++);
      CCase c{"where bool(3,4) " + std::string(ir::name(t)) + "(3,4) float64(4)",
              Op::where,
              {},
              {cond, a, b},
              {false, true, false},
              nullptr};
      const DType o = ref_promote_c(t, DType::Float64);
      c.ref = [o](const std::vector<CTensor>& in) {
        CTensor y{o, {3, 4}, {}};
        for (int64_t k = 0; k < 12; ++k) {
          const auto idx = unravel_c(k, y.shape);
          y.v.push_back(round_to_dtype(o, bcast_at(in[0], idx, y.shape).real() != 0
                                              ? bcast_at(in[1], idx, y.shape)
                                              : bcast_at(in[2], idx, y.shape)));
        }
        return y;
      };
      out.push_back(c);
    }
    // casts both ways
    for (DType to : {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Bool,
                     DType::Complex64, DType::Complex128}) {
      CTensor x = make(t, {4, 3}, seed++, {C(0, 0), C(0, 1), C(2.5, -1), C(-3.7, 2), C(kNaN, 0)});
      if (to == DType::Int32 || to == DType::Int64) x.v[4] = C(7, 1);  // NaN -> int: not here
      CCase c{"cast " + std::string(ir::name(t)) + "(4,3) to " + std::string(ir::name(to)),
              Op::cast,
              {{Attr::dtype, to}},
              {x},
              {true},
              nullptr};
      c.ref = [to](const std::vector<CTensor>& in) {
        return elementwise1(in[0], to, [to](C v) {
          if (to == DType::Bool) return C(v.real() != 0 || v.imag() != 0 ? 1 : 0, 0);
          return v;
        });
      };
      out.push_back(c);
      CTensor rx = make(to == DType::Complex64 || to == DType::Complex128 ? DType::Float32 : to,
                        {4, 3}, seed++);
      CCase back{"cast " + std::string(ir::name(rx.dtype)) + "(4,3) to " + std::string(ir::name(t)),
                 Op::cast,
                 {{Attr::dtype, t}},
                 {rx},
                 {false},
                 nullptr};
      back.ref = [t](const std::vector<CTensor>& in) {
        return elementwise1(in[0], t, [](C v) { return C(v.real(), 0); });
      };
      out.push_back(back);
    }
    // complex(re, im)
    for (auto [ra, rb] : std::initializer_list<std::pair<DType, DType>>{
             {DType::Float32, DType::Float32}, {DType::Float64, DType::Float32}}) {
      CTensor re = make(ra, {3, 1}, seed++), im = make(rb, {4}, seed++);
      const DType o =
          ref_promote_c(ra, rb) == DType::Float64 ? DType::Complex128 : DType::Complex64;
      CCase c{"complex " + std::string(ir::name(ra)) + "(3,1) " + std::string(ir::name(rb)) + "(4)",
              Op::complex,
              {},
              {re, im},
              {false, false},
              nullptr};
      c.ref = [o](const std::vector<CTensor>& in) {
        return elementwise2(in[0], in[1], o, [](C a, C b) { return C(a.real(), b.real()); });
      };
      out.push_back(c);
    }
    // matmul: small, batched+broadcast, across the kernel's 64 x 64 x 256 tiles, k = 0, mixed.
    for (auto [sa, sb, pb] :
         std::initializer_list<std::tuple<Shape, Shape, DType>>{{{3, 4}, {4, 5}, t},
                                                                {{2, 3, 4}, {4, 2}, t},
                                                                {{70, 300}, {300, 67}, t},
                                                                {{2, 0}, {0, 3}, t},
                                                                {{4}, {4, 3}, DType::Float32},
                                                                {{5, 6}, {6}, DType::Float64}}) {
      CTensor a = make(t, sa, seed++), b = make(pb, sb, seed++);
      const DType o = ref_promote_c(t, pb);
      CCase c{"matmul " + std::string(ir::name(t)) + ir::to_string(sa) + " " +
                  std::string(ir::name(pb)) + ir::to_string(sb),
              Op::matmul,
              {},
              {a, b},
              {false, sa.size() == 2 && sb.size() == 2},
              nullptr};
      c.ref = [o](const std::vector<CTensor>& in) {
        CTensor A = in[0], B = in[1];
        const bool va = A.shape.size() == 1, vb = B.shape.size() == 1;
        if (va) A.shape.insert(A.shape.begin(), 1);
        if (vb) B.shape.push_back(1);
        const int64_t m = A.shape[A.shape.size() - 2], k = A.shape.back(), n = B.shape.back();
        const int64_t ba = numel(A.shape) / std::max<int64_t>(1, m * k);
        const int64_t bb = numel(B.shape) / std::max<int64_t>(1, k * n);
        const int64_t batch = A.shape.size() <= 2 && B.shape.size() <= 2 ? 1 : std::max(ba, bb);
        Shape os;
        if (A.shape.size() > 2)
          os.assign(A.shape.begin(), A.shape.end() - 2);
        else if (B.shape.size() > 2)
          os.assign(B.shape.begin(), B.shape.end() - 2);
        if (!va) os.push_back(m);
        if (!vb) os.push_back(n);
        CTensor y{o, os, {}};
        for (int64_t bi = 0; bi < batch; ++bi) {
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              C acc(0, 0);
              for (int64_t q = 0; q < k; ++q) {
                acc += A.v[(ba > 1 ? bi : 0) * m * k + i * k + q] *
                       B.v[(bb > 1 ? bi : 0) * k * n + q * n + j];
              }
              y.v.push_back(round_to_dtype(o, acc));
            }
          }
        }
        return y;
      };
      c.l2_scale = true;
      out.push_back(c);
    }
    // views and movement ops carry complex values unchanged.
    {
      CTensor x = make(t, {3, 4}, seed++, kSpecials);
      auto same = [](const std::vector<CTensor>& in) { return in[0]; };
      CCase re{"reshape " + std::string(ir::name(t)) + "(3,4)",
               Op::reshape,
               {{Attr::shape, std::vector<int64_t>{4, 3}}},
               {x},
               {true},
               nullptr};
      re.ref = [](const std::vector<CTensor>& in) {
        // in[0] is the logical (3,4) tensor; reshape keeps row-major order.
        CTensor y = in[0];
        y.shape = {4, 3};
        return y;
      };
      out.push_back(re);
      CCase co{"contiguous " + std::string(ir::name(t)) + "(3,4)",
               Op::contiguous,
               {},
               {x},
               {true},
               same};
      out.push_back(co);
      CCase cat{"concat " + std::string(ir::name(t)) + "(3,4) x2",
                Op::concat,
                {{Attr::axis, int64_t{1}}},
                {x, x},
                {true, false},
                nullptr};
      cat.ref = [](const std::vector<CTensor>& in) {
        CTensor y{in[0].dtype, {3, 8}, {}};
        for (int64_t i = 0; i < 3; ++i) {
          for (int64_t j = 0; j < 8; ++j) y.v.push_back(in[j / 4].v[i * 4 + j % 4]);
        }
        return y;
      };
      out.push_back(cat);
      CCase ro{"roll " + std::string(ir::name(t)) + "(3,4)",
               Op::roll,
               {{Attr::shifts, std::vector<int64_t>{2}}, {Attr::dims, std::vector<int64_t>{1}}},
               {x},
               {false},
               nullptr};
      ro.ref = [](const std::vector<CTensor>& in) {
        CTensor y = in[0];
        for (int64_t i = 0; i < 3; ++i) {
          for (int64_t j = 0; j < 4; ++j) y.v[i * 4 + (j + 2) % 4] = in[0].v[i * 4 + j];
        }
        return y;
      };
      out.push_back(ro);
    }
  }
  // angle and conj of real inputs.
  for (DType rt : {DType::Float32, DType::Float64, DType::Int32}) {
    CTensor x = make(rt, {2, 4}, 99, {C(0, 0), C(-0.0, 0), C(-2, 0), C(kNaN, 0)});
    if (rt == DType::Int32) x.v[3] = C(5, 0);
    const DType o = rt == DType::Int32 ? DType::Float32 : rt;
    CCase c{"angle " + std::string(ir::name(rt)) + "(2,4)", Op::angle, {}, {x}, {false}, nullptr};
    c.ref = [o](const std::vector<CTensor>& in) {
      return elementwise1(in[0], o, [](C v) { return C(std::atan2(0.0, v.real()), 0); });
    };
    out.push_back(c);
    CCase cj{"conj " + std::string(ir::name(rt)) + "(2,4)",       Op::conj, {}, {x}, {false},
             [](const std::vector<CTensor>& in) { return in[0]; }};
    out.push_back(cj);
  }
}

void add_fft(std::vector<CCase>& out) {
  uint64_t seed = 1000;
  auto row = [&](Op op, DType t, Shape s, FftSpec f, std::vector<C> specials = {},
                 bool transposed = false) {
    CTensor x = make(t, s, seed++, specials);
    std::string name = std::string(ir::name(op)) + " " + std::string(ir::name(t)) +
                       ir::to_string(s) + (transposed ? "[transposed]" : "") +
                       " axes=" + ir::to_string(f.axes) + (f.s ? " s=" + ir::to_string(*f.s) : "") +
                       " norm=" + std::to_string(f.norm) + (f.inverse ? " inverse" : "");
    CCase c{name, op, fft_attrs(f, op == Op::fft_c2c), {x}, {transposed}, nullptr};
    c.ref = [op, f](const std::vector<CTensor>& in) { return ref_fft(op, in[0], f); };
    c.l2_scale = true;
    c.rtol64 = 2e-6;
    c.rtol128 = 1e-13;
    out.push_back(c);
  };
  const DType cdt[] = {DType::Complex64, DType::Complex128};
  for (DType t : cdt) {
    // lengths 1, 2, odd, prime, composite, a larger prime; both directions; all norms.
    for (int64_t n : {1, 2, 3, 5, 7, 8, 12, 17, 97}) {
      for (int64_t norm : {0, 1, 2}) {
        row(Op::fft_c2c, t, {n}, {{-1}, std::nullopt, norm, false});
        row(Op::fft_c2c, t, {n}, {{0}, std::nullopt, norm, true});
      }
    }
    row(Op::fft_c2c, t, {3, 10}, {{-1}, std::vector<int64_t>{16}, 0, false});  // pad
    row(Op::fft_c2c, t, {3, 10}, {{1}, std::vector<int64_t>{7}, 0, true});     // truncate
    row(Op::fft_c2c, t, {6, 5}, {{0}, std::nullopt, 1, false}, {}, true);      // strided
    row(Op::fft_c2c, t, {4, 6}, {{0, 1}, std::nullopt, 0, false});             // fft2
    row(Op::fft_c2c, t, {4, 6}, {{-2, -1}, std::vector<int64_t>{5, 8}, 2, true});
    row(Op::fft_c2c, t, {3, 4, 5}, {{0, 2}, std::nullopt, 0, false});  // fftn subset
    row(Op::fft_c2c, t, {3, 4, 5}, {{2, 0, 1}, std::nullopt, 1, true});
    row(Op::fft_c2c, t, {0, 8}, {{-1}, std::nullopt, 0, false});            // empty batch
    row(Op::fft_c2c, t, {0}, {{0}, std::vector<int64_t>{4}, 0, false});     // empty, padded
    row(Op::fft_c2c, t, {8}, {{0}, std::nullopt, 0, false}, {C(kNaN, 0)});  // NaN spreads
    // c2r: half spectra of even and odd outputs, explicit n, several axes.
    for (int64_t m : {1, 2, 5, 9}) {
      if (m > 1) row(Op::fft_c2r, t, {2, m}, {{-1}, std::nullopt, 0, true});
      row(Op::fft_c2r, t, {m}, {{0}, std::vector<int64_t>{2 * m - 1}, 1, true});
    }
    row(Op::fft_c2r, t, {3, 4, 5}, {{1, 2}, std::nullopt, 0, true});
    row(Op::fft_c2r, t, {3, 4, 5}, {{0, 2}, std::vector<int64_t>{5, 7}, 2, true});
    row(Op::fft_c2r, t, {5, 3}, {{0}, std::nullopt, 0, true}, {}, true);
    // Along an inner axis the CPU gathers tiles of up to 64 lines: 70 lines leave a tile of 6.
    row(Op::fft_c2c, t, {5, 70}, {{0}, std::nullopt, 0, false});
    row(Op::fft_c2c, t, {3, 6, 70}, {{1, 2, 0}, std::nullopt, 0, true});
    row(Op::fft_c2r, t, {4, 70}, {{0}, std::nullopt, 0, true});
    row(Op::fft_c2r, t, {3, 5, 70}, {{1}, std::vector<int64_t>{9}, 0, true});
  }
  for (DType t : {DType::Float32, DType::Float64}) {
    for (int64_t n : {1, 2, 5, 8, 9, 17}) {
      row(Op::fft_r2c, t, {n}, {{0}, std::nullopt, 0, false});
      row(Op::fft_c2c, t, {n}, {{0}, std::nullopt, 0, false});  // real input of fft
    }
    row(Op::fft_r2c, t, {3, 10}, {{-1}, std::vector<int64_t>{7}, 1, false});
    row(Op::fft_r2c, t, {4, 6}, {{0, 1}, std::nullopt, 2, false});
    row(Op::fft_r2c, t, {3, 4, 5}, {{2, 0}, std::vector<int64_t>{6, 3}, 0, false});
    row(Op::fft_r2c, t, {7, 4}, {{0}, std::nullopt, 0, false}, {}, true);
    row(Op::fft_r2c, t, {6}, {{0}, std::nullopt, 0, false}, {C(kNaN, 0)});
    row(Op::fft_r2c, t, {6, 70}, {{0}, std::nullopt, 0, false});
    row(Op::fft_r2c, t, {3, 8, 70}, {{2, 1}, std::nullopt, 0, false});
  }
  // Rejected: the reason must be the documented error.
  auto err = [&](std::string name, Op op, Attrs a, CTensor x, ErrorCode code) {
    CCase c{std::move(name), op, std::move(a), {std::move(x)}, {false}, nullptr, code};
    out.push_back(c);
  };
  err("fft_r2c of complex64", Op::fft_r2c, {{Attr::axes, std::vector<int64_t>{0}}},
      make(DType::Complex64, {4}, 1), ErrorCode::DType);
  err("fft_c2c of int32", Op::fft_c2c, {{Attr::axes, std::vector<int64_t>{0}}},
      make(DType::Int32, {4}, 1), ErrorCode::DType);
  err("fft_c2c of an empty axis without n", Op::fft_c2c, {{Attr::axes, std::vector<int64_t>{0}}},
      make(DType::Complex64, {0}, 1), ErrorCode::Shape);
  err("fft_c2r of length 1 without n", Op::fft_c2r, {{Attr::axes, std::vector<int64_t>{0}}},
      make(DType::Complex64, {1}, 1), ErrorCode::Shape);
  err("fft_c2c repeated axis", Op::fft_c2c, {{Attr::axes, std::vector<int64_t>{0, -2}}},
      make(DType::Complex64, {2, 3}, 1), ErrorCode::Shape);
  err("fft_c2c axis out of range", Op::fft_c2c, {{Attr::axes, std::vector<int64_t>{2}}},
      make(DType::Complex64, {2, 3}, 1), ErrorCode::Shape);
  err("fft_c2c n = 0", Op::fft_c2c,
      {{Attr::axes, std::vector<int64_t>{0}}, {Attr::shape, std::vector<int64_t>{0}}},
      make(DType::Complex64, {4}, 1), ErrorCode::Shape);
  err("fft_c2c bad norm", Op::fft_c2c,
      {{Attr::axes, std::vector<int64_t>{0}}, {Attr::fft_norm, int64_t{3}}},
      make(DType::Complex64, {4}, 1), ErrorCode::InvalidGraph);
  err("imag of float32", Op::imag, {}, make(DType::Float32, {4}, 1), ErrorCode::DType);
  err("real of int32", Op::real, {}, make(DType::Int32, {4}, 1), ErrorCode::DType);
  err("erf of complex64", Op::erf, {}, make(DType::Complex64, {4}, 1), ErrorCode::DType);
  err("max of complex128", Op::max, {}, make(DType::Complex128, {4}, 1), ErrorCode::DType);
  err("logcumsumexp of complex64", Op::logcumsumexp, {{Attr::axis, int64_t{0}}},
      make(DType::Complex64, {4}, 1), ErrorCode::DType);
  CCase cx{"complex of int32",
           Op::complex,
           {},
           {make(DType::Int32, {2}, 1), make(DType::Float32, {2}, 2)},
           {false, false},
           nullptr,
           ErrorCode::DType};
  out.push_back(cx);
  CCase lt{"lt of complex64",
           Op::lt,
           {},
           {make(DType::Complex64, {2}, 1), make(DType::Complex64, {2}, 2)},
           {false, false},
           nullptr,
           ErrorCode::DType};
  out.push_back(lt);
}

// Consumers of conj views: matmul folds the bit, contiguous materialises it, every other op
// gets a copy from the planner; views of views keep the bit, conj of conj clears it.
void add_conj_views(std::vector<CCase>& out) {
  uint64_t seed = 5000;
  for (DType t : {DType::Complex64, DType::Complex128}) {
    const std::string n(ir::name(t));
    auto row = [&](std::string name, Op op, Attrs attrs, std::vector<CTensor> ins,
                   std::vector<bool> tr, std::vector<bool> cj,
                   std::function<CTensor(const std::vector<CTensor>&)> ref, bool l2 = false) {
      CCase c{std::move(name), op, std::move(attrs), std::move(ins), std::move(tr), std::move(ref)};
      c.conjugated = std::move(cj);
      c.l2_scale = l2;
      out.push_back(c);
    };
    const CTensor a = make(t, {3, 4}, seed++, kSpecials), b = make(t, {4, 5}, seed++);
    const CTensor big_a = make(t, {70, 90}, seed++), big_b = make(t, {90, 66}, seed++);
    auto mm = [](const std::vector<CTensor>& in) {
      const CTensor &A = in[0], &B = in[1];
      const int64_t m = A.shape[0], k = A.shape[1], nn = B.shape[1];
      CTensor y{ref_promote_c(A.dtype, B.dtype), {m, nn}, {}};
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < nn; ++j) {
          C acc(0, 0);
          for (int64_t q = 0; q < k; ++q) acc += A.v[i * k + q] * B.v[q * nn + j];
          y.v.push_back(round_to_dtype(y.dtype, acc));
        }
      }
      return y;
    };
    row("matmul conj(" + n + "(3,4)) " + n + "(4,5)", Op::matmul, {}, {a, b}, {false, false},
        {true, false}, mm, true);
    row("matmul " + n + "(70,90) conj(" + n + "(90,66))[transposed]", Op::matmul, {},
        {big_a, big_b}, {false, true}, {false, true}, mm, true);
    row("matmul conj(" + n + "(70,90))[transposed] conj(" + n + "(90,66))", Op::matmul, {},
        {big_a, big_b}, {true, false}, {true, true}, mm, true);
    const DType other = t == DType::Complex64 ? DType::Complex128 : DType::Complex64;
    row("matmul conj(" + n + "(3,4)) " + std::string(ir::name(other)) + "(4,5)", Op::matmul, {},
        {a, make(other, {4, 5}, seed++)}, {false, false}, {true, false}, mm, true);
    row("add conj(" + n + "(3,4))[transposed] " + n + "(3,4)", Op::add, {},
        {a, make(t, {3, 4}, seed++)}, {true, false}, {true, false},
        [t](const std::vector<CTensor>& in) {
          return elementwise2(in[0], in[1], t, [t](C x, C y) {
            return in_precision(t, x, y, [](auto u, auto v) { return u + v; });
          });
        });
    for (Op op : {Op::real, Op::imag, Op::abs}) {
      row(std::string(ir::name(op)) + " conj(" + n + "(3,4))", op, {}, {a}, {false}, {true},
          [op, t](const std::vector<CTensor>& in) {
            return elementwise1(in[0], component(t), [op](C v) {
              return C(op == Op::real ? v.real() : op == Op::imag ? v.imag() : std::abs(v), 0);
            });
          });
    }
    row("conj conj(" + n + "(3,4))[transposed]", Op::conj, {}, {a}, {true}, {true},
        [](const std::vector<CTensor>& in) {
          CTensor y = in[0];
          for (C& v : y.v) v = std::conj(v);
          return y;
        });
    row("reshape conj(" + n + "(3,4))[transposed]", Op::reshape,
        {{Attr::shape, std::vector<int64_t>{12}}}, {a}, {true}, {true},
        [](const std::vector<CTensor>& in) {
          CTensor y = in[0];
          y.shape = {12};
          return y;
        });
    row("permute conj(" + n + "(3,4))", Op::permute, {{Attr::dims, std::vector<int64_t>{1, 0}}},
        {a}, {false}, {true}, [](const std::vector<CTensor>& in) {
          CTensor y{in[0].dtype, {4, 3}, {}};
          for (int64_t j = 0; j < 4; ++j) {
            for (int64_t i = 0; i < 3; ++i) y.v.push_back(in[0].v[i * 4 + j]);
          }
          return y;
        });
    row(
        "sum conj(" + n + "(3,4))", Op::sum, {{Attr::axes, std::vector<int64_t>{1}}},
        {make(t, {3, 4}, seed++)}, {false}, {true},
        [t](const std::vector<CTensor>& in) {
          CTensor y{t, {3}, {}};
          for (int64_t i = 0; i < 3; ++i) {
            C acc(0, 0);
            for (int64_t j = 0; j < 4; ++j) acc += in[0].v[i * 4 + j];
            y.v.push_back(round_to_dtype(t, acc));
          }
          return y;
        },
        true);
    FftSpec f{{-1}, std::nullopt, 0, false};
    row(
        "fft_c2c conj(" + n + "(3,8))", Op::fft_c2c, fft_attrs(f, true), {make(t, {3, 8}, seed++)},
        {false}, {true},
        [f](const std::vector<CTensor>& in) { return ref_fft(Op::fft_c2c, in[0], f); }, true);
  }
}

}  // namespace

std::vector<CCase> complex_cases() {
  std::vector<CCase> out;
  add_elementwise(out);
  add_fft(out);
  add_conj_views(out);
  for (CCase& c : complex_math_cases()) out.push_back(std::move(c));
  for (CCase& c : complex_movement_cases()) out.push_back(std::move(c));
  return out;
}

}  // namespace tensord::conformance::complex_table

namespace tensord::conformance {

std::vector<ir::Op> complex_table_ops() {
  using ir::Op;
  return {Op::real,    Op::imag,    Op::angle,   Op::conj,
          Op::complex, Op::fft_c2c, Op::fft_r2c, Op::fft_c2r};
}

}  // namespace tensord::conformance
