// Inference of issue 4's composites and primitives beyond the elementwise math: dtypes, shapes
// and the errors docs/ops.md lists.
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

}  // namespace
}  // namespace tensord::ir
