// lstsq through the CUDA backend's solver family with its kernels run on the host
// (movement_emulation.cpp) and cuSOLVER's routines replayed by LAPACK (solver_emulation.cpp),
// against the CPU backend's gelsd: the solution, the residuals, the rank and the singular values
// of tall, wide, rank-deficient, broadcast and empty problems, and a given rcond.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "engine/backends/cpu/cpu_backend.h"
#include "engine/backends/cuda/cuda_ops.h"
#include "engine/ir/op.h"
#include "tests/unit/cuda/emulated_harness.h"

namespace tensord::cuda::test {
namespace {

using engine::TensorValue;
using ir::Attr;
using ir::DType;
using ir::Op;
using ir::Shape;

TensorValue empty(const ir::TensorType& type) {
  return TensorValue::contiguous(h().cpu.allocate(std::max<size_t>(type.nbytes(), 16)), type);
}

// A pseudo-random matrix batch; `dependent` makes the last column the sum of the first two.
TensorValue matrix(DType t, Shape shape, uint32_t seed, bool dependent = false) {
  TensorValue v = empty(ir::TensorType{t, shape});
  const int64_t cols = shape.back(), count = v.type.numel();
  uint32_t s = seed;
  for (int64_t i = 0; i < count; ++i) {
    s = s * 1664525u + 1013904223u;
    double x = static_cast<double>(static_cast<int>(s >> 16) % 2001 - 1000) / 500.0;
    if (dependent && cols >= 3 && i % cols == cols - 1) {
      x = (t == DType::Float64 ? v.data<double>()[i - cols + 1] + v.data<double>()[i - cols + 2]
                               : static_cast<double>(v.data<float>()[i - cols + 1]) +
                                     static_cast<double>(v.data<float>()[i - cols + 2]));
    }
    if (t == DType::Float64) {
      v.data<double>()[i] = x;
    } else {
      v.data<float>()[i] = static_cast<float>(x);
    }
  }
  return v;
}

double at(const TensorValue& v, int64_t i) {
  switch (v.type.dtype) {
    case DType::Float64:
      return v.data<double>()[i];
    case DType::Float32:
      return v.data<float>()[i];
    default:
      return static_cast<double>(v.data<int64_t>()[i]);
  }
}

void same_lstsq(const TensorValue& a, const TensorValue& b, const ir::Attrs& attrs = {}) {
  ir::Node node;
  node.op = Op::lstsq;
  node.attrs = attrs;
  const ir::TensorType* types[] = {&a.type, &b.type};
  const std::vector<ir::TensorType> outs = ir::infer(Op::lstsq, types, attrs);
  REQUIRE(outs.size() == 4);
  std::vector<TensorValue> want, got;
  for (const ir::TensorType& t : outs) {
    want.push_back(empty(t));
    got.push_back(empty(t));
  }
  const TensorValue in[] = {a, b};
  h().cpu.run(node, in, want);
  REQUIRE(run_solver(h().ctx, node, in, got));
  const double tol = a.type.dtype == DType::Float64 ? 1e-9 : 2e-3;
  const char* names[] = {"solution", "residuals", "rank", "singular_values"};
  for (size_t k = 0; k < 4; ++k) {
    INFO("lstsq of A " << ir::to_string(a.type.shape) << " B " << ir::to_string(b.type.shape) << " "
                       << ir::name(a.type.dtype) << ": " << names[k]);
    for (int64_t i = 0; i < want[k].type.numel(); ++i) {
      INFO("element " << i << ": CPU " << at(want[k], i) << ", CUDA " << at(got[k], i));
      CHECK(std::fabs(at(want[k], i) - at(got[k], i)) <= tol * (1 + std::fabs(at(want[k], i))));
    }
  }
}

TEST_CASE("emulated: lstsq's solution, residuals, rank and singular values as the CPU's gelsd") {
  for (DType t : {DType::Float64, DType::Float32}) {
    same_lstsq(matrix(t, {5, 3}, 1), matrix(t, {5, 2}, 2));           // tall: residuals
    same_lstsq(matrix(t, {3, 5}, 3), matrix(t, {3, 2}, 4));           // wide: minimum norm
    same_lstsq(matrix(t, {6, 3}, 5, true), matrix(t, {6, 2}, 6));     // rank 2 of 3
    same_lstsq(matrix(t, {2, 1, 4, 3}, 7), matrix(t, {3, 4, 2}, 8));  // batch (2, 3)
    same_lstsq(matrix(t, {4, 3}, 9), matrix(t, {4, 0}, 10));          // no right-hand side
    same_lstsq(matrix(t, {4, 0}, 11), matrix(t, {4, 2}, 12));         // no unknowns
    same_lstsq(matrix(t, {0, 3}, 13), matrix(t, {0, 2}, 14));         // no equations
    ir::Attrs rcond;
    rcond.set(Attr::rtol, 0.5);  // cuts the smaller singular values: a lower rank
    same_lstsq(matrix(t, {6, 4}, 15), matrix(t, {6, 1}, 16), rcond);
  }
}

}  // namespace
}  // namespace tensord::cuda::test
