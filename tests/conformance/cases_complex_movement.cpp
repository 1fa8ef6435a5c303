// Issue 4: complex64/complex128 through the movement and indexing ops and the composites built on
// them: pad, index_select, gather, take, take_along_dim, masked_fill, tril, triu, tile,
// repeat_interleave, rot90, diagonal, diag_embed, diag, trace, outer, kron, the scatters and
// index_put, nansum, nanmean and cross. The reference of most is the main table's (reference.h)
// run once on the real and once on the imaginary parts: these ops move values without combining
// them, or add them, which is linear too. outer, kron and cross multiply, and nansum/nanmean
// skip a value with a NaN in either part, so their references are written here.
#include <cmath>
#include <string>
#include <vector>

#include "tests/conformance/complex_runner.h"
#include "tests/conformance/reference.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace tensord::conformance::complex_table {
namespace {

using ir::Attr;
using ir::Attrs;
using ir::Op;
using Ints = std::vector<int64_t>;

bool complex_dtype(DType t) {
  return t == DType::Complex64 || t == DType::Complex128;
}

// One part of x as the main reference's tensor: the real or imaginary part of a complex input
// in float64; a real input (an index, a mask) as it is, for both parts.
RefTensor part(const CTensor& x, bool imag) {
  const bool cx = complex_dtype(x.dtype);
  RefTensor r(cx ? DType::Float64 : x.dtype, x.shape);
  for (int64_t k = 0; k < numel(x.shape); ++k) {
    const double v = cx && imag ? x.v[k].imag() : x.v[k].real();
    r.put(k, r.floating() ? Num::of_float(v) : Num::of_int(static_cast<int64_t>(v)));
  }
  return r;
}

// The main reference on each part. A fill value (pad, masked_fill) is real: the imaginary part
// is filled with 0.
CTensor by_parts(Op op, const Attrs& attrs, const std::vector<CTensor>& in, DType out) {
  Attrs imag_attrs = attrs;
  if (imag_attrs.has(Attr::value)) imag_attrs.set(Attr::value, 0.0);
  std::vector<RefTensor> re, im;
  for (const CTensor& x : in) re.push_back(part(x, false)), im.push_back(part(x, true));
  const RefTensor r = reference(op, re, attrs).value;
  const RefTensor i = reference(op, im, imag_attrs).value;
  CTensor y{out, r.shape, {}};
  for (int64_t k = 0; k < r.numel(); ++k) {
    y.v.push_back(round_to_dtype(out, C(r.as_double(k), i.as_double(k))));
  }
  return y;
}

CTensor values(DType t, Shape s, std::vector<int64_t> v) {
  CTensor x{t, std::move(s), {}};
  for (int64_t i : v) x.v.push_back(C(static_cast<double>(i), 0));
  return x;
}

// kron of a and b (outer: two vectors, kept apart by reshapes to (n, 1) and (1, m)), each
// product in the output's precision.
CTensor product_table(const CTensor& a, const CTensor& b, DType o, bool outer_product) {
  Shape sa = a.shape, sb = b.shape;
  if (outer_product) sa.push_back(1), sb.insert(sb.begin(), 1);
  while (sa.size() < sb.size()) sa.insert(sa.begin(), 1);
  while (sb.size() < sa.size()) sb.insert(sb.begin(), 1);
  Shape so;
  for (size_t d = 0; d < sa.size(); ++d) so.push_back(sa[d] * sb[d]);
  CTensor y{o, so, {}};
  for (int64_t k = 0; k < numel(so); ++k) {
    std::vector<int64_t> idx = unravel_c(k, so), ia(idx.size()), ib(idx.size());
    for (size_t d = 0; d < idx.size(); ++d) ia[d] = idx[d] / sb[d], ib[d] = idx[d] % sb[d];
    const C p = in_precision(o, a.v[ravel_c(ia, sa)], b.v[ravel_c(ib, sb)],
                             [](auto u, auto v) { return u * v; });
    y.v.push_back(round_to_dtype(o, p));
  }
  return y;
}

}  // namespace

