// When a CUDA reduction cuts its rows into pieces (engine/backends/cuda/loop_ir_launch.h): a
// few long rows do, many rows or short ones do not, and only where partial results lose
// nothing. Host logic: no GPU needed.
#include <catch2/catch.hpp>

#include <vector>

#include "engine/backends/cuda/loop_ir_launch.h"

namespace tensord::cuda::test {
namespace {

using ir::DType;
using ir::Op;
using Ints = std::vector<int64_t>;

TEST_CASE("a full sum of 64M floats is cut into pieces that divide the row") {
  const Ints shape{int64_t{64} << 20}, strides{1};
  const RowSplit s = split_rows(shape, strides, 1, Op::sum, DType::Float32, DType::Float32, 132);
  CHECK(s.chunks > 132);
  CHECK(s.row_length % s.chunks == 0);
  CHECK(s.row_length / s.chunks >= 4096);
  CHECK(s.step == 1);
}

TEST_CASE("reduced dimensions merge into one run, or the row is not cut") {
  // (4, 1024, 1024) reducing the last two, contiguous: one run of 2^20 per row.
  const RowSplit merged = split_rows(Ints{4, 1024, 1024}, Ints{1 << 20, 1024, 1}, 2, Op::max,
                                     DType::Float16, DType::Float16, 132);
  CHECK(merged.chunks > 1);
  CHECK(merged.row_length == 1 << 20);
  // The same reduced dimensions transposed: no single step walks them.
  const RowSplit transposed = split_rows(Ints{4, 1024, 1024}, Ints{1 << 20, 1, 1024}, 2, Op::max,
                                         DType::Float16, DType::Float16, 132);
  CHECK(transposed.chunks == 1);
}

TEST_CASE("many rows, short rows and lossy partial sums are left whole") {
  CHECK(split_rows(Ints{4096, 4096}, Ints{4096, 1}, 1, Op::sum, DType::Float32, DType::Float32, 132)
            .chunks == 1);
  CHECK(split_rows(Ints{1000}, Ints{1}, 1, Op::sum, DType::Float32, DType::Float32, 132).chunks ==
        1);
  // A float16 sum accumulates in float and rounds once; partial sums would round twice.
  CHECK(
      split_rows(Ints{1 << 24}, Ints{1}, 1, Op::sum, DType::Float16, DType::Float16, 132).chunks ==
      1);
  // Integer sums into int64 wrap the same way in any order.
  CHECK(split_rows(Ints{1 << 24}, Ints{1}, 1, Op::sum, DType::Int32, DType::Int64, 132).chunks > 1);
}

TEST_CASE("a prime row length has no divisor to cut at") {
  const int64_t prime = 16777259;  // the first prime after 2^24
  CHECK(split_rows(Ints{prime}, Ints{1}, 1, Op::sum, DType::Float64, DType::Float64, 132).chunks ==
        1);
}

}  // namespace
}  // namespace tensord::cuda::test
