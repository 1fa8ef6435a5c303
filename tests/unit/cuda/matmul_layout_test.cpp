// How strided matmuls map onto one cuBLASLt call (matmul_layout.h).
#include <catch2/catch.hpp>

#include <vector>

#include "engine/backends/cuda/matmul_layout.h"

namespace tensord::cuda::test {
namespace {

using V = std::vector<int64_t>;

std::optional<LtProblem> describe(V as, V ast, V bs, V bst, V out) {
  std::string why;
  auto p = describe_lt_matmul(as, ast, bs, bst, out, why);
  if (!p) CHECK(!why.empty());
  return p;
}

TEST_CASE("row-major C = A B becomes column-major C^T = B^T A^T") {
  // a (2, 3), b (3, 4), both contiguous.
  auto p = describe({2, 3}, {3, 1}, {3, 4}, {4, 1}, {2, 4});
  REQUIRE(p);
  CHECK(p->m == 4);
  CHECK(p->n == 2);
  CHECK(p->k == 3);
  CHECK(p->batch == 1);
  // cuBLASLt's A is our b stored as its transpose: 4 x 3, ld 4, no op.
  CHECK((p->a.rows == 4 && p->a.cols == 3 && p->a.ld == 4 && !p->a.transpose));
  CHECK((p->b.rows == 3 && p->b.cols == 2 && p->b.ld == 3 && !p->b.transpose));
  CHECK((p->c.rows == 4 && p->c.cols == 2 && p->c.ld == 4));
}

TEST_CASE("a transposed view becomes an op T with the same leading dimension") {
  // b is the transpose of a contiguous (4, 3): shape (3, 4), strides (1, 3).
  auto p = describe({2, 3}, {3, 1}, {3, 4}, {1, 3}, {2, 4});
  REQUIRE(p);
  CHECK((p->a.rows == 3 && p->a.cols == 4 && p->a.ld == 3 && p->a.transpose));
}

TEST_CASE("1-D operands are a row and a column") {
  auto p = describe({3}, {1}, {3}, {1}, {});
  REQUIRE(p);
  CHECK((p->m == 1 && p->n == 1 && p->k == 3));
  auto q = describe({3}, {1}, {3, 5}, {5, 1}, {5});
  REQUIRE(q);
  CHECK((q->m == 5 && q->n == 1 && q->k == 3));
  auto r = describe({2, 3}, {3, 1}, {3}, {2}, {2});  // b strided by 2: a column with ld 2
  REQUIRE(r);
  CHECK((r->m == 1 && r->n == 2 && r->a.ld >= 1));
}

TEST_CASE("batch dims collapse to one stride or broadcast with stride 0") {
  // a (2, 3, 4, 5) contiguous; b (5, 6) broadcast over the batch.
  auto p = describe({2, 3, 4, 5}, {60, 20, 5, 1}, {5, 6}, {6, 1}, {2, 3, 4, 6});
  REQUIRE(p);
  CHECK(p->batch == 6);
  CHECK(p->b.batch_stride == 20);
  CHECK(p->a.batch_stride == 0);
  CHECK(p->c.batch_stride == 24);
  // b (1, 5, 6) broadcasts the same way; a (3, 1, 4, 5) against b (2, 5, 6) does not collapse.
  CHECK(describe({2, 3, 4, 5}, {60, 20, 5, 1}, {1, 5, 6}, {30, 6, 1}, {2, 3, 4, 6}));
  CHECK_FALSE(describe({3, 1, 4, 5}, {20, 20, 5, 1}, {2, 5, 6}, {30, 6, 1}, {3, 2, 4, 6}));
}

TEST_CASE("layouts that need a copy first are refused with a reason") {
  // Neither dim unit-strided (every other column of a wider matrix).
  CHECK_FALSE(describe({2, 3}, {6, 2}, {3, 4}, {4, 1}, {2, 4}));
  // Negative strides (a flip).
  CHECK_FALSE(describe({2, 3}, {-3, 1}, {3, 4}, {4, 1}, {2, 4}));
  // Batch dims in the wrong order (a permuted batch).
  CHECK_FALSE(describe({2, 3, 4, 5}, {20, 40, 5, 1}, {5, 6}, {6, 1}, {2, 3, 4, 6}));
}

}  // namespace
}  // namespace tensord::cuda::test
