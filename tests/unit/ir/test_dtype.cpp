// Promotion tables, checked cell by cell against the rules in dtype.h rather than a copy of
// the implementation.
#include <array>

#include "tests/unit/ir/ir_test_util.h"

namespace tensord::ir {
namespace {

using D = DType;
// The real dtypes; complex64/complex128 (issue 4) are checked in test_complex.cpp.
constexpr int kNumRealDTypes = kNumDTypes - 2;

// The whole 10x10 table, written out by hand from the Array API table (within a kind) and
// PyTorch's cross-kind rule (the float operand wins; integers beat bool).
constexpr D b = D::Bool, i8 = D::Int8, u8 = D::UInt8, i16 = D::Int16, i32 = D::Int32,
            i64 = D::Int64, f16 = D::Float16, bf = D::BFloat16, f32 = D::Float32, f64 = D::Float64;
constexpr std::array<std::array<D, 10>, 10> kTable{{
    //        b    i8   u8   i16  i32  i64  f16  bf   f32  f64
    /* b   */ {b, i8, u8, i16, i32, i64, f16, bf, f32, f64},
    /* i8  */ {i8, i8, i16, i16, i32, i64, f16, bf, f32, f64},
    /* u8  */ {u8, i16, u8, i16, i32, i64, f16, bf, f32, f64},
    /* i16 */ {i16, i16, i16, i16, i32, i64, f16, bf, f32, f64},
    /* i32 */ {i32, i32, i32, i32, i32, i64, f16, bf, f32, f64},
    /* i64 */ {i64, i64, i64, i64, i64, i64, f16, bf, f32, f64},
    /* f16 */ {f16, f16, f16, f16, f16, f16, f16, f32, f32, f64},
    /* bf  */ {bf, bf, bf, bf, bf, bf, f32, bf, f32, f64},
    /* f32 */ {f32, f32, f32, f32, f32, f32, f32, f32, f32, f64},
    /* f64 */ {f64, f64, f64, f64, f64, f64, f64, f64, f64, f64},
}};

TEST_CASE("promote matches the table for every pair and is symmetric", "[dtype]") {
  for (int i = 0; i < kNumRealDTypes; ++i) {
    for (int j = 0; j < kNumRealDTypes; ++j) {
      D a = static_cast<D>(i), c = static_cast<D>(j);
      INFO(name(a) << " + " << name(c));
      CHECK(promote(a, c) == kTable[i][j]);
      CHECK(promote(a, c) == promote(c, a));
    }
  }
}

TEST_CASE("promote follows the stated rules", "[dtype]") {
  for (int i = 0; i < kNumRealDTypes; ++i) {
    for (int j = 0; j < kNumRealDTypes; ++j) {
      D a = static_cast<D>(i), c = static_cast<D>(j), p = promote(a, c);
      INFO(name(a) << " + " << name(c) << " = " << name(p));
      if (a == c) CHECK(p == a);
      if (a == D::Bool) CHECK(p == c);
      if (is_floating(a) && !is_floating(c)) CHECK(p == a);
      if (is_floating(a) && is_floating(c))
        CHECK(itemsize(p) >= std::max(itemsize(a), itemsize(c)));
      if (is_integral(a) && is_integral(c)) {
        CHECK(is_integral(p));
        // The result holds every value of both operands.
        CHECK(itemsize(p) >= std::max(itemsize(a), itemsize(c)));
        if (is_signed(a) != is_signed(c)) CHECK(is_signed(p));
      }
    }
  }
}

TEST_CASE("scalar promotion keeps the tensor's kind unless the scalar is of a higher kind",
          "[dtype]") {
  for (int i = 0; i < kNumRealDTypes; ++i) {
    D t = static_cast<D>(i);
    INFO(name(t));
    CHECK(promote_with_scalar(t, ScalarKind::Bool) == t);
    CHECK(promote_with_scalar(t, ScalarKind::Int) == (t == D::Bool ? D::Int64 : t));
    CHECK(promote_with_scalar(t, ScalarKind::Float) == (is_floating(t) ? t : D::Float32));
  }
}

TEST_CASE("dtype names round-trip", "[dtype]") {
  for (int i = 0; i < kNumRealDTypes; ++i) {
    D t = static_cast<D>(i);
    CHECK(dtype_from_name(name(t)) == t);
  }
  CHECK_FALSE(dtype_from_name("float128").has_value());
  CHECK(itemsize(D::BFloat16) == 2);
  CHECK(itemsize(D::Int64) == 8);
}

}  // namespace
}  // namespace tensord::ir
