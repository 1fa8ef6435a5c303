// Helpers shared by the IR unit tests.
#pragma once

#include <catch2/catch.hpp>
#include <initializer_list>
#include <string>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/ir/op.h"

namespace tensord::ir::test {

inline TensorType T(DType dtype, Shape shape) {
  return TensorType{dtype, std::move(shape)};
}
inline TensorType F32(Shape shape) {
  return T(DType::Float32, std::move(shape));
}

// Infers `op` over inputs of the given types and returns its single output.
inline TensorType infer1(Op op, std::initializer_list<TensorType> inputs, const Attrs& attrs = {}) {
  std::vector<const TensorType*> ptrs;
  for (const TensorType& t : inputs) ptrs.push_back(&t);
  std::vector<TensorType> out = infer(op, ptrs, attrs);
  REQUIRE(out.size() == 1);
  return out[0];
}

// The error `fn` throws, or nullopt-like failure when it throws none.
template <typename Fn>
Error error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  FAIL("expected a tensord::Error");
  return Error(ErrorCode::Internal, "unreachable");
}

}  // namespace tensord::ir::test

// Checks that `expr` throws a tensord::Error with `code` whose message contains `text`.
#define REQUIRE_IR_ERROR(expr, expected_code, text)                          \
  do {                                                                       \
    ::tensord::Error ir_err_ = ::tensord::ir::test::error_of([&] { expr; }); \
    INFO(ir_err_.what());                                                    \
    CHECK(ir_err_.code() == (expected_code));                                \
    CHECK_THAT(ir_err_.message(), Catch::Contains(text));                    \
  } while (0)
