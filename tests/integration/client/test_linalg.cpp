// tensord::linalg through the C++ client against the real daemon: the client-side composites
// (einsum, tensordot, multi_dot), a multi-output factorization synced once, and run-time errors
// naming the op at the recording line.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/integration/client/client_fixture.h"

using tensord::test::ClientFixture;
namespace la = tensord::linalg;

namespace {

void check_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(std::fabs(got[i] - want[i]) <= tol);
}

}  // namespace

TEST_CASE("linalg: einsum, tensordot and multi_dot record matmul composites", "[client][linalg]") {
  ClientFixture f;
  auto& s = f.session;
  auto a = s.from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto b = s.from_vector<double>({1, 0, 2, 1, 0, 3}, {3, 2});
  const std::vector<double> ab = {5, 11, 14, 23};  // a @ b
  check_close(la::einsum("ij,jk->ik", {a, b}).to_vector<double>(), ab, 1e-12);
  check_close(la::tensordot(a, b, 1).to_vector<double>(), ab, 1e-12);
  check_close(la::multi_dot({a, b}).to_vector<double>(), ab, 1e-12);
  check_close(la::einsum("ii", {la::matmul(a, b)}).to_vector<double>(), {28}, 1e-12);
  check_close(la::einsum("ij->j", {a}).to_vector<double>(), {5, 7, 9}, 1e-12);
  CHECK_THROWS_AS(la::einsum("ij,jk->ik", {a, a}), tensord::Error);
}

TEST_CASE("linalg: einsum broadcasts size-1 dims and ellipses as numpy", "[client][linalg]") {
  ClientFixture f;
  auto& s = f.session;
  auto col = s.from_vector<double>({1, 2}, {2, 1});                  // (2, 1): j has size 1
  auto b = s.from_vector<double>({1, 2, 3, 4, 5, 6}, {3, 2});        // j has size 3
  // sum_j col[i, 0] b[j, k] = col[i] * (9, 12)
  check_close(la::einsum("ij,jk->ik", {col, b}).to_vector<double>(), {9, 12, 18, 24}, 1e-12);
  // ellipses (2, 1) and (3,) broadcast to (2, 3); i contracted
  auto x = s.from_vector<double>({1, 1, 2, 2}, {2, 1, 2});
  auto y = s.from_vector<double>({1, 0, 0, 1, 1, 1}, {3, 2});
  const auto e = la::einsum("...i,...i->...", {x, y});
  CHECK(e.shape() == tensord::ir::Shape{2, 3});
  check_close(e.to_vector<double>(), {1, 1, 2, 2, 2, 4}, 1e-12);
  CHECK_THROWS_AS(la::einsum("ij,jk->ik", {b, b}), tensord::Error);  // sizes 2 and 3
}

TEST_CASE("linalg: lstsq's four outputs from one node", "[client][linalg]") {
  ClientFixture f;
  auto& s = f.session;
  // y = 1 + 2 t fitted at t = 0, 1, 2 with one point off the line by +1: residual 2/3.
  auto a = s.from_vector<double>({1, 0, 1, 1, 1, 2}, {3, 2});
  auto b = s.from_vector<double>({1, 4, 5}, {3, 1});
  la::Lstsq r = la::lstsq(a, b);
  check_close(r.solution.to_vector<double>(), {4.0 / 3, 2}, 1e-12);
  check_close(r.residuals.to_vector<double>(), {2.0 / 3}, 1e-12);
  CHECK(r.rank.item<int64_t>() == 2);
  CHECK(r.singular_values.shape() == tensord::ir::Shape{2});
  // rank-deficient: residuals are empty, as torch.linalg.lstsq's
  auto low = s.from_vector<double>({1, 2, 2, 4, 3, 6}, {3, 2});
  la::Lstsq d = la::lstsq(low, b);
  CHECK(d.rank.item<int64_t>() == 1);
  CHECK(d.residuals.shape() == tensord::ir::Shape{0});
}

TEST_CASE("linalg: qr's outputs come from one run; inv of a singular matrix fails",
          "[client][linalg]") {
  ClientFixture f;
  auto& s = f.session;
  auto x = s.from_vector<double>({2, 1, 1, 3, 0, 1}, {3, 2});
  la::QR qr = la::qr(x);
  const uint64_t runs = s.stats().runs;
  check_close(la::matmul(qr.Q, qr.R).to_vector<double>(), {2, 1, 1, 3, 0, 1}, 1e-12);
  CHECK(s.stats().runs == runs + 1);
  CHECK(qr.R.materialized());

  auto singular = s.from_vector<double>({1, 2, 2, 4}, {2, 2});
  auto y = la::inv(singular);
  try {
    y.to_vector<double>();
    FAIL("inv of a singular matrix returned a value");
  } catch (const tensord::Error& e) {
    CHECK(e.code() == tensord::ErrorCode::Shape);
    CHECK_THAT(e.what(), Catch::Contains("inv") && Catch::Contains("singular"));
  }
  CHECK(la::det(singular).item<double>() == 0.0);  // the session goes on
}
