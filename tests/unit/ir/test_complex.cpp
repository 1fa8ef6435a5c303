// Issue 4: complex dtypes in the IR. Promotion, inference of the complex ops, and the sweep
// that feeds complex inputs to every op: those not defined on complex must raise a DType error
// naming the op (never crash, never infer a type).
#include <string>

#include "engine/ir/attrs.h"
#include "engine/ir/infer_internal.h"
#include "tests/unit/ir/ir_test_util.h"

namespace tensord::ir {
namespace {

using D = DType;
using test::T;

TEST_CASE("complex promotion: complex beats real, precision is the wider one", "[dtype][complex]") {
  const D c64 = D::Complex64, c128 = D::Complex128;
  CHECK(itemsize(c64) == 8);
  CHECK(itemsize(c128) == 16);
  CHECK(dtype_from_name("complex64") == c64);
  CHECK(dtype_from_name("complex128") == c128);
  CHECK_FALSE(is_floating(c64));
  CHECK(is_complex(c128));
  for (int i = 0; i < kNumDTypes; ++i) {
    const D t = static_cast<D>(i);
    INFO(name(t));
    const D wide = t == D::Float64 || t == c128 ? c128 : c64;
    CHECK(promote(c64, t) == wide);
    CHECK(promote(t, c64) == wide);
    CHECK(promote(c128, t) == c128);
    CHECK(promote(t, c128) == c128);
  }
  CHECK(promote_with_scalar(c64, ScalarKind::Float) == c64);
  CHECK(promote_with_scalar(c64, ScalarKind::Int) == c64);
  CHECK(complex_of(D::Float64) == c128);
  CHECK(complex_of(D::Float16) == c64);
  CHECK(real_of(c128) == D::Float64);
}

TEST_CASE("complex inference of the ops defined on complex", "[infer][complex]") {
  const TensorType x = T(D::Complex64, {2, 3}), y = T(D::Complex128, {3});
  CHECK(test::infer1(Op::abs, {x}) == T(D::Float32, {2, 3}));
  CHECK(test::infer1(Op::exp, {x}) == x);
  for (Op op : {Op::sin, Op::atanh, Op::expm1, Op::log10, Op::square, Op::sigmoid, Op::sign}) {
    CHECK(test::infer1(op, {y}) == y);
  }
  for (Op op : {Op::isnan, Op::isinf, Op::isfinite})
    CHECK(test::infer1(op, {x}) == T(D::Bool, {2, 3}));
  CHECK(test::infer1(Op::pow, {x, T(D::Float64, {3})}) == T(D::Complex128, {2, 3}));
  CHECK(test::infer1(Op::pow, {T(D::Int32, {1}), x}) == x);
  CHECK(test::infer1(Op::var, {x}, {{Attr::axes, std::vector<int64_t>{0}}}) == T(D::Float32, {3}));
  CHECK(test::infer1(Op::std, {y}) == T(D::Float64, {}));
  CHECK(test::infer1(Op::norm, {x}, {{Attr::ord, 1.0}}) == T(D::Float32, {}));
  CHECK(test::infer1(Op::cumsum, {x}, {{Attr::axis, int64_t{1}}}) == x);
  CHECK(test::infer1(Op::cumprod, {y}, {{Attr::axis, int64_t{0}}}) == y);
  CHECK(test::infer1(Op::div, {x, T(D::Int32, {3})}) == x);
  CHECK(test::infer1(Op::add, {x, T(D::Float64, {1})}) == T(D::Complex128, {2, 3}));
  CHECK(test::infer1(Op::mul, {x, y}) == T(D::Complex128, {2, 3}));
  CHECK(test::infer1(Op::eq, {x, y}) == T(D::Bool, {2, 3}));
  CHECK(test::infer1(Op::real, {y}) == T(D::Float64, {3}));
  CHECK(test::infer1(Op::angle, {T(D::Int32, {3})}) == T(D::Float32, {3}));
  CHECK(test::infer1(Op::conj, {T(D::Float16, {3})}) == T(D::Float16, {3}));
  CHECK(test::infer1(Op::complex, {T(D::Float32, {2, 1}), T(D::Float64, {3})}) ==
        T(D::Complex128, {2, 3}));
  CHECK(test::infer1(Op::sum, {x}, {{Attr::axes, std::vector<int64_t>{1}}}) ==
        T(D::Complex64, {2}));
  CHECK(test::infer1(Op::mean, {x}) == T(D::Complex64, {}));
  CHECK(test::infer1(Op::matmul, {x, T(D::Float32, {3, 4})}) == T(D::Complex64, {2, 4}));
  CHECK(test::infer1(Op::permute, {x}, {{Attr::dims, std::vector<int64_t>{1, 0}}}) ==
        T(D::Complex64, {3, 2}));
  CHECK(test::infer1(Op::cast, {x}, {{Attr::dtype, D::Int8}}) == T(D::Int8, {2, 3}));
  CHECK(test::infer1(Op::fft_r2c, {T(D::Float64, {4, 9})},
                     {{Attr::axes, std::vector<int64_t>{1}}}) == T(D::Complex128, {4, 5}));
  CHECK(test::infer1(Op::fft_c2r, {x}, {{Attr::axes, std::vector<int64_t>{1}}}) ==
        T(D::Float32, {2, 4}));
  CHECK(test::infer1(Op::fft_c2c, {T(D::BFloat16, {5})},
                     {{Attr::axes, std::vector<int64_t>{0}},
                      {Attr::shape, std::vector<int64_t>{8}}}) == T(D::Complex64, {8}));
}

TEST_CASE("every op not defined on complex rejects complex inputs with a DType error naming it",
          "[infer][complex]") {
  int rejected = 0, accepted = 0;
  for (const OpInfo& info : all_ops()) {
    if (info.min_inputs == 0) continue;  // creation ops: below
    for (D c : {D::Complex64, D::Complex128}) {
      // Every input complex, and (for ops with several inputs) only the last one.
      for (bool only_last : {false, true}) {
        if (only_last && info.min_inputs < 2) continue;
        const int n = std::max(info.min_inputs, 1);
        std::vector<TensorType> types;
        for (int i = 0; i < n; ++i) {
          types.push_back(T(only_last && i + 1 < n ? D::Float32 : c, {2, 3}));
        }
        std::vector<const TensorType*> ptrs;
        for (const TensorType& t : types) ptrs.push_back(&t);
        INFO(info.name << " on " << name(c) << (only_last ? " (last input)" : ""));
        bool threw = false;
        try {
          infer(info.op, ptrs, {});
        } catch (const Error& e) {
          threw = true;
          if (!detail::accepts_complex(info.op)) {
            CHECK(e.code() == ErrorCode::DType);
            CHECK(std::string(e.what()).find(std::string(info.name)) != std::string::npos);
            CHECK(std::string(e.what()).find("complex") != std::string::npos);
          }
        }
        if (!detail::accepts_complex(info.op)) {
          CHECK(threw);
          ++rejected;
        } else {
          ++accepted;
        }
      }
    }
  }
  CHECK(rejected > 100);
  CHECK(accepted > 20);
  // Creation ops cannot make complex tensors except input/full/zeros/ones.
  for (Op op : {Op::arange, Op::eye, Op::rand, Op::randn}) {
    INFO(name(op));
    Attrs attrs{{Attr::dtype, D::Complex64}};
    try {
      infer(op, {}, attrs);
      FAIL("inferred a complex " << name(op));
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::DType);
    }
  }
  CHECK(test::infer1(Op::full, {},
                     {{Attr::shape, std::vector<int64_t>{2}},
                      {Attr::value, 1.5},
                      {Attr::dtype, D::Complex128}}) == T(D::Complex128, {2}));
}

}  // namespace
}  // namespace tensord::ir
