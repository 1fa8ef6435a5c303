// Integer matmul of the CUDA backend (int_matmul.h) against the CPU backend, byte for byte, with
// its tiled kernel run on the host (movement_emulation.cpp: one block of 16 x 16 real threads
// meeting at __syncthreads, walking every tile). Values over the whole range of each type, so
// the sums wrap; shapes across the 64 x 64 tiles and 16-deep slices; transposed, strided and
// broadcast operands; empty dims; operands of other dtypes. And the problem description.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "engine/backends/cuda/cuda_ops.h"
#include "engine/backends/cuda/int_matmul.h"
#include "tests/unit/cuda/emulated_harness.h"

namespace tensord::cuda::test {
namespace {

using engine::TensorValue;
using ir::DType;
using ir::Shape;

using Ints = std::vector<int64_t>;

// A contiguous tensor of `shape` whose bytes are a pseudo-random sequence (every bit pattern of
// the type: extremes included).
TensorValue random(DType t, Shape shape, uint64_t seed) {
  ir::TensorType type{t, std::move(shape)};
  TensorValue v =
      TensorValue::contiguous(h().cpu.allocate(std::max<size_t>(type.nbytes(), 16)), type);
  auto* p = static_cast<unsigned char*>(v.raw());
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (size_t i = 0; i < type.nbytes(); ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    p[i] = static_cast<unsigned char>(x >> 56);
  }
  if (t == DType::Bool) {
    for (size_t i = 0; i < type.nbytes(); ++i) p[i] &= 1;
  }
  return v;
}

// `v` seen with its last two dims swapped (a transposed view of the same bytes).
TensorValue transposed(const TensorValue& v) {
  TensorValue t = v;
  const size_t r = v.type.shape.size();
  std::swap(t.type.shape[r - 1], t.type.shape[r - 2]);
  std::swap(t.strides[r - 1], t.strides[r - 2]);
  return t;
}

ir::Node matmul_node() {
  ir::Node n;
  n.op = ir::Op::matmul;
  return n;
}

// a @ b on both backends; the outputs' bytes must agree. The CUDA output starts as garbage, so
// an element it does not write is caught.
void same(const TensorValue& a, const TensorValue& b, DType out_t, Shape out_shape) {
  ir::TensorType type{out_t, std::move(out_shape)};
  const size_t bytes = std::max<size_t>(type.nbytes(), 16);
  TensorValue want = TensorValue::contiguous(h().cpu.allocate(bytes), type);
  TensorValue got = TensorValue::contiguous(h().cpu.allocate(bytes), type);
  std::memset(want.raw(), 0x5a, bytes);
  std::memset(got.raw(), 0xa5, bytes);
  const TensorValue in[] = {a, b};
  h().cpu.run(matmul_node(), in, {&want, 1});
  REQUIRE(run_int_matmul(h().ctx, matmul_node(), in, {&got, 1}));
  CHECK(std::memcmp(want.raw(), got.raw(), type.nbytes()) == 0);
}

}  // namespace

TEST_CASE("integer matmul: the problem of 1-D, batched and broadcast operands") {
  std::string why;
  // (2, 1, 3, 4) @ (5, 4, 6) -> (2, 5, 3, 6): batch dims (2, 5), a broadcast along 5, b along 2.
  auto p = describe_int_matmul(Ints{2, 1, 3, 4}, Ints{12, 12, 4, 1}, Ints{5, 4, 6}, Ints{24, 6, 1},
                               Ints{2, 5, 3, 6}, why);
  REQUIRE(p);
  CHECK(p->m == 3);
  CHECK(p->k == 4);
  CHECK(p->n == 6);
  CHECK(p->batches == 10);
  REQUIRE(p->batch.rank == 2);
  CHECK(p->batch.size[0] == 2);
  CHECK(p->batch.a[0] == 12);
  CHECK(p->batch.b[0] == 0);
  CHECK(p->batch.size[1] == 5);
  CHECK(p->batch.a[1] == 0);
  CHECK(p->batch.b[1] == 24);
  // 1-D operands: a row vector and a column vector; the dims they add are not in the output.
  p = describe_int_matmul(Ints{4}, Ints{3}, Ints{4}, Ints{-2}, Ints{}, why);
  REQUIRE(p);
  CHECK((p->m == 1 && p->n == 1 && p->k == 4));
  CHECK(p->a_cs == 3);
  CHECK(p->b_rs == -2);
  CHECK(p->batches == 1);
  // An empty batch dim: no batches.
  p = describe_int_matmul(Ints{0, 3, 4}, Ints{12, 4, 1}, Ints{4, 5}, Ints{5, 1}, Ints{0, 3, 5},
                          why);
  REQUIRE(p);
  CHECK(p->batches == 0);

  CHECK_FALSE(describe_int_matmul(Ints{3, 4}, Ints{4, 1}, Ints{5, 6}, Ints{6, 1}, Ints{3, 6}, why));
  CHECK(why.find("inner dims differ (4 and 5)") != std::string::npos);
  CHECK_FALSE(describe_int_matmul(Ints{2, 3, 4}, Ints{12, 4, 1}, Ints{3, 4, 5}, Ints{20, 5, 1},
                                  Ints{3, 3, 5}, why));
  CHECK(why.find("do not broadcast") != std::string::npos);
  CHECK_FALSE(describe_int_matmul(Ints{3, 4}, Ints{4, 1}, Ints{4, 5}, Ints{5, 1}, Ints{3, 6}, why));
  CHECK(why.find("output's shape") != std::string::npos);
  CHECK_FALSE(describe_int_matmul(Ints{}, Ints{}, Ints{4}, Ints{1}, Ints{}, why));
}

TEST_CASE("integer matmul on the host emulation equals the CPU's, wrapping included") {
  for (DType t : int_matmul_dtypes()) {
    INFO(ir::name(t));
    // Across tiles in every dim (64 x 64 output tiles, 16-deep slices), full-range values.
    same(random(t, {70, 33}, 1), random(t, {33, 130}, 2), t, {70, 130});
    // Transposed operands (column-major views) and a batch broadcast.
    same(transposed(random(t, {2, 1, 9, 5}, 3)), transposed(random(t, {3, 7, 9}, 4)), t,
         {2, 3, 5, 7});
    // 1-D operands.
    same(random(t, {17}, 5), random(t, {17, 4}, 6), t, {4});
    same(random(t, {3, 17}, 7), random(t, {17}, 8), t, {3});
    // An empty sum writes zeros; empty outputs write nothing.
    same(random(t, {2, 3, 0}, 9), random(t, {2, 0, 5}, 10), t, {2, 3, 5});
    same(random(t, {0, 4}, 11), random(t, {4, 5}, 12), t, {0, 5});
  }
}

TEST_CASE("integer matmul casts operands of other dtypes to the output's first") {
  same(random(DType::Int8, {5, 6}, 13), random(DType::UInt8, {6, 4}, 14), DType::Int16, {5, 4});
  same(random(DType::Bool, {5, 6}, 15), random(DType::Int64, {6, 4}, 16), DType::Int64, {5, 4});
  same(random(DType::Int32, {5, 6}, 17), random(DType::Bool, {6, 4}, 18), DType::Int32, {5, 4});
}

TEST_CASE("integer matmul leaves float and complex outputs to cuBLASLt") {
  TensorValue a = random(DType::Float32, {2, 2}, 19);
  TensorValue out = random(DType::Float32, {2, 2}, 20);
  const TensorValue in[] = {a, a};
  CHECK_FALSE(run_int_matmul(h().ctx, matmul_node(), in, {&out, 1}));
  ir::Node add;
  add.op = ir::Op::add;
  TensorValue i = random(DType::Int32, {2, 2}, 21);
  TensorValue io = random(DType::Int32, {2, 2}, 22);
  const TensorValue ii[] = {i, i};
  CHECK_FALSE(run_int_matmul(h().ctx, add, ii, {&io, 1}));
}

}  // namespace tensord::cuda::test
