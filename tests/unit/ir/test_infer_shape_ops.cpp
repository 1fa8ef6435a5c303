// Inference of reductions, views, movement, matmul and normalizations.
#include "engine/ir/axes.h"
#include "tests/unit/ir/ir_test_util.h"

namespace tensord::ir {
namespace {

using test::F32;
using test::infer1;
using test::T;
using D = DType;
using Ints = std::vector<int64_t>;

TEST_CASE("reductions: axes and keepdim", "[infer][reduction]") {
  const TensorType x = F32({2, 3, 4});
  CHECK(infer1(Op::sum, {x}) == F32({}));
  CHECK(infer1(Op::sum, {x}, {{Attr::keepdim, true}}) == F32({1, 1, 1}));
  CHECK(infer1(Op::sum, {x}, {{Attr::axes, Ints{1}}}) == F32({2, 4}));
  CHECK(infer1(Op::sum, {x}, {{Attr::axes, Ints{-1, 0}}, {Attr::keepdim, true}}) == F32({1, 3, 1}));
  CHECK(infer1(Op::sum, {x}, {{Attr::axes, Ints{}}}) == x);  // a listed empty set reduces nothing
  CHECK(infer1(Op::sum, {F32({})}) == F32({}));
  REQUIRE_IR_ERROR(infer1(Op::sum, {x}, {{Attr::axes, Ints{3}}}), ErrorCode::Shape,
                   "axis 3 is out of range for rank 3");
  REQUIRE_IR_ERROR(infer1(Op::sum, {x}, {{Attr::axes, Ints{-4}}}), ErrorCode::Shape,
                   "out of range");
  REQUIRE_IR_ERROR(infer1(Op::sum, {x}, {{Attr::axes, Ints{1, -2}}}), ErrorCode::Shape,
                   "axis 1 is repeated");
  REQUIRE_IR_ERROR(infer1(Op::mean, {F32({})}, {{Attr::axes, Ints{0}}}), ErrorCode::Shape,
                   "out of range");
}

TEST_CASE("reductions: dtypes and empty inputs", "[infer][reduction]") {
  for (int i = 0; i < kNumDTypes - 2; ++i) {  // the real dtypes (complex: test_complex.cpp)
    const D t = static_cast<D>(i);
    INFO(name(t));
    const TensorType x = T(t, {2, 0});
    const D sum_type = is_floating(t) ? t : D::Int64;
    CHECK(infer1(Op::sum, {x}) == T(sum_type, {}));
    CHECK(infer1(Op::prod, {x}, {{Attr::axes, Ints{0}}}) == T(sum_type, {0}));
    CHECK(infer1(Op::max, {x}, {{Attr::axes, Ints{0}}}) == T(t, {0}));
    CHECK(infer1(Op::min, {T(t, {2, 5})}, {{Attr::axes, Ints{1}}}) == T(t, {2}));
    REQUIRE_IR_ERROR(infer1(Op::max, {x}, {{Attr::axes, Ints{1}}}), ErrorCode::Shape, "size 0");
    REQUIRE_IR_ERROR(infer1(Op::min, {x}), ErrorCode::Shape, "size 0");
    CHECK(infer1(Op::argmax, {T(t, {2, 5})}) == T(D::Int64, {}));
    CHECK(infer1(Op::argmin, {T(t, {2, 5})}, {{Attr::keepdim, true}}) == T(D::Int64, {1, 1}));
    CHECK(infer1(Op::argmax, {T(t, {2, 5})}, {{Attr::axis, int64_t{-1}}}) == T(D::Int64, {2}));
    CHECK(infer1(Op::argmax, {T(t, {2, 5})}, {{Attr::axis, int64_t{0}}, {Attr::keepdim, true}}) ==
          T(D::Int64, {1, 5}));
    CHECK(infer1(Op::argmax, {x}, {{Attr::axis, int64_t{0}}}) == T(D::Int64, {0}));
    REQUIRE_IR_ERROR(infer1(Op::argmax, {x}), ErrorCode::Shape, "empty");
    REQUIRE_IR_ERROR(infer1(Op::argmin, {x}, {{Attr::axis, int64_t{1}}}), ErrorCode::Shape,
                     "size 0");
    REQUIRE_IR_ERROR(infer1(Op::argmin, {x}, {{Attr::axis, int64_t{2}}}), ErrorCode::Shape,
                     "out of range");
    if (is_floating(t)) {
      CHECK(infer1(Op::mean, {x}) == T(t, {}));
      CHECK(infer1(Op::var, {x},
                   {{Attr::axes, Ints{1}}, {Attr::keepdim, true}, {Attr::correction, 1.0}}) ==
            T(t, {2, 1}));
    } else {
      REQUIRE_IR_ERROR(infer1(Op::mean, {x}), ErrorCode::DType,
                       "mean needs a floating-point input");
      REQUIRE_IR_ERROR(infer1(Op::var, {x}), ErrorCode::DType, "floating-point");
    }
  }
}

TEST_CASE("reshape", "[infer][view]") {
  auto reshape = [](Shape from, Ints to) {
    return infer1(Op::reshape, {F32(std::move(from))}, {{Attr::shape, to}}).shape;
  };
  CHECK(reshape({2, 3}, {3, 2}) == Shape{3, 2});
  CHECK(reshape({2, 3}, {-1}) == Shape{6});
  CHECK(reshape({2, 3}, {3, -1}) == Shape{3, 2});
  CHECK(reshape({}, {1, 1}) == Shape{1, 1});
  CHECK(reshape({1}, {}) == Shape{});
  CHECK(reshape({0, 3}, {3, 0, 5}) == Shape{3, 0, 5});
  CHECK(reshape({4}, {-1, 1, 1}) == Shape{4, 1, 1});
  REQUIRE_IR_ERROR(reshape({2, 3}, {4}), ErrorCode::Shape,
                   "cannot reshape (2, 3) (6 elements) into (4,)");
  REQUIRE_IR_ERROR(reshape({2, 3}, {-1, -1}), ErrorCode::Shape, "only one dimension can be -1");
  REQUIRE_IR_ERROR(reshape({2, 3}, {-2, -3}), ErrorCode::Shape, "negative");
  REQUIRE_IR_ERROR(reshape({2, 3}, {4, -1}), ErrorCode::Shape, "cannot reshape");
  REQUIRE_IR_ERROR(reshape({0, 3}, {0, -1}), ErrorCode::Shape, "multiply to 0");
  REQUIRE_IR_ERROR(reshape({6}, {int64_t{1} << 62, 8, -1}), ErrorCode::Shape, "cannot reshape");
  REQUIRE_IR_ERROR(reshape({6}, Ints(17, 1)), ErrorCode::InvalidGraph, "rank 17");
}

TEST_CASE("permute and transpose", "[infer][view]") {
  const TensorType x = F32({2, 3, 4});
  CHECK(infer1(Op::permute, {x}, {{Attr::dims, Ints{2, 0, 1}}}).shape == Shape{4, 2, 3});
  CHECK(infer1(Op::permute, {x}, {{Attr::dims, Ints{-1, -3, 1}}}).shape == Shape{4, 2, 3});
  CHECK(infer1(Op::permute, {F32({})}, {{Attr::dims, Ints{}}}).shape == Shape{});
  REQUIRE_IR_ERROR(infer1(Op::permute, {x}, {{Attr::dims, Ints{0, 1}}}), ErrorCode::Shape,
                   "do not match rank 3");
  REQUIRE_IR_ERROR(infer1(Op::permute, {x}, {{Attr::dims, Ints{0, 1, 1}}}), ErrorCode::Shape,
                   "repeated");
  REQUIRE_IR_ERROR(infer1(Op::permute, {x}, {{Attr::dims, Ints{0, 1, 3}}}), ErrorCode::Shape,
                   "out of range");
  CHECK(infer1(Op::transpose, {x}, {{Attr::dims, Ints{0, -1}}}).shape == Shape{4, 3, 2});
  CHECK(infer1(Op::transpose, {x}, {{Attr::dims, Ints{1, 1}}}).shape == Shape{2, 3, 4});
  REQUIRE_IR_ERROR(infer1(Op::transpose, {x}, {{Attr::dims, Ints{0}}}), ErrorCode::Shape,
                   "two axes");
  REQUIRE_IR_ERROR(infer1(Op::transpose, {x}, {{Attr::dims, Ints{0, 3}}}), ErrorCode::Shape,
                   "out of range");
}

TEST_CASE("expand", "[infer][view]") {
  auto expand = [](Shape from, Ints to) {
    return infer1(Op::expand, {F32(std::move(from))}, {{Attr::shape, to}}).shape;
  };
  CHECK(expand({3}, {2, 3}) == Shape{2, 3});
  CHECK(expand({1}, {2, 0}) == Shape{2, 0});
  CHECK(expand({2, 1}, {-1, 4}) == Shape{2, 4});
  CHECK(expand({}, {5}) == Shape{5});
  CHECK(expand({2, 3}, {0, 2, 3}) == Shape{0, 2, 3});
  REQUIRE_IR_ERROR(expand({3}, {4}), ErrorCode::Shape, "cannot expand (3,) to (4,)");
  REQUIRE_IR_ERROR(expand({2, 3}, {3}), ErrorCode::Shape, "lower rank");
  REQUIRE_IR_ERROR(expand({3}, {-1, 3}), ErrorCode::Shape, "new dimensions");
  REQUIRE_IR_ERROR(expand({1}, {-2}), ErrorCode::Shape, "cannot expand");
}

TEST_CASE("slice follows Python slice semantics", "[infer][view]") {
  auto len = [](std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step,
                int64_t n) {
    Attrs attrs{{Attr::axis, int64_t{0}}, {Attr::step, step}};
    if (start) attrs.set(Attr::start, *start);
    if (stop) attrs.set(Attr::stop, *stop);
    return infer1(Op::slice, {F32({n})}, attrs).shape[0];
  };
  // Expected values from len(range(10)[start:stop:step]) in CPython.
  CHECK(len({}, {}, 1, 10) == 10);
  CHECK(len(2, 5, 1, 10) == 3);
  CHECK(len(-3, {}, 1, 10) == 3);
  CHECK(len({}, {}, 3, 10) == 4);
  CHECK(len({}, {}, -1, 10) == 10);
  CHECK(len(8, 2, -2, 10) == 3);
  CHECK(len(-100, 100, 1, 10) == 10);
  CHECK(len(100, -100, -1, 10) == 10);
  CHECK(len(5, 5, 1, 10) == 0);
  CHECK(len(7, 3, 1, 10) == 0);
  CHECK(len({}, {}, -1, 0) == 0);
  CHECK(len({}, {}, INT64_MIN, 10) == 1);
  CHECK(len({}, {}, INT64_MAX, 10) == 1);
  CHECK(len(INT64_MIN, INT64_MAX, 1, 10) == 10);
  REQUIRE_IR_ERROR(len({}, {}, 0, 10), ErrorCode::Shape, "step cannot be zero");
  CHECK(infer1(Op::slice, {F32({4, 6})}, {{Attr::axis, int64_t{-1}}, {Attr::start, int64_t{1}}})
            .shape == Shape{4, 5});
  REQUIRE_IR_ERROR(infer1(Op::slice, {F32({})}, {{Attr::axis, int64_t{0}}}), ErrorCode::Shape,
                   "out of range");

  const SliceRange r = resolve_slice(std::nullopt, std::nullopt, -1, 5);
  CHECK(r.start == 4);
  CHECK(r.length == 5);
  CHECK(resolve_slice(-2, std::nullopt, 1, 5).start == 3);
}

TEST_CASE("squeeze, unsqueeze, flip", "[infer][view]") {
  const TensorType x = F32({1, 3, 1});
  CHECK(infer1(Op::squeeze, {x}).shape == Shape{3});
  CHECK(infer1(Op::squeeze, {x}, {{Attr::axes, Ints{-1}}}).shape == Shape{1, 3});
  CHECK(infer1(Op::squeeze, {x}, {{Attr::axes, Ints{}}}).shape == Shape{1, 3, 1});
  CHECK(infer1(Op::squeeze, {F32({})}).shape == Shape{});
  REQUIRE_IR_ERROR(infer1(Op::squeeze, {x}, {{Attr::axes, Ints{1}}}), ErrorCode::Shape,
                   "cannot squeeze axis 1 of size 3");
  REQUIRE_IR_ERROR(infer1(Op::squeeze, {x}, {{Attr::axes, Ints{0, 0}}}), ErrorCode::Shape,
                   "repeated");

  CHECK(infer1(Op::unsqueeze, {F32({2, 3})}, {{Attr::axes, Ints{0}}}).shape == Shape{1, 2, 3});
  CHECK(infer1(Op::unsqueeze, {F32({2, 3})}, {{Attr::axes, Ints{-1}}}).shape == Shape{2, 3, 1});
  CHECK(infer1(Op::unsqueeze, {F32({2, 3})}, {{Attr::axes, Ints{0, 3}}}).shape ==
        Shape{1, 2, 3, 1});
  CHECK(infer1(Op::unsqueeze, {F32({2, 3})}, {{Attr::axes, Ints{1, 2}}}).shape ==
        Shape{2, 1, 1, 3});
  CHECK(infer1(Op::unsqueeze, {F32({})}, {{Attr::axes, Ints{0}}}).shape == Shape{1});
  REQUIRE_IR_ERROR(infer1(Op::unsqueeze, {F32({2})}, {{Attr::axes, Ints{0, -3}}}), ErrorCode::Shape,
                   "repeated");
  REQUIRE_IR_ERROR(infer1(Op::unsqueeze, {F32({2})}, {{Attr::axes, Ints{2}}}), ErrorCode::Shape,
                   "out of range");
  REQUIRE_IR_ERROR(infer1(Op::unsqueeze, {F32(Shape(16, 1))}, {{Attr::axes, Ints{0}}}),
                   ErrorCode::InvalidGraph, "rank 17");

  CHECK(infer1(Op::flip, {x}) == x);
  CHECK(infer1(Op::flip, {x}, {{Attr::axes, Ints{0, -2}}}) == x);
  REQUIRE_IR_ERROR(infer1(Op::flip, {x}, {{Attr::axes, Ints{0, -3}}}), ErrorCode::Shape,
                   "repeated");
  REQUIRE_IR_ERROR(infer1(Op::flip, {x}, {{Attr::axes, Ints{5}}}), ErrorCode::Shape,
                   "out of range");
}

TEST_CASE("concat and stack", "[infer][movement]") {
  const Attrs axis0{{Attr::axis, int64_t{0}}}, axis1{{Attr::axis, int64_t{1}}};
  CHECK(infer1(Op::concat, {F32({2, 3})}, axis0) == F32({2, 3}));
  CHECK(infer1(Op::concat, {F32({2, 3}), T(D::Int64, {5, 3}), T(D::Float64, {0, 3})}, axis0) ==
        T(D::Float64, {7, 3}));
  CHECK(infer1(Op::concat, {T(D::Int8, {2, 3}), T(D::UInt8, {2, 1})},
               {{Attr::axis, int64_t{-1}}}) == T(D::Int16, {2, 4}));
  REQUIRE_IR_ERROR(infer1(Op::concat, {F32({2, 3}), F32({2, 4})}, axis0), ErrorCode::Shape,
                   "cannot concatenate (2, 3) and (2, 4) along axis 0");
  REQUIRE_IR_ERROR(infer1(Op::concat, {F32({2, 3}), F32({6})}, axis0), ErrorCode::Shape,
                   "cannot concatenate");
  REQUIRE_IR_ERROR(infer1(Op::concat, {F32({}), F32({})}, axis0), ErrorCode::Shape, "0-d");
  REQUIRE_IR_ERROR(infer1(Op::concat, {F32({2})}, axis1), ErrorCode::Shape, "out of range");

  CHECK(infer1(Op::stack, {F32({2, 3}), F32({2, 3})}, axis0) == F32({2, 2, 3}));
  CHECK(infer1(Op::stack, {F32({2, 3}), T(D::Int32, {2, 3}), F32({2, 3})},
               {{Attr::axis, int64_t{-1}}}) == F32({2, 3, 3}));
  CHECK(infer1(Op::stack, {F32({})}, axis0) == F32({1}));
  CHECK(infer1(Op::stack, {F32({2}), F32({2})}, {{Attr::axis, int64_t{-2}}}) == F32({2, 2}));
  REQUIRE_IR_ERROR(infer1(Op::stack, {F32({2}), F32({2})}, {{Attr::axis, int64_t{2}}}),
                   ErrorCode::Shape, "out of range");
  REQUIRE_IR_ERROR(infer1(Op::stack, {F32({2}), F32({3})}, axis0), ErrorCode::Shape,
                   "cannot stack");
}

TEST_CASE("pad, index_select, gather, contiguous", "[infer][movement]") {
  CHECK(infer1(Op::pad, {F32({2, 3})}, {{Attr::pads, Ints{1, 0, 2, 2}}}) == F32({3, 7}));
  CHECK(infer1(Op::pad, {T(D::Int8, {2, 3})},
               {{Attr::pads, Ints{-1, -1, 0, 0}}, {Attr::value, 2.5}}) == T(D::Int8, {0, 3}));
  CHECK(infer1(Op::pad, {F32({})}, {{Attr::pads, Ints{}}}) == F32({}));
  REQUIRE_IR_ERROR(infer1(Op::pad, {F32({2, 3})}, {{Attr::pads, Ints{1, 1}}}), ErrorCode::Shape,
                   "2 * rank = 4");
  REQUIRE_IR_ERROR(infer1(Op::pad, {F32({2})}, {{Attr::pads, Ints{-2, -1}}}), ErrorCode::Shape,
                   "invalid size");
  REQUIRE_IR_ERROR(infer1(Op::pad, {F32({2})}, {{Attr::pads, Ints{INT64_MAX, 1}}}),
                   ErrorCode::Shape, "invalid size");

  const Attrs axis1{{Attr::axis, int64_t{1}}};
  CHECK(infer1(Op::index_select, {T(D::Float16, {2, 5}), T(D::Int32, {7})}, axis1) ==
        T(D::Float16, {2, 7}));
  CHECK(infer1(Op::index_select, {F32({2, 5}), T(D::UInt8, {0})}, axis1) == F32({2, 0}));
  REQUIRE_IR_ERROR(infer1(Op::index_select, {F32({2, 5}), T(D::Bool, {3})}, axis1),
                   ErrorCode::DType, "integer index");
  REQUIRE_IR_ERROR(infer1(Op::index_select, {F32({2, 5}), F32({3})}, axis1), ErrorCode::DType,
                   "integer index");
  REQUIRE_IR_ERROR(infer1(Op::index_select, {F32({2, 5}), T(D::Int64, {3, 1})}, axis1),
                   ErrorCode::Shape, "1-d index");
  REQUIRE_IR_ERROR(
      infer1(Op::index_select, {F32({}), T(D::Int64, {3})}, {{Attr::axis, int64_t{0}}}),
      ErrorCode::Shape, "rank >= 1");

  CHECK(infer1(Op::gather, {F32({3, 5}), T(D::Int64, {2, 9})}, axis1) == F32({2, 9}));
  REQUIRE_IR_ERROR(infer1(Op::gather, {F32({3, 5}), T(D::Int64, {4, 1})}, axis1), ErrorCode::Shape,
                   "larger");
  REQUIRE_IR_ERROR(infer1(Op::gather, {F32({3, 5}), T(D::Int64, {3})}, axis1), ErrorCode::Shape,
                   "same rank");
  REQUIRE_IR_ERROR(infer1(Op::gather, {F32({3, 5}), F32({3, 5})}, axis1), ErrorCode::DType,
                   "integer index");

  CHECK(infer1(Op::contiguous, {T(D::Bool, {0, 2})}) == T(D::Bool, {0, 2}));
}

TEST_CASE("matmul", "[infer][matmul]") {
  auto mm = [](Shape a, Shape b) {
    return infer1(Op::matmul, {F32(std::move(a)), F32(std::move(b))}).shape;
  };
  CHECK(mm({2, 3}, {3, 4}) == Shape{2, 4});
  CHECK(mm({3}, {3}) == Shape{});
  CHECK(mm({3}, {3, 4}) == Shape{4});
  CHECK(mm({2, 3}, {3}) == Shape{2});
  CHECK(mm({5, 2, 3}, {3, 4}) == Shape{5, 2, 4});
  CHECK(mm({3}, {5, 3, 4}) == Shape{5, 4});
  CHECK(mm({5, 1, 2, 3}, {7, 3, 4}) == Shape{5, 7, 2, 4});
  CHECK(mm({0, 3}, {3, 0}) == Shape{0, 0});
  CHECK(mm({2, 0}, {0, 4}) == Shape{2, 4});
  REQUIRE_IR_ERROR(mm({2, 3}, {4, 5}), ErrorCode::Shape,
                   "inner dimensions differ: (2, 3) @ (4, 5)");
  REQUIRE_IR_ERROR(mm({3}, {4}), ErrorCode::Shape, "inner dimensions differ");
  REQUIRE_IR_ERROR(mm({2, 2, 3}, {3, 3, 4}), ErrorCode::Shape, "do not broadcast");
  REQUIRE_IR_ERROR(mm({}, {3}), ErrorCode::Shape, "rank >= 1");
  CHECK(infer1(Op::matmul, {T(D::Int8, {2, 2}), T(D::UInt8, {2, 2})}).dtype == D::Int16);
  CHECK(infer1(Op::matmul, {T(D::Bool, {2, 2}), T(D::Float16, {2, 2})}).dtype == D::Float16);
  REQUIRE_IR_ERROR(infer1(Op::matmul, {T(D::Bool, {2, 2}), T(D::Bool, {2, 2})}), ErrorCode::DType,
                   "bool");
}

TEST_CASE("softmax, log_softmax, layer_norm", "[infer][normalization]") {
  for (Op op : {Op::softmax, Op::log_softmax}) {
    CHECK(infer1(op, {T(D::BFloat16, {2, 3})}, {{Attr::axis, int64_t{-1}}}) ==
          T(D::BFloat16, {2, 3}));
    CHECK(infer1(op, {F32({2, 0})}, {{Attr::axis, int64_t{1}}}) == F32({2, 0}));
    REQUIRE_IR_ERROR(infer1(op, {T(D::Int32, {2})}, {{Attr::axis, int64_t{0}}}), ErrorCode::DType,
                     "floating-point");
    REQUIRE_IR_ERROR(infer1(op, {F32({2})}, {{Attr::axis, int64_t{1}}}), ErrorCode::Shape,
                     "out of range");
  }
  const Attrs nd1{{Attr::normalized_ndim, int64_t{1}}}, nd2{{Attr::normalized_ndim, int64_t{2}}};
  CHECK(infer1(Op::layer_norm, {F32({4, 2, 3})}, nd2) == F32({4, 2, 3}));
  CHECK(infer1(Op::layer_norm, {T(D::Float16, {4, 3}), T(D::Float16, {3})}, nd1) ==
        T(D::Float16, {4, 3}));
  CHECK(infer1(Op::layer_norm, {T(D::Float16, {4, 3}), F32({3}), T(D::Float64, {3})}, nd1) ==
        T(D::Float64, {4, 3}));
  CHECK(infer1(Op::layer_norm, {F32({4, 2, 3}), F32({2, 3}), F32({2, 3})},
               {{Attr::normalized_ndim, int64_t{2}}, {Attr::eps, 1e-6}}) == F32({4, 2, 3}));
  REQUIRE_IR_ERROR(infer1(Op::layer_norm, {F32({4, 3}), F32({4})}, nd1), ErrorCode::Shape,
                   "weight shape (4,) does not match the normalized shape (3,)");
  REQUIRE_IR_ERROR(infer1(Op::layer_norm, {F32({4, 3}), F32({3}), F32({1, 3})}, nd1),
                   ErrorCode::Shape, "bias shape");
  REQUIRE_IR_ERROR(infer1(Op::layer_norm, {F32({4, 3})}, {{Attr::normalized_ndim, int64_t{3}}}),
                   ErrorCode::Shape, "normalized_ndim 3");
  REQUIRE_IR_ERROR(infer1(Op::layer_norm, {F32({4, 3})}, {{Attr::normalized_ndim, int64_t{0}}}),
                   ErrorCode::Shape, "normalized_ndim 0");
  REQUIRE_IR_ERROR(infer1(Op::layer_norm, {T(D::Int32, {4, 3})}, nd1), ErrorCode::DType,
                   "floating-point");
  REQUIRE_IR_ERROR(infer1(Op::layer_norm, {F32({4, 3}), T(D::Int32, {3})}, nd1), ErrorCode::DType,
                   "floating-point");
}

}  // namespace
}  // namespace tensord::ir