std::vector<CCase> complex_movement_cases() {
  std::vector<CCase> out;
  uint64_t seed = 7000;
  const std::vector<C> specials = {C(0, 0), C(-0.0, -0.0), C(std::nan(""), 1), C(1, INFINITY)};
  for (DType t : {DType::Complex64, DType::Complex128}) {
    const std::string n(ir::name(t));
    auto row = [&](std::string name, Op op, Attrs attrs, std::vector<CTensor> in,
                   std::vector<bool> transposed, bool l2 = false) {
      CCase c{name + " " + n, op, attrs, in, std::move(transposed), nullptr};
      c.ref = [op, attrs, t](const std::vector<CTensor>& v) { return by_parts(op, attrs, v, t); };
      c.l2_scale = l2;
      out.push_back(c);
    };
    const CTensor x = make(t, {3, 4}, seed++, specials), cube = make(t, {2, 3, 3}, seed++);
    const CTensor vec = make(t, {4}, seed++, specials), empty = make(t, {0, 4}, seed++);

    row("pad (3,4) [1,2,-1,1]", Op::pad, {{Attr::pads, Ints{1, 2, -1, 1}}}, {x}, {true});
    row("pad (3,4) value 2.5", Op::pad, {{Attr::pads, Ints{0, 1, 2, 0}}, {Attr::value, 2.5}}, {x},
        {false});
    row("pad (0,4) value -1", Op::pad, {{Attr::pads, Ints{1, 0, 0, 1}}, {Attr::value, int64_t{-1}}},
        {empty}, {false});
    row("index_select axis 1", Op::index_select, {{Attr::axis, int64_t{1}}},
        {x, values(DType::Int64, {5}, {3, 0, 0, 2, 1})}, {true, false});
    row("index_select axis 0 int32", Op::index_select, {{Attr::axis, int64_t{0}}},
        {x, values(DType::Int32, {2}, {2, 0})}, {false, false});
    CCase range{"index_select out of range " + n,
                Op::index_select,
                {{Attr::axis, int64_t{0}}},
                {x, values(DType::Int64, {2}, {0, 3})},
                {false, false},
                nullptr,
                ErrorCode::Shape};
    range.error_at_run = true;
    out.push_back(range);
    row("gather axis 0", Op::gather, {{Attr::axis, int64_t{0}}},
        {x, values(DType::Int64, {2, 4}, {2, 1, 0, 0, 1, 1, 2, 2})}, {true, false});
    row("take (2,2)", Op::take, {}, {x, values(DType::Int64, {2, 2}, {11, 0, 5, 5})},
        {true, false});
    row("take_along_dim axis 1", Op::take_along_dim, {{Attr::axis, int64_t{1}}},
        {x, values(DType::Int64, {3, 2}, {3, 0, 1, 1, 2, 3})}, {false, false});
    row("take_along_dim flat", Op::take_along_dim, {}, {x, values(DType::Int64, {3}, {7, 0, 11})},
        {false, false});
    row("masked_fill 1.5", Op::masked_fill, {{Attr::value, 1.5}},
        {x, values(DType::Bool, {4}, {1, 0, 0, 1})}, {true, false});
    row("tril (3,4)", Op::tril, {}, {x}, {true});
    row("tril (2,3,3) k=-1", Op::tril, {{Attr::k, int64_t{-1}}}, {cube}, {false});
    row("triu (3,4) k=1", Op::triu, {{Attr::k, int64_t{1}}}, {x}, {false});
    row("tile (3,4) reps (2,1,2)", Op::tile, {{Attr::reps, Ints{2, 1, 2}}}, {x}, {true});
    row("repeat_interleave axis 1", Op::repeat_interleave,
        {{Attr::repeats, int64_t{2}}, {Attr::axis, int64_t{1}}}, {x}, {false});
    row("repeat_interleave flat", Op::repeat_interleave, {{Attr::repeats, int64_t{3}}}, {x},
        {true});
    row("rot90 k=1", Op::rot90, {}, {x}, {false});
    row("rot90 k=2", Op::rot90, {{Attr::k, int64_t{2}}}, {x}, {true});
    row("diagonal k=1", Op::diagonal, {{Attr::k, int64_t{1}}}, {x}, {true});
    row("diagonal (2,3,3) dims (1,2)", Op::diagonal, {{Attr::dims, Ints{1, 2}}}, {cube}, {false});
    row("diag_embed (2,3) k=-1", Op::diag_embed, {{Attr::k, int64_t{-1}}},
        {make(t, {2, 3}, seed++)}, {false});
    row("diag of a vector", Op::diag, {}, {vec}, {false});
    row("diag of a matrix k=-1", Op::diag, {{Attr::k, int64_t{-1}}}, {x}, {true});
    row("trace (4,5)", Op::trace, {}, {make(t, {4, 5}, seed++)}, {false}, true);
    row("trace (3,4) k=1", Op::trace, {{Attr::k, int64_t{1}}}, {x}, {true}, true);

    // Scatters (written one part at a time by decompose.cpp).
    const CTensor src = make(t, {2, 4}, seed++);
    const CTensor rows = values(DType::Int64, {2, 4}, {2, 0, 1, 2, 0, 0, 2, 1});
    row("scatter axis 0", Op::scatter, {{Attr::axis, int64_t{0}}}, {x, rows, src},
        {true, false, false});
    row("scatter_add axis 0", Op::scatter_add, {{Attr::axis, int64_t{0}}}, {x, rows, src},
        {false, false, false});
    for (int64_t reduction : {0, 2}) {
      for (bool self : {true, false}) {
        row("scatter_reduce " + std::to_string(reduction) + (self ? "" : " without self"),
            Op::scatter_reduce,
            {{Attr::axis, int64_t{0}}, {Attr::reduction, reduction}, {Attr::include_self, self}},
            {x, rows, src}, {false, false, false});
      }
    }
    row("index_put rows", Op::index_put, {},
        {x, make(t, {2, 4}, seed++), values(DType::Int64, {2}, {2, 0})}, {true, false, false});
    row("index_put accumulate", Op::index_put, {{Attr::accumulate, true}},
        {x, make(t, {3}, seed++), values(DType::Int64, {3}, {1, 1, 2}),
         values(DType::Int64, {3}, {0, 0, 3})},
        {false, false, false, false});
    row("index_put mask", Op::index_put, {},
        {x, make(t, {1, 4}, seed++), values(DType::Bool, {3}, {1, 0, 1})}, {false, false, false});

    // nansum and nanmean skip values with a NaN in either part (NumPy's isnan of complex).
    const CTensor nans =
        make(t, {3, 4}, seed++, {C(std::nan(""), 1), C(2, std::nan("")), C(0.5, 0.25)});
    for (Op op : {Op::nansum, Op::nanmean}) {
      for (bool all : {false, true}) {
        Attrs a{{Attr::keepdim, false}};
        if (!all) a.set(Attr::axes, Ints{1});
        CCase c{std::string(ir::name(op)) + (all ? " all " : " axis 1 ") + n,
                op,
                a,
                {nans},
                {false},
                nullptr};
        c.ref = [op, all, t](const std::vector<CTensor>& v) {
          const CTensor& z = v[0];
          CTensor y{t, all ? Shape{} : Shape{3}, {}};
          for (int64_t r = 0; r < (all ? 1 : 3); ++r) {
            C acc(0, 0);
            int64_t count = 0;
            for (int64_t k = all ? 0 : r * 4; k < (all ? 12 : r * 4 + 4); ++k) {
              const C w = z.v[k];
              if (std::isnan(w.real()) || std::isnan(w.imag())) continue;
              acc += w, ++count;
            }
            if (op == Op::nanmean) acc /= static_cast<double>(count);
            y.v.push_back(round_to_dtype(t, acc));
          }
          return y;
        };
        c.l2_scale = true;
        out.push_back(c);
      }
    }
    // cross of 3-vectors along the last axis: products and differences in the output's precision.
    {
      CCase c{"cross (4,3) " + n,
              Op::cross,
              {{Attr::axis, int64_t{-1}}},
              {make(t, {4, 3}, seed++), make(t, {4, 3}, seed++)},
              {false, false},
              nullptr};
      c.ref = [t](const std::vector<CTensor>& v) {
        auto mul = [t](C u, C w) {
          return in_precision(t, u, w, [](auto p, auto q) { return p * q; });
        };
        auto sub = [t](C u, C w) {
          return in_precision(t, u, w, [](auto p, auto q) { return p - q; });
        };
        CTensor y{t, {4, 3}, {}};
        for (int64_t r = 0; r < 4; ++r) {
          const C* a = &v[0].v[r * 3];
          const C* b = &v[1].v[r * 3];
          y.v.push_back(round_to_dtype(t, sub(mul(a[1], b[2]), mul(a[2], b[1]))));
          y.v.push_back(round_to_dtype(t, sub(mul(a[2], b[0]), mul(a[0], b[2]))));
          y.v.push_back(round_to_dtype(t, sub(mul(a[0], b[1]), mul(a[1], b[0]))));
        }
        return y;
      };
      out.push_back(c);
    }

    const DType partners[] = {t, DType::Float64, DType::Float32};
    for (DType p : partners) {
      const std::string pn(ir::name(p));
      const DType o = ref_promote_c(t, p);
      CCase c{"outer " + n + "(3) " + pn + "(4)",           Op::outer,      {},
              {make(t, {3}, seed++), make(p, {4}, seed++)}, {false, false}, nullptr};
      c.ref = [o](const std::vector<CTensor>& v) { return product_table(v[0], v[1], o, true); };
      out.push_back(c);
      CCase k{"kron " + pn + "(2,2) " + n + "(2,3)",
              Op::kron,
              {},
              {make(p, {2, 2}, seed++), make(t, {2, 3}, seed++)},
              {false, true},
              nullptr};
      k.ref = [o](const std::vector<CTensor>& v) { return product_table(v[0], v[1], o, false); };
      out.push_back(k);
    }
    CCase k3{"kron " + n + "(3) " + n + "(2,2)",
             Op::kron,
             {},
             {make(t, {3}, seed++), make(t, {2, 2}, seed++)},
             {false, false},
             nullptr};
    k3.ref = [t](const std::vector<CTensor>& v) { return product_table(v[0], v[1], t, false); };
    out.push_back(k3);
  }
  // The real gates still hold: a complex index or mask is a dtype error; so are complex
  // values written into a real x and the scatter reductions that mix the parts.
  out.push_back(CCase{"index_put complex values into float32",
                      Op::index_put,
                      {},
                      {make(DType::Float32, {3, 4}, seed++), make(DType::Complex64, {4}, seed++),
                       values(DType::Int64, {1}, {1})},
                      {false, false, false},
                      nullptr,
                      ErrorCode::DType});
  out.push_back(
      CCase{"scatter_reduce amax of complex64",
            Op::scatter_reduce,
            {{Attr::axis, int64_t{0}}, {Attr::reduction, int64_t{3}}},
            {make(DType::Complex64, {3, 4}, seed++), values(DType::Int64, {1, 4}, {0, 1, 2, 0}),
             make(DType::Complex64, {1, 4}, seed++)},
            {false, false, false},
            nullptr,
            ErrorCode::DType});
  const CTensor x = make(DType::Complex64, {3, 4}, seed++);
  out.push_back(CCase{"index_select complex index",
                      Op::index_select,
                      {{Attr::axis, int64_t{0}}},
                      {x, make(DType::Complex64, {2}, seed++)},
                      {false, false},
                      nullptr,
                      ErrorCode::DType});
  out.push_back(CCase{"masked_fill complex mask",
                      Op::masked_fill,
                      {{Attr::value, 1.0}},
                      {x, make(DType::Complex64, {3, 4}, seed++)},
                      {false, false},
                      nullptr,
                      ErrorCode::DType});
  return out;
}

}  // namespace tensord::conformance::complex_table
