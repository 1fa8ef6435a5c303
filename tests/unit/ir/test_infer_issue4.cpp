// Inference of issue 4's composites and primitives beyond the elementwise math: dtypes, shapes
// and the errors docs/ops.md lists.
#include <cmath>

#include "tests/unit/ir/ir_test_util.h"

namespace tensord::ir {
namespace {

using test::F32;
using test::infer1;
using test::T;
using D = DType;

TEST_CASE("nextafter, lerp, addcmul, addcdiv", "[infer][issue4]") {
  CHECK(infer1(Op::nextafter, {T(D::Float16, {3, 1}), F32({4})}) == F32({3, 4}));
  REQUIRE_IR_ERROR(infer1(Op::nextafter, {T(D::Int32, {3}), T(D::Int32, {3})}), ErrorCode::DType,
                   "floating-point");
  CHECK(infer1(Op::lerp, {F32({3, 1}), F32({4}), F32({})}) == F32({3, 4}));
  REQUIRE_IR_ERROR(infer1(Op::lerp, {T(D::Int8, {3}), T(D::Int8, {3}), T(D::Int8, {3})}),
                   ErrorCode::DType, "lerp takes floating-point");
  CHECK(infer1(Op::addcmul, {T(D::Int8, {2}), T(D::Int16, {2}), T(D::Int8, {})},
               {{Attr::value, int64_t{2}}}) == T(D::Int16, {2}));
  REQUIRE_IR_ERROR(infer1(Op::addcmul, {T(D::Bool, {2}), T(D::Bool, {2}), T(D::Bool, {2})}),
                   ErrorCode::DType, "bool");
  REQUIRE_IR_ERROR(infer1(Op::addcdiv, {T(D::Int8, {2}), T(D::Int8, {2}), T(D::Int8, {2})}),
                   ErrorCode::DType, "addcdiv");
  REQUIRE_IR_ERROR(infer1(Op::addcdiv, {F32({2}), F32({3}), F32({2})}), ErrorCode::Shape, "");
}

TEST_CASE("activations", "[infer][issue4]") {
  for (Op op : {Op::elu, Op::celu, Op::selu, Op::leaky_relu, Op::hardtanh, Op::hardsigmoid,
                Op::hardswish, Op::softplus, Op::softsign, Op::mish}) {
    CHECK(infer1(op, {T(D::Int32, {2, 3})}) == F32({2, 3}));
    CHECK(infer1(op, {T(D::BFloat16, {})}) == T(D::BFloat16, {}));
  }
  CHECK(infer1(Op::prelu, {F32({2, 3, 4}), T(D::Float64, {3})}) == T(D::Float64, {2, 3, 4}));
  CHECK(infer1(Op::prelu, {F32({5}), F32({1})}) == F32({5}));
  REQUIRE_IR_ERROR(infer1(Op::prelu, {F32({5}), F32({5})}), ErrorCode::Shape, "per channel");
  CHECK(infer1(Op::glu, {F32({4, 6})}) == F32({4, 3}));
  CHECK(infer1(Op::glu, {F32({4, 6})}, {{Attr::axis, int64_t{0}}}) == F32({2, 6}));
  REQUIRE_IR_ERROR(infer1(Op::glu, {F32({5})}), ErrorCode::Shape, "odd");
  REQUIRE_IR_ERROR(infer1(Op::glu, {F32({})}), ErrorCode::Shape, "rank");
}

TEST_CASE("reductions and scans of issue 4", "[infer][issue4]") {
  const Attrs axis1{{Attr::axes, Shape{1}}};
  CHECK(infer1(Op::all, {T(D::Int8, {2, 3})}, axis1) == T(D::Bool, {2}));
  CHECK(infer1(Op::count_nonzero, {F32({2, 3})}) == T(D::Int64, {}));
  CHECK(infer1(Op::nansum, {T(D::Int8, {2, 3})}, axis1) == T(D::Int64, {2}));
  CHECK(infer1(Op::logsumexp, {T(D::Int32, {0, 3})}, axis1) == F32({0}));
  CHECK(infer1(Op::logsumexp, {F32({2, 0})}, axis1) == F32({2}));
  REQUIRE_IR_ERROR(infer1(Op::amax, {F32({2, 0})}, axis1), ErrorCode::Shape, "size 0");
  REQUIRE_IR_ERROR(infer1(Op::std, {T(D::Int32, {3})}), ErrorCode::DType, "floating-point");
  REQUIRE_IR_ERROR(infer1(Op::norm, {F32({0})}, {{Attr::ord, -INFINITY}}), ErrorCode::Shape,
                   "-inf over axis 0 of size 0");
  CHECK(infer1(Op::norm, {F32({0})}, {{Attr::ord, 3.0}}) == F32({}));
  CHECK(infer1(Op::cumsum, {T(D::UInt8, {4})}, {{Attr::axis, int64_t{0}}}) == T(D::Int64, {4}));
  CHECK(infer1(Op::logcumsumexp, {T(D::Int8, {4})}, {{Attr::axis, int64_t{-1}}}) == F32({4}));
  REQUIRE_IR_ERROR(infer1(Op::cumprod, {F32({})}, {{Attr::axis, int64_t{0}}}), ErrorCode::Shape,
                   "rank >= 1");
}

TEST_CASE("losses", "[infer][issue4]") {
  const Attrs none{{Attr::reduction, int64_t{0}}};
  CHECK(infer1(Op::mse_loss, {F32({3, 1}), F32({4})}) == F32({}));
  CHECK(infer1(Op::mse_loss, {F32({3, 1}), F32({4})}, none) == F32({3, 4}));
  REQUIRE_IR_ERROR(infer1(Op::l1_loss, {T(D::Int32, {3}), T(D::Int32, {3})}), ErrorCode::DType,
                   "floating-point");
  REQUIRE_IR_ERROR(infer1(Op::mse_loss, {F32({3}), F32({3})}, {{Attr::reduction, int64_t{3}}}),
                   ErrorCode::InvalidGraph, "reduction");
  CHECK(infer1(Op::kl_div, {F32({3}), F32({3})}, {{Attr::reduction, int64_t{3}}}) == F32({}));
  CHECK(infer1(Op::cross_entropy, {F32({4, 5, 2}), T(D::Int64, {4, 2})}, none) == F32({4, 2}));
  CHECK(infer1(Op::cross_entropy, {F32({5}), T(D::Int32, {})}) == F32({}));
  CHECK(infer1(Op::cross_entropy, {F32({4, 5}), T(D::Float64, {4, 5})}, none) ==
        T(D::Float64, {4}));
  REQUIRE_IR_ERROR(infer1(Op::cross_entropy, {F32({4, 5}), T(D::Int64, {5})}), ErrorCode::Shape,
                   "class indices of shape (4,)");
  REQUIRE_IR_ERROR(infer1(Op::nll_loss, {F32({4, 5}), F32({4, 5})}), ErrorCode::DType,
                   "integer class indices");
  REQUIRE_IR_ERROR(infer1(Op::binary_cross_entropy, {F32({3}), F32({1})}), ErrorCode::Shape,
                   "one shape");
  CHECK(infer1(Op::cosine_similarity, {T(D::Int32, {4, 5}), F32({5})},
               {{Attr::axis, int64_t{-1}}}) == F32({4}));
}

TEST_CASE("shape and indexing ops of issue 4", "[infer][issue4]") {
  CHECK(infer1(Op::tril, {T(D::Bool, {2, 3, 4})}) == T(D::Bool, {2, 3, 4}));
  REQUIRE_IR_ERROR(infer1(Op::triu, {F32({4})}), ErrorCode::Shape, "rank >= 2");
  CHECK(infer1(Op::tile, {F32({2, 3})}, {{Attr::reps, Shape{2, 1, 2}}}) == F32({2, 2, 6}));
  CHECK(infer1(Op::repeat_interleave, {F32({2, 3})}, {{Attr::repeats, int64_t{2}}}) == F32({12}));
  CHECK(
      infer1(Op::narrow, {F32({6, 5})},
             {{Attr::axis, int64_t{0}}, {Attr::start, int64_t{-2}}, {Attr::length, int64_t{2}}}) ==
      F32({2, 5}));
  REQUIRE_IR_ERROR(
      infer1(Op::narrow, {F32({4})},
             {{Attr::axis, int64_t{0}}, {Attr::start, int64_t{3}}, {Attr::length, int64_t{2}}}),
      ErrorCode::Shape, "out of range");
  CHECK(infer1(Op::take_along_dim, {F32({4, 1, 5}), T(D::Int64, {1, 3, 2})},
               {{Attr::axis, int64_t{-1}}}) == F32({4, 3, 2}));
  REQUIRE_IR_ERROR(infer1(Op::masked_fill, {F32({3}), T(D::Int8, {3})}, {{Attr::value, 1.0}}),
                   ErrorCode::DType, "bool mask");
  CHECK(infer1(Op::one_hot, {T(D::Int32, {2})}, {{Attr::n, int64_t{5}}}) == T(D::Int64, {2, 5}));
  CHECK(infer1(Op::rot90, {F32({3, 4, 5})}, {{Attr::dims, Shape{2, 0}}}) == F32({5, 4, 3}));
  CHECK(infer1(Op::diagonal, {F32({4, 5})}, {{Attr::k, int64_t{2}}}) == F32({3}));
  CHECK(infer1(Op::diagonal, {F32({4, 5})}, {{Attr::k, int64_t{-6}}}) == F32({0}));
  CHECK(infer1(Op::diag, {F32({3})}, {{Attr::k, int64_t{-1}}}) == F32({4, 4}));
  CHECK(infer1(Op::diag_embed, {F32({2, 3})}) == F32({2, 3, 3}));
}

TEST_CASE("special functions", "[infer][issue4]") {
  for (Op op : {Op::lgamma, Op::digamma, Op::erfinv, Op::erfcx, Op::i0, Op::i0e, Op::i1, Op::i1e,
                Op::ndtr, Op::ndtri, Op::log_ndtr, Op::sinc, Op::entr, Op::logit, Op::expit}) {
    CHECK(infer1(op, {T(D::Int16, {3})}) == F32({3}));
    CHECK(infer1(op, {T(D::Float64, {})}) == T(D::Float64, {}));
  }
  CHECK(infer1(Op::xlogy, {T(D::Int8, {3, 1}), T(D::Float16, {2})}) == T(D::Float16, {3, 2}));
  CHECK(infer1(Op::xlog1py, {T(D::Int8, {3}), T(D::Int8, {3})}) == F32({3}));
}

}  // namespace
}  // namespace tensord::ir
