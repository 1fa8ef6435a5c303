// Canonical forms: equal programs give equal forms whatever their source locations; any change
// of op, attribute, dtype, shape, edge or output changes the form and the hash.
#include <set>

#include "engine/ir/passes.h"
#include "tests/unit/ir/ir_test_util.h"

namespace tensord::ir {
namespace {

using test::F32;
using test::T;
using D = DType;
using Ints = std::vector<int64_t>;

// A small program, with knobs for each kind of change.
struct Program {
  D dtype = D::Float32;
  Shape shape{2, 3};
  Op op = Op::add;
  Ints axes{1};
  bool keepdim = false;
  double scale = 0.5;
  bool swap_edges = false;
  bool output_sum = true;
  std::string file = "a.cpp";
  uint32_t line = 10;

  std::pair<Graph, std::vector<ValueRef>> build() const {
    Graph g;
    NodeLocation loc{g.intern_file(file), line};
    ValueRef x = g.add_input(0, T(dtype, shape), loc);
    ValueRef y = g.add_input(1, T(dtype, shape), NodeLocation{loc.file, line + 1});
    ValueRef c = g.add(Op::full, {},
                       {{Attr::shape, Shape{}}, {Attr::value, scale}, {Attr::dtype, dtype}}, loc);
    ValueRef z = swap_edges ? g.add(op, {y, x}, {}, loc) : g.add(op, {x, y}, {}, loc);
    ValueRef w = g.add(Op::mul, {z, c}, {}, loc);
    ValueRef s = g.add(Op::sum, {w}, {{Attr::axes, axes}, {Attr::keepdim, keepdim}}, loc);
    return {std::move(g), output_sum ? std::vector<ValueRef>{s} : std::vector<ValueRef>{w}};
  }
  CanonicalForm form() const {
    auto [g, outs] = build();
    return canonical_form(g, outs);
  }
};

TEST_CASE("equal programs have equal canonical forms", "[canonical]") {
  Program a, b;
  b.file = "elsewhere/b.cpp";
  b.line = 99;
  CHECK(a.form() == b.form());
  CHECK(a.form().hash == b.form().hash);
  CHECK(a.form().words == b.form().words);
  // Rebuilding gives the same form (no addresses or other state leak in).
  CHECK(a.form() == a.form());
}

TEST_CASE("every change of the program changes the form and the hash", "[canonical]") {
  std::vector<Program> variants(12);
  variants[1].dtype = D::Float64;
  variants[2].shape = {3, 2};
  variants[3].op = Op::sub;
  variants[4].axes = {0};
  variants[5].keepdim = true;
  variants[6].scale = -0.5;
  variants[7].swap_edges = true;
  variants[8].output_sum = false;
  variants[9].scale = 0.5000000000000001;  // one ulp
  variants[10].axes = {1, 0};
  variants[11].shape = {2, 1};
  std::set<uint64_t> hashes;
  std::set<std::vector<uint64_t>> forms;
  for (const Program& p : variants) {
    CanonicalForm f = p.form();
    hashes.insert(f.hash);
    forms.insert(f.words);
  }
  CHECK(hashes.size() == variants.size());
  CHECK(forms.size() == variants.size());
}

TEST_CASE("attribute kinds, signed zeros and output order are part of the form", "[canonical]") {
  auto form_of = [](AttrValue value) {
    Graph g;
    ValueRef v = g.add(Op::full, {},
                       {{Attr::shape, Shape{}}, {Attr::value, value}, {Attr::dtype, D::Float32}});
    std::vector<ValueRef> outs{v};
    return canonical_form(g, outs);
  };
  std::set<uint64_t> hashes{form_of(int64_t{1}).hash, form_of(1.0).hash, form_of(true).hash,
                            form_of(0.0).hash, form_of(-0.0).hash};
  CHECK(hashes.size() == 5);
  CHECK(form_of(0.0) == form_of(0.0));

  // A list of floats (interpolate's scales) goes by its values' bits.
  auto scales_form = [](std::vector<double> scales) {
    Graph g;
    ValueRef x = g.add_input(0, F32({1, 1, 5}));
    ValueRef y = g.add(Op::interpolate, {x}, {{Attr::shape, Shape{8}}, {Attr::scales, scales}});
    std::vector<ValueRef> outs{y};
    return canonical_form(g, outs);
  };
  using Fs = std::vector<double>;
  CHECK(scales_form(Fs{1.7}) == scales_form(Fs{1.7}));
  CHECK_FALSE(scales_form(Fs{1.7}).hash == scales_form(Fs{1.75}).hash);
  CHECK_FALSE(scales_form(Fs{1.7}) == scales_form(Fs{1.75}));

  Graph g;
  ValueRef x = g.add_input(0, F32({2}));
  ValueRef y = g.add(Op::neg, {x});
  std::vector<ValueRef> xy{x, y}, yx{y, x}, xx{x, x};
  CHECK_FALSE(canonical_form(g, xy) == canonical_form(g, yx));
  CHECK_FALSE(canonical_form(g, xy) == canonical_form(g, xx));
  // The input index is part of the program.
  Graph h;
  h.add_input(1, F32({2}));
  h.add(Op::neg, {ValueRef{0, 0}});
  CHECK_FALSE(canonical_form(g, xy) == canonical_form(h, xy));
}

TEST_CASE("forms with equal hashes are still told apart by their words", "[canonical]") {
  CanonicalForm a{{1, 2, 3}, 42}, b{{1, 2, 4}, 42};
  CHECK_FALSE(a == b);
}

}  // namespace
}  // namespace tensord::ir
