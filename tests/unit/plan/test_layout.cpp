// Stride arithmetic of views: checked against the elements each layout actually addresses.
#include <catch2/catch.hpp>

#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include "engine/ir/shape.h"
#include "engine/plan/layout.h"

using tensord::engine::contiguous_layout;
using tensord::engine::expanded;
using tensord::engine::is_contiguous;
using tensord::engine::Layout;
using tensord::engine::permuted;
using tensord::engine::slice_range;
using tensord::engine::sliced;
using tensord::engine::view_strides;
using Ints = std::vector<int64_t>;

namespace {

// The buffer offsets of a layout's elements in row-major element order.
Ints element_offsets(const Ints& shape, const Layout& layout) {
  const int64_t n = tensord::ir::numel(shape);
  Ints out;
  Ints index(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = layout.offset;
    for (size_t d = 0; d < shape.size(); ++d) off += index[d] * layout.strides[d];
    out.push_back(off);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("is_contiguous ignores size-1 strides and treats empty tensors as contiguous") {
  CHECK(is_contiguous(Ints{2, 3}, Ints{3, 1}));
  CHECK_FALSE(is_contiguous(Ints{2, 3}, Ints{1, 2}));
  CHECK(is_contiguous(Ints{2, 1, 3}, Ints{3, 99, 1}));
  CHECK(is_contiguous(Ints{}, Ints{}));
  CHECK(is_contiguous(Ints{4, 0, 3}, Ints{0, 7, -1}));
  CHECK_FALSE(is_contiguous(Ints{3}, Ints{0}));
  CHECK_FALSE(is_contiguous(Ints{3}, Ints{-1}));
}

TEST_CASE("view_strides of contiguous layouts are contiguous") {
  for (const Ints& to : {Ints{24}, Ints{4, 6}, Ints{2, 1, 12}, Ints{1, 2, 3, 4, 1}}) {
    auto strides = view_strides(Ints{2, 3, 4}, Ints{12, 4, 1}, to);
    REQUIRE(strides);
    CHECK(is_contiguous(to, *strides));
  }
}

TEST_CASE("view_strides refuses to flatten a transposed layout") {
  // (3, 2) seen through a transpose of a contiguous (2, 3).
  CHECK_FALSE(view_strides(Ints{3, 2}, Ints{1, 3}, Ints{6}));
  CHECK_FALSE(view_strides(Ints{3, 2}, Ints{1, 3}, Ints{2, 3}));
  // Adding or removing size-1 dimensions and splitting a single dimension stays a view.
  auto strides = view_strides(Ints{3, 2}, Ints{1, 3}, Ints{3, 1, 2});
  REQUIRE(strides);
  CHECK((*strides)[0] == 1);
  CHECK((*strides)[2] == 3);
  strides = view_strides(Ints{4, 2}, Ints{1, 4}, Ints{2, 2, 2});
  REQUIRE(strides);
  CHECK(*strides == Ints{2, 1, 4});
}

TEST_CASE("view_strides handles zero, negative and unit strides") {
  // Expanded rows: (3, 4) with stride 0 on the rows splits its columns but cannot flatten.
  auto strides = view_strides(Ints{3, 4}, Ints{0, 1}, Ints{3, 2, 2});
  REQUIRE(strides);
  CHECK(*strides == Ints{0, 2, 1});
  CHECK_FALSE(view_strides(Ints{3, 4}, Ints{0, 1}, Ints{12}));
  // A flipped vector is still one chunk.
  strides = view_strides(Ints{4}, Ints{-1}, Ints{2, 2});
  REQUIRE(strides);
  CHECK(*strides == Ints{-2, -1});
  // One element or none: anything goes.
  CHECK(view_strides(Ints{}, Ints{}, Ints{1, 1}));
  CHECK(view_strides(Ints{1, 1}, Ints{5, 7}, Ints{}));
  CHECK(view_strides(Ints{0, 3}, Ints{1, 0}, Ints{3, 0, 2}));
}

TEST_CASE("view_strides, when it answers, addresses exactly the same elements") {
  std::mt19937 rng(1234);
  int views = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    // A random (2..4)-d layout made of permutes, flips and step-2 slices of a contiguous one.
    const size_t rank = 1 + rng() % 4;
    Ints shape(rank);
    for (auto& d : shape) d = 1 + rng() % 4;
    Layout layout = contiguous_layout(shape);
    Ints dims(rank);
    std::iota(dims.begin(), dims.end(), 0);
    std::shuffle(dims.begin(), dims.end(), rng);
    if (rng() % 2) {
      layout = permuted(layout, dims);
      Ints permuted_shape(rank);
      for (size_t i = 0; i < rank; ++i) permuted_shape[i] = shape[dims[i]];
      shape = permuted_shape;
    }
    if (rng() % 3 == 0) {
      const auto axis = static_cast<int64_t>(rng() % rank);
      const int64_t step = rng() % 2 ? -1 : 2;
      auto range = slice_range(shape[axis], std::nullopt, std::nullopt, step);
      layout = sliced(layout, axis, range);
      shape[axis] = range.length;
    }
    const Ints offsets = element_offsets(shape, layout);
    // Random factorisation of the element count into a new shape.
    int64_t rest = tensord::ir::numel(shape);
    Ints target;
    for (int64_t f = 2; f <= rest;) {
      if (rest % f == 0 && rng() % 2) {
        target.push_back(f);
        rest /= f;
      } else if (rest % f == 0 && rng() % 3 == 0) {
        target.push_back(1);
      } else {
        ++f;
      }
    }
    if (rest > 1) target.push_back(rest);
    auto strides = view_strides(shape, layout.strides, target);
    if (strides) {
      ++views;
      CHECK(element_offsets(target, Layout{*strides, layout.offset}) == offsets);
    }
  }
  CHECK(views > 500);  // the test must exercise the success path a lot
}

TEST_CASE("slice_range follows Python's slice.indices") {
  struct Case {
    int64_t n;
    std::optional<int64_t> start, stop;
    int64_t step, length, first;
  };
  const auto none = std::nullopt;
  // Expected values from CPython: len(range(*slice(a, b, s).indices(n))) and its start.
  const Case cases[] = {
      {5, none, none, 1, 5, 0},   {5, none, none, -1, 5, 4}, {5, 1, 4, 2, 2, 1},
      {5, -100, 100, 1, 5, 0},    {5, 10, none, -1, 5, 4},   {5, none, -10, -1, 5, 4},
      {5, 3, 3, 1, 0, 3},         {5, 3, 1, 1, 0, 3},        {5, -2, none, 1, 2, 3},
      {5, -2, none, -2, 2, 3},    {5, 4, 0, -3, 2, 4},       {0, none, none, 1, 0, 0},
      {0, none, none, -1, 0, -1}, {0, 2, -3, -1, 0, -1},     {1, 0, 1, 5, 1, 0},
      {7, -1, -8, -2, 4, 6},      {7, 6, none, -7, 1, 6},    {7, none, none, 3, 3, 0},
      {7, 2, -2, 2, 2, 2},        {3, -4, 2, 1, 2, 0},
  };
  for (const Case& c : cases) {
    INFO("n=" << c.n << " step=" << c.step);
    auto r = slice_range(c.n, c.start, c.stop, c.step);
    CHECK(r.length == c.length);
    CHECK(r.start == c.first);
  }
  // Extreme steps do not overflow.
  CHECK(slice_range(5, none, none, INT64_MIN).length == 1);
  CHECK(slice_range(5, none, none, INT64_MAX).length == 1);
  CHECK(slice_range(5, INT64_MIN, INT64_MAX, 1).length == 5);
}

TEST_CASE("permuted, expanded and sliced address the right elements") {
  const Layout base = contiguous_layout(Ints{2, 3});
  CHECK(element_offsets(Ints{3, 2}, permuted(base, Ints{1, 0})) == Ints{0, 3, 1, 4, 2, 5});

  const Layout row = contiguous_layout(Ints{1, 3});
  CHECK(element_offsets(Ints{2, 2, 3}, expanded(Ints{1, 3}, row, Ints{2, 2, 3})) ==
        Ints{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2});

  const Layout flipped = sliced(base, 1, slice_range(3, std::nullopt, std::nullopt, -1));
  CHECK(element_offsets(Ints{2, 3}, flipped) == Ints{2, 1, 0, 5, 4, 3});
  const Layout stepped = sliced(flipped, 0, slice_range(2, 1, std::nullopt, 1));
  CHECK(element_offsets(Ints{1, 3}, stepped) == Ints{5, 4, 3});
  const Layout huge_step = sliced(base, 1, slice_range(3, 1, std::nullopt, INT64_MAX));
  CHECK(element_offsets(Ints{2, 1}, huge_step) == Ints{1, 4});
}
