// Inference of the schema checks, creation ops and elementwise ops.
#include "tests/unit/ir/ir_test_util.h"

namespace tensord::ir {
namespace {

using test::F32;
using test::infer1;
using test::T;
using D = DType;

constexpr D kAll[] = {D::Bool,  D::Int8,    D::UInt8,    D::Int16,   D::Int32,
                      D::Int64, D::Float16, D::BFloat16, D::Float32, D::Float64};

TEST_CASE("schema: arity", "[infer][schema]") {
  REQUIRE_IR_ERROR(infer1(Op::add, {F32({2})}), ErrorCode::InvalidGraph,
                   "add takes 2 inputs, got 1");
  REQUIRE_IR_ERROR(infer1(Op::exp, {F32({2}), F32({2})}), ErrorCode::InvalidGraph,
                   "exp takes 1 inputs, got 2");
  REQUIRE_IR_ERROR(infer1(Op::concat, {}, {{Attr::axis, int64_t{0}}}), ErrorCode::InvalidGraph,
                   "at least 1");
  REQUIRE_IR_ERROR(infer1(Op::layer_norm, {F32({2}), F32({2}), F32({2}), F32({2})},
                          {{Attr::normalized_ndim, int64_t{1}}}),
                   ErrorCode::InvalidGraph, "1 to 3");
  REQUIRE_IR_ERROR(infer1(Op::full, {F32({2})},
                          {{Attr::shape, Shape{}}, {Attr::value, 1.0}, {Attr::dtype, D::Int8}}),
                   ErrorCode::InvalidGraph, "full takes 0 inputs");
}

TEST_CASE("schema: attribute names and kinds", "[infer][schema]") {
  REQUIRE_IR_ERROR(infer1(Op::exp, {F32({2})}, {{Attr::axis, int64_t{0}}}), ErrorCode::InvalidGraph,
                   "exp has no attribute 'axis'");
  REQUIRE_IR_ERROR(infer1(Op::full, {}, {{Attr::shape, Shape{2}}, {Attr::dtype, D::Int8}}),
                   ErrorCode::InvalidGraph, "full needs the attribute 'value'");
  REQUIRE_IR_ERROR(infer1(Op::sum, {F32({2})}, {{Attr::axes, int64_t{0}}}), ErrorCode::InvalidGraph,
                   "'axes' of sum must be a list of ints, not an int");
  REQUIRE_IR_ERROR(infer1(Op::sum, {F32({2})}, {{Attr::keepdim, int64_t{1}}}),
                   ErrorCode::InvalidGraph, "must be a bool");
  REQUIRE_IR_ERROR(infer1(Op::cast, {F32({2})}, {{Attr::dtype, int64_t{1}}}),
                   ErrorCode::InvalidGraph, "must be a dtype");
  REQUIRE_IR_ERROR(infer1(Op::slice, {F32({2})}, {{Attr::axis, 0.5}}), ErrorCode::InvalidGraph,
                   "must be an int, not a float");
  REQUIRE_IR_ERROR(
      infer1(Op::full, {},
             {{Attr::shape, Shape{}}, {Attr::value, Shape{1}}, {Attr::dtype, D::Int8}}),
      ErrorCode::InvalidGraph, "must be an int, float or bool");
  // Scalar attributes take any of int, float and bool; float attributes also take ints.
  for (AttrValue v : {AttrValue{int64_t{3}}, AttrValue{2.5}, AttrValue{true}}) {
    CHECK(
        infer1(Op::full, {}, {{Attr::shape, Shape{}}, {Attr::value, v}, {Attr::dtype, D::Int8}}) ==
        T(D::Int8, {}));
  }
  CHECK(infer1(Op::var, {F32({3})}, {{Attr::correction, int64_t{1}}}) == F32({}));
  REQUIRE_IR_ERROR(infer1(Op::var, {F32({3})}, {{Attr::correction, true}}), ErrorCode::InvalidGraph,
                   "must be a float");
}

// Ops with several outputs (ops.def's last section); every other op has one.
static size_t expected_outputs(Op op) {
  switch (op) {
    case Op::frexp:
    // issue 4: sorting's (values, indices) ops
    case Op::sort:
    case Op::topk:
    case Op::kthvalue:
    case Op::median_axis:
    case Op::nanmedian_axis:
    case Op::mode:
    case Op::cummax:
    case Op::cummin:
      return 2;
    // linear algebra
    case Op::slogdet:
    case Op::qr:
    case Op::eigh:
      return 2;
    case Op::svd:
      return 3;
    case Op::lstsq:   // solution, residuals, rank, singular_values
    case Op::unique:  // values, indices, inverse_indices, counts
      return 4;
    default:
      return 1;
  }
}

TEST_CASE("every op has a schema and an inference", "[infer][schema]") {
  // Each op is inferred once with valid inputs; none may hit the Internal fallback.
  const Attrs shape_attrs{{Attr::shape, Shape{2, 3}}, {Attr::dtype, D::Float32}};
  for (const OpInfo& info : all_ops()) {
    INFO(info.name);
    Attrs attrs;
    std::vector<TensorType> inputs(static_cast<size_t>(info.min_inputs), F32({2, 3}));
    switch (info.op) {
      case Op::input:
        attrs = {{Attr::index, int64_t{0}}, {Attr::shape, Shape{2}}, {Attr::dtype, D::Int8}};
        break;
      case Op::full:
        attrs = {{Attr::shape, Shape{2}}, {Attr::value, 1.0}, {Attr::dtype, D::Int8}};
        break;
      case Op::arange:
        attrs = {{Attr::start, 0.0},
                 {Attr::stop, int64_t{4}},
                 {Attr::step, 1.0},
                 {Attr::dtype, D::Int8}};
        break;
      case Op::eye:
        attrs = {{Attr::n, int64_t{3}}, {Attr::dtype, D::Int8}};
        break;
      case Op::rand:
      case Op::randn:
        attrs = {{Attr::shape, Shape{2}}, {Attr::seed, int64_t{1}}, {Attr::dtype, D::Float32}};
        break;
      case Op::zeros:
      case Op::ones:
        attrs = shape_attrs;
        break;
      case Op::cast:
        attrs = {{Attr::dtype, D::Int8}};
        break;
      case Op::clamp:
        attrs = {{Attr::min, 0.0}};
        break;
      case Op::reshape:
        attrs = {{Attr::shape, Shape{6}}};
        break;
      case Op::expand:
        attrs = {{Attr::shape, Shape{4, 2, 3}}};
        break;
      case Op::permute:
      case Op::transpose:
        attrs = {{Attr::dims, Shape{1, 0}}};
        break;
      case Op::slice:
        attrs = {{Attr::axis, int64_t{1}}};
        break;
      case Op::unsqueeze:
        attrs = {{Attr::axes, Shape{0}}};
        break;
      case Op::concat:
      case Op::stack:
      case Op::softmax:
      case Op::log_softmax:
        attrs = {{Attr::axis, int64_t{0}}};
        break;
      case Op::index_select:
        attrs = {{Attr::axis, int64_t{0}}};
        inputs[1] = T(D::Int64, {4});
        break;
      case Op::gather:
        attrs = {{Attr::axis, int64_t{0}}};
        inputs[1] = T(D::Int64, {2, 3});
        break;
      case Op::pad:
        attrs = {{Attr::pads, Shape{0, 0, 1, 1}}};
        break;
      case Op::matmul:
        inputs[1] = F32({3, 2});
        break;
      case Op::layer_norm:
        attrs = {{Attr::normalized_ndim, int64_t{1}}};
        break;
      case Op::prelu:
        inputs[1] = F32({3});
        break;
      case Op::glu:
      case Op::cumsum:
      case Op::cumprod:
      case Op::logcumsumexp:
        attrs = {{Attr::axis, int64_t{0}}};
        break;
      case Op::nll_loss:
        inputs[1] = T(D::Int64, {2});
        break;
      case Op::roll:
        attrs = {{Attr::shifts, Shape{1}}};
        break;
      case Op::tile:
        attrs = {{Attr::reps, Shape{2}}};
        break;
      case Op::repeat_interleave:
        attrs = {{Attr::repeats, int64_t{2}}};
        break;
      case Op::narrow:
        attrs = {{Attr::axis, int64_t{1}}, {Attr::start, int64_t{1}}, {Attr::length, int64_t{1}}};
        break;
      case Op::take:
      case Op::take_along_dim:
        inputs[1] = T(D::Int64, {2, 3});
        break;
      case Op::masked_fill:
        attrs = {{Attr::value, 1.0}};
        inputs[1] = T(D::Bool, {3});
        break;
      case Op::scatter:
      case Op::scatter_add:
        attrs = {{Attr::axis, int64_t{0}}};
        inputs[1] = T(D::Int64, {2, 3});
        break;
      case Op::index_add:
        attrs = {{Attr::axis, int64_t{0}}};
        inputs[1] = T(D::Int64, {2});
        break;
      // h/datadep
      case Op::bucketize:
        inputs[1] = F32({4});
        break;
      case Op::scatter_reduce:
        attrs = {{Attr::axis, int64_t{0}}, {Attr::reduction, int64_t{3}}};
        inputs[1] = T(D::Int64, {2, 3});
        break;
      case Op::scatter_value:
        attrs = {{Attr::axis, int64_t{0}}, {Attr::value, 1.0}};
        inputs[1] = T(D::Int64, {2, 3});
        break;
      case Op::index_put:
        inputs[1] = F32({3});
        inputs[2] = T(D::Int64, {5});
        break;
      case Op::unfold:
        attrs = {{Attr::axis, int64_t{1}}, {Attr::length, int64_t{2}}, {Attr::step, int64_t{1}}};
        break;
      case Op::masked_select:
        inputs[1] = T(D::Bool, {3});
        break;
      case Op::repeat_interleave_tensor:
        inputs[1] = T(D::Int64, {});
        break;
      case Op::one_hot:
        attrs = {{Attr::n, int64_t{4}}};
        inputs[0] = T(D::Int64, {2, 3});
        break;
      // linear algebra: square matrices, outer's 1-D inputs, cross's 3-vectors
      case Op::det:
      case Op::inv:
      case Op::solve:
      case Op::cholesky:
      case Op::eigvalsh:
      case Op::slogdet:
      case Op::eigh:
        for (TensorType& t : inputs) t = F32({3, 3});
        break;
      case Op::outer:
        for (TensorType& t : inputs) t = F32({3});
        break;
      case Op::cross:
        for (TensorType& t : inputs) t = F32({2, 3});
        break;
      case Op::matrix_power:
        attrs = {{Attr::n, int64_t{2}}};
        for (TensorType& t : inputs) t = F32({3, 3});
        break;
      case Op::lstsq:
        inputs[1] = F32({2, 1});
        break;
      // issue 4: neural-network ops
      case Op::conv1d:
        inputs = {F32({1, 2, 5}), F32({3, 2, 2})};
        break;
      case Op::conv2d:
        inputs = {F32({1, 2, 5, 5}), F32({3, 2, 2, 2})};
        break;
      case Op::conv3d:
        inputs = {F32({1, 2, 5, 5, 5}), F32({3, 2, 2, 2, 2})};
        break;
      case Op::conv_transpose1d:
        inputs = {F32({1, 2, 3}), F32({2, 3, 2})};
        break;
      case Op::conv_transpose2d:
        inputs = {F32({1, 2, 3, 3}), F32({2, 3, 2, 2})};
        break;
      case Op::conv_transpose3d:
        inputs = {F32({1, 2, 3, 3, 3}), F32({2, 3, 2, 2, 2})};
        break;
      case Op::max_pool1d:
      case Op::avg_pool1d:
        attrs = {{Attr::kernel, Shape{2}}};
        break;
      case Op::max_pool2d:
      case Op::avg_pool2d:
        attrs = {{Attr::kernel, Shape{2}}};
        inputs = {F32({1, 4, 4})};
        break;
      case Op::max_pool3d:
      case Op::avg_pool3d:
        attrs = {{Attr::kernel, Shape{2}}};
        inputs = {F32({1, 4, 4, 4})};
        break;
      case Op::adaptive_avg_pool1d:
      case Op::adaptive_max_pool1d:
        attrs = {{Attr::shape, Shape{2}}};
        inputs = {F32({1, 4})};
        break;
      case Op::adaptive_avg_pool2d:
      case Op::adaptive_max_pool2d:
        attrs = {{Attr::shape, Shape{2, 2}}};
        inputs = {F32({1, 4, 4})};
        break;
      case Op::adaptive_avg_pool3d:
      case Op::adaptive_max_pool3d:
        attrs = {{Attr::shape, Shape{2, 2, 2}}};
        inputs = {F32({1, 4, 4, 4})};
        break;
      case Op::max_unpool:
        attrs = {{Attr::shape, Shape{4}}};
        inputs = {F32({1, 2}), T(D::Int64, {1, 2})};
        break;
      case Op::interpolate:
        attrs = {{Attr::shape, Shape{6}}};
        inputs = {F32({1, 2, 3})};
        break;
      case Op::linear:
        inputs = {F32({2, 3}), F32({4, 3})};
        break;
      case Op::embedding:
        inputs = {T(D::Int64, {2, 3}), F32({5, 4})};
        break;
      case Op::rms_norm:
        attrs = {{Attr::normalized_ndim, int64_t{1}}};
        break;
      case Op::batch_norm:
        inputs = {F32({2, 3}), F32({3}), F32({3}), F32({3}), F32({3})};
        break;
      case Op::group_norm:
        attrs = {{Attr::groups, int64_t{1}}};
        break;
      case Op::instance_norm:
        inputs = {F32({2, 3, 4})};
        break;
      case Op::ctc_loss:
        inputs = {F32({4, 2, 3}), T(D::Int64, {2, 2}), T(D::Int64, {2}), T(D::Int64, {2})};
        break;
      case Op::pixel_shuffle:
      case Op::pixel_unshuffle:
        attrs = {{Attr::factor, int64_t{2}}};
        inputs = {F32({4, 2, 2})};
        break;
      case Op::bitwise_not:
      case Op::bitwise_and:
      case Op::bitwise_or:
      case Op::bitwise_xor:
      case Op::bitwise_left_shift:
      case Op::bitwise_right_shift:  // integers only
      case Op::gcd:
      case Op::lcm:
        for (TensorType& t : inputs) t = T(D::Int32, {2, 3});
        break;
      // issue 4: special functions with attributes, quantile's q
      case Op::polygamma:
        attrs = {{Attr::n, int64_t{1}}};
        break;
      case Op::multigammaln:
        attrs = {{Attr::p, int64_t{2}}};
        break;
      case Op::quantile:
      case Op::nanquantile:
        inputs[1] = F32({4});
        break;
      case Op::topk:
      case Op::kthvalue:
        attrs = {{Attr::k, int64_t{2}}};
        break;
      case Op::median_axis:
      case Op::nanmedian_axis:
      case Op::cummax:
      case Op::cummin:
        attrs = {{Attr::axis, int64_t{1}}};
        break;
      // issue 4: complex numbers and FFT
      case Op::real:
      case Op::imag:  // complex only
        inputs[0] = T(D::Complex64, {2, 3});
        break;
      case Op::fft_c2c:
      case Op::fft_r2c:
      case Op::fft_c2r:
        attrs = {{Attr::axes, Shape{1}}};
        break;
      default:
        break;
    }
    std::vector<const TensorType*> ptrs;
    for (const TensorType& t : inputs) ptrs.push_back(&t);
    std::vector<TensorType> out;
    CHECK_NOTHROW(out = infer(info.op, ptrs, attrs));
    CHECK(out.size() == expected_outputs(info.op));
  }
}

TEST_CASE("elementwise math ops (issue 4): dtypes", "[infer][math]") {
  for (D t : kAll) {
    INFO(name(t));
    const TensorType x = T(t, {3, 1}), y = T(t, {4});
    const D float_result = is_floating(t) ? t : D::Float32;
    for (Op op : {Op::atan2, Op::hypot, Op::logaddexp, Op::logaddexp2, Op::copysign}) {
      CHECK(infer1(op, {x, y}) == T(float_result, {3, 4}));
    }
    for (Op op : {Op::fmod, Op::remainder, Op::floor_divide}) {
      if (t == D::Bool) {
        REQUIRE_IR_ERROR(infer1(op, {x, y}), ErrorCode::DType, "two bool");
      } else {
        CHECK(infer1(op, {x, y}) == T(t, {3, 4}));
      }
    }
    for (Op op : {Op::bitwise_and, Op::bitwise_or, Op::bitwise_xor}) {
      if (is_floating(t)) {
        REQUIRE_IR_ERROR(infer1(op, {x, y}), ErrorCode::DType, "integers or bool");
      } else {
        CHECK(infer1(op, {x, y}) == T(t, {3, 4}));
      }
    }
    for (Op op : {Op::bitwise_left_shift, Op::bitwise_right_shift, Op::gcd, Op::lcm}) {
      if (is_floating(t) || t == D::Bool) {
        REQUIRE_IR_ERROR(infer1(op, {x, y}), ErrorCode::DType, "takes integers");
      } else {
        CHECK(infer1(op, {x, y}) == T(t, {3, 4}));
      }
    }
    if (is_floating(t)) {
      CHECK(infer1(Op::frac, {x}) == x);
    } else {
      REQUIRE_IR_ERROR(infer1(Op::frac, {x}), ErrorCode::DType, "floating-point");
    }
    CHECK(infer1(Op::nan_to_num, {x}) == x);  // every dtype, kept
    CHECK(infer1(Op::nan_to_num, {x}, {{Attr::value, 1.0}, {Attr::max, int64_t{2}}}) == x);
    if (is_floating(t)) {
      REQUIRE_IR_ERROR(infer1(Op::bitwise_not, {x}), ErrorCode::DType, "integers or bool");
    } else {
      CHECK(infer1(Op::bitwise_not, {x}) == x);
    }
  }
  // Shifts and bitwise ops promote first: int8 and uint8 meet in int16.
  CHECK(infer1(Op::bitwise_left_shift, {T(D::Int8, {2}), T(D::UInt8, {2})}) == T(D::Int16, {2}));
  CHECK(infer1(Op::floor_divide, {T(D::Int32, {2}), F32({2})}) == F32({2}));
}

TEST_CASE("creation ops", "[infer][creation]") {
  CHECK(infer1(Op::input, {},
               {{Attr::index, int64_t{0}}, {Attr::shape, Shape{2, 0}}, {Attr::dtype, D::UInt8}}) ==
        T(D::UInt8, {2, 0}));
  REQUIRE_IR_ERROR(
      infer1(Op::input, {},
             {{Attr::index, int64_t{-1}}, {Attr::shape, Shape{}}, {Attr::dtype, D::UInt8}}),
      ErrorCode::InvalidGraph, "negative");
  CHECK(infer1(Op::full, {},
               {{Attr::shape, Shape{}}, {Attr::value, true}, {Attr::dtype, D::Float16}}) ==
        T(D::Float16, {}));
  CHECK(infer1(Op::zeros, {}, {{Attr::shape, Shape{0, 4}}, {Attr::dtype, D::Bool}}) ==
        T(D::Bool, {0, 4}));
  CHECK(infer1(Op::ones, {}, {{Attr::shape, Shape{1}}, {Attr::dtype, D::Int32}}) ==
        T(D::Int32, {1}));
  REQUIRE_IR_ERROR(
      infer1(Op::full, {},
             {{Attr::shape, Shape{2, -3}}, {Attr::value, 0.0}, {Attr::dtype, D::Int8}}),
      ErrorCode::Shape, "negative dimension in shape (2, -3)");
  REQUIRE_IR_ERROR(infer1(Op::zeros, {}, {{Attr::shape, Shape(17, 1)}, {Attr::dtype, D::Int8}}),
                   ErrorCode::InvalidGraph, "rank 17");
  CHECK(infer1(Op::zeros, {}, {{Attr::shape, Shape(16, 1)}, {Attr::dtype, D::Int8}}).rank() == 16);
  REQUIRE_IR_ERROR(
      infer1(Op::zeros, {},
             {{Attr::shape, Shape{int64_t{1} << 40, int64_t{1} << 30}}, {Attr::dtype, D::Int8}}),
      ErrorCode::OutOfMemory, "more bytes than int64");
  // The byte count overflows even though the element count does not.
  REQUIRE_IR_ERROR(
      infer1(Op::zeros, {}, {{Attr::shape, Shape{int64_t{1} << 61}}, {Attr::dtype, D::Float64}}),
      ErrorCode::OutOfMemory, "float64");

  auto arange = [](AttrValue start, AttrValue stop, AttrValue step) {
    return infer1(
        Op::arange, {},
        {{Attr::start, start}, {Attr::stop, stop}, {Attr::step, step}, {Attr::dtype, D::Int64}});
  };
  CHECK(arange(int64_t{0}, int64_t{10}, int64_t{3}) == T(D::Int64, {4}));
  CHECK(arange(0.0, 1.0, 0.1) == T(D::Int64, {10}));
  CHECK(arange(int64_t{5}, int64_t{0}, int64_t{1}) == T(D::Int64, {0}));
  CHECK(arange(int64_t{5}, int64_t{0}, int64_t{-2}) == T(D::Int64, {3}));
  CHECK(arange(true, int64_t{3}, int64_t{1}) == T(D::Int64, {2}));
  REQUIRE_IR_ERROR(arange(int64_t{0}, int64_t{1}, 0.0), ErrorCode::Shape, "step cannot be zero");
  REQUIRE_IR_ERROR(arange(0.0, 1.0 / 0.0, 1.0), ErrorCode::Shape, "finite");
  REQUIRE_IR_ERROR(arange(0.0, 1e300, 1.0), ErrorCode::OutOfMemory, "too many elements");

  CHECK(infer1(Op::eye, {}, {{Attr::n, int64_t{3}}, {Attr::dtype, D::Bool}}) == T(D::Bool, {3, 3}));
  CHECK(infer1(Op::eye, {},
               {{Attr::n, int64_t{2}},
                {Attr::m, int64_t{0}},
                {Attr::k, int64_t{-5}},
                {Attr::dtype, D::Int8}}) == T(D::Int8, {2, 0}));
  REQUIRE_IR_ERROR(infer1(Op::eye, {}, {{Attr::n, int64_t{-1}}, {Attr::dtype, D::Int8}}),
                   ErrorCode::Shape, "n, m >= 0");

  for (D t : kAll) {
    Attrs attrs{{Attr::shape, Shape{3}}, {Attr::seed, int64_t{7}}, {Attr::dtype, t}};
    for (Op op : {Op::rand, Op::randn}) {
      if (is_floating(t)) {
        CHECK(infer1(op, {}, attrs) == T(t, {3}));
      } else {
        REQUIRE_IR_ERROR(infer1(op, {}, attrs), ErrorCode::DType, "floating-point");
      }
    }
  }
}

TEST_CASE("unary ops", "[infer][unary]") {
  for (D t : kAll) {
    INFO(name(t));
    const TensorType x = T(t, {2, 0, 3});
    const D float_result = is_floating(t) ? t : D::Float32;
    for (Op op : {Op::exp,     Op::log,   Op::sqrt,  Op::rsqrt, Op::sin,  Op::cos,       Op::tanh,
                  Op::sigmoid, Op::erf,   Op::gelu,  Op::silu,  Op::exp2, Op::expm1,     Op::log2,
                  Op::log10,   Op::log1p, Op::tan,   Op::asin,  Op::acos, Op::atan,      Op::sinh,
                  Op::cosh,    Op::asinh, Op::acosh, Op::atanh, Op::erfc, Op::reciprocal}) {
      CHECK(infer1(op, {x}) == T(float_result, x.shape));
    }
    for (Op op : {Op::neg, Op::abs, Op::relu, Op::floor, Op::ceil, Op::round, Op::sign, Op::square,
                  Op::trunc}) {
      if (t == D::Bool) {
        REQUIRE_IR_ERROR(infer1(op, {x}), ErrorCode::DType, "does not take bool");
      } else {
        CHECK(infer1(op, {x}) == x);
      }
    }
    for (Op op : {Op::logical_not, Op::isnan, Op::isinf, Op::isfinite, Op::signbit}) {
      CHECK(infer1(op, {x}) == T(D::Bool, x.shape));
    }
    CHECK(infer1(Op::cast, {x}, {{Attr::dtype, D::BFloat16}}) == T(D::BFloat16, x.shape));
    if (t == D::Bool) {
      REQUIRE_IR_ERROR(infer1(Op::clamp, {x}, {{Attr::max, int64_t{1}}}), ErrorCode::DType, "bool");
    } else {
      CHECK(infer1(Op::clamp, {x}, {{Attr::max, 1.5}}) == x);
      CHECK(infer1(Op::clamp, {x}, {{Attr::min, int64_t{0}}, {Attr::max, int64_t{1}}}) == x);
    }
  }
  REQUIRE_IR_ERROR(infer1(Op::clamp, {F32({2})}), ErrorCode::InvalidGraph, "at least one of");
  CHECK(infer1(Op::gelu, {F32({})}, {{Attr::tanh, true}}) == F32({}));
}

TEST_CASE("binary ops: dtypes", "[infer][binary]") {
  for (D a : kAll) {
    for (D c : kAll) {
      INFO(name(a) << " and " << name(c));
      const TensorType x = T(a, {2}), y = T(c, {2});
      const D p = promote(a, c);
      for (Op op : {Op::add, Op::sub, Op::mul, Op::pow}) {
        if (p == D::Bool) {
          REQUIRE_IR_ERROR(infer1(op, {x, y}), ErrorCode::DType, "two bool");
        } else {
          CHECK(infer1(op, {x, y}).dtype == p);
        }
      }
      CHECK(infer1(Op::div, {x, y}).dtype == (is_floating(p) ? p : D::Float32));
      CHECK(infer1(Op::maximum, {x, y}).dtype == p);
      CHECK(infer1(Op::minimum, {x, y}).dtype == p);
      for (Op op :
           {Op::eq, Op::ne, Op::lt, Op::le, Op::gt, Op::ge, Op::logical_and, Op::logical_or}) {
        CHECK(infer1(op, {x, y}).dtype == D::Bool);
      }
      CHECK(infer1(Op::where, {T(D::Float64, {2}), x, y}).dtype == p);
    }
  }
}

TEST_CASE("broadcasting", "[infer][binary][broadcast]") {
  auto add = [](Shape a, Shape b) {
    return infer1(Op::add, {F32(std::move(a)), F32(std::move(b))}).shape;
  };
  CHECK(add({2, 3}, {2, 3}) == Shape{2, 3});
  CHECK(add({2, 3}, {3}) == Shape{2, 3});
  CHECK(add({3}, {2, 3}) == Shape{2, 3});
  CHECK(add({2, 1}, {1, 3}) == Shape{2, 3});
  CHECK(add({}, {2, 3}) == Shape{2, 3});
  CHECK(add({2, 3}, {}) == Shape{2, 3});
  CHECK(add({}, {}) == Shape{});
  CHECK(add({5, 1, 4}, {3, 1}) == Shape{5, 3, 4});
  // Zero-size dims broadcast like any other size: against 1 or themselves.
  CHECK(add({0}, {1}) == Shape{0});
  CHECK(add({1}, {0}) == Shape{0});
  CHECK(add({2, 0}, {0}) == Shape{2, 0});
  CHECK(add({0, 3}, {1, 3}) == Shape{0, 3});
  CHECK(add({}, {0}) == Shape{0});
  REQUIRE_IR_ERROR(add({0}, {2}), ErrorCode::Shape, "shapes (0,) and (2,) do not broadcast");
  REQUIRE_IR_ERROR(add({2, 3}, {4}), ErrorCode::Shape, "shapes (2, 3) and (4,) do not broadcast");
  REQUIRE_IR_ERROR(add({2, 3}, {3, 3}), ErrorCode::Shape, "do not broadcast");

  CHECK(infer1(Op::where, {T(D::Bool, {4, 1, 1}), F32({3, 1}), F32({2})}).shape == Shape{4, 3, 2});
  CHECK(infer1(Op::where, {T(D::Bool, {}), F32({}), F32({})}).shape == Shape{});
  REQUIRE_IR_ERROR(infer1(Op::where, {T(D::Bool, {4}), F32({3}), F32({3})}), ErrorCode::Shape,
                   "do not broadcast");
  // A broadcast whose result has too many elements is refused before anything exists.
  const int64_t big = int64_t{1} << 40;
  REQUIRE_IR_ERROR(add({big, 1}, {1, big}), ErrorCode::OutOfMemory, "int64");
}

}  // namespace
}  // namespace tensord::ir
